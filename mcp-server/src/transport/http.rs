//! Streamable HTTP: one POST endpoint answering with JSON or with an SSE
//! stream, stateless, so any replica can answer any request.
//!
//! [`router`] is an axum `Router` (a tower service) to mount in an
//! application of your own; [`serve`] and [`serve_with`] run one, with
//! limits on the connections as well. A server protected with the `auth`
//! feature is protected in all three: see `auth`.

#[cfg(feature = "auth")]
mod auth;
mod connections;
mod media;
mod sse;

use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use mcp_types::jsonrpc::ErrorObject;
use serde_json::Value;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use tokio::net::TcpListener;

use crate::server::{parse, validate, Grant, Outcome, RequestHeaders, Server, LEGACY_VERSIONS};
#[cfg(feature = "legacy")]
use crate::server::{Session, Sessions};
use crate::share;

use connections::{Connections, MakeTracked, Timeouts};

// Header names built once: a lookup by `&str` parses and checks the name
// on every request.
#[cfg(feature = "legacy")]
static SESSION_HEADER: HeaderName = HeaderName::from_static("mcp-session-id");
static PROTOCOL_VERSION_HEADER: HeaderName = HeaderName::from_static("mcp-protocol-version");
static METHOD_HEADER: HeaderName = HeaderName::from_static("mcp-method");
static NAME_HEADER: HeaderName = HeaderName::from_static("mcp-name");

/// How the HTTP transport treats hosts, event streams and connections.
///
/// The protocol-level limits (body size, body timeout, requests in flight,
/// streams) are the server's [`Limits`](crate::Limits). The connection
/// limits here (`max_connections`, `idle_timeout`, `header_timeout`) are
/// enforced by [`serve`] and [`serve_with`]; a [`router`] mounted in a
/// server of your own leaves them to that server.
///
/// ```
/// use std::time::Duration;
/// use mcp_server::transport::http::HttpConfig;
///
/// let config = HttpConfig {
///     allowed_hosts: vec!["mcp.example.com".to_owned()],
///     idle_timeout: Duration::from_secs(120),
///     ..HttpConfig::default()
/// };
/// # let _ = config;
/// ```
#[derive(Clone, Debug)]
pub struct HttpConfig {
    /// The `Host` and `Origin` hostnames (without port) the endpoint
    /// accepts, against DNS rebinding, compared case-insensitively; an
    /// IPv6 literal is written bracketed, as it appears in `Host` (default:
    /// loopback only, `localhost`, `127.0.0.1`, `[::1]`). The same list
    /// judges an absolute-form request target.
    pub allowed_hosts: Vec<String>,
    /// How long an answer streamed as server-sent events may stay silent
    /// before the server sends a `: keep-alive` comment (default 15 s), so
    /// that proxies and idle timers do not cut a quiet
    /// `subscriptions/listen` stream. Clients ignore comments.
    /// `Duration::ZERO` or `Duration::MAX` turns keep-alives off.
    pub sse_keep_alive: Duration,
    /// Most connections open at once (default 1024, at least 1). Once
    /// reached, no more are accepted until one closes: later clients wait
    /// in the kernel's backlog.
    pub max_connections: usize,
    /// Longest a connection may stay with no request in progress and no
    /// byte received before it is closed (default 60 s). A request is in
    /// progress from its head to the end of its response, so neither a
    /// slow handler nor an open event stream is idle.
    pub idle_timeout: Duration,
    /// Longest a request head may take to arrive, from the first byte
    /// received with no request in progress to the end of the head, before
    /// the connection is closed (default 10 s). Together with
    /// `idle_timeout` it keeps clients that send nothing, or trickle their
    /// headers, from holding places under `max_connections`; the body is
    /// then timed by [`Limits::body_timeout`](crate::Limits::body_timeout).
    pub header_timeout: Duration,
    /// Most legacy (2025-11-25 and earlier) sessions kept at once (default
    /// 10,000, at least 1). A new `initialize` on a full table drops the
    /// session used longest ago; its client gets `404` on its next request
    /// and initializes again.
    pub max_sessions: usize,
    /// Most legacy sessions one client (see
    /// [`share::Client`]) keeps at once (default 64,
    /// at least 1). A client at its share that initializes again drops its
    /// own session used longest ago, not another client's: one client
    /// initializing in a loop evicts only itself. Behind a proxy not listed
    /// in `trusted_proxies`, every unauthenticated client is the proxy.
    pub max_sessions_per_client: usize,
    /// Longest a legacy session may go unused before it is forgotten
    /// (default one hour); its client then gets `404` and initializes
    /// again. Each request in the session counts as a use.
    pub session_idle_timeout: Duration,
    /// Whether the router also answers `GET /healthz` (liveness: 200
    /// while the process serves) and `GET /readyz` (readiness: 200 when
    /// [`Server::ready`], else 503), for load balancers and orchestrators
    /// (default on). Neither needs a token nor checks `Host`, and neither
    /// says more than `{"status": "ok"}`, which part is not ready, or
    /// (`/readyz`, under `saturated`) which limits or shares refused a
    /// request in the last minute and how many seconds ago, such as
    /// `{"status": "ok", "saturated": [{"limit": "max_in_flight_per_client",
    /// "refusedSecondsAgo": 2}]}`. A saturated replica stays ready: it
    /// still serves every client within its share.
    pub health: bool,
    /// The reverse proxies in front of the endpoint, by address (default
    /// none). A request from one of them counts, under the per-client
    /// shares of a server without authorization, against the client
    /// address the proxy appended to `X-Forwarded-For` (the right-most
    /// entry that is not itself a listed proxy; see
    /// [`share::forwarded`]). Without this
    /// every client behind a proxy is the proxy, and shares one client's
    /// share. A request from any other peer is counted against the peer,
    /// whatever its `X-Forwarded-For` says. For nginx on the same host:
    /// `trusted_proxies: vec![Ipv4Addr::LOCALHOST.into()]`, with
    /// `proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;`.
    pub trusted_proxies: Vec<std::net::IpAddr>,
}

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig {
            allowed_hosts: ["localhost", "127.0.0.1", "[::1]"]
                .map(str::to_owned)
                .to_vec(),
            sse_keep_alive: Duration::from_secs(15),
            max_connections: 1024,
            idle_timeout: Duration::from_secs(60),
            header_timeout: Duration::from_secs(10),
            max_sessions: 10_000,
            max_sessions_per_client: 64,
            session_idle_timeout: Duration::from_secs(3600),
            health: true,
            trusted_proxies: Vec::new(),
        }
    }
}

