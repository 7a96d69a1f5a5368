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

use crate::server::{Outcome, Reply, Server, Session};

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
        let value = match crate::server::parse::message(line, limits) {
            Ok(value) => value,
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
        let Ok(permit) = self.permits.clone().try_acquire_owned() else {
            // Full: answer a request at once; drop a notification, which is
            // never answered.
            let Some(id) = value
                .get("id")
                .and_then(|id| serde_json::from_value(id.clone()).ok())
            else {
                return Received::Nothing;
            };
            let error = crate::server::busy(
                "too many requests are in flight on this connection",
                "max_in_flight",
                limits.max_in_flight,
            );
            return Received::Answer(Reply::from_value(&crate::server::error_message(
                Some(&id),
                &error,
            )));
        };
        self.start(value, permit)
    }

    /// Runs the handler of a request or notification until it first has to
    /// wait, and only then makes it a task: most handlers never wait, and
    /// are answered without one.
    fn start(&mut self, value: Value, permit: OwnedSemaphorePermit) -> Received {
        let modern = value
            .get("params")
            .and_then(|params| params.get("_meta"))
            .and_then(|meta| meta.get(mcp_types::meta::PROTOCOL_VERSION))
            .is_some();
        let session = self.session.clone().filter(|_| !modern);
        let key = value.get("id").map(Value::to_string);
        let server = self.server.clone();
        let mut handling: Handling = Box::pin(async move {
            match session {
                Some(session) => server.handle_legacy(value, Some(session)).await.0,
                None => server.handle(value, None).await,
            }
        });
        // A future may be polled with any waker; the task that takes it
        // over polls it again with its own.
        let mut cx = std::task::Context::from_waker(Waker::noop());
        let handling: Handling = match handling.as_mut().poll(&mut cx) {
            Poll::Ready(Outcome::Reply { message, .. }) => return Received::Answer(message),
            Poll::Ready(Outcome::Accepted) => return Received::Nothing,
            Poll::Ready(stream) => Box::pin(std::future::ready(stream)),
            Poll::Pending => handling,
        };
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
        if created.is_some() {
            self.session = created;
        }
        match outcome {
            Outcome::Reply { message, .. } => Some(message),
            _ => None,
        }
    }

    /// Lets the requests in flight finish.
    pub(super) async fn finish(&mut self) {
        while self.tasks.join_next().await.is_some() {}
    }
}

/// The task of a request whose handler had to wait: finishes the handler
/// and sends its answer, or its stream, on.
async fn answer(
    handling: Handling,
    permit: OwnedSemaphorePermit,
    out: mpsc::Sender<Reply>,
    registry: Registry,
    key: Option<String>,
) {
    let outcome = handling.await;
    // A streamed answer holds a place under `max_streams` instead.
    drop(permit);
    match outcome {
        Outcome::Reply { message, .. } => {
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
