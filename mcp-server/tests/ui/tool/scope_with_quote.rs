use mcp_server::tool;

#[tool(scopes = ["notes:\"all\""])]
fn write() -> String {
    String::new()
}

fn main() {}
