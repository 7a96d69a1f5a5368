use mcp_server::tool;

#[derive(serde::Deserialize)]
struct Point {
    x: i32,
}

#[tool]
fn plot(point: Point) -> String {
    point.x.to_string()
}

fn main() {}
