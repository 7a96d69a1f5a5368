use mcp_server::{prompt, prompts};

struct Server;

trait Greeter {
    fn greet(&self) -> String;
}

#[prompts]
impl Greeter for Server {
    #[prompt]
    fn greet(&self) -> String {
        "hello".into()
    }
}

fn main() {}
