use mcp_server::resource;

/// `{id}` is always there when the template matches.
#[resource("notes://{id}")]
fn note(id: Option<String>) -> String {
    id.unwrap_or_default()
}

fn main() {}
