use mcp_server::tool;

#[tool(scopes = ["notes:read", "offline_access"])]
fn read() -> String {
    String::new()
}

fn main() {}
