use mcp_server::resource;

/// The URI is given both ways.
#[resource("notes://readme", uri = "notes://index")]
fn readme() -> String {
    String::new()
}

fn main() {}
