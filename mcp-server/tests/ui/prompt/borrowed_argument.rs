use mcp_server::prompt;

/// Arguments are owned.
#[prompt]
fn greet(name: &str) -> String {
    name.to_owned()
}

fn main() {}
