use mcp_server::tool;

#[tool]
fn sum((a, b): (i64, i64)) -> i64 {
    a + b
}

fn main() {}
