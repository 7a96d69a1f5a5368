use mcp_server::tool;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Point {
    x: i64,
}

#[tool]
fn plot(#[header("Point")] point: Option<Point>) -> i64 {
    point.map_or(0, |p| p.x)
}

fn main() {}
