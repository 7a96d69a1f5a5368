//! The handshake era (2025-11-25 and earlier): `initialize`, sessions,
//! `ping`, `logging/setLevel`, and real server-to-client requests.
//!
//! The same handlers serve both eras. When a handler answers
//! `input_required`, a modern client retries by itself; for a legacy client
//! the session sends each input request to the client as a JSON-RPC request
//! on the response stream, waits for the answers, and calls the handler
//! again with them, as a modern retry would.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use mcp_types::jsonrpc::{ErrorObject, Message};
use serde_json::Value;
use tokio::sync::oneshot;

use super::dispatch::{error_message, Outcome, Reply};
use super::{Grant, Server};

// What only the handshake era itself needs.
#[cfg(feature = "legacy")]
use {
    super::capabilities,
    super::dispatch::{error_code, principal_of, with_grant, AbortOnDrop, Kind, Params},
    crate::context::Context,
    crate::notify::Notifier,
    crate::observe::{Era, RequestSpan},
    mcp_types::v2026_07_28::{ClientCapabilities, LoggingLevel, ProgressToken, RequestId},
    serde_json::{json, Map},
    std::future::Future,
    std::sync::atomic::AtomicU64,
    std::sync::atomic::Ordering,
    std::time::Duration,
    tokio::sync::mpsc,
    tracing::Instrument as _,
};

/// The handshake-era versions a server accepts, newest first.
pub const LEGACY_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// How many times a legacy call may ask the client for input.
#[cfg(feature = "legacy")]
const MAX_ROUNDS: usize = 8;

/// How many resources one legacy session may subscribe to.
#[cfg(feature = "legacy")]
pub(crate) const MAX_SUBSCRIPTIONS: usize = 1024;

/// The longest resource URI a legacy session may subscribe to, in bytes.
#[cfg(feature = "legacy")]
const MAX_SUBSCRIBED_URI: usize = 4096;

/// How long the server waits for the client to answer one of its requests.
#[cfg(feature = "legacy")]
const ANSWER_TIMEOUT: Duration = Duration::from_secs(300);

/// One legacy client's session: what it negotiated in `initialize`, the
/// log level it set, and the server-to-client requests awaiting answers.
#[derive(Debug)]
pub struct Session {
    id: String,
    /// The principal of the request that created the session; only it may
    /// use the session.
    principal: Option<Arc<str>>,
    version: String,
    #[cfg(feature = "legacy")]
    capabilities: ClientCapabilities,
    #[cfg(feature = "legacy")]
    log_level: Mutex<Option<LoggingLevel>>,
    pending: Mutex<HashMap<String, oneshot::Sender<Value>>>,
    #[cfg(feature = "legacy")]
    next_request: AtomicU64,
    /// The resource URIs of `resources/subscribe`, at most
    /// [`MAX_SUBSCRIPTIONS`].
    #[cfg(feature = "legacy")]
    subscriptions: Mutex<std::collections::HashSet<String>>,
    /// Which updates stream is the session's current one: a newer stream
    /// takes over, so that no update goes out twice.
    #[cfg(feature = "legacy")]
    stream: AtomicU64,
}

