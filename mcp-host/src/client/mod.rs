//! One client per server, over a stdio subprocess, Streamable HTTP, or the
//! deprecated HTTP+SSE transport of 2024-11-05 (see [`Target::Sse`]).
//!
//! [`Client::connect`] starts the transport and settles the era: it probes
//! with `server/discover` (see [`probe`](crate::probe)) and falls back to
//! the legacy `initialize` handshake when the server is legacy, or goes
//! straight to `initialize` when [`ClientOptions::force_legacy`] is set.
//! From then on every request is stamped for that era: modern requests
//! carry the version, the client's capabilities and its identity in
//! `_meta` (and the `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and
//! `Mcp-Param-*` headers over HTTP); legacy requests ride the session.
//!
//! Requests are typed by the method table of `mcp-types`:
//! [`Client::call`] takes any [`FreeRequest`] and returns its result, and
//! [`Client::call_with_input`] also answers the server's input requests
//! through the host's [`InputHandler`] until the result is complete. Tool
//! calls are not free: they need an [`Approval`](crate::approval::Approval)
//! and go through [`Client::call_tool`]. [`Client::listen`] opens a
//! `subscriptions/listen` stream and hands over the server's change
//! notifications as a [`Subscription`], which ends the stream when dropped.
//!
//! Every request has a timeout, after which it is cancelled; dropping a
//! request's future cancels it too (`notifications/cancelled` on stdio, a
//! closed connection on HTTP).
//!
//! A broken response stream loses a modern HTTP request: there is no
//! resumption in the modern era, so the client sends the request again
//! with a new id and the same params, at most
//! [`ClientOptions::max_reissues`] times, within the request's one
//! timeout. The reissue is part of the same call: a tool call reissued
//! runs under the approval it already has, with the arguments that
//! approval covers. A legacy request resumes its stream with
//! `Last-Event-ID` instead.
//!
//! A misbehaving server gets a typed error, never a hang or unbounded
//! buffering. Over stdio, lines that are not JSON-RPC messages (a start-up
//! banner, stray logs) are skipped; responses are routed by id, so one
//! whose id the client never issued or no longer waits for is dropped; and
//! a line longer than [`ClientOptions::max_message_size`] fails the
//! connection with [`ClientError::MessageTooLarge`]. Over HTTP, an error
//! status is [`ClientError::HttpStatus`] (or [`ClientError::Rpc`] when its
//! body is a JSON-RPC error), a reply that ends before its response is
//! [`ClientError::Truncated`] (once the reissues are spent), one of another
//! media type is
//! [`ClientError::ContentType`], and a body that is not a message, or a
//! response to another id, is [`ClientError::Protocol`].

mod call;
mod channel;
pub mod error;
mod http;
pub mod input;
pub mod legacy_sse;
mod listen;
mod log;
pub mod redirect;
mod stdio;
#[cfg(feature = "tasks")]
mod task;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock, Weak};
use std::time::Duration;

use mcp_types::error::ErrorCode;
use mcp_types::jsonrpc::Message;
use mcp_types::v2026_07_28::{Implementation, RequestId, ServerCapabilities, Tool};
use mcp_types::version::{Era, ProtocolVersion};
use serde_json::{json, Map, Value};
use tokio::sync::mpsc;

pub use call::{CallOptions, ExcludedTool, FreeRequest, Progress, ProgressFn, ToolList};
use call::{Outgoing, Phase};
pub use error::{ClientError, NameKind, StartFailure, StartReason};
pub use input::{ElicitWith, InputHandler, NoInput};
pub use listen::Subscription;
pub use stdio::{Shutdown, StdioCommand, STDERR_LINES, STDERR_LINE_BYTES};
#[cfg(feature = "tasks")]
pub use task::ToolStart;

use crate::approval::Trust;
use crate::headers::HeaderParam;
use crate::names::ServerId;
use crate::probe::{DiscoverReply, EraProbe, LegacyReason, ProbeStep};
use crate::schema::{InputSchema, SchemaError};
use crate::untrusted::Untrusted;

