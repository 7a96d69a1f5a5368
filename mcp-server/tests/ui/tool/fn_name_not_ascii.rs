use mcp_server::tool;

/// Orders a coffee.
#[tool]
fn café() -> String {
    String::from("coffee")
}

fn main() {}
