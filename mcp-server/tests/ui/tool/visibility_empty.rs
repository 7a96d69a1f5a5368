use mcp_server::tool;

/// A tool nobody may see or call.
#[tool(visibility = [])]
fn hidden() -> String {
    String::new()
}

fn main() {}
