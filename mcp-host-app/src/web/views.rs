//! MCP Apps views (`io.modelcontextprotocol/ui`) in the browser front end.
//!
//! A view is HTML a server wrote, shown for a call of one of its tools.
//! It runs two frames deep: the app's page frames the sandbox proxy,
//! served by a listener of its own on another loopback host
//! (`127.0.0.2`, so another origin and another cookie jar than the
//! app's), and the proxy frames the view from `srcdoc`, sandboxed
//! without `allow-same-origin`: an opaque origin, which reaches no
//! page's DOM, storage or cookies, not even another view's. The proxy
//! page is served with the view's content security policy
//! ([`ViewPolicy`], built from the domains the server declared, or the
//! restrictive default), which the `srcdoc` frame inherits; the proxy
//! listener serves that page and its script and nothing else.
//!
//! The app's script speaks the host side of the protocol with the view
//! through the proxy; what a view asks of the host comes here:
//!
//! - `POST /view/open`: the view's HTML, read with `resources/read` from
//!   its server once the person accepted that server's definitions, with
//!   the `ui/initialize` result to answer it;
//! - `POST /view/call`: a tool of its own server that apps may call,
//!   under the flow policy and the gate (`Agent::view_call`);
//! - `POST /view/read`: a resource of its own server;
//! - `POST /view/message` and `POST /view/context`: words for the
//!   conversation, labelled as the server's untrusted output;
//! - `POST /view/link`: a link, opened only when the person says so;
//! - `POST /view/log`: its log messages, into the audit log.
//!
//! Each view is named by a random 128-bit id, and asks only as itself:
//! the id names its server, and nothing it sends can name another.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::Uri;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use mcp_host::apps::ViewPolicy;
use mcp_host::untrusted::visible;
use serde_json::{json, Map, Value};
use tokio::sync::oneshot;

use super::session::Input;
use super::{App, PageRequest};

/// The loopback host the sandbox proxy listens on: not the app's, so
/// that a view's origin is never the app's, whatever the port.
pub(super) const PROXY_HOST: &str = "127.0.0.2";

/// The sandbox proxy's listener, and the host name its origin uses:
/// [`PROXY_HOST`]; or, on a system whose loopback has no `127.0.0.2`
/// (macOS, by default), `localhost` on a port of its own, which is
/// still another origin and another cookie jar than the app's
/// `127.0.0.1`.
pub(super) async fn proxy_listener() -> Result<(tokio::net::TcpListener, &'static str), String> {
    if let Ok(listener) = tokio::net::TcpListener::bind((PROXY_HOST, 0)).await {
        return Ok((listener, PROXY_HOST));
    }
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .map_err(|e| format!("cannot listen on 127.0.0.1 for the views' sandbox: {e}"))?;
    Ok((listener, "localhost"))
}

/// The most views kept at once; the oldest goes first.
const MAX_VIEWS: usize = 64;

/// The largest view the host takes, in bytes of HTML.
pub(super) const MAX_HTML: usize = 2 * 1024 * 1024;

/// The protocol version of MCP Apps the host speaks.
pub(super) const APPS_VERSION: &str = "2026-01-26";

/// One view shown: whose it is, for which call, and the policy it runs
/// under once its HTML was read.
#[derive(Debug, Clone)]
pub(super) struct Instance {
    pub server: String,
    pub uri: String,
    pub arguments: Value,
    pub result: Value,
    /// The tool's definition, for the view's host context.
    pub definition: Value,
    pub policy: Option<ViewPolicy>,
}

/// The views shown, by id.
#[derive(Debug)]
pub(super) struct Views {
    shown: Mutex<(HashMap<String, Instance>, VecDeque<String>)>,
    /// `http://127.0.0.2:PORT` (or `http://localhost:PORT`).
    pub proxy_origin: String,
    /// `http://127.0.0.1:PORT`.
    pub app_origin: String,
}

