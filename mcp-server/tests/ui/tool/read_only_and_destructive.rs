use mcp_server::tool;

#[tool(read_only, destructive)]
fn wipe() {}

fn main() {}
