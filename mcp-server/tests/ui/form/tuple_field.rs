use mcp_server::ElicitForm;

/// Where?
#[derive(ElicitForm)]
struct Position {
    at: (i32, i32),
}

fn main() {}
