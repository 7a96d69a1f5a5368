use mcp_server::resource;

/// A fixed URI gives its function nothing to receive.
#[resource("notes://index")]
fn index(page: u32) -> String {
    page.to_string()
}

fn main() {}
