use mcp_server::resource;

/// `rev` is not in the template.
#[resource("notes://{id}")]
fn note(id: String, rev: Option<String>) -> String {
    format!("{id}{rev:?}")
}

fn main() {}
