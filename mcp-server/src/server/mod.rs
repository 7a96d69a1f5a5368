//! The router: validates each request, dispatches it to the handlers, and
//! shapes the result. Transports (stdio, Streamable HTTP) only move bytes.

mod capabilities;
mod dispatch;
mod handlers;
mod legacy;
mod listen;
mod own;
mod pages;
pub(crate) mod parse;
#[cfg(all(feature = "legacy", feature = "http"))]
mod sessions;
pub(crate) mod validate;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use mcp_types::v2026_07_28::{CacheScope, Implementation};
use serde_json::Map;

pub(crate) use dispatch::{busy, error_message, Step};
pub use dispatch::{AbortOnDrop, Outcome, Reply, RequestHeaders};
pub(crate) use handlers::Handlers;
pub use legacy::{Session, LEGACY_VERSIONS};
#[doc(hidden)]
pub use own::{FoundPrompts, FoundResources, FoundTools, Missing, OwnSets, Probe};
#[cfg(all(feature = "legacy", feature = "http"))]
pub(crate) use sessions::Sessions;

use crate::completion::Completer;
use crate::context::Context;
use crate::notify::{Bus, Change};
use crate::prompt::PromptSet;
use crate::resource::ResourceSet;
#[cfg(feature = "sealed-state")]
use crate::state::{KeyRing, KeyRingError};
use crate::tool::ToolSet;

/// What a request's verified access token grants; without the `auth`
/// feature no request has one, and the type has no values.
#[cfg(feature = "auth")]
pub(crate) type Grant = crate::auth::Grant;
#[cfg(not(feature = "auth"))]
#[derive(Debug)]
pub(crate) enum Grant {}

/// The protocol versions the stateless (modern) pipeline serves.
pub const MODERN_VERSIONS: &[&str] = &["2026-07-28"];

/// Limits that protect a server from hostile or runaway clients. Every
/// limit, when exceeded, is answered with an error that names it; none lets
/// memory grow without bound.
///
/// ```
/// use std::time::Duration;
///
/// let limits = mcp_server::Limits {
///     request_timeout: Duration::from_secs(30),
///     ..Default::default()
/// };
/// # let _ = limits;
/// ```
#[derive(Clone, Debug)]
pub struct Limits {
    /// Largest request body or stdio line, in bytes (default 4 MiB). A
    /// longer message is refused with -32600 (HTTP 413) without being
    /// buffered whole.
    pub max_message_bytes: usize,
    /// Deepest nesting of arrays and objects in a message (default 64). A
    /// deeper message is refused with -32600 before it is parsed. The JSON
    /// parser has its own guard at 128 levels, so values above 127 act as
    /// 127 (deeper input is then a -32700 parse error).
    pub max_depth: usize,
    /// Most requests being handled at once (default 64): per connection on
    /// stdio, across all connections of one endpoint on HTTP. A request
    /// beyond it is answered at once with -32603 (HTTP 503), and the client
    /// may retry. Answers that stream count against `max_streams` instead.
    pub max_in_flight: usize,
    /// Most requests one client may have in flight at once on HTTP
    /// (default 16), within `max_in_flight`. A client is the token's
    /// principal on a protected server, else the peer's address (an IPv6
    /// address by its /64). One more request from that client is answered
    /// with -32603 and HTTP 429 with `Retry-After`, while other clients are
    /// served: one client's slow bodies or slow handlers cannot take every
    /// place. The peer's address is known when the server runs with
    /// `transport::http::serve` or `serve_with`, or when a router you mount
    /// is served with axum's `ConnectInfo<SocketAddr>`; without it only
    /// principals get a share. Behind a proxy every unauthenticated client
    /// is the proxy unless the proxy is listed in
    /// [`HttpConfig::trusted_proxies`](crate::transport::http::HttpConfig::trusted_proxies).
    /// Not used on stdio.
    pub max_in_flight_per_client: usize,
    /// Longest a handler may run (default 300 s). A handler still running
    /// then is cancelled and its request answered with -32603.
    /// `Duration::MAX` turns the limit off. `subscriptions/listen` streams
    /// are not handlers and are not timed.
    pub request_timeout: Duration,
    /// Longest an HTTP request body may take to arrive once its headers are
    /// in (default 30 s); a slower body is answered with 408 and stops
    /// holding its place under `max_in_flight`. Not used on stdio.
    pub body_timeout: Duration,
    /// Most streams open at once across the whole server (default 256):
    /// `subscriptions/listen` streams, answers streamed as SSE or as
    /// notifications followed by the response, and legacy calls. A request
    /// that would open one more is answered with -32603 (HTTP 503).
    pub max_streams: usize,
    /// Most of those streams one client may hold open at once (default
    /// 64), a client being the principal on a protected server, else the
    /// peer's address on HTTP (see [`share`](crate::share)). One more from
    /// that client is answered with -32603 and HTTP 429 with
    /// `Retry-After`, while other clients open theirs. Streams over stdio
    /// and those of no known client count only against `max_streams`.
    pub max_streams_per_client: usize,
    /// Most tools, prompts, resources or templates on one page of a list
    /// (default 100).
    pub page_size: usize,
    /// Notifications a handler may queue ahead of a slow client (default 64).
    pub notification_buffer: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_message_bytes: 4 * 1024 * 1024,
            max_depth: 64,
            max_in_flight: 64,
            max_in_flight_per_client: 16,
            request_timeout: Duration::from_secs(300),
            body_timeout: Duration::from_secs(30),
            max_streams: 256,
            max_streams_per_client: 64,
            page_size: 100,
            notification_buffer: 64,
        }
    }
}

