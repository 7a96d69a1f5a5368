// A result from one server is not arguments for another.
use mcp_host::client::CallOptions;
use mcp_host::Host;
use mcp_types::v2026_07_28::CallToolResult;
use mcp_host::Untrusted;

async fn forward(host: &Host, from_a: Untrusted<CallToolResult>) {
    let structured = from_a.map(|r| r.structured_content);
    let _ = host.prepare("b__write", structured).await;
    let _ = CallOptions::default();
}

fn main() {}
