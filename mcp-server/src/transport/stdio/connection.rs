//! One stdio connection's state apart from its I/O: the legacy session, the
//! requests in flight, and where their later answers go. Both drivers in
//! `stdio.rs` hand it lines and write what it answers.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Poll, Waker};

use serde_json::Value;
use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore};
use tokio::task::{AbortHandle, JoinSet};

use mcp_types::v2026_07_28::RequestId;

use crate::server::parse::Incoming;
use crate::server::{Outcome, Reply, Server, Session, Step};

/// What the driver does after [`Connection::receive`].
#[derive(Debug)]
pub(super) enum Received {
    /// Write this answer.
    Answer(Reply),
    /// An `initialize` request: await [`Connection::initialize`] before
    /// reading on, since the session it creates decides how later lines
    /// are handled.
    Initialize(Value),
    /// Nothing to write now.
    Nothing,
}

type Handling = Pin<Box<dyn Future<Output = Outcome> + Send>>;

/// The requests that became tasks, by the JSON of their id, so that
/// `notifications/cancelled` can abort them.
type Registry = Arc<Mutex<HashMap<String, AbortHandle>>>;

pub(super) struct Connection {
    server: Server,
    session: Option<Arc<Session>>,
    in_flight: Registry,
    permits: Arc<Semaphore>,
    tasks: JoinSet<()>,
    /// Where the tasks send their answers and notifications, encoded.
    out: mpsc::Sender<Reply>,
    /// Forwards the legacy session's resource updates to `out`; stopped
    /// when the connection finishes.
    updates: Option<AbortHandle>,
}

impl Connection {
    pub(super) fn new(server: Server, out: mpsc::Sender<Reply>) -> Self {
        let permits = server.limits().max_in_flight.min(Semaphore::MAX_PERMITS);
        Connection {
            server,
            session: None,
            in_flight: Registry::default(),
            permits: Arc::new(Semaphore::new(permits)),
            tasks: JoinSet::new(),
            out,
            updates: None,
        }
    }

    /// The answer to a line over the size limit.
    pub(super) fn too_long(&self) -> Reply {
        let limit = self.server.limits().max_message_bytes;
        let refusal = crate::server::parse::too_large(None, limit);
        Reply::from_value(&crate::server::error_message(None, &refusal.error))
    }

    /// Handles one line. Must be called within the runtime's context: a
    /// handler that has to wait is spawned on it.
    pub(super) fn receive(&mut self, line: &[u8]) -> Received {
        let limits = self.server.limits();
        if line.iter().all(u8::is_ascii_whitespace) {
            return Received::Nothing;
        }
        // After `initialize`, most lines are legacy requests, which the
        // quick reader of modern calls and polls would read only to pass
        // on.
        let incoming = match self.session {
            Some(_) => crate::server::parse::message(line, limits).map(Incoming::Json),
            None => crate::server::parse::incoming(line, limits),
        };
        let value = match incoming {
            Ok(Incoming::Json(value)) => value,
            Ok(Incoming::Quick(quick)) => {
                if self.full() {
                    return Received::Answer(self.busy(&quick.id));
                }
                // A modern request: never one of the legacy session's.
                let id = quick.id.clone();
                let key = move || serde_json::to_string(&id).ok();
                let step = self.server.step_quick(quick, None, None);
                return self.start_step(key, step);
            }
            Err(refusal) => {
                return Received::Answer(Reply::from_value(&crate::server::error_message(
                    None,
                    &refusal.error,
                )))
            }
        };
        let method = value.get("method").and_then(Value::as_str);
        if method.is_none() && (value.get("result").is_some() || value.get("error").is_some()) {
            // A response to one of the server's own requests (legacy era).
            if let Some(session) = &self.session {
                session.deliver(value);
            }
            return Received::Nothing;
        }
        match method {
            Some("initialize") => return Received::Initialize(value),
            Some("notifications/cancelled") => {
                let key = value.pointer("/params/requestId").map(Value::to_string);
                if let Some(handle) = key.and_then(|k| self.in_flight.lock().ok()?.remove(&k)) {
                    handle.abort();
                }
                return Received::Nothing;
            }
            _ => {}
        }
        if self.full() {
            // Full: answer a request at once; drop a notification, which is
            // never answered.
            return match value
                .get("id")
                .and_then(|id| serde_json::from_value(id.clone()).ok())
            {
                Some(id) => Received::Answer(self.busy(&id)),
                None => Received::Nothing,
            };
        }
        let modern = value
            .get("params")
            .and_then(|params| params.get("_meta"))
            .and_then(|meta| meta.get(mcp_types::meta::PROTOCOL_VERSION))
            .is_some();
        let key = value.get("id").map(Value::to_string);
        match self.session.clone().filter(|_| !modern) {
            Some(session) => {
                let server = self.server.clone();
                let handling =
                    Box::pin(async move { server.handle_legacy(value, Some(session)).await.0 });
                self.start(move || key, handling)
            }
            None => {
                let step = self.server.step(value, None, None);
                self.start_step(move || key, step)
            }
        }
    }

