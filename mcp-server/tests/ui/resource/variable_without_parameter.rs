use mcp_server::resource;

/// `{folder}` reaches no parameter.
#[resource("notes://{folder}/{id}")]
fn note(id: String) -> String {
    id
}

fn main() {}
