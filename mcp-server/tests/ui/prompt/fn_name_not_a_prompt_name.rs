use mcp_server::prompt;

/// The default name is the function's, and it must fit the rule too.
#[prompt]
fn grüßen(name: String) -> String {
    name
}

fn main() {}
