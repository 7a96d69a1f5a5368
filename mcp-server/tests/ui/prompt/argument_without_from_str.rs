use mcp_server::prompt;

/// Arguments arrive as strings; a `Vec` cannot be parsed from one.
#[prompt]
fn tag(tags: Vec<String>) -> String {
    tags.join(",")
}

fn main() {}
