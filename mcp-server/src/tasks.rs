//! The tasks extension (`io.modelcontextprotocol/tasks`): a `tools/call`
//! that takes long answers at once with a task, which the client polls
//! with `tasks/get`, feeds with `tasks/update` and stops with
//! `tasks/cancel`.
//!
//! ```
//! use mcp_server::{tool, tools, Context, Server};
//!
//! struct Jobs;
//!
//! #[tools]
//! impl Jobs {
//!     /// Builds the report; takes a while.
//!     #[tool(task = "optional")]
//!     async fn report(&self, cx: &Context) -> String {
//!         for _ in 0..10 {
//!             if cx.is_cancelled() {
//!                 return "stopped".into();
//!             }
//!             tokio::time::sleep(std::time::Duration::from_millis(100)).await;
//!         }
//!         "done".into()
//!     }
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // Tasks are served as soon as a tool supports them; `tasks` picks the
//! // store and the timings.
//! let server = Server::builder(Jobs)
//!     .tools()
//!     .tasks(mcp_server::tasks::TaskSettings::default())
//!     .build()?;
//! # let _ = server;
//! # Ok(())
//! # }
//! ```
//!
//! # How a call becomes a task
//!
//! `#[tool(task = "optional")]` or `#[tool(task = "required")]` says that a
//! tool may run as a task; `tools/list` shows it under the tool's `_meta`
//! key `io.modelcontextprotocol/tasks` as `{"taskSupport": ...}`, and
//! `server/discover` lists the extension. A task is only ever made for a
//! request that declares the extension in its client capabilities.
//!
//! For such a request the handler starts inline. If it answers before it
//! first has to wait, or within a short grace after
//! ([`TaskSettings::inline_grace`], 30 ms by default), the answer goes back
//! as it is: a quick result, or an `InputRequiredResult` that gathers input
//! by multi-round-trip before any task exists. If it takes longer, the
//! runtime stores a new task, answers `CreateTaskResult`, and the handler
//! goes on in the background:
//!
//! - a result (a tool error included) completes the task; a JSON-RPC
//!   error fails it, with the error inlined;
//! - an `InputRequiredResult` (from [`Elicit`](crate::elicit::Elicit) or
//!   [`InputRound`](crate::elicit::InputRound)) parks the task in
//!   `input_required` with those `inputRequests`; once `tasks/update` has
//!   answered every one, the handler runs again with the answers, as a
//!   multi-round-trip retry would;
//! - `tasks/cancel` settles the task as `cancelled` and drops the
//!   handler's future; a handler that hands work elsewhere can watch
//!   [`Context::is_cancelled`](crate::Context::is_cancelled).
//!
//! A request without the extension runs an `optional` tool as an ordinary
//! call, and gets -32021 naming the extension for a `required` one.
//!
//! Task ids carry 192 random bits and belong to the principal that made
//! them: any other principal is told the task does not exist.
//!
//! A handler that computes for long should do so in
//! `tokio::task::spawn_blocking` or `tokio::task::block_in_place`: on
//! tokio's multi-thread runtime, a worker blocked in one poll can hold up
//! the timers of the tasks beside it, and with a shared store the renewal
//! of their leases.
//!
//! # Folders
//!
//! - [`record`]: the sans-IO state machine of one task and its wire
//!   shapes.
//! - [`store`]: the [`TaskStore`] trait and the bounded
//!   [`MemoryTaskStore`].
//! - `redis` (feature `redis`): `RedisTaskStore`, records shared by every
//!   replica through Redis, with signals between replicas and a lease
//!   that fails the tasks of a replica that stopped.
//! - `runtime`: the part that drives handlers and answers the `tasks/*`
//!   methods (used by the server's dispatcher).

pub mod record;
#[cfg(feature = "redis")]
pub mod redis;
pub(crate) mod runtime;
pub mod store;

use std::sync::Arc;
use std::time::Duration;

/// A table keyed by task ids (or tool names): the ids are drawn at random
/// by the server, so a fast hash with a per-process random seed serves
/// where SipHash would guard against keys chosen to collide.
pub(crate) type Table<V> = std::collections::HashMap<String, V, foldhash::fast::RandomState>;

