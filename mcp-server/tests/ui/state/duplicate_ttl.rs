use mcp_server::RequestState;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, RequestState)]
#[state(ttl_secs = 30)]
#[state(ttl_secs = 60)]
struct Checkout {
    order_id: String,
}

fn main() {}
