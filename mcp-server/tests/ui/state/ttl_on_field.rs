use mcp_server::RequestState;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, RequestState)]
struct Checkout {
    #[state(bind, ttl_secs = 30)]
    order_id: String,
}

fn main() {}
