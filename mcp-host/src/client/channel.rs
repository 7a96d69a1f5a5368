//! A message channel: one connection that carries every message both
//! ways, as a server process's stdio does, and the HTTP+SSE transport of
//! 2024-11-05 (see [`legacy_sse`](super::legacy_sse)).
//!
//! A reader routes every message from the server: responses by request
//! id, progress notifications by their token (the client uses the request
//! id as the token), and the server-to-client requests of the legacy era
//! to one queue the client answers from. A writer owns the way out;
//! closing it is the first step of shutdown. How bytes become messages,
//! and messages bytes, is the transport's; the routing is here.
//!
//! Responses whose id no request waits for are dropped. When the reader
//! stops, the requests in flight fail with its reason
//! ([`ClientError::MessageTooLarge`] for a message over the limit), later
//! ones with [`ClientError::Closed`].

use std::collections::HashMap;
use std::process::ExitStatus;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_types::jsonrpc::Message;
use mcp_types::meta;
use mcp_types::v2026_07_28::RequestId;
use serde_json::{json, Map, Value};
use tokio::process::Child;
use tokio::sync::mpsc;
use tokio::task::{AbortHandle, JoinHandle};

use super::error::ClientError;
use super::stdio::{Shutdown, Tail};

/// What the writer is asked to do.
pub(super) enum Outgoing {
    /// Send one message.
    Message(Value),
    /// Close the way out.
    Close,
}

/// Where the messages for each request in flight go.
#[derive(Default)]
pub(super) struct Routes {
    pending: HashMap<String, mpsc::UnboundedSender<Result<Message, ClientError>>>,
    /// Why the reader stopped, once it has.
    end: Option<End>,
}

/// Why the reader of the server's output stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum End {
    /// The output ended or could not be read.
    Closed,
    /// A message passed the limit, in bytes.
    TooLarge(usize),
}

impl End {
    fn error(self) -> ClientError {
        match self {
            Self::Closed => ClientError::Closed,
            Self::TooLarge(limit) => ClientError::MessageTooLarge { limit },
        }
    }
}

impl Routes {
    /// Routes one message from the server: to the request it belongs to,
    /// to `requests` when it is the server's own request, to the log when
    /// it is a log message of no request, or nowhere.
    pub(super) fn route(
        routes: &Mutex<Self>,
        message: Message,
        requests: &mpsc::UnboundedSender<Message>,
    ) {
        let route = match &message {
            Message::Response { id, .. } => Some(key(id)),
            Message::ErrorResponse { id, .. } => id.as_ref().map(key),
            Message::Notification { method, params } => {
                let route = params.as_ref().and_then(|p| notification_route(method, p));
                if method == "notifications/message" && route.is_none() {
                    super::log::forward(params.as_ref());
                }
                route
            }
            Message::Request { .. } => {
                let _ = requests.send(message);
                return;
            }
        };
        // A response to an id no request waits for (never issued, already
        // answered, or cancelled) goes nowhere.
        let Some(route) = route else { return };
        let sender = routes
            .lock()
            .ok()
            .and_then(|r| r.pending.get(&route).cloned());
        if let Some(sender) = sender {
            let _ = sender.send(Ok(message));
        }
    }

    /// Fails the request `id` with `error`, when it still waits.
    pub(super) fn fail(routes: &Mutex<Self>, id: &RequestId, error: ClientError) {
        let sender = routes
            .lock()
            .ok()
            .and_then(|mut r| r.pending.remove(&key(id)));
        if let Some(sender) = sender {
            let _ = sender.send(Err(error));
        }
    }

    /// Fails every request in flight with what `error` makes, and keeps
    /// the channel open for later ones.
    pub(super) fn fail_all(routes: &Mutex<Self>, error: impl Fn() -> ClientError) {
        let pending = routes
            .lock()
            .map(|mut r| std::mem::take(&mut r.pending))
            .unwrap_or_default();
        for sender in pending.into_values() {
            let _ = sender.send(Err(error()));
        }
    }

    /// The reader stopped for `end`: what still waits fails.
    pub(super) fn end(routes: &Mutex<Self>, end: End) {
        if let Ok(mut routes) = routes.lock() {
            routes.end = Some(end);
            routes.pending.clear();
        }
    }
}

/// The answer stream of one request.
pub(crate) struct Pending {
    rx: mpsc::UnboundedReceiver<Result<Message, ClientError>>,
    routes: Arc<Mutex<Routes>>,
    key: String,
}

