use mcp_server::ElicitForm;

struct Address {
    street: String,
}

/// Where should we ship it?
#[derive(ElicitForm)]
struct Shipping {
    name: String,
    address: Address,
}

fn main() {}
