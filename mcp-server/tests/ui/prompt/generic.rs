use mcp_server::prompt;

/// Each argument needs a concrete type.
#[prompt]
fn show<T: std::str::FromStr + std::fmt::Debug>(value: T) -> String {
    format!("{value:?}")
}

fn main() {}
