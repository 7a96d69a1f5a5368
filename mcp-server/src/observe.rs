//! What the server counts for its operator, through the `metrics`
//! facade (feature `metrics`), beside the `tracing` events it emits at the
//! same places. Nothing is recorded until the application installs a
//! recorder (a Prometheus exporter, say); without the feature every
//! function here is empty.
//!
//! A handler (of a tool, prompt or resource, not one running as a task)
//! that panics fails its request with -32603 and a message that says no
//! more than that; the connection and the server go on. The panic is told
//! as an ERROR event of target `mcp_server::handlers`, without its message,
//! which may hold the arguments (the panic hook prints it to stderr).
//!
//! | metric | kind | labels | counts |
//! | --- | --- | --- | --- |
//! | `mcp_handler_panics_total` | counter | `method` | handlers that panicked (tasks' count in `mcp_tasks_total`) |
//! | `mcp_auth_refusals_total` | counter | `status` (401, 403, 503) | requests whose credentials or scopes were refused |
//! | `mcp_limit_refusals_total` | counter | `limit` (`max_in_flight`, `max_streams`, ...) | requests refused at a limit |
//! | `mcp_legacy_sessions_evicted_total` | counter | | legacy sessions dropped from a full table |
//! | `mcp_tasks_total` | counter | `event` (`created`, `completed`, `failed`, `cancelled`, `lapsed`, `panicked`, `shut_down`) | task events on this replica |
//! | `mcp_tasks_running` | gauge | | task handlers running on this replica |
//!
//! Arguments, results, tokens and principals are never labels.

/// The handler of a request of `method` (`tools/call`, `prompts/get`,
/// ...) panicked.
pub(crate) fn handler_panicked(method: &'static str) {
    #[cfg(feature = "metrics")]
    metrics::counter!("mcp_handler_panics_total", "method" => method).increment(1);
    #[cfg(not(feature = "metrics"))]
    let _ = method;
}

/// A request's credentials or a tool call's scopes refused with `status`.
#[cfg_attr(not(feature = "auth"), allow(dead_code))]
pub(crate) fn auth_refused(status: u16) {
    #[cfg(feature = "metrics")]
    metrics::counter!("mcp_auth_refusals_total", "status" => status.to_string()).increment(1);
    #[cfg(not(feature = "metrics"))]
    let _ = status;
}

/// A request refused at the limit `name`.
pub(crate) fn limit_refused(name: &str) {
    #[cfg(feature = "metrics")]
    metrics::counter!("mcp_limit_refusals_total", "limit" => name.to_owned()).increment(1);
    #[cfg(not(feature = "metrics"))]
    let _ = name;
}

/// A legacy session dropped from a full table.
#[cfg_attr(not(all(feature = "http", feature = "legacy")), allow(dead_code))]
pub(crate) fn session_evicted() {
    #[cfg(feature = "metrics")]
    metrics::counter!("mcp_legacy_sessions_evicted_total").increment(1);
}

/// A task event: `created`, `completed`, `failed`, `cancelled`, `lapsed`,
/// `panicked` or `shut_down`.
#[cfg_attr(not(feature = "tasks"), allow(dead_code))]
pub(crate) fn task(event: &'static str) {
    #[cfg(feature = "metrics")]
    metrics::counter!("mcp_tasks_total", "event" => event).increment(1);
    #[cfg(not(feature = "metrics"))]
    let _ = event;
}

/// A task handler started (`1`) or stopped (`-1`) running here.
#[cfg_attr(not(feature = "tasks"), allow(dead_code))]
pub(crate) fn tasks_running(change: i8) {
    #[cfg(feature = "metrics")]
    metrics::gauge!("mcp_tasks_running").increment(f64::from(change));
    #[cfg(not(feature = "metrics"))]
    let _ = change;
}
