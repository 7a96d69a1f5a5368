use mcp_server::{resource, resources};

struct Server;

#[resources]
impl Server {
    /// Many mistakes at once; each is reported.
    #[resource("notes://{a}/{b}{?c}", mime_type = "text", shape = "round")]
    fn one(&self, a: Option<String>, c: String, extra: u8) -> String {
        let _ = (a, c, extra);
        String::new()
    }

    /// No URI, and a bad icon.
    #[resource(icon = "ftp://x")]
    fn two(&self) -> String {
        String::new()
    }

    /// A bad template, and `&mut self`.
    #[resource("notes://{x*}")]
    fn three(&mut self, x: String) -> String {
        x
    }
}

fn main() {}
