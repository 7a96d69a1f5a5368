use mcp_server::prompt;

/// Icons are `https:` or `data:` URIs.
#[prompt(icon = "http://example.com/icon.png")]
fn greet(name: String) -> String {
    name
}

fn main() {}