impl Session {
    #[cfg(feature = "legacy")]
    fn new(
        version: String,
        capabilities: ClientCapabilities,
        principal: Option<Arc<str>>,
    ) -> Result<Self, ErrorObject> {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes)
            .map_err(|_| ErrorObject::internal_error("no randomness for a session id"))?;
        let id = bytes.iter().map(|b| format!("{b:02x}")).collect();
        Ok(Session {
            id,
            principal,
            version,
            capabilities,
            log_level: Mutex::new(None),
            pending: Mutex::new(HashMap::new()),
            next_request: AtomicU64::new(1),
            subscriptions: Mutex::new(std::collections::HashSet::new()),
            stream: AtomicU64::new(0),
        })
    }

    /// The session id (128 random bits, hex), sent as `Mcp-Session-Id`.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The principal that created the session with `initialize` (on a
    /// protected server, that of its access token); requests of another
    /// principal are not served in it.
    pub fn principal(&self) -> Option<&str> {
        self.principal.as_deref()
    }

    /// Whether the session serves a request that came with `grant`: one
    /// of the principal that created it.
    #[cfg(all(feature = "legacy", feature = "http"))]
    pub(crate) fn serves(&self, grant: Option<&Arc<Grant>>) -> bool {
        self.principal == principal_of(grant)
    }

    /// The protocol version negotiated in `initialize`.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// Hands a client's response to the server request waiting for it.
    /// Returns whether one was waiting.
    pub fn deliver(&self, response: Value) -> bool {
        let Some(id) = response.get("id").map(|id| match id {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        }) else {
            return false;
        };
        let waiter = self.pending.lock().ok().and_then(|mut p| p.remove(&id));
        waiter.is_some_and(|tx| tx.send(response).is_ok())
    }

    /// Whether the session subscribed to the resource `uri`.
    #[cfg(feature = "legacy")]
    pub(crate) fn subscribed(&self, uri: &str) -> bool {
        self.subscriptions
            .lock()
            .is_ok_and(|subscriptions| subscriptions.contains(uri))
    }

    /// `resources/subscribe` (`on`) or `resources/unsubscribe` of the
    /// `uri` in `params`.
    #[cfg(feature = "legacy")]
    fn subscribe(&self, params: &Map<String, Value>, on: bool) -> Result<(), ErrorObject> {
        let uri = match params.get("uri") {
            Some(Value::String(uri)) if !uri.is_empty() && uri.len() <= MAX_SUBSCRIBED_URI => uri,
            Some(Value::String(_)) => {
                return Err(ErrorObject::invalid_params(format!(
                    "`uri` must be 1 to {MAX_SUBSCRIBED_URI} bytes long"
                )))
            }
            _ => return Err(ErrorObject::invalid_params("`uri` must be a string")),
        };
        let mut subscriptions = self
            .subscriptions
            .lock()
            .map_err(|_| ErrorObject::internal_error("the session's subscriptions are unusable"))?;
        if !on {
            subscriptions.remove(uri);
        } else if !subscriptions.contains(uri) {
            if subscriptions.len() >= MAX_SUBSCRIPTIONS {
                return Err(ErrorObject::invalid_params(format!(
                    "a session may subscribe to {MAX_SUBSCRIPTIONS} resources at most"
                )));
            }
            subscriptions.insert(uri.clone());
        }
        Ok(())
    }

    #[cfg(feature = "legacy")]
    fn log_level(&self) -> Option<LoggingLevel> {
        self.log_level.lock().ok().and_then(|l| *l)
    }

    /// Sends `method` to the client on `stream` and waits for its answer.
    #[cfg(feature = "legacy")]
    async fn ask(
        &self,
        stream: &mpsc::Sender<Value>,
        method: &str,
        params: Value,
    ) -> Result<Value, ErrorObject> {
        let id = format!(
            "srv-{}-{}",
            &self.id[..8],
            self.next_request.fetch_add(1, Ordering::Relaxed)
        );
        let (tx, rx) = oneshot::channel();
        if let Ok(mut pending) = self.pending.lock() {
            pending.insert(id.clone(), tx);
        }
        let request = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        if stream.send(request).await.is_err() {
            return Err(ErrorObject::internal_error("the client went away"));
        }
        let answer = tokio::time::timeout(ANSWER_TIMEOUT, rx).await;
        if let Ok(mut pending) = self.pending.lock() {
            pending.remove(&id);
        }
        let answer = answer
            .map_err(|_| {
                ErrorObject::internal_error(format!("the client did not answer `{method}` in time"))
            })?
            .map_err(|_| ErrorObject::internal_error("the session closed"))?;
        match (answer.get("result"), answer.get("error")) {
            (Some(result), _) => Ok(result.clone()),
            (None, Some(error)) => {
                Err(serde_json::from_value(error.clone()).unwrap_or_else(|_| {
                    ErrorObject::internal_error(format!("the client refused `{method}`"))
                }))
            }
            (None, None) => Err(ErrorObject::internal_error(format!(
                "malformed answer to `{method}`"
            ))),
        }
    }
}

