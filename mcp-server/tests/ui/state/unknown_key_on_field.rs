use mcp_server::RequestState;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, RequestState)]
struct Checkout {
    #[state(bnid)]
    order_id: String,
}

fn main() {}