impl HttpConfig {
    /// Why the endpoint would refuse a request with these `parts` for its
    /// `Host` (one, and on the list), `Origin` or absolute-form target, as
    /// it refuses a request to `/mcp` with 403; `None` when they pass. For
    /// routes mounted beside the endpoint (metrics, an admin page), so that
    /// a page the browser loaded from a rebinding name reads nothing there
    /// either.
    ///
    /// ```
    /// use mcp_server::transport::http::HttpConfig;
    ///
    /// let config = HttpConfig::default();
    /// let (ours, _) = axum::http::Request::get("/metrics")
    ///     .header("host", "127.0.0.1:9464")
    ///     .body(())
    ///     .unwrap()
    ///     .into_parts();
    /// assert_eq!(config.refusal(&ours), None);
    /// let (rebound, _) = axum::http::Request::get("/metrics")
    ///     .header("host", "attacker.example:9464")
    ///     .body(())
    ///     .unwrap()
    ///     .into_parts();
    /// assert!(config.refusal(&rebound).is_some());
    /// ```
    pub fn refusal(&self, parts: &axum::http::request::Parts) -> Option<String> {
        check_origin(self, &parts.uri, &parts.headers).err()
    }

    /// The keep-alive period, or `None` when keep-alives are off.
    fn keep_alive(&self) -> Option<Duration> {
        Some(self.sse_keep_alive).filter(|d| !d.is_zero() && *d != Duration::MAX)
    }
}

/// `from + duration`, or a time too far away to matter when that overflows
/// (`Duration::MAX` means "never").
fn after(from: tokio::time::Instant, duration: Duration) -> tokio::time::Instant {
    const CENTURY: Duration = Duration::from_secs(100 * 365 * 24 * 3600);
    from.checked_add(duration).unwrap_or_else(|| from + CENTURY)
}

/// What every request of one router shares; the router holds it in an
/// `Arc`, so extracting it per request is a reference count, not a copy of
/// the host list.
struct App {
    server: Server,
    config: HttpConfig,
    #[cfg(feature = "legacy")]
    sessions: Sessions,
    in_flight: InFlight,
}

/// The requests being handled across one router, under
/// `Limits::max_in_flight`, and each client's share of them under
/// `Limits::max_in_flight_per_client`: counters rather than semaphores,
/// since no request waits for a place.
struct InFlight {
    count: AtomicUsize,
    max: usize,
    /// Requests in flight per client, by the client's key; a client with
    /// none has no entry.
    clients: std::sync::Mutex<std::collections::HashMap<u64, usize>>,
    share: usize,
    /// Keys the hashes of principals and addresses, per router.
    keys: std::collections::hash_map::RandomState,
}

/// Why no place was given.
#[derive(Debug, PartialEq, Eq)]
enum Full {
    /// Every place of the router is taken.
    Router,
    /// The client holds its whole share.
    Client,
}

impl InFlight {
    fn new(max: usize, share: usize) -> Self {
        InFlight {
            count: AtomicUsize::new(0),
            max,
            clients: std::sync::Mutex::default(),
            share: share.max(1),
            keys: std::collections::hash_map::RandomState::new(),
        }
    }

