use mcp_server::tool;

#[tool(scopes = ["notes:write", "notes:read", "notes:write"])]
fn write() -> String {
    String::new()
}

fn main() {}
