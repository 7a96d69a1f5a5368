use mcp_server::ElicitForm;

/// How many?
#[derive(ElicitForm)]
struct Count {
    #[form(default = "three")]
    count: u32,
}

fn main() {}
