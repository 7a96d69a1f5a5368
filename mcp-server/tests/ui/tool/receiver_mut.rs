use mcp_server::{tool, tools};

struct Server {
    hits: u64,
}

#[tools]
impl Server {
    #[tool]
    fn hit(&mut self) -> u64 {
        self.hits += 1;
        self.hits
    }
}

fn main() {}