/// Where a server is. Its `Debug` shows header names without their values
/// and a URL without its query, which may carry keys.
#[derive(Clone, PartialEq, Eq)]
pub enum Target {
    /// A process to start, spoken to over its stdin and stdout.
    Stdio(StdioCommand),
    /// A Streamable HTTP endpoint. A server that refuses POSTs to it
    /// (`400`, `404` or `405`) for the probe and for `initialize` alike is
    /// tried over the HTTP+SSE transport at the same URL before the
    /// connection fails.
    Http {
        /// The endpoint URL.
        url: String,
        /// Headers added to every request, such as `Authorization`.
        headers: Vec<(String, String)>,
    },
    /// The SSE URL of a server on the deprecated HTTP+SSE transport of
    /// 2024-11-05 (see [`legacy_sse`]); always of the legacy era.
    Sse {
        /// The URL of the event stream, often ending in `/sse`.
        url: String,
        /// Headers added to every request, such as `Authorization`.
        headers: Vec<(String, String)>,
    },
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Stdio(command) => f.debug_tuple("Stdio").field(command).finish(),
            Self::Http { url, headers } | Self::Sse { url, headers } => {
                let url = match url.split_once('?') {
                    Some((base, _)) => format!("{base}?…"),
                    None => url.clone(),
                };
                let headers: Vec<&str> = headers.iter().map(|(name, _)| name.as_str()).collect();
                let name = if matches!(self, Self::Sse { .. }) {
                    "Sse"
                } else {
                    "Http"
                };
                f.debug_struct(name)
                    .field("url", &url)
                    .field("headers", &headers)
                    .finish()
            }
        }
    }
}

/// The default of [`ClientOptions::max_message_size`]: 16 MiB.
pub const DEFAULT_MAX_MESSAGE_SIZE: usize = 16 * 1024 * 1024;

/// The default of [`ClientOptions::max_reissues`].
pub const DEFAULT_MAX_REISSUES: usize = 2;

/// The default of [`ClientOptions::task_timeout`]: one hour.
pub const DEFAULT_TASK_TIMEOUT: Duration = Duration::from_secs(3600);

/// How a client behaves.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    /// What the client says it is, on every request.
    pub client_info: Implementation,
    /// The versions the client speaks, in any order.
    pub versions: Vec<ProtocolVersion>,
    /// Skip the probe and run `initialize`.
    pub force_legacy: bool,
    /// How long to wait for an answer to `server/discover` before taking
    /// silence for a legacy server.
    pub probe_timeout: Duration,
    /// The default timeout of a request.
    pub request_timeout: Duration,
    /// How many rounds of input one call may ask for.
    pub max_rounds: usize,
    /// The trust placed in the server's declarations.
    pub trust: Trust,
    /// How long shutdown waits at each step before escalating.
    pub shutdown_grace: Duration,
    /// The largest message accepted from the server, in bytes: one line
    /// over stdio, one JSON body or one event over HTTP. A larger message
    /// fails the request with [`ClientError::MessageTooLarge`] as soon as
    /// the limit is passed, so memory stays bounded; over stdio it fails
    /// the connection too. Lines that are not JSON-RPC messages but fit
    /// the limit are skipped. Defaults to [`DEFAULT_MAX_MESSAGE_SIZE`].
    ///
    /// ```
    /// use mcp_host::client::ClientOptions;
    ///
    /// let options = ClientOptions {
    ///     max_message_size: 1024 * 1024,
    ///     ..ClientOptions::default()
    /// };
    /// assert!(options.max_message_size < mcp_host::client::DEFAULT_MAX_MESSAGE_SIZE);
    /// ```
    pub max_message_size: usize,
    /// How many times a modern request over HTTP is sent again when its
    /// response stream breaks: the stream ends, or its connection is cut,
    /// before the response. The modern era has no stream resumption, so
    /// the request is lost, and the client reissues it with a new id and
    /// the same params (an MRTR retry keeps its `requestState` and
    /// `inputResponses` byte for byte). Every send of a request shares its
    /// timeout, and its progress callback hears each of them. When the
    /// last one breaks too, the request fails with
    /// [`ClientError::Truncated`], whose `attempts` counts the sends.
    ///
    /// Only a broken stream is reissued: an error status, a refused content
    /// type, a message over [`ClientOptions::max_message_size`], a timeout,
    /// an empty body, and a request the caller dropped are not. Neither
    /// are the era probe, for which a broken stream is a legacy server's
    /// silence, nor legacy requests, which resume their stream with
    /// `Last-Event-ID` instead.
    ///
    /// A tool call the server had begun before its stream broke runs again
    /// when reissued; a host whose tools must run at most once sets this to
    /// 0. Defaults to [`DEFAULT_MAX_REISSUES`].
    ///
    /// ```
    /// use mcp_host::client::ClientOptions;
    ///
    /// // Send each request at most once.
    /// let options = ClientOptions {
    ///     max_reissues: 0,
    ///     ..ClientOptions::default()
    /// };
    /// assert_ne!(options.max_reissues, mcp_host::client::DEFAULT_MAX_REISSUES);
    /// ```
    pub max_reissues: usize,
    /// How long a tool call that the server runs as a task (the tasks
    /// extension) may take in all, polls and input included, before the
    /// client cancels the task with `tasks/cancel` and gives up with
    /// [`ClientError::Timeout`]. Each poll is a request of its own, under
    /// [`ClientOptions::request_timeout`]. Defaults to
    /// [`DEFAULT_TASK_TIMEOUT`]; [`CallOptions::task_timeout`] overrides it
    /// for one call.
    pub task_timeout: Duration,
    /// The OAuth client of an HTTP server that asks for authorization:
    /// its token goes on every request, and a refusal (`401`, `403
    /// insufficient_scope`) has it authorize before the request is sent
    /// again. The time spent authorizing (a person logging in) does not
    /// count against the request's timeout. Ignored over stdio, and when
    /// the target's headers carry an `Authorization` of their own.
    #[cfg(feature = "oauth")]
    pub oauth: Option<std::sync::Arc<crate::auth::OAuthClient>>,
    /// How the client holds the tools it lists to their pins: by default
    /// pinned at first sight for the client's life; a [`Host`](crate::Host)
    /// shares its pin file with every client it connects. A tool whose
    /// definition changed is refused on the path every call takes, unless
    /// this is [`Pinning::Unchecked`](crate::trust::Pinning::Unchecked).
    pub pins: crate::trust::Pinning,
}

