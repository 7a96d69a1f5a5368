//! The fixtures the tests share: a server with a tool that answers at
//! once, one that waits and one that panics, the requests they send, a
//! stdio client, an HTTP client, a protected server, and tools that run
//! as tasks.

#![allow(dead_code)] // each test file uses its own part

#[cfg(feature = "auth")]
pub mod auth;
#[cfg(feature = "http")]
pub mod http;
#[cfg(feature = "tasks")]
pub mod jobs;
pub mod stdio;

use std::time::Duration;

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

use mcp_server::{tool, tools};
use serde_json::{json, Value};
use tokio::sync::Notify;

/// `add` and `note` answer at once; `sleep` waits as long as it is told
/// to; `hold` says it started (see [`started`]), then waits, so that a
/// test knows when its handler holds a place; `boom` panics.
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

    /// Counts the bytes of `text`, without saying it back.
    #[tool]
    fn note(&self, text: String) -> String {
        format!("a note of {} bytes", text.len())
    }

    /// Panics, with `text` in the panic's message.
    #[tool]
    fn boom(&self, text: String) -> String {
        panic!("boom: {text}")
    }

    /// Signals [`started`]`(key)`, then sleeps for `ms` milliseconds.
    #[tool]
    async fn hold(&self, key: String, ms: u64) -> String {
        started(&key).notify_one();
        tokio::time::sleep(Duration::from_millis(ms)).await;
        String::from("awake")
    }
}

/// What the `hold` call with `key` signals once its handler runs; waiting
/// on it tells a test the handler holds its place.
pub fn started(key: &str) -> Arc<Notify> {
    static STARTED: LazyLock<Mutex<HashMap<String, Arc<Notify>>>> = LazyLock::new(Default::default);
    let mut started = STARTED.lock().unwrap_or_else(|e| e.into_inner());
    started.entry(key.to_owned()).or_default().clone()
}

/// A `tools/call` of `hold` with `key`.
pub fn hold(id: i64, key: &str, ms: u64) -> Value {
    call(id, "hold", json!({"key": key, "ms": ms}))
}

/// Retries `attempt` until it returns `Some`, for at most 30 s: waiting
/// for a state change the test cannot observe directly (a place freed
/// after a cancellation) without guessing how long it takes.
pub async fn eventually<T, F: std::future::Future<Output = Option<T>>>(
    what: &str,
    mut attempt: impl FnMut() -> F,
) -> T {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(done) = attempt().await {
            return done;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{what}: not within 30 s"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
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
