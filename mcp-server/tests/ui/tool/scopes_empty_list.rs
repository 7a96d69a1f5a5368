use mcp_server::tool;

#[tool(scopes = [])]
fn read() -> String {
    String::new()
}

fn main() {}
