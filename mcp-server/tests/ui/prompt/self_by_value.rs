use mcp_server::{prompt, prompts};

struct Server;

#[prompts]
impl Server {
    /// No request can own the server.
    #[prompt]
    fn consume(self) -> String {
        String::new()
    }
}

fn main() {}
