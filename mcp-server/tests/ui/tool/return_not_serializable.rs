use mcp_server::tool;

struct Opaque;

#[tool]
fn make() -> Opaque {
    Opaque
}

fn main() {}