/// Awaits `future` for at most `limit`; `None` when the time ran out (the
/// future is then dropped, which cancels it).
///
/// The timer is armed only if the first poll leaves the future pending:
/// most handlers and most bodies are ready at once, and a timer costs a
/// registration and a removal in the runtime's timer wheel on every call.
/// `Duration::MAX` arms none.
pub(crate) fn within<F: Future>(limit: Duration, future: F) -> Within<F> {
    Within {
        future,
        limit,
        timer: None,
    }
}

pin_project_lite::pin_project! {
    /// The future of [`within`]: a struct rather than an `async fn`, whose
    /// state would hold the inner future twice over, and each request's
    /// future is moved whole.
    pub(crate) struct Within<F> {
        #[pin]
        future: F,
        limit: Duration,
        // Boxed: most calls never arm it.
        timer: Option<Pin<Box<tokio::time::Sleep>>>,
    }
}

impl<F: Future> Future for Within<F> {
    type Output = Option<F::Output>;

    fn poll(self: Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        if let Poll::Ready(output) = this.future.poll(cx) {
            return Poll::Ready(Some(output));
        }
        let limit = *this.limit;
        if limit == Duration::MAX {
            return Poll::Pending;
        }
        let timer = this
            .timer
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        match timer.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    }
}

/// A configured MCP server. Cheap to clone: transports share one.
#[derive(Clone)]
pub struct Server {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("info", &self.inner.info)
            .finish_non_exhaustive()
    }
}

pub(crate) struct Inner {
    pub(crate) info: Implementation,
    /// `"_meta":{"<serverInfo key>":info}`, encoded: the `_meta` of most
    /// results.
    pub(crate) info_meta: Vec<u8>,
    pub(crate) instructions: Option<String>,
    pub(crate) handlers: Handlers,
    #[cfg(feature = "sealed-state")]
    pub(crate) keys: Arc<KeyRing>,
    pub(crate) bus: Bus,
    pub(crate) ttl_ms: i64,
    pub(crate) cache_scope: CacheScope,
    pub(crate) limits: Limits,
    /// One permit per stream that may be open at once.
    pub(crate) streams: Arc<tokio::sync::Semaphore>,
    /// How many of those streams each client holds.
    pub(crate) stream_shares: Arc<std::sync::Mutex<crate::share::Counts>>,
    pub(crate) completer: Option<Box<dyn Completer>>,
    /// Compiled input schemas, by tool name, checked before each call.
    #[cfg(feature = "validation")]
    pub(crate) validators: std::collections::HashMap<String, jsonschema::Validator>,
    #[cfg(feature = "auth")]
    pub(crate) authorization: Option<Arc<crate::auth::ResourceServer>>,
    /// The tasks, when a tool runs as one.
    #[cfg(feature = "tasks")]
    pub(crate) tasks: Option<Arc<crate::tasks::runtime::Runtime>>,
    /// The client capabilities of the last request, shared with the next
    /// request that sends the same.
    pub(crate) capabilities: validate::LastCapabilities,
}

