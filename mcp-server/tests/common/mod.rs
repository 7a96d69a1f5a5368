//! The fixture the limit and connection tests share: a server with a tool
//! that answers at once and one that waits, and the requests they send.

#![allow(dead_code)] // each test file uses its own part

use std::time::Duration;

use mcp_server::{tool, tools};
use serde_json::{json, Value};

/// `add` answers at once; `sleep` waits as long as it is told to.
pub struct Tools;

#[tools]
impl Tools {
    /// Adds two numbers.
    #[tool]
    fn add(&self, a: i64, b: i64) -> i64 {
        a + b
    }

    /// Sleeps for `ms` milliseconds.
    #[tool]
    async fn sleep(&self, ms: u64) -> String {
        tokio::time::sleep(Duration::from_millis(ms)).await;
        String::from("awake")
    }
}

/// The `_meta` of a modern request.
pub fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

/// A modern `tools/call` of `name`.
pub fn call(id: i64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"_meta": meta(), "name": name, "arguments": arguments}})
}

/// A modern `subscriptions/listen` for tool list changes.
pub fn listen(id: i64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
        "params": {"_meta": meta(), "notifications": {"toolsListChanged": true}}})
}
