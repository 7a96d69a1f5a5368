use mcp_server::{prompt, prompts};

struct Server;

#[prompts]
impl Server {
    /// First.
    #[prompt]
    fn greet(&self) -> String {
        "hello".into()
    }

    /// Second, renamed onto the first.
    #[prompt(name = "greet")]
    fn greet_again(&self) -> String {
        "hello again".into()
    }
}

fn main() {}
