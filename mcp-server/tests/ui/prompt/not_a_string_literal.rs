use mcp_server::prompt;

const TITLE: &str = "Greeting";

/// Values are string literals.
#[prompt(title = TITLE)]
fn greet(name: String) -> String {
    name
}

fn main() {}
