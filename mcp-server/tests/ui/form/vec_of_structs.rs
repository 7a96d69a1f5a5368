use mcp_server::ElicitForm;

struct Item {
    name: String,
}

/// What goes in the basket?
#[derive(ElicitForm)]
struct Basket {
    items: Vec<Item>,
}

fn main() {}
