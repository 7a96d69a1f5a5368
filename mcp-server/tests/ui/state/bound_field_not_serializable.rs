use mcp_server::RequestState;
use serde::{Deserialize, Serialize};

#[derive(Default)]
struct Connection;

#[derive(Serialize, Deserialize, RequestState)]
struct Checkout {
    #[serde(skip)]
    #[state(bind)]
    connection: Connection,
}

fn main() {}
