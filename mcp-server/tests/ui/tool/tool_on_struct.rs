use mcp_server::tool;

#[tool]
struct Weather {
    city: String,
}

fn main() {}
