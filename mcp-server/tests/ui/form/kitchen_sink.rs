use std::collections::BTreeMap;

use mcp_server::ElicitForm;

struct Address {
    street: String,
}

/// Many mistakes at once; each is reported, once.
#[derive(ElicitForm)]
#[form(message = "", colour = "red")]
struct Order {
    #[form(format = "phone", min = 1)]
    name: String,
    address: Address,
    extras: BTreeMap<String, String>,
    tags: Vec<String>,
    #[form(min_length = 5, max_length = 2)]
    note: Option<String>,
}

fn main() {}