impl Default for ClientOptions {
    fn default() -> Self {
        Self {
            client_info: Implementation {
                name: String::from("mcp-host"),
                version: String::from(env!("CARGO_PKG_VERSION")),
                title: None,
                description: None,
                icons: None,
                website_url: None,
                extra: Map::new(),
            },
            versions: vec![
                ProtocolVersion::V2026_07_28,
                ProtocolVersion::V2025_11_25,
                ProtocolVersion::V2025_06_18,
                ProtocolVersion::V2025_03_26,
            ],
            force_legacy: false,
            probe_timeout: Duration::from_secs(3),
            request_timeout: Duration::from_secs(60),
            max_rounds: crate::mrtr::DEFAULT_MAX_ROUNDS,
            trust: Trust::Untrusted,
            shutdown_grace: Duration::from_secs(2),
            max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
            max_reissues: DEFAULT_MAX_REISSUES,
            task_timeout: DEFAULT_TASK_TIMEOUT,
            #[cfg(feature = "oauth")]
            oauth: None,
            pins: crate::trust::Pinning::default(),
        }
    }
}

/// What the client learnt when it connected.
#[derive(Debug, Clone)]
pub struct Session {
    /// The server's era.
    pub era: Era,
    /// The version every request uses.
    pub version: ProtocolVersion,
    /// What the server can do.
    pub capabilities: ServerCapabilities,
    /// What the server says it is.
    pub server_info: Option<Untrusted<Implementation>>,
    /// The server's guidance for the model.
    pub instructions: Option<Untrusted<String>>,
}

/// The key under which a host remembers the era of a server: the origin
/// of an HTTP endpoint, or the configured process of a stdio server.
pub fn era_key(id: &ServerId, target: &Target) -> String {
    match target {
        Target::Http { url, .. } | Target::Sse { url, .. } => reqwest::Url::parse(url)
            .map(|u| u.origin().ascii_serialization())
            .unwrap_or_else(|_| url.clone()),
        Target::Stdio(_) => format!("stdio:{id}"),
    }
}

/// The era a host remembers for a server, so that a restart need not probe
/// again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KnownEra {
    /// Probe: the server answered `server/discover`.
    Modern,
    /// Go straight to `initialize`.
    Legacy,
}

enum Transport {
    Stdio(channel::Channel),
    Http(http::Http),
    Sse(channel::Channel),
}

/// A tool the client has listed, with the headers its calls need and its
/// input schema, compiled when it is first called.
#[derive(Debug, Clone)]
struct KnownTool {
    tool: Tool,
    headers: Vec<HeaderParam>,
    /// Why it may not be called: its definition differs from its pin.
    quarantine: Option<crate::trust::Quarantine>,
    schema: Arc<OnceLock<Result<Arc<InputSchema>, SchemaError>>>,
}

