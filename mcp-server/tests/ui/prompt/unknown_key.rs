use mcp_server::prompt;

/// `titel` is not a key.
#[prompt(titel = "Greeting")]
fn greet(name: String) -> String {
    name
}

fn main() {}
