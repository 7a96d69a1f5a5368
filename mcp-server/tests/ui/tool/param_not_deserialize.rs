use mcp_server::tool;

#[derive(schemars::JsonSchema)]
struct Point {
    x: i32,
}

#[tool]
fn plot(point: Point) -> String {
    point.x.to_string()
}

fn main() {}
