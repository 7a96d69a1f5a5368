use mcp_server::ElicitForm;

#[derive(ElicitForm)]
enum Size {
    Small,
    Custom(u32),
}

fn main() {}
