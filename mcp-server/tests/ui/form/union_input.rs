use mcp_server::ElicitForm;

#[derive(ElicitForm)]
union Bits {
    int: u32,
    float: f32,
}

fn main() {}