#[cfg(feature = "legacy")]
fn ok(id: &RequestId, result: Value) -> Outcome {
    Outcome::Reply {
        status: 200,
        message: Reply::from_value(&json!({ "jsonrpc": "2.0", "id": id, "result": result })),
    }
}

#[cfg(feature = "legacy")]
fn fail(id: Option<&RequestId>, error: ErrorObject) -> Outcome {
    Outcome::Reply {
        status: 200,
        message: Reply::from_value(&error_message(id, &error)),
    }
}

/// Takes the fields a legacy result must not carry off a modern result.
#[cfg(feature = "legacy")]
fn legacy_result(mut result: Value) -> Value {
    if let Value::Object(map) = &mut result {
        for key in ["resultType", "ttlMs", "cacheScope"] {
            map.remove(key);
        }
    }
    result
}

impl Server {
    /// Handles a message of the handshake era. `session` is `None` until
    /// `initialize` created one; the created session comes back beside the
    /// outcome so the transport can keep it.
    pub async fn handle_legacy(
        &self,
        value: Value,
        session: Option<Arc<Session>>,
    ) -> (Outcome, Option<Arc<Session>>) {
        self.handle_legacy_as(value, session, None).await
    }

    /// Without the `legacy` feature: every message of the handshake era is
    /// refused. A request gets the unsupported-version error listing the
    /// versions served, which is what a modern-only server owes a legacy
    /// client's `initialize` (HTTP 400, as for any -32022); so does a
    /// notification or response, without an id. No session is created.
    #[cfg(not(feature = "legacy"))]
    pub(crate) async fn handle_legacy_as(
        &self,
        value: Value,
        _: Option<Arc<Session>>,
        _: Option<&Arc<Grant>>,
    ) -> (Outcome, Option<Arc<Session>>) {
        let id = match Message::from_value(value.clone()) {
            Ok(Message::Request { id, .. }) => Some(id),
            _ => None,
        };
        let requested = value
            .pointer("/params/protocolVersion")
            .and_then(Value::as_str)
            .unwrap_or(LEGACY_VERSIONS[0]);
        let error = ErrorObject::unsupported_protocol_version(
            super::MODERN_VERSIONS.iter().copied(),
            requested,
        );
        let outcome = Outcome::Reply {
            status: 400,
            message: Reply::from_value(&error_message(id.as_ref(), &error)),
        };
        (outcome, None)
    }
}