/// What [`Server::ready`] found unusable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NotReady(pub &'static str);

impl std::fmt::Display for NotReady {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the {} cannot be used", self.0)
    }
}

impl std::error::Error for NotReady {}

impl Server {
    /// `cx` with what the server gives every handler: its notification
    /// bus and, with the `sealed-state` feature, its keys.
    pub(crate) fn equip(&self, cx: Context) -> Context {
        #[cfg(feature = "sealed-state")]
        let cx = cx.with_keys(self.inner.keys.clone());
        cx.with_bus(self.inner.bus.clone())
    }

    /// Starts configuring a server whose handlers are methods of `state`.
    pub fn builder<S: Send + Sync + 'static>(state: S) -> ServerBuilder<S> {
        ServerBuilder::new(state)
    }

    /// Tells every open `subscriptions/listen` stream (of this process) that
    /// something changed; each stream forwards only what its filter asked
    /// for.
    pub fn notify(&self, change: Change) {
        self.inner.bus.publish(change);
    }

    /// Shuts this server's tasks down gracefully, for a rolling deploy:
    /// no call becomes a task any more (a tool with `task = "optional"`
    /// answers the call itself, one with `task = "required"` is refused),
    /// the tasks running in this process get up to `grace` to finish, and
    /// those still running then are failed with a message saying the
    /// server shut down, their handlers stopped (their
    /// [`Context::cancelled`](crate::Context::cancelled) resolves). Returns
    /// how many tasks were failed; 0 at once for a server without tasks.
    ///
    /// Call it once the server stopped taking requests, before the
    /// process exits: with a shared store, clients polling through other
    /// replicas see each task end.
    ///
    /// ```no_run
    /// # async fn run(server: mcp_server::Server) {
    /// let failed = server.drain_tasks(std::time::Duration::from_secs(30)).await;
    /// eprintln!("{failed} tasks did not finish in time");
    /// # }
    /// ```
    #[cfg(feature = "tasks")]
    pub async fn drain_tasks(&self, grace: std::time::Duration) -> usize {
        match &self.inner.tasks {
            Some(tasks) => tasks.drain(grace).await,
            None => 0,
        }
    }

    /// Whether this server can serve now, for a readiness check (the HTTP
    /// transport's `/readyz`): its task store, if it keeps tasks in a
    /// shared one, answers. The error names what is not ready; the detail
    /// goes to the log.
    ///
    /// # Errors
    ///
    /// [`NotReady`] naming the part that cannot be used.
    pub async fn ready(&self) -> Result<(), NotReady> {
        #[cfg(feature = "tasks")]
        if let Some(tasks) = &self.inner.tasks {
            if let Err(error) = tasks.ready().await {
                tracing::warn!(%error, "not ready: the task store cannot be used");
                return Err(NotReady("task store"));
            }
        }
        Ok(())
    }

    /// The limits in force.
    pub fn limits(&self) -> &Limits {
        &self.inner.limits
    }

    /// The resource server protecting this server over HTTP, if any.
    #[cfg(feature = "auth")]
    pub fn authorization(&self) -> Option<&crate::auth::ResourceServer> {
        self.inner.authorization.as_deref()
    }
}

/// Why a server could not be built.
#[derive(Debug)]
#[non_exhaustive]
pub enum BuildError {
    /// Two tool sets have a tool of this name.
    DuplicateTool(String),
    /// The server would serve nothing: no tool set, prompt set or resource
    /// set was given, and its state's type has none of its own.
    Nothing,
    /// No key could be generated for sealing state.
    #[cfg(feature = "sealed-state")]
    Keys(KeyRingError),
    /// A view of MCP Apps cannot be served as declared.
    #[cfg(feature = "apps")]
    View(crate::apps::ViewError),
    /// A tool renders its results in a view the server does not serve.
    #[cfg(feature = "apps")]
    UndeclaredView {
        /// The tool's name.
        tool: String,
        /// The view's URI, as `#[tool(ui = "...")]` gives it.
        uri: String,
    },
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BuildError::DuplicateTool(name) => {
                write!(f, "two tool sets have a tool named `{name}`")
            }
            BuildError::Nothing => f.write_str(
                "the server would serve nothing: give it tools (`.tools()`, or `#[tools]` on the \
                 state's type), prompts (`.prompts()`) or resources (`.resources()`)",
            ),
            #[cfg(feature = "sealed-state")]
            BuildError::Keys(e) => write!(f, "cannot create the state key: {e}"),
            #[cfg(feature = "apps")]
            BuildError::View(e) => e.fmt(f),
            #[cfg(feature = "apps")]
            BuildError::UndeclaredView { tool, uri } => write!(
                f,
                "tool `{tool}` renders its results in the view `{uri}`, which the server does not \
                 serve: declare it with `.view(View::new(\"{uri}\", html))`"
            ),
        }
    }
}

