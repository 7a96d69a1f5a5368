use mcp_server::resource;

/// The expression is never closed.
#[resource("notes://{id")]
fn note(id: String) -> String {
    id
}

fn main() {}
