use mcp_server::ElicitForm;

/// Pick numbers.
#[derive(ElicitForm)]
struct Lottery {
    numbers: Vec<u8>,
}

fn main() {}
