use mcp_server::RequestState;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, RequestState)]
enum Step {
    Started,
    Confirmed { order_id: String },
}

fn main() {}
