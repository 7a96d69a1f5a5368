use mcp_server::tool;

#[tool(scopes = [notes_write])]
fn write() -> String {
    String::new()
}

fn main() {}
