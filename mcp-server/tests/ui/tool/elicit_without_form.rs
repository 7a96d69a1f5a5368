use mcp_server::elicit::Elicit;
use mcp_server::tool;

#[tool]
fn go(proceed: Elicit) -> bool {
    true
}

fn main() {}
