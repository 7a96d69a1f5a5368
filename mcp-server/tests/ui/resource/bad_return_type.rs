use mcp_server::resource;

/// A number is not resource contents.
#[resource("numbers://answer")]
fn answer() -> u32 {
    42
}

fn main() {}