    /// A place for a request of `client` (when it is known), if the
    /// client's share and the router have one free; it is given back when
    /// the guard drops.
    fn enter(&self, client: Option<u64>) -> Result<Place<'_>, Full> {
        if let Some(key) = client {
            let mut clients = self.clients.lock().unwrap_or_else(|e| e.into_inner());
            let held = clients.entry(key).or_insert(0);
            if *held >= self.share {
                return Err(Full::Client);
            }
            *held += 1;
        }
        // Built before the router's count is taken, so that a refusal
        // there gives the client's place back as it drops.
        let mut place = Place {
            in_flight: self,
            client,
            counted: false,
        };
        self.count
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < self.max).then_some(n + 1)
            })
            .map_err(|_| Full::Router)?;
        place.counted = true;
        Ok(place)
    }

    /// The key of `client` in the counts: a keyed hash, so that a
    /// principal's name is not copied for every request.
    fn key(&self, client: &share::Client) -> u64 {
        use std::hash::BuildHasher as _;
        self.keys.hash_one(client)
    }
}

/// The address of a request's client: its peer, as axum's
/// `ConnectInfo<SocketAddr>` gives it, or behind a trusted proxy the
/// address the proxy forwarded; `None` when the peer is not known.
fn peer_of(config: &HttpConfig, parts: &axum::http::request::Parts) -> Option<std::net::IpAddr> {
    let axum::extract::ConnectInfo(peer) = parts
        .extensions
        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()?;
    if config.trusted_proxies.is_empty() {
        return Some(peer.ip());
    }
    let forwarded_for = parts
        .headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|value| value.to_str().ok());
    Some(share::forwarded(
        peer.ip(),
        &config.trusted_proxies,
        forwarded_for,
    ))
}

/// Who a request counts against: its principal when it has one, else its
/// client's address (see [`share::Client`]); `None` when neither is known.
fn client_of(grant: Option<&Arc<Grant>>, peer: Option<std::net::IpAddr>) -> Option<share::Client> {
    #[cfg(feature = "auth")]
    if let Some(grant) = grant {
        return Some(share::Client::principal(grant.shared_principal()));
    }
    #[cfg(not(feature = "auth"))]
    if let Some(grant) = grant {
        match **grant {}
    }
    peer.map(share::Client::address)
}

struct Place<'a> {
    in_flight: &'a InFlight,
    client: Option<u64>,
    /// Whether the router's count was taken.
    counted: bool,
}

impl Drop for Place<'_> {
    fn drop(&mut self) {
        if self.counted {
            self.in_flight.count.fetch_sub(1, Ordering::Release);
        }
        if let Some(key) = self.client {
            let mut clients = self
                .in_flight
                .clients
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            if let Some(held) = clients.get_mut(&key) {
                *held -= 1;
                if *held == 0 {
                    clients.remove(&key);
                }
            }
        }
    }
}

/// An axum router serving `server` at `path` (POST; GET answers 405, or
/// opens a legacy session's stream of resource updates; DELETE ends a
/// legacy session), and `/healthz` and `/readyz` unless
/// [`HttpConfig::health`] is off.
///
/// The server's [`Limits`](crate::Limits) apply across every connection of
/// the router: at most `max_in_flight` requests are handled at once (one
/// more gets 503 before its body is read), at most
/// `max_in_flight_per_client` of them for one client (one more gets 429;
/// see [`Limits::max_in_flight_per_client`](crate::Limits::max_in_flight_per_client)
/// for who a client is), a body over `max_message_bytes`
/// gets 413 without being buffered whole, and a body still arriving after
/// `body_timeout` gets 408. The place a request holds covers reading its
/// body, so the memory held by bodies is bounded by the two limits, and a
/// client that trickles its body holds a place for `body_timeout` at most.
///
/// The connection limits of `config` are not the router's to enforce: use
/// [`serve_with`], or set the like in the server you mount the router in.
///
/// A server protected with the `auth` feature also gets its Protected
/// Resource Metadata routes (`/.well-known/oauth-protected-resource...`),
/// and every request to `path` needs a bearer token. Mount the router at
/// the root of your application (merge, do not nest), so that those
/// routes are where clients look.
pub fn router(server: Server, path: &str, config: HttpConfig) -> Router {
    let in_flight = server.limits().max_in_flight;
    let share = server.limits().max_in_flight_per_client;
    #[cfg(feature = "legacy")]
    let sessions = Sessions::new(
        config.max_sessions,
        config.max_sessions_per_client,
        config.session_idle_timeout,
    );
    let router = Router::new().route(
        path,
        post(handle_post).get(handle_get).delete(handle_delete),
    );
    let router = match config.health {
        true => router
            .route("/healthz", axum::routing::get(alive))
            .route("/readyz", axum::routing::get(ready)),
        false => router,
    };
    #[cfg(feature = "auth")]
    let router = match server.authorization() {
        Some(resource) => auth::routes(router, path, resource),
        None => router,
    };
    router
        .layer(DefaultBodyLimit::disable())
        .with_state(Arc::new(App {
            server,
            config,
            #[cfg(feature = "legacy")]
            sessions,
            in_flight: InFlight::new(in_flight, share),
        }))
}

