use mcp_server::{tool, tools};

struct Server;

#[tools]
impl Default for Server {
    #[tool]
    fn default() -> Self {
        Server
    }
}

fn main() {}
