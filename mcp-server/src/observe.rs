//! What the server tells its operator: a `tracing` span for each request,
//! and, with the `metrics` feature, counters, gauges and a histogram
//! through the `metrics` facade, beside the `tracing` events it emits at
//! the same places. Nothing is recorded until the application installs a
//! subscriber or a recorder (a Prometheus exporter, say); without the
//! feature every metric function here is empty.
//!
//! # The span of a request
//!
//! Every request the router reads (stdio or HTTP, either era) runs in a
//! span of target `mcp_server::request`, level DEBUG, named `request`,
//! from the moment its method and id are known to the moment its answer is
//! made (for an answer streamed after notifications, to the last message;
//! a `subscriptions/listen` ends once its stream is open). A message
//! refused before it is read as a request (too large, too deep, not JSON,
//! or over `max_in_flight`) has none, and neither has a notification.
//! Its fields:
//!
//! | field | value |
//! | --- | --- |
//! | `era` | `modern` (2026-07-28) or `legacy` (the handshake era) |
//! | `method` | the method, as sent (cut at 256 bytes) |
//! | `about` | the tool or prompt (`tools/call`, `prompts/get`) as sent; for a resource URI (`resources/*`) and a task id (`tasks/*`), which may be or carry a bearer secret the server minted (a handle, a task id), `sha256:` and the first 8 bytes of its SHA-256, in hex |
//! | `id` | the request's id |
//! | `principal` | on a protected server, the first 8 bytes of the SHA-256 of the token's principal, in hex |
//! | `outcome` | `ok`, `error`, or `cancelled` (the client left or cancelled it) |
//! | `code` | the JSON-RPC error code, when the outcome is `error` |
//! | `duration_ms` | from the request's arrival at the router to its answer |
//! | `arguments`, `result` | only for the tools named in [`ServerBuilder::trace_tool_io`](crate::ServerBuilder::trace_tool_io): the call's arguments and its answer, JSON cut at 1 KiB each |
//!
//! A handler's own events are emitted inside it, so they carry its fields.
//! Arguments, results and tokens are never recorded. DEBUG keeps the span
//! out of the way of a subscriber at INFO: a subscriber that is not
//! interested in the target costs each request a load and a compare.
//! Turn it on with a filter such as `mcp_server::request=debug`.
//!
//! A handler (of a tool, prompt or resource, not one running as a task)
//! that panics fails its request with -32603 and a message that says no
//! more than that; the connection and the server go on. The panic is told
//! as an ERROR event of target `mcp_server::handlers`, without its message,
//! which may hold the arguments (the panic hook prints it to stderr).
//!
//! # Metrics
//!
//! | metric | kind | labels | counts |
//! | --- | --- | --- | --- |
//! | `mcp_requests_total` | counter | `method` (an MCP method, else `other`), `outcome` (`ok`, `error`, `cancelled`) | requests answered, or left unanswered |
//! | `mcp_request_duration_seconds` | histogram | `method` | the time of each request, as in its span |
//! | `mcp_requests_in_flight` | gauge | | requests between their arrival and their answer |
//! | `mcp_handler_panics_total` | counter | `method` | handlers that panicked (tasks' count in `mcp_tasks_total`) |
//! | `mcp_auth_refusals_total` | counter | `status` (401, 403, 429, 503) | requests whose credentials or scopes were refused |
//! | `mcp_token_cache_total` | counter | `result` (`hit`, `miss`) | bearer tokens found among the verified ones, or verified |
//! | `mcp_limit_refusals_total` | counter | `limit` (`max_in_flight`, `max_in_flight_per_client`, `max_streams`, `task_store`, `task_share`, `handle_store`, `handle_share`, `dpop_replay_share`, ...) | requests refused at a limit or a client's share |
//! | `mcp_legacy_sessions` | gauge | | legacy sessions the HTTP endpoints hold (an idle one until it is found expired) |
//! | `mcp_legacy_sessions_evicted_total` | counter | | legacy sessions dropped from a full table |
//! | `mcp_tasks_total` | counter | `event` (`created`, `completed`, `failed`, `cancelled`, `lapsed`, `panicked`, `shut_down`) | task events on this replica |
//! | `mcp_tasks_running` | gauge | | task handlers running on this replica |
//!
//! The `method` label is a method a server answers, of either era or the
//! tasks extension (`tools/call`, `initialize`, `tasks/get`, ...), or
//! `other`, so that a client cannot add labels by making methods up.
//! Arguments, results, tokens and principals are never labels.

mod request;

pub(crate) use request::{Era, RequestSpan};

/// The methods that are labels of their own: those a server answers, of
/// both eras and the tasks extension.
#[cfg_attr(not(feature = "metrics"), allow(dead_code))]
const METHODS: [&str; 20] = [
    "initialize",
    "ping",
    "server/discover",
    "tools/list",
    "tools/call",
    "prompts/list",
    "prompts/get",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "completion/complete",
    "logging/setLevel",
    "subscriptions/listen",
    "tasks/get",
    "tasks/update",
    "tasks/cancel",
    "tasks/list",
    "tasks/result",
];

