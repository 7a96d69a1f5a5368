use mcp_server::prompt;

/// The parameter's name is the argument's name, so it needs one.
#[prompt]
fn pair((first, second): (String, String)) -> String {
    first + &second
}

fn main() {}
