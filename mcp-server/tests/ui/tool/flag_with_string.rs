use mcp_server::tool;

#[tool(read_only = "yes")]
fn look() {}

fn main() {}
