//! The tasks extension, `io.modelcontextprotocol/tasks`: a server may
//! answer a `tools/call` with a task instead of the result, which the
//! client then polls with `tasks/get`, feeds with `tasks/update` and stops
//! with `tasks/cancel`.
//!
//! The client declares the extension on every modern request, so any tool
//! call may become a task. [`Client::call_tool`](crate::client::Client::call_tool)
//! (and [`Host::call`](crate::Host::call), and typed clients) follow it
//! transparently:
//!
//! - polls first within [`FIRST_POLL_INTERVAL`], then at the server's
//!   `pollIntervalMs`, kept between
//!   [`MIN_POLL_INTERVAL`] and [`MAX_POLL_INTERVAL`];
//! - answers the task's input requests through the host's
//!   [`InputHandler`](crate::client::InputHandler), exactly as it answers
//!   a multi-round-trip request, and each key once, however many polls
//!   list it; a task that waits again on a key answered already (asked
//!   again, or never taken within [`ANSWER_GRACE`]) fails the call with
//!   [`TaskError::AskedAgain`] naming the key;
//! - sends a `tasks/get` or `tasks/update` again after a passing failure
//!   (a lost connection, a 503, a -32603), with doubling waits
//!   ([`RETRY_BACKOFF`]) for as long as the task's timeout allows, and
//!   gives up at once on a definitive one;
//! - reports every poll to the call's progress callback, with the task's
//!   status in [`Progress::task`](crate::client::Progress::task);
//! - returns the tool's result; a `failed` task's JSON-RPC error is
//!   [`ClientError::Rpc`](crate::ClientError::Rpc), as if the call had
//!   failed directly, and a task cancelled elsewhere is
//!   [`ClientError::TaskCancelled`](crate::ClientError::TaskCancelled);
//! - cancels the task with `tasks/cancel` when the call times out
//!   ([`ClientOptions::task_timeout`](crate::client::ClientOptions::task_timeout)),
//!   fails, or is dropped by its caller.
//!
//! To manage a task yourself, [`Client::start_tool`](crate::client::Client::start_tool)
//! returns it without following it
//! ([`ToolStart::Task`](crate::client::ToolStart::Task)). Keep its task
//! id, and any process can come back to it with
//! [`Client::get_task`](crate::client::Client::get_task),
//! [`Client::wait_task`](crate::client::Client::wait_task) (which follows
//! it as above, but leaves it running when it gives up) and
//! [`Client::cancel_task`](crate::client::Client::cancel_task); the
//! `mcp-host task get|wait|cancel SERVER TASK_ID` commands do the same.
//!
//! [`TaskDriver`] holds the protocol rules, sans-IO; the client only sends
//! what it says.

mod driver;

pub use driver::{
    Next, RequestFailure, TaskDriver, TaskEnd, TaskError, TaskReport, TaskStatus, ANSWER_GRACE,
    DEFAULT_POLL_INTERVAL, FIRST_POLL_INTERVAL, MAX_INPUT_KEYS, MAX_POLL_INTERVAL, MAX_TASK_ID_LEN,
    MIN_POLL_INTERVAL, RETRY_BACKOFF,
};

use mcp_types::meta::TASKS_EXTENSION;
use serde_json::{json, Value};

/// Adds the tasks extension to a request's client capabilities.
pub(crate) fn declare(capabilities: &mut Value) {
    let Value::Object(capabilities) = capabilities else {
        return;
    };
    let extensions = capabilities
        .entry("extensions")
        .or_insert_with(|| json!({}));
    if let Value::Object(extensions) = extensions {
        extensions
            .entry(TASKS_EXTENSION)
            .or_insert_with(|| json!({}));
    }
}
