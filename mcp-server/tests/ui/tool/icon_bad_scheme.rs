use mcp_server::tool;

#[tool(icon = "http://example.com/icon.png")]
fn pretty() {}

fn main() {}
