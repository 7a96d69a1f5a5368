use mcp_server::{prompt, prompts};

struct Counter {
    count: u64,
}

#[prompts]
impl Counter {
    /// Requests share the server: no `&mut self`.
    #[prompt]
    fn bump(&mut self) -> String {
        self.count += 1;
        self.count.to_string()
    }
}

fn main() {}
