//! A server's log notifications (`notifications/message`), forwarded into
//! the host's `tracing` under the target `mcp_host::server_log`, at the
//! level the server gave, inside the span of the server or the request
//! they came with. The logger name and the data are rendered first: a
//! subscriber never sees the server's raw text.

use serde_json::{Map, Value};

use crate::untrusted::neutralise;

/// Forwards one `notifications/message` with `params`.
pub(crate) fn forward(params: Option<&Map<String, Value>>) {
    let Some(params) = params else { return };
    let level = params
        .get("level")
        .and_then(Value::as_str)
        .unwrap_or("info");
    let logger = params
        .get("logger")
        .and_then(Value::as_str)
        .map(neutralise)
        .unwrap_or_default();
    let data = match params.get("data") {
        Some(Value::String(text)) => neutralise(text),
        Some(other) => neutralise(&other.to_string()),
        None => String::new(),
    };
    const TARGET: &str = "mcp_host::server_log";
    match level {
        "debug" => tracing::debug!(target: TARGET, logger, "server log: {data}"),
        "info" | "notice" => tracing::info!(target: TARGET, logger, "server log: {data}"),
        "warning" => tracing::warn!(target: TARGET, logger, "server log: {data}"),
        _ => tracing::error!(target: TARGET, logger, level, "server log: {data}"),
    }
}
