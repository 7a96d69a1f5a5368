use mcp_server::resource::ResourceList;
use mcp_server::{resource, resource_set};

/// One.
#[resource("notes://index")]
fn index() -> String {
    String::new()
}

/// The same URI.
#[resource("notes://index")]
fn index_copy() -> String {
    String::new()
}

fn main() {
    let _: ResourceList<()> = resource_set![index, index_copy];
}
