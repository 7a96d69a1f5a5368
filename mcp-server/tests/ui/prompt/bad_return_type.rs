use mcp_server::prompt;

/// A number is not a prompt.
#[prompt]
fn answer() -> u32 {
    42
}

fn main() {}
