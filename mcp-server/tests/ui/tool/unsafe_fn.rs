use mcp_server::tool;

#[tool]
unsafe fn poke() {}

fn main() {}
