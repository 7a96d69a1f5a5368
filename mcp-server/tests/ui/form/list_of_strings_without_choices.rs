use mcp_server::ElicitForm;

/// Tags?
#[derive(ElicitForm)]
struct Tags {
    tags: Vec<String>,
}

fn main() {}
