// `tools/call` is not a free request: the generic call refuses it.
use mcp_host::Client;
use mcp_types::v2026_07_28::{CallToolRequest, CallToolRequestParams};

async fn sneak(client: &Client, params: CallToolRequestParams) {
    let _ = client.call::<CallToolRequest>(params).await;
}

fn main() {}
