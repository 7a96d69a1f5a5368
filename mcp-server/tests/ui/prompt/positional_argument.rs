use mcp_server::prompt;

/// A prompt's name is a key, not a positional argument.
#[prompt("greet")]
fn greet(name: String) -> String {
    name
}

fn main() {}