impl KnownTool {
    fn new(
        tool: Tool,
        headers: Vec<HeaderParam>,
        quarantine: Option<crate::trust::Quarantine>,
    ) -> Self {
        Self {
            tool,
            quarantine,
            headers,
            schema: Arc::default(),
        }
    }

    /// The tool's input schema, compiled once, as written by `origin`.
    fn schema(&self, origin: &ServerId) -> Result<Arc<InputSchema>, SchemaError> {
        self.schema
            .get_or_init(|| {
                let schema = serde_json::to_value(&self.tool.input_schema).unwrap_or_default();
                InputSchema::compile(&Untrusted::new(origin.clone(), schema)).map(Arc::new)
            })
            .clone()
    }
}

/// A client of one server.
pub struct Client {
    id: ServerId,
    transport: Arc<Transport>,
    options: ClientOptions,
    input: Arc<dyn InputHandler>,
    next_id: AtomicI64,
    session: RwLock<Option<Session>>,
    tools: Mutex<BTreeMap<String, KnownTool>>,
    /// The pins its tools are held to, and whether this client pins what
    /// it sees first (its own book) or leaves that to the book's owner.
    pins: Option<(crate::trust::PinGuard, bool)>,
    /// Who the server is, for the pins: its command line or URL.
    identity: String,
    /// The task reading a legacy HTTP session's GET stream.
    listener: Mutex<Option<tokio::task::AbortHandle>>,
}

impl Drop for Client {
    fn drop(&mut self) {
        if let Some(listener) = self.listener.lock().ok().and_then(|mut l| l.take()) {
            listener.abort();
        }
    }
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("id", &self.id)
            .field("session", &self.session())
            .finish_non_exhaustive()
    }
}

/// How a request is stamped for the era.
#[derive(Debug, Clone)]
enum Stamp {
    Modern(ProtocolVersion),
    Legacy(ProtocolVersion),
    Initialize,
}

impl Client {
    /// Starts the transport to `target` and settles the era. `input`
    /// answers the server's input requests; `known` is an era remembered
    /// from an earlier connection.
    ///
    /// # Errors
    ///
    /// When the server cannot be started or reached, when the probe fails
    /// (a modern server with no version in common), or when `initialize`
    /// fails.
    pub async fn connect(
        id: ServerId,
        target: Target,
        input: Arc<dyn InputHandler>,
        options: ClientOptions,
        known: Option<KnownEra>,
    ) -> Result<Self, ClientError> {
        let limit = options.max_message_size;
        // What the server's process logs later is told within this span.
        let span = tracing::debug_span!("server", id = %id);
        let transport = match &target {
            Target::Stdio(command) => {
                match span.in_scope(|| channel::Channel::spawn(command, limit)) {
                    Ok(stdio) => Transport::Stdio(stdio),
                    Err(error) => {
                        return Err(ClientError::Start(Box::new(StartFailure {
                            command: command.command_line(),
                            reason: StartReason::Spawn(error),
                            stderr: None,
                        })))
                    }
                }
            }
            Target::Http { url, headers } => {
                let http = http::Http::new(url, headers, limit)?;
                #[cfg(feature = "oauth")]
                let http = http.with_oauth(options.oauth.clone());
                Transport::Http(http)
            }
            Target::Sse { url, headers } => Transport::Sse(
                legacy_sse::connect(url, headers, limit, options.request_timeout).await?,
            ),
        };
        let client = Self::assemble(id, transport, &target, input, options);
        let error = match client.establish(known).await {
            Ok(()) => return Ok(client),
            Err(error) => error,
        };
        // A server that refuses POSTs to its URL may be one of the HTTP+SSE
        // transport, which serves its stream there.
        if let (
            Target::Http { url, headers },
            ClientError::HttpStatus {
                status: 400 | 404 | 405,
                ..
            },
        ) = (&target, &error)
        {
            let options = &client.options;
            if let Ok(channel) =
                legacy_sse::connect(url, headers, limit, options.request_timeout).await
            {
                let sse = Self::assemble(
                    client.id.clone(),
                    Transport::Sse(channel),
                    &target,
                    client.input.clone(),
                    client.options.clone(),
                );
                sse.initialize().await?;
                return Ok(sse);
            }
        }
        Err(client.start_failure(&target, error).await)
    }

