//! What a handler knows about the request it serves.

use std::borrow::Cow;
use std::sync::Arc;

use mcp_types::v2026_07_28::{ClientCapabilities, InputResponses, LoggingLevel, ProgressToken};
use serde_json::{json, Value};

use crate::notify::{Bus, Change, Notifier};
#[cfg(feature = "sealed-state")]
use crate::state::KeyRing;

/// The request a tool, prompt or resource handler is serving: who asks, what
/// the client declared on this very request, and what a retry of a
/// multi-round-trip request brings back.
///
/// The runtime builds one per request; nothing in it outlives the request,
/// so any replica of a server can serve any request.
#[derive(Clone, Debug, Default)]
pub struct Context {
    // Borrowed for the methods the router serves, owned for others.
    method: Cow<'static, str>,
    principal: Option<Arc<str>>,
    /// The address of the client, when the transport knows it.
    peer: Option<std::net::IpAddr>,
    #[cfg(feature = "auth")]
    grant: Option<Arc<crate::auth::Grant>>,
    // Behind a pointer: the context lives in every request's future, which
    // is moved as a whole, and the capabilities are most of its size; and
    // shared, since a task keeps clones of the context for its reruns.
    client_capabilities: Arc<ClientCapabilities>,
    input_responses: Option<InputResponses>,
    request_state: Option<String>,
    #[cfg(feature = "sealed-state")]
    keys: Option<Arc<KeyRing>>,
    notifier: Option<Notifier>,
    progress_token: Option<ProgressToken>,
    log_level: Option<LoggingLevel>,
    bus: Option<Bus>,
    cancelled: Option<tokio::sync::watch::Receiver<bool>>,
    #[cfg(feature = "tasks")]
    may_become_task: bool,
}

impl Context {
    /// A context for a request of `method` whose client declared
    /// `client_capabilities`.
    pub fn new(method: impl Into<String>, client_capabilities: ClientCapabilities) -> Self {
        Context::boxed(Cow::Owned(method.into()), Box::new(client_capabilities))
    }

    /// [`Context::new`] with the capabilities already shared.
    pub(crate) fn shared(
        method: Cow<'static, str>,
        client_capabilities: Arc<ClientCapabilities>,
    ) -> Self {
        Context {
            method,
            client_capabilities,
            ..Context::default()
        }
    }

    /// [`Context::new`] with the capabilities already boxed, as the router
    /// reads them.
    pub(crate) fn boxed(
        method: Cow<'static, str>,
        client_capabilities: Box<ClientCapabilities>,
    ) -> Self {
        Context {
            method,
            client_capabilities: Arc::from(client_capabilities),
            ..Context::default()
        }
    }

    /// Sets the authenticated principal (for example the subject of an
    /// access token); sealed state is bound to it.
    pub fn with_principal(mut self, principal: impl Into<String>) -> Self {
        self.principal = Some(Arc::from(principal.into()));
        self
    }

    /// Sets the verified access token the request came with; its
    /// [`principal`](crate::auth::Grant::principal) becomes the context's.
    /// The HTTP transport of a protected server does this.
    #[cfg(feature = "auth")]
    pub fn with_grant(mut self, grant: Arc<crate::auth::Grant>) -> Self {
        self.principal = Some(grant.shared_principal());
        self.grant = Some(grant);
        self
    }

    /// Sets the answers and the state a retry carries.
    pub fn with_retry(
        mut self,
        input_responses: Option<InputResponses>,
        request_state: Option<String>,
    ) -> Self {
        self.input_responses = input_responses;
        self.request_state = request_state;
        self
    }

    /// Sets the keys that seal and open request state.
    #[cfg(feature = "sealed-state")]
    pub fn with_keys(mut self, keys: Arc<KeyRing>) -> Self {
        self.keys = Some(keys);
        self
    }

    /// The JSON-RPC method being served, such as `tools/call`.
    pub fn method(&self) -> &str {
        &self.method
    }

    /// The authenticated principal, if the transport established one. On
    /// a protected server it is the token's issuer and subject, as
    /// `auth::Grant::principal` encodes them (with the `auth` feature).
    pub fn principal(&self) -> Option<&str> {
        self.principal.as_deref()
    }

    /// Sets the network address of the request's client (after any
    /// trusted proxy); the HTTP transport does this.
    pub fn with_peer(mut self, peer: std::net::IpAddr) -> Self {
        self.peer = Some(peer);
        self
    }

    /// Who the request counts against under the replica's shares: its
    /// principal, else its client's address (see [`share`](crate::share));
    /// `None` over stdio and where neither is known.
    pub fn client(&self) -> Option<crate::share::Client> {
        match (&self.principal, self.peer) {
            (Some(principal), _) => Some(crate::share::Client::principal(principal.clone())),
            (None, Some(peer)) => Some(crate::share::Client::address(peer)),
            (None, None) => None,
        }
    }