impl std::error::Error for BuildError {}

/// Which sets a builder serves already.
#[derive(Debug, Default)]
struct Given {
    /// `state`'s own tools (other tool sets add to them).
    tools: bool,
    /// Prompts, `state`'s or another set's.
    prompts: bool,
    /// Resources, `state`'s or another set's.
    resources: bool,
}

/// Configures a [`Server`]; see [`Server::builder`].
pub struct ServerBuilder<S> {
    state: Arc<S>,
    info: Implementation,
    instructions: Option<String>,
    handlers: Handlers,
    #[cfg(feature = "sealed-state")]
    keys: Option<KeyRing>,
    ttl_ms: i64,
    cache_scope: CacheScope,
    limits: Limits,
    completer: Option<Box<dyn Completer>>,
    /// The first tool name that two sets share.
    duplicate: Option<String>,
    /// The sets of `state`'s type, served at build unless the builder was
    /// given a set of that kind (see the `own` module).
    own: Option<OwnSets<S>>,
    /// Whether `state`'s tools are served, and whether prompts and
    /// resources were given.
    given: Given,
    #[cfg(feature = "auth")]
    authorization: Option<Arc<crate::auth::ResourceServer>>,
    #[cfg(feature = "tasks")]
    tasks: crate::tasks::TaskSettings,
    #[cfg(feature = "apps")]
    views: Vec<crate::apps::View>,
}

impl<S> std::fmt::Debug for ServerBuilder<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerBuilder")
            .field("info", &self.info)
            .finish_non_exhaustive()
    }
}