    /// A client over `transport`, not yet established.
    fn assemble(
        id: ServerId,
        transport: Transport,
        target: &Target,
        input: Arc<dyn InputHandler>,
        options: ClientOptions,
    ) -> Self {
        let transport = Arc::new(transport);
        if let Transport::Stdio(channel) | Transport::Sse(channel) = &*transport {
            if let Some(requests) = channel.take_server_requests() {
                tokio::spawn(answer_server_requests(
                    requests,
                    Arc::downgrade(&transport),
                    input.clone(),
                    id.clone(),
                ));
            }
        }
        let pins = match &options.pins {
            crate::trust::Pinning::Own => Some((crate::trust::PinGuard::memory(), true)),
            crate::trust::Pinning::Shared(guard) => Some((guard.clone(), false)),
            crate::trust::Pinning::Unchecked => None,
        };
        Self {
            id,
            transport,
            pins,
            identity: crate::trust::identity(target),
            options,
            input,
            next_id: AtomicI64::new(1),
            session: RwLock::new(None),
            tools: Mutex::new(BTreeMap::new()),
            listener: Mutex::new(None),
        }
    }

    /// `error`, or, when a stdio server closed its output before it was
    /// established, how the process ended.
    async fn start_failure(&self, target: &Target, error: ClientError) -> ClientError {
        let (Transport::Stdio(stdio), Target::Stdio(command), ClientError::Closed) =
            (&*self.transport, target, &error)
        else {
            return error;
        };
        let report = stdio.exit_report(self.options.shutdown_grace).await;
        let stderr = (!report.stderr.is_empty())
            .then(|| Untrusted::new(self.id.clone(), report.stderr.join("\n")));
        ClientError::Start(Box::new(StartFailure {
            command: command.command_line(),
            reason: StartReason::Exited(report.status),
            stderr,
        }))
    }

    /// The host's id for the server.
    pub fn id(&self) -> &ServerId {
        &self.id
    }

    /// What the client learnt when it connected.
    pub fn session(&self) -> Option<Session> {
        self.session.read().ok()?.clone()
    }

    /// Where a followed redirect moved an HTTP server's endpoint, if one
    /// did (see [`redirect`]): requests go there for the rest of the
    /// session. Pins, tokens and the remembered era stay under the
    /// configured URL; an access token's DPoP proof names the URL the
    /// request goes to.
    pub fn redirected(&self) -> Option<String> {
        match &*self.transport {
            Transport::Http(http) => http.redirected().map(String::from),
            Transport::Stdio(_) | Transport::Sse(_) => None,
        }
    }

    /// The era to remember for this server.
    pub fn known_era(&self) -> Option<KnownEra> {
        self.session().map(|s| match s.era {
            Era::Modern => KnownEra::Modern,
            Era::Legacy => KnownEra::Legacy,
        })
    }

    /// Whether the transport has ended: the process exited or closed its
    /// output, or an HTTP+SSE stream broke and could not be opened again.
    /// Always `false` over Streamable HTTP, which has no connection to
    /// lose.
    pub fn is_closed(&self) -> bool {
        match &*self.transport {
            Transport::Stdio(channel) | Transport::Sse(channel) => channel.is_closed(),
            Transport::Http(_) => false,
        }
    }

    /// Whether the server runs as a local process.
    pub fn is_stdio(&self) -> bool {
        matches!(&*self.transport, Transport::Stdio(_))
    }

    /// The trust placed in the server.
    pub fn trust(&self) -> Trust {
        self.options.trust
    }

    /// Shuts the server down: over stdio, close its stdin, wait, then
    /// SIGTERM, wait, then SIGKILL; over HTTP, end the legacy session if
    /// there is one, or close the HTTP+SSE stream. `None` over HTTP.
    pub async fn shutdown(&self) -> Option<Shutdown> {
        match &*self.transport {
            Transport::Stdio(stdio) => Some(stdio.shutdown(self.options.shutdown_grace).await),
            Transport::Sse(channel) => {
                channel.shutdown(self.options.shutdown_grace).await;
                None
            }
            Transport::Http(http) => {
                http.end_session().await;
                None
            }
        }
    }

    fn next_id(&self) -> RequestId {
        RequestId::Integer(self.next_id.fetch_add(1, Ordering::Relaxed))
    }