/// `method` as a label: one of [`METHODS`], else `other`. Empty without
/// the `metrics` feature, which has no labels to give.
pub(crate) fn method_label(method: &str) -> &'static str {
    #[cfg(feature = "metrics")]
    return METHODS
        .into_iter()
        .find(|known| *known == method)
        .unwrap_or("other");
    #[cfg(not(feature = "metrics"))]
    {
        let _ = method;
        ""
    }
}

/// A request arrived: one more in flight.
pub(crate) fn request_started() {
    #[cfg(feature = "metrics")]
    metrics::gauge!("mcp_requests_in_flight").increment(1.0);
}

/// A request of `method` (a [`method_label`]) ended with `outcome` after
/// `seconds`.
pub(crate) fn request_ended(method: &'static str, outcome: &'static str, seconds: f64) {
    #[cfg(feature = "metrics")]
    {
        metrics::gauge!("mcp_requests_in_flight").decrement(1.0);
        metrics::counter!("mcp_requests_total", "method" => method, "outcome" => outcome)
            .increment(1);
        metrics::histogram!("mcp_request_duration_seconds", "method" => method).record(seconds);
    }
    #[cfg(not(feature = "metrics"))]
    let _ = (method, outcome, seconds);
}

/// The handler of a request of `method` (`tools/call`, `prompts/get`,
/// ...) panicked.
pub(crate) fn handler_panicked(method: &'static str) {
    #[cfg(feature = "metrics")]
    metrics::counter!("mcp_handler_panics_total", "method" => method).increment(1);
    #[cfg(not(feature = "metrics"))]
    let _ = method;
}

/// A bearer token was found among those verified before (`hit`), or had
/// to be verified (`miss`).
#[cfg(feature = "auth")]
pub(crate) fn token_cache(hit: bool) {
    #[cfg(feature = "metrics")]
    metrics::counter!("mcp_token_cache_total", "result" => if hit { "hit" } else { "miss" })
        .increment(1);
    #[cfg(not(feature = "metrics"))]
    let _ = hit;
}

/// The legacy sessions held changed by `change`.
#[cfg(all(feature = "http", feature = "legacy"))]
pub(crate) fn legacy_sessions(change: isize) {
    #[cfg(feature = "metrics")]
    metrics::gauge!("mcp_legacy_sessions").increment(change as f64);
    #[cfg(not(feature = "metrics"))]
    let _ = change;
}

/// A request's credentials or a tool call's scopes refused with `status`.
#[cfg_attr(not(feature = "auth"), allow(dead_code))]
pub(crate) fn auth_refused(status: u16) {
    #[cfg(feature = "metrics")]
    metrics::counter!("mcp_auth_refusals_total", "status" => status.to_string()).increment(1);
    #[cfg(not(feature = "metrics"))]
    let _ = status;
}

/// A request refused at the limit `name`: counted, and remembered for
/// [`saturated`].
pub(crate) fn limit_refused(name: &str) {
    #[cfg(feature = "metrics")]
    metrics::counter!("mcp_limit_refusals_total", "limit" => name.to_owned()).increment(1);
    let mut last = LAST_REFUSED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let now = std::time::Instant::now();
    if let Some((_, at)) = last.iter_mut().find(|(limit, _)| limit == name) {
        *at = now;
    } else if last.len() < 64 {
        // The names are the server's own, a dozen at most; the bound keeps
        // it so should one ever come from elsewhere.
        last.push((name.to_owned(), now));
    }
}

/// When each limit last refused a request in this process.
static LAST_REFUSED: std::sync::Mutex<Vec<(String, std::time::Instant)>> =
    std::sync::Mutex::new(Vec::new());

/// The limits that refused a request within `window`, each with how long
/// ago (whole seconds), most recent first: the readiness detail of a busy
/// replica. A replica at a limit still serves everyone else, so this is
/// reported beside a ready status, not instead of it.
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) fn saturated(window: std::time::Duration) -> Vec<(String, u64)> {
    let last = LAST_REFUSED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut recent: Vec<(String, u64)> = last
        .iter()
        .map(|(limit, at)| (limit.clone(), at.elapsed()))
        .filter(|(_, ago)| *ago <= window)
        .map(|(limit, ago)| (limit, ago.as_secs()))
        .collect();
    recent.sort_by_key(|(_, ago)| *ago);
    recent
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

/// How logs name what may be a bearer secret the server minted (a task id,
/// a handle, a resource URI that carries one): `sha256:` and the first 8
/// bytes of its SHA-256, in hex. The same value always gets the same name,
/// so the lines about one task still line up, and none can be used.
pub(crate) fn redacted(secret: &str) -> String {
    use sha2::{Digest as _, Sha256};
    let digest = Sha256::digest(secret.as_bytes());
    let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}
