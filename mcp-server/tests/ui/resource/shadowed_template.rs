use mcp_server::{resource, resources};

struct Server;

#[resources]
impl Server {
    /// Tried first.
    #[resource("notes://{id}")]
    fn by_id(&self, id: String) -> String {
        id
    }

    /// Matches the same URIs, so it is never reached.
    #[resource("notes://{name}")]
    fn by_name(&self, name: String) -> String {
        name
    }
}

fn main() {}
