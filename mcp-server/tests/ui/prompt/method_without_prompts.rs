use mcp_server::prompt;

struct Server;

impl Server {
    /// Methods are collected by `#[prompts]` on the block.
    #[prompt]
    fn greet(&self, name: String) -> String {
        name
    }
}

fn main() {}
