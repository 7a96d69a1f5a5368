use mcp_server::tool;

#[tool]
fn scale(#[header("Factor")] factor: f64) -> f64 {
    factor * 2.0
}

fn main() {}
