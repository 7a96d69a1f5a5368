// Every mistake is reported in one pass, each at its own token.
use mcp_server::RequestState;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, RequestState)]
#[state(ttl_secs = 0, bind, lifetime = 30)]
#[state(ttl_secs = 60)]
struct Checkout {
    #[state(bind, bind)]
    order_id: String,
    #[state(ttl_secs = 5, bound)]
    amount_cents: u64,
}

fn main() {
    // The derive still provides the trait, so this line adds no error.
    let _ = <Checkout as mcp_server::state::RequestState>::TTL;
}
