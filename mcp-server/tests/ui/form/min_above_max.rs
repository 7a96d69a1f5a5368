use mcp_server::ElicitForm;

/// How many?
#[derive(ElicitForm)]
struct Count {
    #[form(min = 10, max = 1)]
    count: u32,
}

fn main() {}
