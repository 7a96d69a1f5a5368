use mcp_server::tool;

/// Looks up the weather.
#[tool(name = "get weather")]
fn weather() -> String {
    String::new()
}

fn main() {}