/// Serves `server` at `http://{addr}/mcp` with the default
/// [`HttpConfig`] until `shutdown` completes, then stops accepting and lets
/// requests in flight finish.
///
/// # Errors
///
/// When the address cannot be bound.
pub async fn serve(
    server: Server,
    addr: SocketAddr,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let listener = TcpListener::bind(addr).await?;
    serve_with(server, listener, HttpConfig::default(), shutdown).await
}

/// Serves `server` at `/mcp` on connections accepted from `listener`,
/// configured by `config`, until `shutdown` completes, then stops
/// accepting and lets requests in flight finish.
///
/// Besides the [`router`]'s limits, this enforces the connection limits of
/// `config`: at most `max_connections` open at once, and connections
/// closed once idle for `idle_timeout` or slower than `header_timeout` to
/// send a request head.
///
/// It serves HTTP/1.1 only. HTTP/2 without TLS is refused, by decision:
/// serving it would add a second protocol stack, with limits of its own to
/// enforce, for clients that speak HTTP/1.1; a proxy in front that
/// terminates TLS can speak HTTP/2 to clients and HTTP/1.1 to this server.
/// A client that opens with HTTP/2 with prior knowledge (`curl
/// --http2-prior-knowledge`) gets an answer at once, in HTTP/2: a GOAWAY
/// frame with the error code `HTTP_1_1_REQUIRED` (13), no request
/// processed, and the connection closed (curl 7.88 exits with its error
/// 16, and `-v` shows the GOAWAY and error 13). A request that asks to
/// upgrade to HTTP/2 (`Upgrade: h2c`) is answered in HTTP/1.1, the upgrade
/// ignored.
///
/// ```no_run
/// use mcp_server::transport::http::{self, HttpConfig};
/// # async fn run(server: mcp_server::Server) -> std::io::Result<()> {
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8000").await?;
/// let config = HttpConfig { max_connections: 256, ..HttpConfig::default() };
/// http::serve_with(server, listener, config, async {
///     let _ = tokio::signal::ctrl_c().await;
/// })
/// .await
/// # }
/// ```
///
/// # Errors
///
/// None at present: failed accepts are retried, not returned. The result
/// is that of `axum::serve`, which may report I/O errors in the future.
pub async fn serve_with(
    server: Server,
    listener: TcpListener,
    config: HttpConfig,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let timeouts = Timeouts {
        idle: config.idle_timeout,
        header: config.header_timeout,
    };
    let listener = Connections::new(listener, config.max_connections, timeouts);
    let app = router(server, "/mcp", config);
    axum::serve(listener, MakeTracked(app))
        .with_graceful_shutdown(shutdown)
        .await
}

/// The grant of a request to a protected server (`None` when it is not
/// protected), or the response refusing the request.
#[cfg(feature = "auth")]
use auth::authorize;

#[cfg(not(feature = "auth"))]
async fn authorize(
    _: &App,
    _: &axum::http::request::Parts,
) -> Result<Option<Arc<Grant>>, Response> {
    Ok(None)
}

/// `GET /healthz`: the process serves.
async fn alive() -> Response {
    health(StatusCode::OK, serde_json::json!({ "status": "ok" }))
}

/// How long a limit that refused a request is reported by `/readyz`.
const SATURATION_WINDOW: Duration = Duration::from_secs(60);

/// `GET /readyz`: [`Server::ready`], and which limits refused a request
/// in the last minute (`saturated`), without turning unready for it: a
/// replica at one client's share still serves every other client, and a
/// load balancer that took it out would only move the load and flap.
async fn ready(State(app): State<Arc<App>>) -> Response {
    match app.server.ready().await {
        Ok(()) => {
            let saturated = crate::observe::saturated(SATURATION_WINDOW);
            let body = match saturated.is_empty() {
                true => serde_json::json!({ "status": "ok" }),
                false => serde_json::json!({
                    "status": "ok",
                    "saturated": saturated
                        .into_iter()
                        .map(|(limit, ago)| serde_json::json!({ "limit": limit, "refusedSecondsAgo": ago }))
                        .collect::<Vec<_>>(),
                }),
            };
            health(StatusCode::OK, body)
        }
        Err(not) => health(
            StatusCode::SERVICE_UNAVAILABLE,
            serde_json::json!({ "status": "unavailable", "failing": not.0 }),
        ),
    }
}