    /// What the request's access token grants: issuer, subject, client,
    /// scopes and expiry. `None` on an unprotected server and over stdio.
    #[cfg(feature = "auth")]
    pub fn grant(&self) -> Option<&crate::auth::Grant> {
        self.grant.as_deref()
    }

    /// The capabilities the client declared on this request.
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        &self.client_capabilities
    }

    /// The answers a retry brings to earlier input requests.
    pub fn input_responses(&self) -> Option<&InputResponses> {
        self.input_responses.as_ref()
    }

    /// The opaque state a retry echoes back, as received (untrusted).
    pub fn request_state(&self) -> Option<&str> {
        self.request_state.as_deref()
    }

    /// The keys for sealing state, if the server configured them.
    #[cfg(feature = "sealed-state")]
    pub fn keys(&self) -> Option<&KeyRing> {
        self.keys.as_deref()
    }

    /// Connects the context to the stream of the request it serves: where
    /// progress and log notifications go, the progress token the client
    /// sent, and the log level it asked for (no level, no logs).
    pub fn with_notifier(
        mut self,
        notifier: Notifier,
        progress_token: Option<ProgressToken>,
        log_level: Option<LoggingLevel>,
    ) -> Self {
        self.notifier = Some(notifier);
        self.progress_token = progress_token;
        self.log_level = log_level;
        self
    }

    /// This context with the cancellation signal of a task: set to `true`
    /// by `tasks/cancel`, and when the task expires or lapses before its
    /// handler finished.
    pub fn with_cancellation(mut self, cancelled: tokio::sync::watch::Receiver<bool>) -> Self {
        self.cancelled = Some(cancelled);
        self
    }

    /// Whether the task this call runs for was stopped before its handler
    /// finished: the client cancelled it, it expired, or its lease lapsed
    /// (always `false` outside a task). The runtime stops awaiting such a
    /// handler, which drops it; a handler that hands work to other threads
    /// or processes checks this to stop them too.
    pub fn is_cancelled(&self) -> bool {
        self.cancelled.as_ref().is_some_and(|c| *c.borrow())
    }

    /// Resolves once the task this call runs for is stopped (see
    /// [`Context::is_cancelled`]), or once the runtime lets go of the call
    /// altogether (the call or task ended, or the server stopped): no one
    /// waits for the work any more. Never outside a task.
    pub async fn cancelled(&self) {
        match self.cancelled.clone() {
            // An error is the sender gone: the runtime let go of the call.
            Some(mut cancelled) => drop(cancelled.wait_for(|c| *c).await),
            None => std::future::pending().await,
        }
    }

    #[cfg(feature = "tasks")]
    /// Marks the call as one that may become a task (the tool supports
    /// tasks and the client declared the extension).
    pub(crate) fn allow_task(mut self) -> Self {
        self.may_become_task = true;
        self
    }

    #[cfg(feature = "tasks")]
    /// See [`Context::allow_task`].
    pub(crate) fn task_allowed(&self) -> bool {
        self.may_become_task
    }

    pub(crate) fn with_bus(mut self, bus: Bus) -> Self {
        self.bus = Some(bus);
        self
    }

    /// Tells the open `subscriptions/listen` streams of this process that
    /// something changed (for example after a tool added another tool).
    pub fn publish(&self, change: Change) {
        if let Some(bus) = &self.bus {
            bus.publish(change);
        }
    }

    /// Whether the client asked for progress on this request.
    pub fn wants_progress(&self) -> bool {
        self.progress_token.is_some() && self.notifier.is_some()
    }

    /// Reports progress: `progress` so far out of `total` if known. Does
    /// nothing unless the client sent a progress token; a client that has
    /// gone away is not an error.
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        let (Some(notifier), Some(token)) = (&self.notifier, &self.progress_token) else {
            return;
        };
        let mut params = json!({ "progressToken": token, "progress": progress });
        if let Some(total) = total {
            params["total"] = json!(total);
        }
        if let Some(message) = message {
            params["message"] = json!(message);
        }
        notifier.send("notifications/progress", params).await;
    }

    /// Sends a log message at `level` if the client asked for logs at that
    /// level or a more verbose one; otherwise does nothing.
    pub async fn log(&self, level: LoggingLevel, logger: Option<&str>, data: Value) {
        let (Some(notifier), Some(wanted)) = (&self.notifier, self.log_level) else {
            return;
        };
        if severity(level) < severity(wanted) {
            return;
        }
        let mut params = json!({ "level": level, "data": data });
        if let Some(logger) = logger {
            params["logger"] = json!(logger);
        }
        notifier.send("notifications/message", params).await;
    }
}

/// Syslog order, least severe first.
fn severity(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}