    fn stamp(&self) -> Result<Stamp, ClientError> {
        let session = self.session().ok_or(ClientError::Closed)?;
        Ok(match session.era {
            Era::Modern => Stamp::Modern(session.version),
            Era::Legacy => Stamp::Legacy(session.version),
        })
    }

    fn set_session(&self, session: Session) {
        if let Ok(mut slot) = self.session.write() {
            *slot = Some(session);
        }
    }

    async fn establish(&self, known: Option<KnownEra>) -> Result<(), ClientError> {
        if self.options.force_legacy || matches!(&*self.transport, Transport::Sse(_)) {
            return self.initialize().await;
        }
        if known == Some(KnownEra::Legacy) {
            // Re-probe if the remembered era no longer holds.
            match self.initialize().await {
                Err(ClientError::Rpc(_)) => {}
                other => return other,
            }
        }
        let Some(mut probe) = EraProbe::new(&self.options.versions) else {
            return self.initialize().await;
        };
        // Set once a silent server refused `initialize` with the modern
        // era's unsupported-version code: it was slow rather than legacy
        // (it started slowly and has by then taken the discovery for its
        // era), so discovery is asked again, given the time of any other
        // request.
        let mut patient = false;
        loop {
            let timeout = if patient {
                self.options.request_timeout
            } else {
                self.options.probe_timeout
            };
            let reply = self.discover(probe.version().clone(), timeout).await?;
            match probe.on_reply(reply) {
                ProbeStep::Modern { version, result } => {
                    let server_info = result
                        .meta
                        .as_ref()
                        .and_then(|m| m.server_info.clone())
                        .map(|i| Untrusted::new(self.id.clone(), i));
                    self.set_session(Session {
                        era: Era::Modern,
                        version,
                        capabilities: result.capabilities,
                        server_info,
                        instructions: result
                            .instructions
                            .map(|i| Untrusted::new(self.id.clone(), i)),
                    });
                    return Ok(());
                }
                ProbeStep::RetryModern { .. } => continue,
                ProbeStep::Legacy(LegacyReason::Silence) if !patient => {
                    match self.initialize().await {
                        Err(ClientError::Rpc(error))
                            if error.accept_ref().code
                                == ErrorCode::UNSUPPORTED_PROTOCOL_VERSION.0 =>
                        {
                            patient = true;
                            if let Some(fresh) = EraProbe::new(&self.options.versions) {
                                probe = fresh;
                            }
                        }
                        other => return other,
                    }
                }
                ProbeStep::Legacy(_) => return self.initialize().await,
                ProbeStep::Failed(e) => return Err(e.into()),
            }
        }
    }

    /// One `server/discover` attempt, as the probe wants to see it.
    async fn discover(
        &self,
        version: ProtocolVersion,
        timeout: Duration,
    ) -> Result<DiscoverReply, ClientError> {
        let options = CallOptions {
            timeout: Some(timeout),
            progress: None,
            ..CallOptions::default()
        };
        let request = Outgoing {
            method: "server/discover",
            params: Map::new(),
            stamp: &Stamp::Modern(version),
            options: &options,
            headers: Vec::new(),
            phase: Phase::Establishing,
        };
        let outcome = self.exchange(self.next_id(), request).await;
        match outcome {
            Ok(result) => Ok(DiscoverReply::Result(result)),
            Err(ClientError::Rpc(error)) => Ok(DiscoverReply::Error(error.accept())),
            // No response over HTTP (an empty body, a stream that ends
            // first) is the silence of a legacy server.
            Err(ClientError::Timeout(_) | ClientError::Truncated { .. }) => {
                Ok(DiscoverReply::Silence)
            }
            Err(ClientError::HttpStatus { status, body }) => {
                Ok(DiscoverReply::HttpStatus { status, body })
            }
            Err(other) => Err(other),
        }
    }

