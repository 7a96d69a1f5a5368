// Running a prepared call without an approval does not compile.
use mcp_host::client::CallOptions;
use mcp_host::{Host, ToolCall};

async fn run(host: &Host, call: ToolCall) {
    let _ = host.call_tool(call, &CallOptions::default()).await;
}

fn main() {}
