use mcp_server::RequestState;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, RequestState)]
struct Checkout<T> {
    #[state(bind)]
    order_id: String,
    extra: T,
}

fn main() {}
