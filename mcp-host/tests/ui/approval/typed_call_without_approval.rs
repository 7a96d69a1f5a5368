// Sending a prepared typed call without an approval does not compile.
use mcp_host::client::CallOptions;
use mcp_host::typed::{Prepared, Tool, TypedClient};

async fn run<T: Tool>(typed: &TypedClient, prepared: Prepared<T>) {
    let _ = typed.call(prepared, &CallOptions::default()).await;
}

fn main() {}