use mcp_types::jsonrpc::ErrorObject;
use mcp_types::v2026_07_28::{ClientCapabilities, Tool};

pub use record::{Status, TaskRecord};
#[cfg(feature = "redis")]
pub use redis::RedisTaskStore;
pub use store::{MemoryTaskStore, Signal, StoreError, TaskStore};

/// The extension's identifier.
pub const EXTENSION: &str = mcp_types::meta::TASKS_EXTENSION;

/// Whether a tool runs as a task, as `#[tool(task = "...")]` says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TaskSupport {
    /// Never a task (the default).
    #[default]
    Forbidden,
    /// A task when the client declared the extension, an ordinary call
    /// otherwise.
    Optional,
    /// Only as a task: a client without the extension gets -32021.
    Required,
}

impl TaskSupport {
    /// What `tool` declares under its `_meta`.
    pub fn of(tool: &Tool) -> Self {
        let declared = tool
            .meta
            .as_ref()
            .and_then(|meta| meta.get(EXTENSION))
            .and_then(|ext| ext.get("taskSupport"))
            .and_then(|support| support.as_str());
        match declared {
            Some("optional") => TaskSupport::Optional,
            Some("required") => TaskSupport::Required,
            _ => TaskSupport::Forbidden,
        }
    }
}

/// Whether a request's client capabilities declare the extension.
pub fn declared(capabilities: &ClientCapabilities) -> bool {
    capabilities
        .extensions
        .as_ref()
        .is_some_and(|extensions| extensions.contains_key(EXTENSION))
}

/// The -32021 error of a request that needs the extension and did not
/// declare it.
pub fn missing_extension() -> ErrorObject {
    let mut extensions = std::collections::BTreeMap::new();
    extensions.insert(EXTENSION.to_owned(), serde_json::Map::new());
    ErrorObject::missing_required_client_capability(ClientCapabilities {
        extensions: Some(extensions),
        ..ClientCapabilities::default()
    })
}

/// How a server keeps its tasks: the store and the timings it tells
/// clients.
#[derive(Clone)]
pub struct TaskSettings {
    pub(crate) store: Arc<dyn TaskStore>,
    pub(crate) ttl: Option<Duration>,
    pub(crate) poll_interval: Duration,
    pub(crate) inline_grace: Duration,
}

impl std::fmt::Debug for TaskSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskSettings")
            .field("ttl", &self.ttl)
            .field("poll_interval", &self.poll_interval)
            .field("inline_grace", &self.inline_grace)
            .finish_non_exhaustive()
    }
}

impl Default for TaskSettings {
    /// A [`MemoryTaskStore`] of 10,000 tasks, a TTL of one hour, polls
    /// every 500 ms, and a grace of 30 ms before a call becomes a task.
    fn default() -> Self {
        TaskSettings {
            store: Arc::new(MemoryTaskStore::default()),
            ttl: Some(Duration::from_secs(3600)),
            poll_interval: Duration::from_millis(500),
            inline_grace: Duration::from_millis(30),
        }
    }
}

impl TaskSettings {
    /// Keep tasks in `store` instead of in memory.
    pub fn store(mut self, store: impl TaskStore) -> Self {
        self.store = Arc::new(store);
        self
    }

    /// How long after its creation a task may be discarded (`None`: never;
    /// the store's bound still applies).
    pub fn ttl(mut self, ttl: Option<Duration>) -> Self {
        self.ttl = ttl;
        self
    }

    /// The polling interval suggested to clients (at least 1 ms).
    pub fn poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval.max(Duration::from_millis(1));
        self
    }

    /// How long a handler that has had to wait may still take to answer
    /// the `tools/call` itself, before the call becomes a task (zero: a
    /// task as soon as it waits). A short job then costs no poll; the
    /// extension leaves to the server whether a request becomes a task.
    pub fn inline_grace(mut self, grace: Duration) -> Self {
        self.inline_grace = grace;
        self
    }
}
