use mcp_server::RequestState;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, RequestState)]
struct Checkout(#[state(bind)] String, u8);

fn main() {}
