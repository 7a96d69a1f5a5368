use mcp_server::RequestState;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, RequestState)]
struct Checkout {
    #[state(bind = true)]
    order_id: String,
}

fn main() {}
