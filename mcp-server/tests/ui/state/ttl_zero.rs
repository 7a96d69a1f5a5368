use mcp_server::RequestState;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, RequestState)]
#[state(ttl_secs = 0)]
struct Checkout {
    order_id: String,
}

fn main() {}
