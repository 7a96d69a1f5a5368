use mcp_server::resource;

/// Only functions can be resources.
#[resource("notes://readme")]
const README: &str = "read me";

fn main() {}
