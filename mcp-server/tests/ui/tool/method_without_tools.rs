use mcp_server::tool;

struct Server;

impl Server {
    #[tool]
    fn ping(&self) -> String {
        String::from("pong")
    }
}

fn main() {}