impl Views {
    pub(super) fn new(app_port: u16, proxy_host: &str, proxy_port: u16) -> Self {
        Self {
            shown: Mutex::new((HashMap::new(), VecDeque::new())),
            proxy_origin: format!("http://{proxy_host}:{proxy_port}"),
            app_origin: format!("http://127.0.0.1:{app_port}"),
        }
    }

    /// Keeps `instance` under a new random id, which it returns.
    pub(super) fn add(&self, instance: Instance) -> Option<String> {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes).ok()?;
        let id: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let mut shown = self.shown.lock().unwrap_or_else(PoisonError::into_inner);
        if shown.1.len() >= MAX_VIEWS {
            if let Some(oldest) = shown.1.pop_front() {
                shown.0.remove(&oldest);
            }
        }
        shown.0.insert(id.clone(), instance);
        shown.1.push_back(id.clone());
        Some(id)
    }

    pub(super) fn get(&self, id: &str) -> Option<Instance> {
        let shown = self.shown.lock().unwrap_or_else(PoisonError::into_inner);
        shown.0.get(id).cloned()
    }

    pub(super) fn set_policy(&self, id: &str, policy: ViewPolicy) {
        let mut shown = self.shown.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(instance) = shown.0.get_mut(id) {
            instance.policy = Some(policy);
        }
    }

    /// Forgets every view (another conversation is shown).
    pub(super) fn clear(&self) {
        let mut shown = self.shown.lock().unwrap_or_else(PoisonError::into_inner);
        shown.0.clear();
        shown.1.clear();
    }

    /// The address of the proxy page for view `id`.
    pub(super) fn proxy_url(&self, id: &str) -> String {
        format!("{}/proxy?view={id}", self.proxy_origin)
    }
}

/// Each tool with a view, by the host's qualified name: its server and
/// the view's `ui://` URI (`_meta.ui.resourceUri`).
pub(super) fn tools_with_views(host: &mcp_host::Host) -> HashMap<String, (String, String, Value)> {
    host.tools()
        .into_iter()
        .filter_map(|t| {
            let tool = t.tool.accept();
            let uri = tool
                .meta
                .as_ref()?
                .get("ui")?
                .get("resourceUri")?
                .as_str()?
                .to_owned();
            if !uri.starts_with("ui://") {
                return None;
            }
            let definition = serde_json::to_value(&tool).ok()?;
            Some((t.qualified, (t.server.as_str().to_owned(), uri, definition)))
        })
        .collect()
}

/// What `resources/read` gave for a view: its HTML and the `_meta.ui` of
/// its content (the CSP, the permissions), or why it cannot be shown.
pub(super) fn view_of(result: &Value, uri: &str) -> Result<(String, Option<Value>), String> {
    let contents = result["contents"].as_array().ok_or("no contents")?;
    let content = contents
        .iter()
        .find(|c| c["uri"] == uri)
        .or_else(|| contents.first())
        .ok_or("no contents")?;
    if content["mimeType"].as_str() != Some(mcp_types::meta::APPS_MIME_TYPE) {
        return Err(format!(
            "the view is not of type {}",
            mcp_types::meta::APPS_MIME_TYPE
        ));
    }
    let html = content["text"]
        .as_str()
        .ok_or("the view has no text (a blob view is not shown)")?;
    if html.len() > MAX_HTML {
        return Err(format!("the view is over {MAX_HTML} bytes"));
    }
    Ok((html.to_owned(), content["_meta"].get("ui").cloned()))
}

/// The permissions of `policy` as `sandbox-resource-ready` carries them
/// to the proxy (which makes them its frame's `allow`): only those the
/// extension names, and only when declared.
fn permissions_of(policy: &ViewPolicy) -> Value {
    let allow = policy.allow();
    let mut permissions = Map::new();
    for feature in allow.split("; ").filter(|f| !f.is_empty()) {
        let key = match feature {
            "clipboard-write" => "clipboardWrite",
            other => other,
        };
        permissions.insert(key.to_owned(), json!({}));
    }
    Value::Object(permissions)
}

