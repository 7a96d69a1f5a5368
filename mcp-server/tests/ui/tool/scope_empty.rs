use mcp_server::tool;

#[tool(scopes = ["notes:read", ""])]
fn read() -> String {
    String::new()
}

fn main() {}
