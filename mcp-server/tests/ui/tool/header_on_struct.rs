use mcp_server::tool;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Point {
    x: i64,
}

#[tool]
fn plot(#[header("Point")] point: Point) -> i64 {
    point.x
}

fn main() {}