/// The `ui/initialize` result the host answers view `instance` with.
/// No `containerDimensions`: the extension's schema closes each branch
/// of its `allOf`, so that no value but `{}` validates; the frame's
/// height follows the view's size reports, up to 800 pixels.
pub(super) fn initialize_result(instance: &Instance) -> Value {
    json!({
        "protocolVersion": APPS_VERSION,
        "hostInfo": {"name": "mcp-host", "version": env!("CARGO_PKG_VERSION")},
        "hostCapabilities": {
            "openLinks": {},
            "serverTools": {},
            "serverResources": {},
            "logging": {},
            "updateModelContext": {"text": {}},
            "message": {"text": {}},
        },
        "hostContext": {
            "toolInfo": {"tool": instance.definition},
            "theme": "light",
            "displayMode": "inline",
            "availableDisplayModes": ["inline"],
            "platform": "web",
        },
    })
}

/// The text of a view's message or context: its text blocks, and the
/// JSON of anything else.
pub(super) fn text_of(content: &Value) -> String {
    let blocks: Vec<&Value> = match content {
        Value::Array(blocks) => blocks.iter().collect(),
        Value::Null => Vec::new(),
        other => vec![other],
    };
    blocks
        .into_iter()
        .map(|b| match (b["type"].as_str(), b["text"].as_str()) {
            (Some("text"), Some(text)) => text.to_owned(),
            _ => b.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The proxy's listener: the proxy page, for a view whose policy is
/// known, and its script; nothing else.
pub(super) fn proxy_routes(views: Arc<Views>) -> Router {
    Router::new()
        .route("/proxy", get(proxy_page))
        .route("/proxy.js", get(proxy_script))
        .fallback(|| async { StatusCode::NOT_FOUND })
        .with_state(views)
}

fn right_host(views: &Views, headers: &HeaderMap) -> bool {
    let expected = views.proxy_origin.trim_start_matches("http://");
    let hosts: Vec<_> = headers.get_all(header::HOST).iter().collect();
    hosts.len() == 1 && hosts[0].as_bytes() == expected.as_bytes()
}

async fn proxy_page(State(views): State<Arc<Views>>, headers: HeaderMap, uri: Uri) -> Response {
    if !right_host(&views, &headers) {
        return (StatusCode::MISDIRECTED_REQUEST, "not the proxy's name").into_response();
    }
    let policy = url::form_urlencoded::parse(uri.query().unwrap_or_default().as_bytes())
        .find(|(key, _)| key == "view")
        .and_then(|(_, id)| views.get(&id))
        .and_then(|instance| instance.policy);
    let Some(policy) = policy else {
        return StatusCode::NOT_FOUND.into_response();
    };
    // The view's policy, and only the app may frame the proxy (the
    // view's own frame is the proxy's, which the policy carries to it).
    let csp = format!(
        "{}; frame-ancestors {} {}",
        policy.csp(),
        views.app_origin,
        views.proxy_origin
    );
    let page = format!(
        "<!doctype html><html data-host=\"{}\"><head><meta charset=\"utf-8\">\
         <title>view</title><style>html,body{{margin:0;padding:0;border:0}}\
         iframe{{border:0;width:100%;display:block}}</style></head><body>\
         <script src=\"/proxy.js\"></script></body></html>",
        views.app_origin
    );
    let mut response = axum::response::Html(page).into_response();
    let headers = response.headers_mut();
    if let Ok(value) = HeaderValue::from_str(&csp) {
        headers.insert("content-security-policy", value);
    } else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    }
    proxy_headers(headers);
    response
}

async fn proxy_script(State(views): State<Arc<Views>>, headers: HeaderMap) -> Response {
    if !right_host(&views, &headers) {
        return (StatusCode::MISDIRECTED_REQUEST, "not the proxy's name").into_response();
    }
    let mut response = (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        include_str!("assets/proxy.js"),
    )
        .into_response();
    proxy_headers(response.headers_mut());
    response
}

fn proxy_headers(headers: &mut HeaderMap) {
    for (name, value) in [
        ("x-content-type-options", "nosniff"),
        ("referrer-policy", "no-referrer"),
        ("cache-control", "no-store"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
}

/// A log message of a view, as the audit log keeps it: its level and its
/// data, made visible.
pub(super) fn log_entry(instance: &Instance, params: &Map<String, Value>) -> Value {
    json!({
        "server": instance.server,
        "view": visible(&instance.uri),
        "level": params.get("level").and_then(Value::as_str).map(visible),
        "data": params.get("data").map(|d| visible(&d.to_string())),
    })
}

// The app's routes for views. Each body names its view by id; what the
// view may ask follows from whose view it is.

/// A request refused before anything is asked: the HTTP status, and the
/// JSON-RPC error for the view.
struct Bad(StatusCode, i64, &'static str);

impl IntoResponse for Bad {
    fn into_response(self) -> Response {
        error(self.0, self.1, self.2)
    }
}

/// A JSON-RPC error for the view, with the HTTP status for the page.
fn error(status: StatusCode, code: i64, message: &str) -> Response {
    (
        status,
        axum::Json(json!({"error": {"code": code, "message": message}})),
    )
        .into_response()
}

fn result(value: Value) -> Response {
    axum::Json(json!({ "result": value })).into_response()
}

/// The body's JSON object, and the view it names by id.
fn parse(app: &App, body: &[u8]) -> Result<(Map<String, Value>, String, Instance), Bad> {
    if body.len() > MAX_HTML {
        return Err(Bad(
            StatusCode::PAYLOAD_TOO_LARGE,
            -32600,
            "the request is too large",
        ));
    }
    let Ok(Value::Object(body)) = serde_json::from_slice(body) else {
        return Err(Bad(
            StatusCode::BAD_REQUEST,
            -32600,
            "a JSON object is needed",
        ));
    };
    let id = body
        .get("view")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    match app.views.get(&id) {
        Some(instance) => Ok((body, id, instance)),
        None => Err(Bad(StatusCode::NOT_FOUND, -32000, "no such view")),
    }
}

async fn ask_pages<T>(
    app: &App,
    request: impl FnOnce(oneshot::Sender<T>) -> PageRequest,
) -> Option<T> {
    let (tx, rx) = oneshot::channel();
    app.pages.send(request(tx)).await.ok()?;
    rx.await.ok()
}

fn audit(
    app: &App,
    instance: &Instance,
    request: &'static str,
    decision: &'static str,
    reason: &str,
    detail: Value,
) {
    let _ = app.pages.try_send(PageRequest::Audit {
        about: (instance.server.clone(), instance.uri.clone(), request),
        decision,
        reason: reason.to_owned(),
        detail,
    });
}

/// `POST /view/open` `{"view"}`: the view's HTML (read from its server
/// now, once its definitions were accepted), the frame's `allow`, the
/// origins it may reach (which the page tells the person), and
/// what the host tells the view: the `ui/initialize` result, the tool's
/// arguments and result. The content security policy it will run under
/// is kept for the proxy, and written to the audit log.
pub(super) async fn open(State(app): State<Arc<App>>, body: Bytes) -> Response {
    let (_, id, instance) = match parse(&app, &body) {
        Ok(found) => found,
        Err(bad) => return bad.into_response(),
    };
    let read = ask_pages(&app, |reply| PageRequest::View {
        server: instance.server.clone(),
        uri: instance.uri.clone(),
        reply,
    })
    .await
    .unwrap_or_else(|| Err(String::from("the host is shutting down")));
    let (html, ui) = match read {
        Ok(view) => view,
        Err(reason) => {
            audit(&app, &instance, "view", "refused", &reason, json!({}));
            return error(StatusCode::FORBIDDEN, -32000, &visible(&reason));
        }
    };
    let policy = match ViewPolicy::from_meta(ui.as_ref()) {
        Ok(policy) => policy,
        Err(e) => {
            let reason = format!("the view's declared policy is refused: {e}");
            audit(&app, &instance, "view", "refused", &reason, json!({}));
            return error(StatusCode::FORBIDDEN, -32000, &visible(&reason));
        }
    };
    audit(
        &app,
        &instance,
        "view",
        "shown",
        "its server's definitions were accepted",
        json!({"csp": policy.csp(), "allow": policy.allow(), "htmlDigest": mcp_digest::digest(&Value::String(html.clone()))}),
    );
    let permissions = permissions_of(&policy);
    let allow = policy.allow();
    let origins: Vec<String> = policy.origins().into_iter().map(visible).collect();
    app.views.set_policy(&id, policy);
    axum::Json(json!({
        "html": html,
        "allow": allow,
        "permissions": permissions,
        "origins": origins,
        "initialize": initialize_result(&instance),
        "arguments": instance.arguments,
        "result": instance.result,
    }))
    .into_response()
}

/// `POST /view/call` `{"view", "name", "arguments"}`: a tool of the
/// view's own server, under the flow policy and the gate.
pub(super) async fn call(State(app): State<Arc<App>>, body: Bytes) -> Response {
    let (body, _, instance) = match parse(&app, &body) {
        Ok(found) => found,
        Err(bad) => return bad.into_response(),
    };
    let (Some(name), Some(Value::Object(arguments))) = (
        body.get("name").and_then(Value::as_str),
        body.get("arguments")
            .cloned()
            .or(Some(Value::Object(Map::new()))),
    ) else {
        return error(
            StatusCode::BAD_REQUEST,
            -32602,
            "`name` and an object `arguments` are needed",
        );
    };
    let (tx, rx) = oneshot::channel();
    let input = Input::ViewCall {
        server: instance.server.clone(),
        uri: instance.uri.clone(),
        tool: name.to_owned(),
        arguments,
        reply: tx,
    };
    if app.inputs.send(input).await.is_err() {
        return error(
            StatusCode::SERVICE_UNAVAILABLE,
            -32603,
            "the host is shutting down",
        );
    }
    match rx.await {
        Ok(Ok(value)) => result(value),
        Ok(Err(e)) => {
            let code = match &e {
                mcp_agent::conversation::ViewCallError::Server { code, .. } => *code,
                mcp_agent::conversation::ViewCallError::UnknownTool
                | mcp_agent::conversation::ViewCallError::NotForApps => -32602,
                _ => -32000,
            };
            error(StatusCode::FORBIDDEN, code, &visible(&e.to_string()))
        }
        Err(_) => error(
            StatusCode::SERVICE_UNAVAILABLE,
            -32603,
            "the call was dropped",
        ),
    }
}

/// `POST /view/read` `{"view", "uri"}`: a resource of the view's own
/// server.
pub(super) async fn read(State(app): State<Arc<App>>, body: Bytes) -> Response {
    let (body, _, instance) = match parse(&app, &body) {
        Ok(found) => found,
        Err(bad) => return bad.into_response(),
    };
    let Some(uri) = body.get("uri").and_then(Value::as_str) else {
        return error(StatusCode::BAD_REQUEST, -32602, "`uri` is needed");
    };
    let read = ask_pages(&app, |reply| PageRequest::Read {
        server: instance.server.clone(),
        uri: uri.to_owned(),
        reply,
    })
    .await
    .unwrap_or_else(|| Err(String::from("the host is shutting down")));
    match read {
        Ok(value) => result(value),
        Err(e) => error(StatusCode::FORBIDDEN, -32000, &visible(&e)),
    }
}

/// `POST /view/message` `{"view", "role", "content"}`: words for the
/// conversation, which start a turn, labelled as the server's output.
pub(super) async fn message(State(app): State<Arc<App>>, body: Bytes) -> Response {
    let (body, _, instance) = match parse(&app, &body) {
        Ok(found) => found,
        Err(bad) => return bad.into_response(),
    };
    let text = text_of(body.get("content").unwrap_or(&Value::Null));
    if text.trim().is_empty() {
        return error(StatusCode::BAD_REQUEST, -32602, "Invalid message format");
    }
    audit(
        &app,
        &instance,
        "ui/message",
        "accepted",
        "labelled as the server's untrusted output",
        json!({}),
    );
    let input = Input::ViewMessage {
        server: instance.server.clone(),
        uri: instance.uri.clone(),
        text,
    };
    match app.inputs.try_send(input) {
        Ok(()) => result(json!({})),
        Err(_) => error(
            StatusCode::TOO_MANY_REQUESTS,
            -32000,
            "Message sending denied: a turn is under way",
        ),
    }
}

/// `POST /view/context` `{"view", "content", "structuredContent"}`: the
/// context the view keeps for the model, given with the next turn,
/// labelled as the server's output; a later update replaces it.
pub(super) async fn context(State(app): State<Arc<App>>, body: Bytes) -> Response {
    let (body, id, instance) = match parse(&app, &body) {
        Ok(found) => found,
        Err(bad) => return bad.into_response(),
    };
    let mut text = text_of(body.get("content").unwrap_or(&Value::Null));
    if let Some(structured) = body.get("structuredContent").filter(|v| !v.is_null()) {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&structured.to_string());
    }
    audit(
        &app,
        &instance,
        "ui/update-model-context",
        "accepted",
        "labelled as the server's untrusted output",
        json!({}),
    );
    let input = Input::ViewContext {
        view: id,
        server: instance.server.clone(),
        uri: instance.uri.clone(),
        text,
    };
    match app.inputs.send(input).await {
        Ok(()) => result(json!({})),
        Err(_) => error(
            StatusCode::SERVICE_UNAVAILABLE,
            -32603,
            "the host is shutting down",
        ),
    }
}

/// `POST /view/link` `{"view", "url"}`: an `http` or `https` link,
/// opened by the page only when the person says so in a dialog that
/// shows it whole.
pub(super) async fn link(State(app): State<Arc<App>>, body: Bytes) -> Response {
    let (body, _, instance) = match parse(&app, &body) {
        Ok(found) => found,
        Err(bad) => return bad.into_response(),
    };
    let url = body
        .get("url")
        .and_then(Value::as_str)
        .and_then(|u| url::Url::parse(u).ok())
        .filter(|u| matches!(u.scheme(), "http" | "https"));
    let Some(url) = url else {
        audit(
            &app,
            &instance,
            "ui/open-link",
            "refused",
            "not an http or https URL",
            json!({}),
        );
        return axum::Json(json!({"open": false})).into_response();
    };
    let question = json!({
        "kind": "link",
        "title": "A view asks to open a link",
        "text": visible(&format!(
            "The view of server `{}` ({}) asks to open:\n{}",
            instance.server, instance.uri, url
        )),
    });
    let asked = app.questions.ask(
        question,
        &[("open", "Open the link"), ("deny", "Don't open it")],
    );
    let open = matches!(asked.await, Ok(reply) if reply.choice == "open");
    let decision = if open { "allowed" } else { "denied" };
    audit(
        &app,
        &instance,
        "ui/open-link",
        decision,
        "asked the person",
        json!({"url": url.as_str()}),
    );
    axum::Json(json!({"open": open, "url": url.as_str()})).into_response()
}

/// `POST /view/log` `{"view", "level", "data"}`: a view's log message,
/// into the audit log.
pub(super) async fn log(State(app): State<Arc<App>>, body: Bytes) -> Response {
    let (body, _, instance) = match parse(&app, &body) {
        Ok(found) => found,
        Err(bad) => return bad.into_response(),
    };
    let entry = log_entry(&instance, &body);
    audit(
        &app,
        &instance,
        "notifications/message",
        "logged",
        "",
        entry,
    );
    StatusCode::NO_CONTENT.into_response()
}
