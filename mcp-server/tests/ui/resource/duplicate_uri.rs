use mcp_server::{resource, resources};

struct Server;

#[resources]
impl Server {
    /// First.
    #[resource("notes://index")]
    fn index(&self) -> String {
        String::new()
    }

    /// Second, same URI.
    #[resource("notes://index")]
    fn index_again(&self) -> String {
        String::new()
    }
}

fn main() {}
