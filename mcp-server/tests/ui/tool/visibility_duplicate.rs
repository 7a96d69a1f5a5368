use mcp_server::tool;

/// `app` twice.
#[tool(visibility = ["app", "model", "app"])]
fn refresh() -> String {
    String::new()
}

fn main() {}
