use mcp_server::tool;

#[tool]
fn numbers() -> impl serde::Serialize {
    vec![1, 2, 3]
}

fn main() {}
