use mcp_server::RequestState;

#[derive(RequestState)]
union Bits {
    int: u32,
    float: f32,
}

fn main() {}