fn health(status: StatusCode, body: Value) -> Response {
    let mut response = (status, body.to_string()).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// GET on the endpoint: the 2026-07-28 transport opens no stream there;
/// a legacy session opens its stream of resource updates. The `Host` and
/// `Origin` are checked first, and on a protected server the token, as for
/// every request.
async fn handle_get(State(app): State<Arc<App>>, request: axum::extract::Request) -> Response {
    let (parts, _) = request.into_parts();
    if let Err(reason) = check_origin(&app.config, &parts.uri, &parts.headers) {
        let error = ErrorObject::invalid_request(reason);
        return json_response(403, &crate::server::error_message(None, &error));
    }
    let grant = match authorize(&app, &parts).await {
        Ok(grant) => grant,
        Err(response) => return response,
    };
    let peer = peer_of(&app.config, &parts);
    share::with_peer(peer, legacy_stream(&app, &parts.headers, grant.as_ref())).await
}

/// GET with a legacy session's id: the stream of updates to the resources
/// it subscribed to. Without a session id, GET is not allowed.
#[cfg(feature = "legacy")]
async fn legacy_stream(app: &App, headers: &HeaderMap, grant: Option<&Arc<Grant>>) -> Response {
    let Some(id) = header(headers, &SESSION_HEADER) else {
        return not_allowed().await;
    };
    // A session of another principal is as good as unknown.
    let Some(session) = app.sessions.get(id.trim()).filter(|s| s.serves(grant)) else {
        let error = ErrorObject::invalid_request("unknown or ended session");
        return json_response(404, &crate::server::error_message(None, &error));
    };
    match app.server.legacy_updates(session) {
        Ok(outcome) => respond(outcome, &app.config),
        Err(error) => {
            // The client's share of streams, or the server's.
            let status = match error.data.as_ref().and_then(|d| d.get("limit")) {
                Some(limit) if limit == "max_streams_per_client" => 429,
                _ => 503,
            };
            json_response(status, &crate::server::error_message(None, &error))
        }
    }
}

#[cfg(not(feature = "legacy"))]
async fn legacy_stream(_: &App, _: &HeaderMap, _: Option<&Arc<Grant>>) -> Response {
    not_allowed().await
}

async fn not_allowed() -> Response {
    let mut response = StatusCode::METHOD_NOT_ALLOWED.into_response();
    response
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static("POST"));
    response
}

/// The hostname of a `Host` value or of an origin's authority: a name or
/// IPv4 address, or a whole bracketed IPv6 literal, then at most a port of
/// digits, and nothing else; `None` for anything that does not parse so
/// (`[::1].evil.example`, `::1` unbracketed, `host:`, `host:80:80`).
fn hostname(authority: &str) -> Option<&str> {
    let (host, rest) = if authority.starts_with('[') {
        authority.split_at(authority.find(']')? + 1)
    } else {
        authority.split_at(authority.find(':').unwrap_or(authority.len()))
    };
    let port_ok = match rest.strip_prefix(':') {
        None => rest.is_empty(),
        Some(port) => (1..=5).contains(&port.len()) && port.bytes().all(|b| b.is_ascii_digit()),
    };
    (port_ok && !host.is_empty()).then_some(host)
}

/// Whether `authority` parses to a hostname of the allow list.
fn allowed(config: &HttpConfig, authority: &str) -> bool {
    hostname(authority).is_some_and(|host| {
        config
            .allowed_hosts
            .iter()
            .any(|h| h.eq_ignore_ascii_case(host))
    })
}

/// Refuses requests whose `Host`, `Origin` or absolute-form target is not
/// an allowed hostname.
fn check_origin(
    config: &HttpConfig,
    uri: &axum::http::Uri,
    headers: &HeaderMap,
) -> Result<(), String> {
    // One `Host`: with two, a proxy and this server may each judge another.
    if headers.get_all(header::HOST).iter().nth(1).is_some() {
        return Err(String::from("more than one Host header"));
    }
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    if !allowed(config, host.trim()) {
        return Err(format!("host `{}` is not allowed", validate::quoted(host)));
    }
    // An absolute-form target (`POST http://host/mcp`) names the host the
    // request is for, whatever `Host` says (RFC 9112 §3.2.2): the same list.
    if let Some(authority) = uri.authority() {
        if !allowed(config, authority.as_str()) {
            return Err(format!(
                "request target `{}` is not allowed",
                validate::quoted(&uri.to_string())
            ));
        }
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("");
        let authority = origin.split_once("://").map_or("", |(_, rest)| rest);
        let authority = authority.split('/').next().unwrap_or("");
        if !allowed(config, authority) {
            return Err(format!(
                "origin `{}` is not allowed",
                validate::quoted(origin)
            ));
        }
    }
    Ok(())
}

/// The first routing header given more than once: `Mcp-Method`,
/// `Mcp-Name`, `MCP-Protocol-Version` or an `Mcp-Param-*`. One value each,
/// or a gateway that reads the last (or all) and this server, which would
/// read the first, could see different requests.
fn repeated_routing_header(headers: &HeaderMap) -> Option<&str> {
    let twice = |name: &HeaderName| headers.get_all(name).iter().nth(1).is_some();
    for name in [&METHOD_HEADER, &NAME_HEADER, &PROTOCOL_VERSION_HEADER] {
        if twice(name) {
            return Some(name.as_str());
        }
    }
    headers
        .keys()
        .find(|name| name.as_str().starts_with("mcp-param-") && twice(name))
        .map(HeaderName::as_str)
}