    /// [`Connection::start`] for a modern request checked up to its
    /// handler: answered at once when it needs none.
    fn start_step(&mut self, key: impl FnOnce() -> Option<String>, step: Step) -> Received {
        let handling: Handling = match step {
            Step::Done(Outcome::Reply { message, .. } | Outcome::Challenge { message, .. }) => {
                return Received::Answer(message)
            }
            Step::Done(Outcome::Accepted) => return Received::Nothing,
            Step::Done(stream) => Box::pin(std::future::ready(stream)),
            run => {
                let server = self.server.clone();
                Box::pin(async move { server.finish(run).await })
            }
        };
        self.start(key, handling)
    }

    /// Whether `max_in_flight` requests are being handled. A request that
    /// is answered at once takes no place: only tasks do.
    fn full(&self) -> bool {
        self.permits.available_permits() == 0
    }

    /// The answer to request `id` when `max_in_flight` requests are being
    /// handled.
    fn busy(&self, id: &RequestId) -> Reply {
        let error = crate::server::busy(
            "too many requests are in flight on this connection",
            "max_in_flight",
            self.server.limits().max_in_flight,
        );
        Reply::from_value(&crate::server::error_message(Some(id), &error))
    }

    /// Runs the handler of a request or notification until it first has to
    /// wait, and only then makes it a task: most handlers never wait, and
    /// are answered without one. `key` gives the JSON of the request's id,
    /// under which `notifications/cancelled` finds the task.
    fn start(&mut self, key: impl FnOnce() -> Option<String>, mut handling: Handling) -> Received {
        // A future may be polled with any waker; the task that takes it
        // over polls it again with its own.
        let mut cx = std::task::Context::from_waker(Waker::noop());
        let handling: Handling = match handling.as_mut().poll(&mut cx) {
            Poll::Ready(Outcome::Reply { message, .. } | Outcome::Challenge { message, .. }) => {
                return Received::Answer(message)
            }
            Poll::Ready(Outcome::Accepted) => return Received::Nothing,
            Poll::Ready(stream) => Box::pin(std::future::ready(stream)),
            Poll::Pending => handling,
        };
        // Only tasks take a place: `receive` saw one free, and nothing
        // else takes places, so this succeeds.
        let permit = self.permits.clone().try_acquire_owned().ok();
        let key = key();
        let task = answer(
            handling,
            permit,
            self.out.clone(),
            self.in_flight.clone(),
            key.clone(),
        );
        let handle = self.tasks.spawn(task);
        if let (Some(key), Ok(mut registry)) = (key, self.in_flight.lock()) {
            registry.insert(key, handle);
        }
        while self.tasks.try_join_next().is_some() {}
        Received::Nothing
    }

    /// Answers `initialize`, keeping the session it creates.
    pub(super) async fn initialize(&mut self, value: Value) -> Option<Reply> {
        let (outcome, created) = self.server.handle_legacy(value, None).await;
        if let Some(session) = created {
            #[cfg(feature = "legacy")]
            self.forward_updates(session.clone());
            self.session = Some(session);
        }
        match outcome {
            Outcome::Reply { message, .. } => Some(message),
            _ => None,
        }
    }

    /// Writes the updates to the resources `session` subscribes to as they
    /// come, between answers. A server with no stream place left sends
    /// none; `resources/subscribe` still answers.
    #[cfg(feature = "legacy")]
    fn forward_updates(&mut self, session: Arc<Session>) {
        if let Some(previous) = self.updates.take() {
            previous.abort();
        }
        let Ok(Outcome::Stream {
            mut messages,
            guard,
        }) = self.server.legacy_updates(session)
        else {
            return;
        };
        let out = self.out.clone();
        let task = tokio::spawn(async move {
            let _guard = guard;
            while let Some(message) = messages.recv().await {
                if out.send(Reply::from_value(&message)).await.is_err() {
                    break;
                }
            }
        });
        self.updates = Some(task.abort_handle());
    }

    /// Lets the requests in flight finish.
    pub(super) async fn finish(&mut self) {
        if let Some(updates) = self.updates.take() {
            updates.abort();
        }
        while self.tasks.join_next().await.is_some() {}
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        if let Some(updates) = self.updates.take() {
            updates.abort();
        }
    }
}

/// The task of a request whose handler had to wait: finishes the handler
/// and sends its answer, or its stream, on.
async fn answer(
    handling: Handling,
    permit: Option<OwnedSemaphorePermit>,
    out: mpsc::Sender<Reply>,
    registry: Registry,
    key: Option<String>,
) {
    let outcome = handling.await;
    // A streamed answer holds a place under `max_streams` instead.
    drop(permit);
    match outcome {
        Outcome::Reply { message, .. } | Outcome::Challenge { message, .. } => {
            let _ = out.send(message).await;
        }
        Outcome::Stream {
            mut messages,
            guard,
        } => {
            while let Some(message) = messages.recv().await {
                if out.send(Reply::from_value(&message)).await.is_err() {
                    break;
                }
            }
            drop(guard);
        }
        Outcome::Accepted => {}
    }
    if let Some(key) = key {
        if let Ok(mut registry) = registry.lock() {
            registry.remove(&key);
        }
    }
}
