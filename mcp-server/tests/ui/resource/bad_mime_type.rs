use mcp_server::resource;

/// A MIME type is `type/subtype`.
#[resource("notes://readme", mime_type = "markdown")]
fn readme() -> String {
    String::new()
}

fn main() {}