    async fn initialize(&self) -> Result<(), ClientError> {
        let offered = self
            .options
            .versions
            .iter()
            .filter(|v| v.era() == Some(Era::Legacy))
            .max()
            .cloned()
            .unwrap_or(ProtocolVersion::LATEST_LEGACY);
        let params = json!({
            "protocolVersion": offered,
            "capabilities": self.input.capabilities(),
            "clientInfo": self.options.client_info,
        });
        let Value::Object(params) = params else {
            return Err(ClientError::protocol("initialize params"));
        };
        let request = Outgoing {
            method: "initialize",
            params,
            stamp: &Stamp::Initialize,
            options: &CallOptions::default(),
            headers: Vec::new(),
            phase: Phase::Establishing,
        };
        let value = self.exchange(self.next_id(), request).await?;
        let result: mcp_types::v2025_11_25::InitializeResult =
            serde_json::from_value(value).map_err(ClientError::protocol)?;
        let version = ProtocolVersion::parse(&result.protocol_version);
        if version.era() != Some(Era::Legacy) || !self.options.versions.contains(&version) {
            return Err(ClientError::Protocol(format!(
                "the server chose version `{version}`, which this client does not speak"
            )));
        }
        let capabilities = serde_json::to_value(&result.capabilities)
            .and_then(serde_json::from_value)
            .unwrap_or_default();
        let server_info = serde_json::to_value(&result.server_info)
            .and_then(serde_json::from_value)
            .ok()
            .map(|i| Untrusted::new(self.id.clone(), i));
        self.set_session(Session {
            era: Era::Legacy,
            version: version.clone(),
            capabilities,
            server_info,
            instructions: result
                .instructions
                .map(|i| Untrusted::new(self.id.clone(), i)),
        });
        let stamp = Stamp::Legacy(version.clone());
        self.notify("notifications/initialized", &stamp).await?;
        if let Transport::Http(http) = &*self.transport {
            let headers = vec![(
                "MCP-Protocol-Version".to_owned(),
                version.as_str().to_owned(),
            )];
            if let Some(stream) = http.open_stream(&headers).await {
                let task = tokio::spawn(listen(
                    stream,
                    Arc::downgrade(&self.transport),
                    self.input.clone(),
                    self.id.clone(),
                    headers,
                ));
                if let Ok(mut slot) = self.listener.lock() {
                    *slot = Some(task.abort_handle());
                }
            }
        }
        Ok(())
    }

    async fn notify(&self, method: &str, stamp: &Stamp) -> Result<(), ClientError> {
        let message = json!({ "jsonrpc": "2.0", "method": method });
        match &*self.transport {
            Transport::Stdio(channel) | Transport::Sse(channel) => channel.write(&message),
            Transport::Http(http) => {
                let headers = self.era_headers(stamp, method, None);
                http.post(&message, &headers).await.map(drop)
            }
        }
    }

    /// The headers a request carries over HTTP in its era.
    fn era_headers(
        &self,
        stamp: &Stamp,
        method: &str,
        params: Option<&Map<String, Value>>,
    ) -> Vec<(String, String)> {
        match stamp {
            Stamp::Modern(version) => {
                crate::headers::request_headers(version.as_str(), method, params)
            }
            // The legacy era has no `Mcp-Method` or `Mcp-Name`; sending them
            // costs nothing and serves intermediaries that route on them.
            Stamp::Legacy(version) => {
                crate::headers::request_headers(version.as_str(), method, params)
            }
            Stamp::Initialize => vec![(
                "Mcp-Method".to_owned(),
                crate::headers::encode_value(method),
            )],
        }
    }
}

/// Answers the requests a legacy HTTP server sends on its GET stream, with
/// a POST each, until the stream ends or the client goes away.
async fn listen(
    mut stream: http::Answer,
    transport: Weak<Transport>,
    input: Arc<dyn InputHandler>,
    origin: ServerId,
    headers: Vec<(String, String)>,
) {
    while let Some(Ok(message)) = stream.next().await {
        let Message::Request { id, method, params } = message else {
            continue;
        };
        let reply = call::reply_to(&*input, &origin, id, &method, params).await;
        let Some(transport) = transport.upgrade() else {
            break;
        };
        if let Transport::Http(http) = &*transport {
            let _ = http.post(&reply, &headers).await;
        }
    }
}

/// Answers the legacy server-to-client requests of a stdio or HTTP+SSE
/// server, one at a time, until its output ends.
async fn answer_server_requests(
    mut requests: mpsc::UnboundedReceiver<Message>,
    transport: Weak<Transport>,
    input: Arc<dyn InputHandler>,
    origin: ServerId,
) {
    while let Some(message) = requests.recv().await {
        let Message::Request { id, method, params } = message else {
            continue;
        };
        let reply = call::reply_to(&*input, &origin, id, &method, params).await;
        let Some(transport) = transport.upgrade() else {
            break;
        };
        if let Transport::Stdio(channel) | Transport::Sse(channel) = &*transport {
            let _ = channel.write(&reply);
        }
    }
}
