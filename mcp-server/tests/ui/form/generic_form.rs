use mcp_server::ElicitForm;

/// Value?
#[derive(ElicitForm)]
struct Value<T> {
    value: T,
}

fn main() {}
