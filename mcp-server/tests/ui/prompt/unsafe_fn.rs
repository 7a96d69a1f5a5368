use mcp_server::prompt;

/// The generated handler cannot uphold a safety contract.
#[prompt]
unsafe fn greet(name: String) -> String {
    name
}

fn main() {}