impl Pending {
    /// The next message for the request; an error once the request failed
    /// on its way (a refused POST of the HTTP+SSE transport, a lost
    /// connection) or once the server's output has ended.
    pub(crate) async fn next(&mut self) -> Result<Message, ClientError> {
        if let Some(message) = self.rx.recv().await {
            return message;
        }
        let end = self.routes.lock().ok().and_then(|r| r.end);
        Err(end.unwrap_or(End::Closed).error())
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        if let Ok(mut routes) = self.routes.lock() {
            routes.pending.remove(&self.key);
        }
    }
}

pub(super) fn key(id: &RequestId) -> String {
    id.to_string()
}

/// The process behind a stdio channel.
pub(super) struct Process {
    pub(super) child: tokio::sync::Mutex<Option<Child>>,
    pub(super) stderr: Arc<Mutex<Tail>>,
    pub(super) stderr_reader: Mutex<Option<JoinHandle<()>>>,
}

/// How a server process ended, as far as the host saw it.
#[derive(Debug, Clone)]
pub(crate) struct ExitReport {
    /// Its exit status; `None` while it still runs.
    pub(crate) status: Option<ExitStatus>,
    /// The last lines of its stderr, unless it was passed through.
    pub(crate) stderr: Vec<String>,
}

/// A connection to a server that carries every message both ways.
pub(crate) struct Channel {
    out: mpsc::UnboundedSender<Outgoing>,
    routes: Arc<Mutex<Routes>>,
    server_requests: Mutex<Option<mpsc::UnboundedReceiver<Message>>>,
    /// The server process, over stdio.
    process: Option<Process>,
    /// Tasks that end with the channel (those of the HTTP+SSE transport).
    tasks: Vec<AbortHandle>,
}

impl Drop for Channel {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

/// The parts a transport hands to its reader and writer.
pub(super) struct Ends {
    pub(super) out: mpsc::UnboundedReceiver<Outgoing>,
    pub(super) routes: Arc<Mutex<Routes>>,
    pub(super) requests: mpsc::UnboundedSender<Message>,
}

impl Channel {
    /// A channel, and the ends its reader and writer work with.
    pub(super) fn new() -> (Self, Ends) {
        let (out, out_rx) = mpsc::unbounded_channel();
        let routes = Arc::new(Mutex::new(Routes::default()));
        let (requests_tx, requests_rx) = mpsc::unbounded_channel();
        let channel = Self {
            out,
            routes: routes.clone(),
            server_requests: Mutex::new(Some(requests_rx)),
            process: None,
            tasks: Vec::new(),
        };
        let ends = Ends {
            out: out_rx,
            routes,
            requests: requests_tx,
        };
        (channel, ends)
    }

    /// The channel of the server process.
    pub(super) fn with_process(mut self, process: Process) -> Self {
        self.process = Some(process);
        self
    }

    /// The channel, stopping `tasks` when it is dropped.
    pub(super) fn with_tasks(mut self, tasks: Vec<AbortHandle>) -> Self {
        self.tasks = tasks;
        self
    }

    /// How the process ended: its exit status and the end of its stderr,
    /// waiting at most `wait` for each. Empty without a process.
    pub(crate) async fn exit_report(&self, wait: Duration) -> ExitReport {
        let Some(process) = &self.process else {
            return ExitReport {
                status: None,
                stderr: Vec::new(),
            };
        };
        let status = match process.child.lock().await.as_mut() {
            Some(child) => tokio::time::timeout(wait, child.wait())
                .await
                .ok()
                .and_then(Result::ok),
            None => None,
        };
        let reader = process.stderr_reader.lock().ok().and_then(|mut r| r.take());
        if let Some(reader) = reader {
            let _ = tokio::time::timeout(wait, reader).await;
        }
        let stderr = process.stderr.lock().map(|t| t.lines()).unwrap_or_default();
        ExitReport { status, stderr }
    }

    /// The queue of the server's own requests (legacy era); taken once.
    pub(crate) fn take_server_requests(&self) -> Option<mpsc::UnboundedReceiver<Message>> {
        self.server_requests.lock().ok()?.take()
    }

    /// Whether the server's output has ended for good.
    pub(crate) fn is_closed(&self) -> bool {
        self.routes.lock().map_or(true, |r| r.end.is_some())
    }

    /// Sends a request and returns the stream of what comes back for it.
    pub(crate) fn send(&self, id: &RequestId, message: &Value) -> Result<Pending, ClientError> {
        let (tx, rx) = mpsc::unbounded_channel();
        let key = key(id);
        {
            let mut routes = self.routes.lock().map_err(|_| ClientError::Closed)?;
            if routes.end.is_some() {
                return Err(ClientError::Closed);
            }
            routes.pending.insert(key.clone(), tx);
        }
        let pending = Pending {
            rx,
            routes: self.routes.clone(),
            key,
        };
        self.write(message)?;
        Ok(pending)
    }

