use mcp_server::RequestState;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, RequestState)]
#[state(bind)]
struct Checkout {
    order_id: String,
}

fn main() {}