#[cfg(feature = "legacy")]
impl Server {
    /// The stream of `notifications/resources/updated` for the resources
    /// `session` subscribed to, from [`Server::notify`] and
    /// [`Context::publish`] of [`Change::Resource`](crate::notify::Change) in this
    /// process: what a legacy client hears on its GET stream (HTTP) or
    /// between answers (stdio). A newer stream of the same session takes
    /// over from an older one, which ends. The stream holds a place under
    /// the server's stream limit.
    ///
    /// # Errors
    ///
    /// When the server has as many streams open as it may.
    pub(crate) fn legacy_updates(&self, session: Arc<Session>) -> Result<Outcome, ErrorObject> {
        let permit = self
            .stream_permit(session.principal.clone())
            .map_err(|(_, e)| e)?;
        let (tx, rx) = mpsc::channel::<Value>(self.inner.limits.notification_buffer.max(1));
        let mut changes = self.inner.bus.subscribe();
        let mine = session.stream.fetch_add(1, Ordering::AcqRel) + 1;
        let task = tokio::spawn(async move {
            use tokio::sync::broadcast::error::RecvError;
            loop {
                let change = tokio::select! {
                    change = changes.recv() => change,
                    () = tx.closed() => return,
                };
                if session.stream.load(Ordering::Acquire) != mine {
                    return;
                }
                let uri = match change {
                    Ok(crate::notify::Change::Resource(uri)) => uri,
                    Ok(_) => continue,
                    // Updates are hints to read again: one lost to a lag
                    // would leave the client with a stale copy, so every
                    // subscribed resource is named instead.
                    Err(RecvError::Lagged(_)) => {
                        let all: Vec<String> = session
                            .subscriptions
                            .lock()
                            .map(|s| s.iter().cloned().collect())
                            .unwrap_or_default();
                        for uri in all {
                            if tx.send(updated(&uri)).await.is_err() {
                                return;
                            }
                        }
                        continue;
                    }
                    Err(RecvError::Closed) => return,
                };
                if session.subscribed(&uri) && tx.send(updated(&uri)).await.is_err() {
                    return;
                }
            }
        });
        Ok(Outcome::Stream {
            messages: rx,
            guard: AbortOnDrop::new(task.abort_handle()).holding(permit),
        })
    }
}

/// `notifications/resources/updated` for `uri`.
#[cfg(feature = "legacy")]
fn updated(uri: &str) -> Value {
    json!({
        "jsonrpc": "2.0",
        "method": "notifications/resources/updated",
        "params": { "uri": uri },
    })
}

#[cfg(feature = "legacy")]
impl Server {
    /// [`Server::handle_legacy`] for a request that came with the verified
    /// access token `grant`; a session it creates belongs to the grant's
    /// principal.
    pub(crate) async fn handle_legacy_as(
        &self,
        value: Value,
        session: Option<Arc<Session>>,
        grant: Option<&Arc<Grant>>,
    ) -> (Outcome, Option<Arc<Session>>) {
        let message = match Message::from_value(value.clone()) {
            Ok(message) => message,
            Err(e) => {
                return (
                    Outcome::Reply {
                        status: 400,
                        message: Reply::from_value(&e.to_response().to_value()),
                    },
                    None,
                )
            }
        };
        let (id, method, params) = match message {
            Message::Request { id, method, params } => (id, method, params.unwrap_or_default()),
            Message::Response { .. } | Message::ErrorResponse { .. } => {
                if let Some(session) = &session {
                    session.deliver(value);
                }
                return (Outcome::Accepted, None);
            }
            Message::Notification { .. } => return (Outcome::Accepted, None),
        };
        let name = || {
            super::validate::name_key(&method)
                .and_then(|key| params.get(key))
                .and_then(Value::as_str)
        };
        let mut span = RequestSpan::open(Era::Legacy, &method, &id, name, grant);
        if method == "tools/call"
            && params
                .get("name")
                .and_then(Value::as_str)
                .is_some_and(|tool| self.inner.handlers.traces_io(tool))
        {
            span.record_arguments(params.get("arguments").and_then(Value::as_object));
        }
        let traced = span.span();
        traced.in_scope(|| self.legacy_request(id, method, params, session, grant, span))
    }