impl<S: Send + Sync + 'static> ServerBuilder<S> {
    fn new(state: S) -> Self {
        ServerBuilder {
            state: Arc::new(state),
            info: Implementation {
                name: env!("CARGO_PKG_NAME").to_owned(),
                version: env!("CARGO_PKG_VERSION").to_owned(),
                description: None,
                icons: None,
                title: None,
                website_url: None,
                extra: Map::new(),
            },
            instructions: None,
            handlers: Handlers::default(),
            #[cfg(feature = "sealed-state")]
            keys: None,
            ttl_ms: 0,
            cache_scope: CacheScope::Private,
            limits: Limits::default(),
            completer: None,
            duplicate: None,
            own: None,
            given: Given::default(),
            #[cfg(feature = "auth")]
            authorization: None,
            #[cfg(feature = "tasks")]
            tasks: crate::tasks::TaskSettings::default(),
            #[cfg(feature = "apps")]
            views: Vec::new(),
        }
    }

    /// Serves a view of MCP Apps (see [`apps`](crate::apps)): listed by
    /// `resources/list` and returned by `resources/read` with its
    /// `_meta.ui`, beside the resources of the resource set. The
    /// extension is advertised once a view is served.
    #[cfg(feature = "apps")]
    pub fn view(mut self, view: crate::apps::View) -> Self {
        self.views.push(view);
        self
    }

    /// Where tasks are kept and the timings clients are told, for the tools
    /// that run as tasks (`#[tool(task = "optional")]`); without this call,
    /// [`TaskSettings::default`](crate::tasks::TaskSettings::default).
    #[cfg(feature = "tasks")]
    pub fn tasks(mut self, settings: crate::tasks::TaskSettings) -> Self {
        self.tasks = settings;
        self
    }

    /// The name and version `serverInfo` reports.
    pub fn info(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.info.name = name.into();
        self.info.version = version.into();
        self
    }

    /// Guidance for the model, returned by `server/discover`.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Lets the request span of a call of each tool named in `tools`
    /// (target `mcp_server::request`, at `debug`) record the call's
    /// `arguments` and its `result`, as JSON cut at 1 KiB each. No other
    /// tool's arguments or results reach a span or an event: name only the
    /// tools whose inputs and outputs may be kept in your logs. A name no
    /// tool has is ignored.
    ///
    /// ```
    /// use mcp_server::{tool, tools, Server};
    ///
    /// struct Calc;
    ///
    /// #[tools]
    /// impl Calc {
    ///     /// Adds two numbers.
    ///     #[tool]
    ///     fn add(&self, a: i64, b: i64) -> String {
    ///         (a + b).to_string()
    ///     }
    /// }
    ///
    /// let server = Server::builder(Calc).tools().trace_tool_io(["add"]).build();
    /// assert!(server.is_ok());
    /// ```
    pub fn trace_tool_io<I, T>(mut self, tools: I) -> Self
    where
        I: IntoIterator<Item = T>,
        T: Into<String>,
    {
        for tool in tools {
            self.handlers.trace_io(tool.into());
        }
        self
    }

    /// Serves the tools of `state` (a `#[tools]` impl block or a
    /// `tool_set!`), and the prompts and resources of its `#[prompts]` and
    /// `#[resources]` blocks unless other sets of those are given.
    ///
    /// The blocks of a generic type (`impl<T> Store<T>`) are not found
    /// this way: call [`prompts`](Self::prompts) and
    /// [`resources`](Self::resources) for them.
    pub fn tools(mut self) -> Self
    where
        S: ToolSet,
    {
        self.own.get_or_insert_with(S::__own_sets);
        self.add_own_tools();
        self
    }

    /// Serves the tools of another set as well, listed after those added
    /// before it.
    pub fn tool_set(mut self, set: impl ToolSet + 'static) -> Self {
        if let Err(name) = self.handlers.add_tools(Arc::new(set)) {
            self.duplicate.get_or_insert(name);
        }
        self
    }

    /// Serves the prompts of `state` (a `#[prompts]` impl block), and the
    /// tools and resources of its `#[tools]` and `#[resources]` blocks as
    /// [`tools`](Self::tools) would.
    pub fn prompts(mut self) -> Self
    where
        S: PromptSet<S>,
    {
        self.own.get_or_insert_with(<S as PromptSet<S>>::__own_sets);
        self.set_own_prompts();
        self
    }

    /// Serves the prompts of `set`, called with `state` as their server,
    /// in place of `state`'s own.
    pub fn prompt_set(mut self, set: impl PromptSet<S> + 'static) -> Self {
        self.handlers.set_prompts(self.state.clone(), Arc::new(set));
        self.given.prompts = true;
        self
    }

    /// Serves the resources of `state` (a `#[resources]` impl block), and
    /// the tools and prompts of its `#[tools]` and `#[prompts]` blocks as
    /// [`tools`](Self::tools) would.
    pub fn resources(mut self) -> Self
    where
        S: ResourceSet<S>,
    {
        self.own
            .get_or_insert_with(<S as ResourceSet<S>>::__own_sets);
        self.set_own_resources();
        self
    }

    /// Serves the resources of `set`, called with `state` as their
    /// server, in place of `state`'s own.
    pub fn resource_set(mut self, set: impl ResourceSet<S> + 'static) -> Self {
        self.handlers
            .set_resources(self.state.clone(), Arc::new(set));
        self.given.resources = true;
        self
    }

    /// Serves `state`'s tools, once.
    fn add_own_tools(&mut self)
    where
        S: ToolSet,
    {
        if std::mem::replace(&mut self.given.tools, true) {
            return;
        }
        if let Err(name) = self.handlers.add_tools(self.state.clone()) {
            self.duplicate.get_or_insert(name);
        }
    }

    fn set_own_prompts(&mut self)
    where
        S: PromptSet<S>,
    {
        self.handlers
            .set_prompts(self.state.clone(), self.state.clone());
        self.given.prompts = true;
    }

    fn set_own_resources(&mut self)
    where
        S: ResourceSet<S>,
    {
        self.handlers
            .set_resources(self.state.clone(), self.state.clone());
        self.given.resources = true;
    }

    /// Serves the sets of `state`'s type that nothing took the place of.
    fn add_own_sets(&mut self) {
        let Some(own) = self.own.take() else {
            return;
        };
        let missing = [
            (own.tools, self.given.tools),
            (own.prompts, self.given.prompts),
            (own.resources, self.given.resources),
        ];
        for (register, given) in missing {
            if let (Some(register), false) = (register, given) {
                register(self);
            }
        }
    }

    /// The keys that seal `requestState`. Without this, a random key is
    /// generated at start: fine for one process, but replicas behind a load
    /// balancer must share keys so that any of them can open the state
    /// another sealed.
    #[cfg(feature = "sealed-state")]
    pub fn keys(mut self, keys: KeyRing) -> Self {
        self.keys = Some(keys);
        self
    }

    /// The cache hints put on the six cacheable results (default: `0` ms,
    /// `private`).
    pub fn cache(mut self, ttl_ms: i64, scope: CacheScope) -> Self {
        self.ttl_ms = ttl_ms.max(0);
        self.cache_scope = scope;
        self
    }

    /// Answers `completion/complete` with `completer` and advertises the
    /// `completions` capability; without one the method is not offered.
    pub fn completion(mut self, completer: impl Completer + 'static) -> Self {
        self.completer = Some(Box::new(completer));
        self
    }

    /// Replaces the default [`Limits`].
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Protects the server as an OAuth resource server: over Streamable
    /// HTTP, every request needs a good bearer token, the Protected
    /// Resource Metadata is served, and tools are called only with the
    /// scopes they declare. Over stdio nothing changes. See
    /// [`auth`](crate::auth).
    #[cfg(feature = "auth")]
    pub fn authorization(mut self, resource: crate::auth::ResourceServer) -> Self {
        self.authorization = Some(Arc::new(resource));
        self
    }

    /// The finished server.
    ///
    /// # Errors
    ///
    /// When two tool sets have a tool of the same name, when the server
    /// would serve no tools, prompts or resources at all, or when no keys
    /// were given and the operating system's random source cannot produce
    /// one. With the `apps` feature, when a view is not valid
    /// ([`View::validate`](crate::apps::View::validate)), when two views or
    /// a view and a resource share a URI, or when a tool names a view
    /// that is not served.
    pub fn build(mut self) -> Result<Server, BuildError> {
        self.add_own_sets();
        if let Some(name) = self.duplicate {
            return Err(BuildError::DuplicateTool(name));
        }
        #[cfg(feature = "apps")]
        self.handlers.add_views(std::mem::take(&mut self.views))?;
        if !(self.handlers.has_tools()
            || self.handlers.has_prompts()
            || self.handlers.has_resources())
        {
            return Err(BuildError::Nothing);
        }
        #[cfg(feature = "sealed-state")]
        let keys = match self.keys {
            Some(keys) => keys,
            None => KeyRing::generate(1).map_err(BuildError::Keys)?,
        };
        #[cfg(feature = "validation")]
        let validators = self
            .handlers
            .tools()
            .iter()
            .filter_map(|tool| {
                let schema = serde_json::to_value(&tool.input_schema).ok()?;
                Some((tool.name.clone(), jsonschema::validator_for(&schema).ok()?))
            })
            .collect();
        // Encoding a `Value` cannot fail: its keys are strings.
        let info = serde_json::json!({ mcp_types::meta::SERVER_INFO: &self.info });
        let info_meta = [
            &br#""_meta":"#[..],
            &serde_json::to_vec(&info).unwrap_or_default(),
        ]
        .concat();
        #[cfg(feature = "tasks")]
        let tasks =
            crate::tasks::runtime::Runtime::new(self.tasks, self.handlers.tools()).map(Arc::new);
        Ok(Server {
            inner: Arc::new(Inner {
                info_meta,
                #[cfg(feature = "validation")]
                validators,
                info: self.info,
                instructions: self.instructions,
                handlers: self.handlers,
                #[cfg(feature = "sealed-state")]
                keys: Arc::new(keys),
                bus: Bus::new(),
                ttl_ms: self.ttl_ms,
                cache_scope: self.cache_scope,
                stream_shares: Arc::new(std::sync::Mutex::new(crate::share::Counts::new(
                    self.limits.max_streams_per_client,
                ))),
                streams: Arc::new(tokio::sync::Semaphore::new(
                    self.limits
                        .max_streams
                        .min(tokio::sync::Semaphore::MAX_PERMITS),
                )),
                limits: self.limits,
                completer: self.completer,
                #[cfg(feature = "auth")]
                authorization: self.authorization,
                #[cfg(feature = "tasks")]
                tasks,
                capabilities: validate::LastCapabilities::default(),
            }),
        })
    }
}