/// The refusal of a POST whose body is not JSON (415) or whose client
/// does not accept both answers (406), judged from the headers alone.
///
/// The order of the checks on a POST: `Host` and `Origin` first (403), so
/// that a page in a browser learns nothing of the endpoint, not even what
/// it expects; then the media types, which need no work beyond the
/// headers and which no token would cure; then the token of a protected
/// server (401), the place among the requests in flight (503), and only
/// then the body.
fn media_refusal(headers: &HeaderMap) -> Option<Response> {
    let (status, message, expected): (u16, _, &[&str]) = if !media::is_json(headers) {
        (
            415,
            "the body must be a JSON-RPC message sent as Content-Type: application/json",
            &["application/json"],
        )
    } else if !media::accepts_answers(headers) {
        (
            406,
            "the Accept header must allow both application/json and text/event-stream",
            &["application/json", "text/event-stream"],
        )
    } else {
        return None;
    };
    let error = ErrorObject::invalid_request(message)
        .with_data(serde_json::json!({ "expected": expected }));
    Some(json_response(
        status,
        &crate::server::error_message(None, &error),
    ))
}

fn header<'a>(headers: &'a HeaderMap, name: &HeaderName) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

fn request_headers(headers: &HeaderMap) -> RequestHeaders {
    let params = headers
        .iter()
        .filter_map(|(name, value)| {
            let name = name.as_str().strip_prefix("mcp-param-")?;
            Some((name.to_owned(), value.to_str().ok()?.to_owned()))
        })
        .collect();
    RequestHeaders {
        protocol_version: header(headers, &PROTOCOL_VERSION_HEADER).map(str::to_owned),
        method: header(headers, &METHOD_HEADER).map(str::to_owned),
        name: header(headers, &NAME_HEADER).map(str::to_owned),
        params,
    }
}

fn json_response(status: u16, message: &Value) -> Response {
    // Encoding a `Value` cannot fail: its keys are strings.
    encoded_response(status, serde_json::to_vec(message).unwrap_or_default())
}

/// A JSON response of an already encoded body.
fn encoded_response(status: u16, body: Vec<u8>) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// Whether a request belongs to the handshake era: no version header, or
/// a legacy version.
fn is_legacy(headers: &HeaderMap) -> bool {
    match header(headers, &PROTOCOL_VERSION_HEADER) {
        None => true,
        Some(version) => LEGACY_VERSIONS.contains(&version.trim()),
    }
}

// The request is taken whole: axum's `HeaderMap` extractor would copy the
// headers of every request.
async fn handle_post(State(app): State<Arc<App>>, request: axum::extract::Request) -> Response {
    let (parts, body) = request.into_parts();
    let headers = &parts.headers;
    if let Err(reason) = check_origin(&app.config, &parts.uri, headers) {
        let error = ErrorObject::invalid_request(reason);
        return json_response(403, &crate::server::error_message(None, &error));
    }
    if let Some(refusal) = media_refusal(headers) {
        return refusal;
    }
    if let Some(name) = repeated_routing_header(headers) {
        let error =
            ErrorObject::header_mismatch(format!("the {name} header is given more than once"));
        return json_response(400, &crate::server::error_message(None, &error));
    }
    let grant = match authorize(&app, &parts).await {
        Ok(grant) => grant,
        Err(response) => return response,
    };
    let limits = app.server.limits();
    let peer = peer_of(&app.config, &parts);
    let client = client_of(grant.as_ref(), peer);
    let _place = match app
        .in_flight
        .enter(client.as_ref().map(|c| app.in_flight.key(c)))
    {
        Ok(place) => place,
        Err(full) => {
            let (status, error) = match full {
                Full::Router => (
                    503,
                    crate::server::busy(
                        "too many requests are in flight",
                        "max_in_flight",
                        limits.max_in_flight,
                    ),
                ),
                Full::Client => (
                    429,
                    crate::server::busy(
                        "this client has its whole share of requests in flight",
                        "max_in_flight_per_client",
                        limits.max_in_flight_per_client,
                    ),
                ),
            };
            let mut response = json_response(status, &crate::server::error_message(None, &error));
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
            return response;
        }
    };
    let read = axum::body::to_bytes(body, limits.max_message_bytes);
    let Some(body) = crate::server::within(limits.body_timeout, read).await else {
        let error = ErrorObject::invalid_request(format!(
            "the body did not arrive within {} ms",
            limits.body_timeout.as_millis()
        ))
        .with_data(
            serde_json::json!({ "limit": "body_timeout", "max": limits.body_timeout.as_millis() }),
        );
        return json_response(408, &crate::server::error_message(None, &error));
    };
    let body = match body {
        Ok(body) => body,
        // A body that could not be read (a malformed chunk, a connection
        // cut) is not a body that was too large.
        Err(e) if !over_limit(&e) => {
            let error = ErrorObject::invalid_request(String::from(
                "the body could not be read as HTTP/1.1 framing says it is sent",
            ));
            return json_response(400, &crate::server::error_message(None, &error));
        }
        Err(_) => {
            let length = headers
                .get(header::CONTENT_LENGTH)
                .and_then(|v| v.to_str().ok()?.parse().ok());
            let refusal = parse::too_large(length, limits.max_message_bytes);
            return json_response(
                refusal.status,
                &crate::server::error_message(None, &refusal.error),
            );
        }
    };
    if is_legacy(headers) {
        let legacy = handle_legacy(&app, headers, &body, grant.as_ref(), client);
        return share::with_peer(peer, legacy).await;
    }
    let mcp_headers = request_headers(headers);
    let handled = app
        .server
        .handle_bytes_as(&body, Some(&mcp_headers), grant.as_ref());
    respond(share::with_peer(peer, handled).await, &app.config)
}