    /// Answers a request of the handshake era, inside its span, and ends
    /// the span with the answer (a call that has to wait ends it later).
    fn legacy_request(
        &self,
        id: RequestId,
        method: String,
        params: Map<String, Value>,
        session: Option<Arc<Session>>,
        grant: Option<&Arc<Grant>>,
        span: RequestSpan,
    ) -> (Outcome, Option<Arc<Session>>) {
        if method == "initialize" {
            let (outcome, session) = self.initialize(&id, &params, principal_of(grant));
            return (span.done(outcome), session);
        }
        let Some(session) = session else {
            let error = ErrorObject::invalid_request("send `initialize` first");
            return (span.done(fail(Some(&id), error)), None);
        };
        let outcome = match method.as_str() {
            "ping" => ok(&id, json!({})),
            // Served where `resources.subscribe` is advertised; updates
            // go out on the session's stream (see `Server::legacy_updates`).
            "resources/subscribe" | "resources/unsubscribe"
                if self.inner.handlers.has_resources() =>
            {
                match session.subscribe(&params, method == "resources/subscribe") {
                    Ok(()) => ok(&id, json!({})),
                    Err(error) => fail(Some(&id), error),
                }
            }
            "logging/setLevel" => match params
                .get("level")
                .cloned()
                .map(serde_json::from_value::<LoggingLevel>)
            {
                Some(Ok(level)) => {
                    if let Ok(mut current) = session.log_level.lock() {
                        *current = Some(level);
                    }
                    ok(&id, json!({}))
                }
                _ => fail(
                    Some(&id),
                    ErrorObject::invalid_params("`level` must be a log level"),
                ),
            },
            "tools/list" | "prompts/list" | "resources/list" | "resources/templates/list" => {
                match self.listing(&method, &params) {
                    Some(Ok(result)) => ok(&id, legacy_result(result)),
                    Some(Err(e)) => fail(Some(&id), e),
                    None => fail(Some(&id), ErrorObject::method_not_found(&method)),
                }
            }
            "tools/call" | "prompts/get" | "resources/read" | "completion/complete"
                if Kind::of(&method).is_some_and(|kind| self.serves(kind)) =>
            {
                let name = params.get("name").and_then(Value::as_str);
                let refused =
                    Kind::of(&method).and_then(|kind| self.check_scopes(&id, kind, name, grant));
                match refused {
                    Some(refused) => refused,
                    None => {
                        let outcome = self.legacy_call(id, method, params, session, grant, span);
                        return (outcome, None);
                    }
                }
            }
            _ => fail(Some(&id), ErrorObject::method_not_found(&method)),
        };
        (span.done(outcome), None)
    }

    fn initialize(
        &self,
        id: &RequestId,
        params: &Map<String, Value>,
        principal: Option<Arc<str>>,
    ) -> (Outcome, Option<Arc<Session>>) {
        let requested = params
            .get("protocolVersion")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let version = if LEGACY_VERSIONS.contains(&requested) {
            requested
        } else {
            LEGACY_VERSIONS[0]
        };
        let capabilities = params
            .get("capabilities")
            .cloned()
            .and_then(|c| serde_json::from_value(c).ok())
            .unwrap_or_default();
        let session = match Session::new(version.to_owned(), capabilities, principal) {
            Ok(session) => Arc::new(session),
            Err(e) => return (fail(Some(id), e), None),
        };
        let capabilities = capabilities::advertised(&self.inner, capabilities::Era::Legacy);
        let mut result = json!({ "protocolVersion": version, "capabilities": capabilities, "serverInfo": self.inner.info });
        if let Some(instructions) = &self.inner.instructions {
            result["instructions"] = json!(instructions);
        }
        (ok(id, result), Some(session))
    }

