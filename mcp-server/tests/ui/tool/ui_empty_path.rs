use mcp_server::tool;

/// The URI names no view.
#[tool(ui = "ui://")]
fn show() -> String {
    String::new()
}

fn main() {}