/// Whether reading a body failed because it was over the size limit, as
/// opposed to a body that could not be read at all.
fn over_limit(error: &axum::Error) -> bool {
    std::error::Error::source(error).is_some_and(|e| e.is::<http_body_util::LengthLimitError>())
}

/// The response refusing a body that could not be read as a message.
fn refused(refusal: &parse::Refusal) -> Response {
    json_response(
        refusal.status,
        &crate::server::error_message(None, &refusal.error),
    )
}

/// Without the `legacy` feature, the server refuses every message of the
/// handshake era with the versions it serves; no session is looked up.
#[cfg(not(feature = "legacy"))]
async fn handle_legacy(
    app: &App,
    headers: &HeaderMap,
    body: &Bytes,
    grant: Option<&Arc<Grant>>,
    _: Option<share::Client>,
) -> Response {
    match parse::message(body, app.server.limits()) {
        Ok(value) => {
            // The routing headers, when present, agree with the body.
            if let Err(error) = validate::present_headers(&request_headers(headers), &value) {
                return json_response(400, &crate::server::error_message(None, &error));
            }
            respond(
                app.server.handle_legacy_as(value, None, grant).await.0,
                &app.config,
            )
        }
        Err(refusal) => refused(&refusal),
    }
}

#[cfg(feature = "legacy")]
async fn handle_legacy(
    app: &App,
    headers: &HeaderMap,
    body: &Bytes,
    grant: Option<&Arc<Grant>>,
    client: Option<share::Client>,
) -> Response {
    let value = match parse::message(body, app.server.limits()) {
        Ok(value) => value,
        Err(refusal) => return refused(&refusal),
    };
    // The routing headers, when present, agree with the body in this era
    // too.
    if let Err(error) = validate::present_headers(&request_headers(headers), &value) {
        let id = value
            .get("id")
            .and_then(|id| serde_json::from_value(id.clone()).ok());
        return json_response(400, &crate::server::error_message(id.as_ref(), &error));
    }
    let initialize = value.get("method").and_then(Value::as_str) == Some("initialize");
    let session = match header(headers, &SESSION_HEADER) {
        // A session of another principal is as good as unknown.
        Some(id) => match app.sessions.get(id.trim()).filter(|s| s.serves(grant)) {
            Some(session) => Some(session),
            None if initialize => None,
            None => {
                let error = ErrorObject::invalid_request("unknown or ended session");
                return json_response(404, &crate::server::error_message(None, &error));
            }
        },
        None if initialize => None,
        None => {
            let error = ErrorObject::invalid_request(
                "the Mcp-Session-Id header is required after initialize",
            );
            return json_response(400, &crate::server::error_message(None, &error));
        }
    };
    let (outcome, created) = app.server.handle_legacy_as(value, session, grant).await;
    let mut response = respond(outcome, &app.config);
    if let Some(session) = created {
        let made = app.sessions.insert(session.clone(), client);
        if made.own > 0 {
            tracing::debug!(
                target: "mcp_server::limits",
                limit = "max_sessions_per_client",
                max = app.config.max_sessions_per_client,
                "a client at its share of legacy sessions: dropped its own session used longest ago"
            );
        }
        if made.evicted > 0 {
            tracing::warn!(
                target: "mcp_server::limits",
                limit = "max_sessions",
                max = app.config.max_sessions,
                "the legacy session table was full: dropped the session used longest ago"
            );
            crate::observe::session_evicted();
        }
        if let Ok(value) = HeaderValue::from_str(session.id()) {
            response.headers_mut().insert(SESSION_HEADER.clone(), value);
        }
    }
    response
}

async fn handle_delete(State(app): State<Arc<App>>, request: axum::extract::Request) -> Response {
    let (parts, _) = request.into_parts();
    let headers = &parts.headers;
    if check_origin(&app.config, &parts.uri, headers).is_err() {
        return StatusCode::FORBIDDEN.into_response();
    }
    let grant = match authorize(&app, &parts).await {
        Ok(grant) => grant,
        Err(response) => return response,
    };
    end_session(&app, headers, grant).await
}

