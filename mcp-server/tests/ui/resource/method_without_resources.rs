use mcp_server::resource;

struct Server;

impl Server {
    /// Methods are collected by `#[resources]` on the block.
    #[resource("notes://index")]
    fn index(&self) -> String {
        String::new()
    }
}

fn main() {}
