use mcp_server::tool;

#[tool]
fn route(#[header("My Region")] region: String) -> String {
    region
}

fn main() {}
