use mcp_server::{tool, tools};

struct Server;

#[tools]
impl Server {
    #[tool]
    fn search(&self) {}

    #[tool(name = "search")]
    fn find(&self) {}
}

fn main() {}
