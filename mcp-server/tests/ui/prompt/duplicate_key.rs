use mcp_server::prompt;

/// `title` twice.
#[prompt(title = "Greeting", title = "Hello")]
fn greet(name: String) -> String {
    name
}

fn main() {}
