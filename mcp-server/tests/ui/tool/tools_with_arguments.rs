use mcp_server::{tool, tools};

struct Server;

#[tools(prefix = "srv")]
impl Server {
    #[tool]
    fn ping(&self) {}
}

fn main() {}