    /// Runs a handler for a legacy client on a task feeding the response
    /// stream, turning each round of `input_required` into requests to the
    /// client; ends `span` with the answer.
    fn legacy_call(
        &self,
        id: RequestId,
        method: String,
        params: Map<String, Value>,
        session: Arc<Session>,
        grant: Option<&Arc<Grant>>,
        mut span: RequestSpan,
    ) -> Outcome {
        let permit = match self.stream_permit(principal_of(grant)) {
            Ok(permit) => permit,
            Err((status, e)) => {
                return span.done(Outcome::Reply {
                    status,
                    message: Reply::from_value(&error_message(Some(&id), &e)),
                })
            }
        };
        let (notifier, messages) = Notifier::channel(self.inner.limits.notification_buffer);
        let stream = notifier.sender();
        let progress_token: Option<ProgressToken> = params
            .get("_meta")
            .and_then(|m| m.get("progressToken"))
            .cloned()
            .and_then(|t| serde_json::from_value(t).ok());
        let base = self
            .equip(Context::new(method.clone(), session.capabilities.clone()))
            .with_notifier(notifier, progress_token, session.log_level());
        let base = with_grant(base, grant);
        let server = self.clone();
        let final_stream = stream.clone();
        let mut work = Box::pin(async move {
            match server
                .rounds(&method, params, base, &session, &stream)
                .await
            {
                Ok(result) => {
                    json!({ "jsonrpc": "2.0", "id": id, "result": legacy_result(result) })
                }
                Err(e) => error_message(Some(&id), &e),
            }
        });
        // Most calls finish without waiting and without notifying: they are
        // answered at once, with no task and no stream. The waker does not
        // matter: a call that waits is polled again by the task that takes
        // it over.
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        let task = match work.as_mut().poll(&mut cx) {
            std::task::Poll::Ready(message) if messages.is_empty() => {
                return span.done(Outcome::Reply {
                    status: 200,
                    message: Reply::from_value(&message),
                });
            }
            // Notifications went out first: the answer follows them on the
            // stream, sent by a task since the buffer may be full.
            std::task::Poll::Ready(message) => {
                if span.wants_result() {
                    span.record_result(message.to_string().as_bytes());
                }
                span.end(error_code(&message));
                tokio::spawn(async move {
                    let _ = final_stream.send(message).await;
                })
            }
            std::task::Poll::Pending => {
                let traced = span.span();
                tokio::spawn(async move {
                    let message = work.instrument(traced).await;
                    if span.wants_result() {
                        span.record_result(message.to_string().as_bytes());
                    }
                    span.end(error_code(&message));
                    let _ = final_stream.send(message).await;
                })
            }
        };
        Outcome::Stream {
            messages,
            guard: AbortOnDrop::new(task.abort_handle()).holding(permit),
        }
    }

    async fn rounds(
        &self,
        method: &str,
        params: Map<String, Value>,
        base: Context,
        session: &Session,
        stream: &mpsc::Sender<Value>,
    ) -> Result<Value, ErrorObject> {
        // The handlers take the modern shape of the params: give them the
        // `_meta` the session stands for.
        let mut params = params;
        let mut meta = params
            .get("_meta")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        meta.insert(
            mcp_types::meta::PROTOCOL_VERSION.to_owned(),
            json!(session.version),
        );
        meta.insert(
            mcp_types::meta::CLIENT_CAPABILITIES.to_owned(),
            json!(session.capabilities),
        );
        params.insert("_meta".to_owned(), Value::Object(meta));
        // What the client put beside them is checked as a modern request's
        // `_meta` would be.
        super::validate::request_meta(Some(&params), None)?;
        let kind = Kind::of(method).ok_or_else(|| ErrorObject::method_not_found(method))?;
        for _ in 0..MAX_ROUNDS {
            let result = self
                .call(kind, Params::Json(params.clone()), base.clone())
                .await?
                .into_value()?;
            if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
                return Ok(result);
            }
            let requests = result
                .get("inputRequests")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            let mut answers = Map::new();
            for (key, request) in requests {
                let request_method = request
                    .get("method")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                let request_params = request.get("params").cloned().unwrap_or_else(|| json!({}));
                let answer = session.ask(stream, &request_method, request_params).await?;
                answers.insert(key, answer);
            }
            // The retry a modern client would send: the same params plus the
            // answers, and the state echoed as it came.
            params.insert("inputResponses".to_owned(), Value::Object(answers));
            match result.get("requestState") {
                Some(state) => params.insert("requestState".to_owned(), state.clone()),
                None => params.remove("requestState"),
            };
        }
        Err(ErrorObject::internal_error(format!(
            "`{method}` asked for input more than {MAX_ROUNDS} times"
        )))
    }
}
