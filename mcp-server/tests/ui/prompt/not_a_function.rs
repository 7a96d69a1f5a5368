use mcp_server::prompt;

/// Only functions can be prompts.
#[prompt]
struct Greeting {
    text: String,
}

fn main() {}
