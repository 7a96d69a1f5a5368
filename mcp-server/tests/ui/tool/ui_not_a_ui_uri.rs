use mcp_server::tool;

/// A view is a `ui://` resource, not a web page.
#[tool(ui = "https://example.com/view.html")]
fn show() -> String {
    String::new()
}

fn main() {}
