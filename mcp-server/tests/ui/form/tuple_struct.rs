use mcp_server::ElicitForm;

/// Name?
#[derive(ElicitForm)]
struct Name(String);

fn main() {}
