use mcp_server::prompt;

/// Two arguments cannot share a name.
#[prompt]
fn compare(left: String, #[arg(name = "left")] right: String) -> String {
    left + &right
}

fn main() {}
