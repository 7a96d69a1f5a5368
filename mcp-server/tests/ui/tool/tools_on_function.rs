use mcp_server::tools;

#[tools]
fn ping() {}

fn main() {}
