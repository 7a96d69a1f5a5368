use mcp_server::tool;

#[tool(name = "")]
fn nameless() {}

fn main() {}
