use mcp_server::RequestState;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, RequestState)]
#[state(ttl_secs)]
struct Checkout {
    order_id: String,
}

fn main() {}