/// DELETE with a session id: ends the legacy session, if the requester
/// owns it.
#[cfg(feature = "legacy")]
async fn end_session(app: &App, headers: &HeaderMap, grant: Option<Arc<Grant>>) -> Response {
    let owned = |id: &str| {
        app.sessions
            .peek(id)
            .is_some_and(|s: Arc<Session>| s.serves(grant.as_ref()))
    };
    match header(headers, &SESSION_HEADER).map(str::trim) {
        Some(id) if owned(id) && app.sessions.remove(id) => StatusCode::OK.into_response(),
        Some(_) => StatusCode::NOT_FOUND.into_response(),
        None => not_allowed().await,
    }
}

/// Without the `legacy` feature there are no sessions to end: DELETE is
/// not allowed, as on any modern-only server.
#[cfg(not(feature = "legacy"))]
async fn end_session(_: &App, _: &HeaderMap, _: Option<Arc<Grant>>) -> Response {
    not_allowed().await
}

/// Turns an outcome into a response: JSON, 202, or an SSE stream whose
/// end (or the client's departure) cancels the handler.
fn respond(outcome: Outcome, config: &HttpConfig) -> Response {
    match outcome {
        Outcome::Reply { status, message } => {
            let mut response = encoded_response(status, message.into_bytes());
            if status == 429 {
                // A client at its share: its own places free within seconds.
                response
                    .headers_mut()
                    .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
            }
            response
        }
        Outcome::Challenge {
            status,
            www_authenticate,
            message,
        } => {
            let mut response = encoded_response(status, message.into_bytes());
            if let Ok(value) = HeaderValue::from_str(&www_authenticate) {
                response
                    .headers_mut()
                    .insert(header::WWW_AUTHENTICATE, value);
            }
            response
        }
        Outcome::Accepted => StatusCode::ACCEPTED.into_response(),
        Outcome::Stream { messages, guard } => {
            let events = sse::Events::new(messages, guard, config.keep_alive());
            (
                StatusCode::OK,
                [
                    (header::CONTENT_TYPE, "text/event-stream"),
                    (header::CACHE_CONTROL, "no-cache"),
                    // Asks nginx and its kind to pass events on as they
                    // come rather than buffer the response.
                    (header::HeaderName::from_static("x-accel-buffering"), "no"),
                ],
                Body::from_stream(events),
            )
                .into_response()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostnames() {
        assert_eq!(hostname("127.0.0.1:8080"), Some("127.0.0.1"));
        assert_eq!(hostname("[::1]:80"), Some("[::1]"));
        assert_eq!(hostname("[::1]"), Some("[::1]"));
        assert_eq!(hostname("localhost"), Some("localhost"));
        assert_eq!(hostname("evil.example.com"), Some("evil.example.com"));
        // A bracketed literal is whole, or nothing.
        for bad in [
            "[::1].evil.example",
            "[::1]evil",
            "[::1]:",
            "[::1",
            "::1",
            "localhost:",
            "localhost:80:80",
            "localhost:123456",
            "localhost:8o",
            ":80",
            "",
        ] {
            assert_eq!(hostname(bad), None, "{bad}");
        }
    }

    #[test]
    fn an_absolute_target_for_another_host_is_refused() {
        let config = HttpConfig::default();
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, HeaderValue::from_static("127.0.0.1:9000"));
        let ours: axum::http::Uri = "http://127.0.0.1:9000/mcp".parse().expect("uri");
        assert!(check_origin(&config, &ours, &headers).is_ok());
        let theirs: axum::http::Uri = "http://evil.example/mcp".parse().expect("uri");
        assert_eq!(
            check_origin(&config, &theirs, &headers),
            Err("request target `http://evil.example/mcp` is not allowed".into())
        );
        let tricked: axum::http::Uri = "http://[::1].evil.example/mcp".parse().unwrap_or(theirs);
        assert!(check_origin(&config, &tricked, &headers).is_err());
    }

    #[test]
    fn rebinding_is_refused() {
        let config = HttpConfig::default();
        let path: axum::http::Uri = "/mcp".parse().expect("uri");
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, HeaderValue::from_static("127.0.0.1:9000"));
        assert!(check_origin(&config, &path, &headers).is_ok());
        headers.insert(
            header::ORIGIN,
            HeaderValue::from_static("http://127.0.0.1:9000"),
        );
        assert!(check_origin(&config, &path, &headers).is_ok());
        headers.insert(
            header::ORIGIN,
            HeaderValue::from_static("http://evil.example.com"),
        );
        assert_eq!(
            check_origin(&config, &path, &headers),
            Err("origin `http://evil.example.com` is not allowed".into())
        );
        headers.insert(header::HOST, HeaderValue::from_static("evil.example.com"));
        headers.remove(header::ORIGIN);
        assert_eq!(
            check_origin(&config, &path, &headers),
            Err("host `evil.example.com` is not allowed".into())
        );
        headers.insert(header::HOST, HeaderValue::from_static("[::1].evil.example"));
        assert!(check_origin(&config, &path, &headers).is_err());
    }
}