    /// Writes one message (a notification, or an answer to the server).
    pub(crate) fn write(&self, message: &Value) -> Result<(), ClientError> {
        self.out
            .send(Outgoing::Message(message.clone()))
            .map_err(|_| ClientError::Closed)
    }

    /// Tells the server to stop working on `id`.
    pub(crate) fn cancel(&self, id: &RequestId, reason: &str) {
        let _ = self.write(&json!({
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": { "requestId": id, "reason": reason },
        }));
    }

    /// Closes the way out. A process is given `grace` to exit, then sent
    /// SIGTERM, given `grace` again, then SIGKILL; how it ended is the
    /// answer. Without a process, the channel's tasks stop at once.
    pub(crate) async fn shutdown(&self, grace: Duration) -> Shutdown {
        let _ = self.out.send(Outgoing::Close);
        let Some(process) = &self.process else {
            for task in &self.tasks {
                task.abort();
            }
            Routes::end(&self.routes, End::Closed);
            return Shutdown::Exited;
        };
        let Some(mut child) = process.child.lock().await.take() else {
            return Shutdown::AlreadyGone;
        };
        if tokio::time::timeout(grace, child.wait()).await.is_ok() {
            return Shutdown::Exited;
        }
        if let Some(pid) = child.id().and_then(|p| i32::try_from(p).ok()) {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGTERM,
            );
            if tokio::time::timeout(grace, child.wait()).await.is_ok() {
                return Shutdown::Terminated;
            }
        }
        let _ = child.kill().await;
        Shutdown::Killed
    }
}

/// The request a notification belongs to: a progress report by its token
/// (the request's id), a listen stream's notification by its subscription
/// id (the listen request's id), and the server's end of a listen stream
/// by the id it cancels. All three render like [`key`].
fn notification_route(method: &str, params: &Map<String, Value>) -> Option<String> {
    let subscription = || {
        params
            .get("_meta")
            .and_then(|m| m.get(meta::SUBSCRIPTION_ID))
    };
    let cancelled = || {
        (method == "notifications/cancelled")
            .then(|| params.get("requestId"))
            .flatten()
    };
    params
        .get("progressToken")
        .or_else(subscription)
        .or_else(cancelled)
        .filter(|id| id.is_string() || id.is_i64())
        .map(Value::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notifications_route_to_their_request() {
        let route = |method: &str, params: Value| {
            notification_route(method, params.as_object().expect("an object"))
        };
        let request = key(&RequestId::Integer(4));
        let listen = key(&RequestId::String("l-1".into()));
        assert_eq!(
            route(
                "notifications/progress",
                json!({"progressToken": 4, "progress": 1})
            ),
            Some(request.clone())
        );
        assert_eq!(
            route(
                "notifications/tools/list_changed",
                json!({"_meta": {meta::SUBSCRIPTION_ID: "l-1"}})
            ),
            Some(listen.clone())
        );
        // The server ends a listen stream by cancelling its id.
        assert_eq!(
            route("notifications/cancelled", json!({"requestId": "l-1"})),
            Some(listen)
        );
        assert_eq!(
            route("notifications/message", json!({"requestId": 4})),
            None
        );
        assert_eq!(
            route("notifications/progress", json!({"progressToken": 1.5})),
            None
        );
        assert_eq!(route("notifications/tools/list_changed", json!({})), None);
    }

    #[tokio::test]
    async fn a_failed_request_hears_why_and_the_others_go_on() {
        let (channel, mut ends) = Channel::new();
        let mut first = channel
            .send(&RequestId::Integer(1), &json!({}))
            .expect("sent");
        let mut second = channel
            .send(&RequestId::Integer(2), &json!({}))
            .expect("sent");
        Routes::fail(
            &ends.routes,
            &RequestId::Integer(1),
            ClientError::HttpStatus {
                status: 404,
                body: Vec::new(),
            },
        );
        assert!(matches!(
            first.next().await,
            Err(ClientError::HttpStatus { status: 404, .. })
        ));
        let answer = Message::from_slice(br#"{"jsonrpc":"2.0","id":2,"result":{}}"#).expect("ok");
        Routes::route(&ends.routes, answer, &ends.requests);
        assert!(matches!(second.next().await, Ok(Message::Response { .. })));
        assert!(matches!(ends.out.recv().await, Some(Outgoing::Message(_))));
    }
}
