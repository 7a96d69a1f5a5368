use mcp_server::tool;

#[tool]
fn ping() {}

mod other {
    use mcp_server::tool;

    #[tool(name = "ping")]
    pub fn pong() {}
}

mcp_server::tool_set! {
    struct Tools { ping, other::pong }
}

fn main() {}
