use mcp_server::{tool, tools};

struct Server;

#[tools]
impl Server {
    #[tool]
    fn consume(self) {}
}

fn main() {}
