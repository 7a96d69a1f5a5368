// Only the host wraps server data; code outside cannot invent an origin.
use mcp_host::{ServerId, Untrusted};

fn main() {
    let id = ServerId::new("trusted").unwrap();
    let _fake = Untrusted::new(id, String::from("data"));
}
