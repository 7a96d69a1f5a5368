use mcp_server::tool;

#[tool]
fn greet(#[elicit(message = "Who are you?")] name: String) -> String {
    name
}

fn main() {}
