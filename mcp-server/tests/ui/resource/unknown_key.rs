use mcp_server::resource;

/// `mimetype` is not a key.
#[resource("notes://readme", mimetype = "text/plain")]
fn readme() -> String {
    String::new()
}

fn main() {}
