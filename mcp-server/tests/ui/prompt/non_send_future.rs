use std::rc::Rc;

use mcp_server::prompt;

async fn pause() {}

/// The future is held across requests' threads, so it must be `Send`.
#[prompt]
async fn greet(name: String) -> String {
    let shared = Rc::new(name);
    pause().await;
    shared.to_string()
}

fn main() {}
