use mcp_server::resource;

/// A resource URI starts with a scheme.
#[resource("notes/{id}")]
fn note(id: String) -> String {
    id
}

fn main() {}
