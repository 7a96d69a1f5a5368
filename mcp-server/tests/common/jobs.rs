//! Tools that run as tasks, and the `_meta` of a client that declares the
//! tasks extension.

use std::time::Duration;

use mcp_server::{tool, tools, Context};
use serde_json::{json, Value};

/// `work` ends after a while, `forever` only when cancelled.
pub struct Jobs;

#[tools]
impl Jobs {
    /// Works for `ms` milliseconds on a note.
    #[tool(task = "optional")]
    async fn work(&self, ms: u64, note: String) -> String {
        tokio::time::sleep(Duration::from_millis(ms)).await;
        format!("worked on a note of {} bytes", note.len())
    }

    /// Runs until cancelled.
    #[tool(task = "optional")]
    async fn forever(&self, cx: &Context) -> String {
        cx.cancelled().await;
        "cancelled".into()
    }
}

/// The `_meta` of a modern request that declares the tasks extension.
pub fn tasks_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities":
            {"extensions": {"io.modelcontextprotocol/tasks": {}}},
    })
}
