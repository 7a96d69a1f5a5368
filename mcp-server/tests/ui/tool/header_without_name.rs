use mcp_server::tool;

#[tool]
fn route(#[header] region: String) -> String {
    region
}

fn main() {}
