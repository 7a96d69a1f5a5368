use mcp_server::resource;

/// A resource needs a URI.
#[resource(name = "readme")]
fn readme() -> String {
    String::new()
}

fn main() {}
