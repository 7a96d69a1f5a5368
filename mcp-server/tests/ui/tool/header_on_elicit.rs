use mcp_server::elicit::Elicit;
use mcp_server::{tool, ElicitForm};

/// Proceed?
#[derive(ElicitForm)]
struct Proceed {
    ok: bool,
}

#[tool]
fn go(#[header("Proceed")] proceed: Elicit<Proceed>) -> bool {
    proceed.is_accepted()
}

fn main() {}
