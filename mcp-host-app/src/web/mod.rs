//! The browser front end: `mcp-host web` serves the app on loopback and
//! opens the browser at it.
//!
//! ```text
//! mcp-host --config servers.json web --provider openai --base-url http://127.0.0.1:8080/v1 --model local
//! mcp-host --config servers.json web --no-browser ...   # prints the address instead
//! ```
//!
//! It drives the same libraries as the terminal: the conversation and the
//! flow policy of `mcp_agent`, the servers, the approval gate and the
//! audit log of `mcp_host`. It holds no policy of its own; the person
//! answers the same questions, in dialogs.
//!
//! - `ask`: the person's questions as dialogs: the approval gate, the
//!   flow policy's endorsement (allow once, deny, or make it a flow rule,
//!   shown before it is written to the configuration) and servers'
//!   elicitations; an answer must be one of the question's choices.
//! - [`guard`]: who may use the app (the launch secret exchanged once for
//!   an `HttpOnly`, `SameSite=Strict` cookie, `Host`, `Origin` and
//!   `Sec-Fetch-Site` checks), without I/O.
//! - [`page`]: the pages, rendered on the server with `maud` (every value
//!   escaped, text from the other side through `visible` first).
//! - `views`: MCP Apps views: the sandbox proxy's listener on
//!   `127.0.0.2`, the views shown and the policy each runs under, and the
//!   routes of what a view asks of the host (its own server's tools and
//!   resources, a message, its context, a link, its log).
//! - `session`: the conversation loop: a turn per message, the
//!   conversation saved in the state directory when a turn ends, and a
//!   saved one reopened with its labels (its taint kept) or a new one
//!   started.
//! - `assets/`: the app's only stylesheet and script, and the sandbox
//!   proxy's script, shipped inside the binary. The app's script writes
//!   what it receives as text (`textContent`), never as markup; the
//!   content security policy allows no inline code and no other origin,
//!   and frames only the proxy.
//!
//! Events of the conversation (the model's text, each tool call with its
//! decision, progress and task status, the questions) reach the page as
//! server-sent events; the person's messages and answers go back as
//! `POST`s of JSON. The servers page shows each server's state, era,
//! trust, the tools held back by their pins, and every definition whole
//! with the poisoning checks' findings; accepting them there records the
//! digests shown, never a definition that changed since.

mod ask;
pub mod guard;
pub mod page;
mod session;
mod views;

use std::future::IntoFuture;
use std::process::ExitCode;
use std::sync::{Arc, Mutex, PoisonError};

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use mcp_agent::conversation::{
    catalogue, Agent, Bounds, Conversation, ConversationId, Conversations, Offer,
};
use mcp_agent::flow::{FlowConfig, FlowPolicy, FlowStore, Reviews};
use mcp_agent::names::tool_budget;
use mcp_agent::provider::http::Client;
use mcp_host::approval::{ApproveAll, Approver};
use mcp_host::untrusted::visible;
use serde_json::{json, Value};
use tokio::sync::{broadcast, mpsc, oneshot, watch};

use crate::model;
use crate::terminal::{Global, ModelArgs};
use ask::{Questions, Reply, Unheard, WebApprover, WebEndorser, WebInput};
use session::{Input, Session};

/// The content security policy of every answer: the app's own files, and
/// nothing inline or from elsewhere; the only frames are the sandbox
/// proxy's, which MCP Apps views run in (`frame-src` is added with its
/// origin).
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; \
                   connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/// `mcp-host web`'s options.
#[derive(Debug, Clone, clap::Args)]
pub struct WebArgs {
    /// Print the address instead of opening the browser at it.
    #[arg(long)]
    pub no_browser: bool,
    /// The loopback port to listen on (default: any free one).
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    /// The model and the bounds, as for `chat`.
    #[command(flatten)]
    pub model: ModelArgs,
}

/// One event of the conversation, as JSON for the page.
type EventText = String;

/// Every event so far, for a page opened later, and the stream of the
/// next ones; pushed and sent under the same lock, so that a page that
/// opens sees each event once.
type Events = Arc<Mutex<(Vec<EventText>, broadcast::Sender<EventText>)>>;

/// What the handlers share: the guard, the conversation's events so far
/// and their stream, and the ways into the conversation.
struct App {
    guard: guard::Guard,
    model: String,
    events: Events,
    inputs: mpsc::Sender<Input>,
    /// The saved conversations, when there is a state directory.
    conversations: Option<Conversations>,
    pages: mpsc::Sender<PageRequest>,
    questions: Arc<Questions>,
    cancel: watch::Sender<u64>,
    audit: Option<std::path::PathBuf>,
    /// The MCP Apps views shown, and the proxy's origin.
    views: Arc<views::Views>,
    /// [`CSP`] with the proxy's origin as the one frame source.
    csp: HeaderValue,
}

/// Changes to the flow policy made outside a turn's loop: a flow rule
/// written from an endorsement dialog, a review accepted on the servers
/// page. The policy takes them before the next turn.
#[derive(Default)]
struct Pending {
    config: Arc<Mutex<Option<FlowConfig>>>,
    reviews: Mutex<Option<Reviews>>,
}

impl Pending {
    fn apply(&self, policy: &mut FlowPolicy) {
        let config = self
            .config
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(config) = config {
            policy.set_config(config);
        }
        let reviews = self
            .reviews
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(reviews) = reviews {
            policy.set_reviews(reviews);
        }
    }
}

/// Starts the page's history over (another conversation is shown): a
/// page open now clears what it shows, and one opened later sees only
/// what follows.
fn reset(events: &Events) {
    let text = json!({"type": "reset"}).to_string();
    let mut events = events.lock().unwrap_or_else(PoisonError::into_inner);
    events.0.clear();
    let _ = events.1.send(text);
}

fn emit(events: &Events, event: Value) {
    let text = event.to_string();
    let mut events = events.lock().unwrap_or_else(PoisonError::into_inner);
    events.0.push(text.clone());
    // Nobody listening is fine: the page reads the history when it opens.
    let _ = events.1.send(text);
}

/// Runs `mcp-host web`.
///
/// # Errors
///
/// A message for the person when the configuration, the model, a server
/// or the listening address cannot be used.
pub async fn run(global: &Global, args: WebArgs) -> Result<ExitCode, String> {
    let store = FlowStore::in_state_dir().ok_or(
        "no state directory for the flow policy's files: set XDG_STATE_HOME or HOME to an \
         absolute path",
    )?;
    let (source, config) = crate::terminal::load(global).await?;
    let document: Value = std::fs::read_to_string(&source)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null);
    let flow_config = FlowConfig::from_host_json(&document).map_err(|e| e.to_string())?;
    let trust = flow_config.clone();
    let chosen = model::choose(
        args.model.provider.as_deref(),
        args.model.model.as_deref(),
        args.model.base_url.as_deref(),
        &document,
        &|name| std::env::var(name).ok(),
    )?;
    let provider = chosen.endpoint.provider;
    let model_name = chosen.name.clone();
    let client = Client::new(chosen.endpoint).map_err(|e| e.to_string())?;
    let mut policy = FlowPolicy::new(flow_config)
        .with_reviews(store.reviews().map_err(|e| e.to_string())?)
        .with_holdings(store.holdings().map_err(|e| e.to_string())?);
    if args.model.allow_flow {
        policy = policy.allow_flow_flag();
    }

    let listener = tokio::net::TcpListener::bind(("127.0.0.1", args.port))
        .await
        .map_err(|e| format!("cannot listen on 127.0.0.1:{}: {e}", args.port))?;
    let port = listener.local_addr().map_err(|e| e.to_string())?.port();
    let guard = guard::Guard::new(port)?;
    let (proxy_listener, proxy_host) = views::proxy_listener().await?;
    let proxy_port = proxy_listener
        .local_addr()
        .map_err(|e| e.to_string())?
        .port();
    let shown = Arc::new(views::Views::new(port, proxy_host, proxy_port));
    let csp = HeaderValue::from_str(&format!("{CSP}; frame-src {}", shown.proxy_origin))
        .map_err(|e| e.to_string())?;

    let (events_tx, _) = broadcast::channel(1024);
    let events: Events = Arc::new(Mutex::new((Vec::new(), events_tx)));
    let questions = Arc::new(Questions::new(events.clone()));
    let approver: Arc<dyn Approver> = if args.model.yes {
        Arc::new(ApproveAll)
    } else {
        Arc::new(WebApprover(questions.clone()))
    };
    let input = Arc::new(WebInput(questions.clone()));
    let host = crate::terminal::start_host(global, config, approver, input, false).await?;
    let selection = crate::terminal::chat::selection(
        &document,
        tool_budget(mcp_agent::conversation::offer::target(provider)),
    );
    let offer = Offer::build(provider, &catalogue(&host), &selection);
    let bounds = Bounds {
        max_requests_per_turn: args.model.max_requests,
        max_tokens: args.model.max_tokens,
        ..Bounds::default()
    };
    let mut session = Session {
        conversation: Conversation::new(args.model.system.clone(), bounds)
            .map_err(|e| e.to_string())?,
        id: ConversationId::random().map_err(|e| e.to_string())?,
        title: String::new(),
        system: args.model.system.clone(),
        bounds,
        saved: Conversations::in_state_dir(),
        events: events.clone(),
        views: shown.clone(),
        contexts: Vec::new(),
    };
    let progress_events = events.clone();
    let progress: mcp_host::client::ProgressFn =
        Arc::new(move |report| emit(&progress_events, progress_event(report)));
    let mut agent = Agent::new(&host, &client, chosen.name, policy, offer)
        .with_store(store.clone())
        .with_call_options(mcp_host::client::CallOptions {
            progress: Some(progress),
            ..mcp_host::client::CallOptions::default()
        });
    let pending = Arc::new(Pending::default());

    let (inputs_tx, inputs) = mpsc::channel(8);
    let (pages_tx, pages) = mpsc::channel(8);
    let (cancel, cancelled) = watch::channel(0u64);
    let audit = match &global.audit_log {
        Some(path) => Some(path.clone()),
        None => mcp_host::audit::AuditLog::in_state_dir().map(|log| log.path().to_owned()),
    };
    let app = Arc::new(App {
        guard,
        model: model_name,
        events: events.clone(),
        inputs: inputs_tx,
        conversations: Conversations::in_state_dir(),
        pages: pages_tx,
        questions: questions.clone(),
        cancel,
        audit,
        views: shown.clone(),
        csp,
    });
    let url = app
        .guard
        .launch_url()
        .ok_or("the launch secret is already spent")?;
    println!("mcp-host: the app is at {url}");
    if !args.no_browser {
        open_browser(&url);
    }

    let router = routes(app.clone());
    let proxy = tokio::spawn(
        axum::serve(proxy_listener, views::proxy_routes(shown))
            .with_graceful_shutdown(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .into_future(),
    );
    // The server runs as a task of its own: the endorsement question
    // blocks the turn's thread while it waits, and the answer must still
    // be accepted on a new connection meanwhile.
    let serve = tokio::spawn(
        axum::serve(listener, router)
            .with_graceful_shutdown(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .into_future(),
    );
    let turns = session::turns(
        &mut agent,
        &mut session,
        inputs,
        cancelled,
        WebEndorser {
            questions,
            config: source.clone(),
            written: pending.config.clone(),
        },
        &pending,
    );
    let pages = serve_pages(&host, &trust, &store, &pending, pages);
    let (served, (), ()) = tokio::join!(
        async {
            let served = match serve.await {
                Ok(served) => served.map_err(|e| e.to_string()),
                Err(e) => Err(e.to_string()),
            };
            // The router is gone: nothing more will be said or asked.
            drop(app);
            served
        },
        turns,
        pages
    );
    drop(agent);
    proxy.abort();
    host.shutdown().await;
    served?;
    Ok(ExitCode::SUCCESS)
}

/// What the pages ask of the task that holds the host.
enum PageRequest {
    /// Each server's view, for the servers page.
    Servers(oneshot::Sender<Vec<page::ServerView>>),
    /// The person accepts the definitions of `server` whose digests the
    /// page showed; the reply is how many were accepted.
    Accept {
        server: String,
        digests: Vec<String>,
        reply: oneshot::Sender<Result<usize, String>>,
    },
    /// The HTML of view `uri` of `server` and its `_meta.ui`, once the
    /// person accepted the server's definitions.
    View {
        server: String,
        uri: String,
        reply: oneshot::Sender<Result<(String, Option<Value>), String>>,
    },
    /// A resource of `server`, for one of its views.
    Read {
        server: String,
        uri: String,
        reply: oneshot::Sender<Result<Value, String>>,
    },
    /// What a view asked and what was decided, for the audit log:
    /// `(server, view URI, request)`, the decision, why, and detail.
    Audit {
        about: (String, String, &'static str),
        decision: &'static str,
        reason: String,
        detail: Value,
    },
}

/// Answers the pages' requests with the host's view of its servers.
async fn serve_pages(
    host: &mcp_host::Host,
    trust: &FlowConfig,
    store: &FlowStore,
    pending: &Pending,
    mut pages: mpsc::Receiver<PageRequest>,
) {
    while let Some(request) = pages.recv().await {
        match request {
            PageRequest::Servers(reply) => {
                let _ = reply.send(server_views(host, trust, store).await);
            }
            PageRequest::Accept {
                server,
                digests,
                reply,
            } => {
                let accepted = accept(host, trust, store, pending, &server, &digests).await;
                let _ = reply.send(accepted);
            }
            PageRequest::View { server, uri, reply } => {
                let _ = reply.send(read_view(host, trust, store, &server, &uri).await);
            }
            PageRequest::Read { server, uri, reply } => {
                let read = match mcp_host::names::ServerId::new(&server) {
                    Ok(id) => host
                        .read_resource(&id, &uri)
                        .await
                        .map(|r| serde_json::to_value(r.accept()).unwrap_or_default())
                        .map_err(|e| e.to_string()),
                    Err(e) => Err(e.to_string()),
                };
                let _ = reply.send(read);
            }
            PageRequest::Audit {
                about: (server, uri, request),
                decision,
                reason,
                detail,
            } => host.audit_view((&server, &uri, request), decision, &reason, detail),
        }
    }
}

/// Accepts the definitions of `server` the page showed, and its MCP Apps
/// views: only those whose digest is still the one shown, so that a
/// definition or a view that changed since is never accepted unseen.
async fn accept(
    host: &mcp_host::Host,
    trust: &FlowConfig,
    store: &FlowStore,
    pending: &Pending,
    server: &str,
    digests: &[String],
) -> Result<usize, String> {
    let reviews = store.reviews().map_err(|e| e.to_string())?;
    let shown: Vec<_> =
        crate::terminal::review::definitions(host, trust, &reviews, Some(server), None)
            .into_iter()
            .filter(|d| digests.contains(&d.digest))
            .collect();
    let views: Vec<(String, String)> = views_of(host, server)
        .await
        .into_iter()
        .filter_map(|(uri, read)| read.ok().map(|(_, digest)| (uri, digest)))
        .filter(|(_, digest)| digests.contains(digest))
        .collect();
    let (accepted, reviews) = store
        .update_reviews(|r| {
            for d in &shown {
                r.accept(&d.server, &d.tool, &d.digest);
            }
            for (uri, digest) in &views {
                r.accept(server, uri, digest);
            }
            shown.len() + views.len()
        })
        .map_err(|e| e.to_string())?;
    *pending
        .reviews
        .lock()
        .unwrap_or_else(PoisonError::into_inner) = Some(reviews);
    Ok(accepted)
}

/// The HTML of a view and its `_meta.ui`: read from its server only when
/// every definition of that server was accepted by the person (or its
/// output is trusted), since a view is code the server wrote.
async fn read_view(
    host: &mcp_host::Host,
    trust: &FlowConfig,
    store: &FlowStore,
    server: &str,
    uri: &str,
) -> Result<(String, Option<Value>), String> {
    let reviews = store.reviews().map_err(|e| e.to_string())?;
    let unreviewed =
        crate::terminal::review::definitions(host, trust, &reviews, Some(server), None)
            .into_iter()
            .filter(|d| d.status == "not reviewed")
            .count();
    if unreviewed > 0 {
        return Err(format!(
            "the view is not shown: {unreviewed} definitions of its server are not accepted yet \
             (the servers page shows them)"
        ));
    }
    let ((html, ui), digest) = read_one(host, server, uri).await?;
    // Pinned like a definition: the first view read after the person
    // accepted the server's definitions is pinned; one that differs
    // from its pin is held back until the person accepts it again.
    match reviews.pinned(server, uri) {
        Some(pinned) if pinned == digest => {}
        Some(_) => {
            return Err(String::from(
                "the view is not shown: it changed since it was accepted (the servers page \
                 shows it; accept it there to show it)",
            ))
        }
        None => {
            store
                .update_reviews(|r| r.accept(server, uri, &digest))
                .map_err(|e| format!("the view's pin could not be written: {e}"))?;
        }
    }
    Ok((html, ui))
}

/// One view of `server`, read: its HTML and `_meta.ui`, and its digest
/// (SHA-256 of the canonical JSON of both), which its pin holds.
async fn read_one(
    host: &mcp_host::Host,
    server: &str,
    uri: &str,
) -> Result<((String, Option<Value>), String), String> {
    let id = mcp_host::names::ServerId::new(server).map_err(|e| e.to_string())?;
    let read = host
        .read_resource(&id, uri)
        .await
        .map_err(|e| format!("the view could not be read: {e}"))?;
    let value = serde_json::to_value(read.accept()).map_err(|e| e.to_string())?;
    let (html, ui) = views::view_of(&value, uri)?;
    let digest = mcp_digest::digest(&json!({"html": html, "ui": ui}));
    Ok(((html, ui), digest))
}

/// Every view the tools of `server` name, each read (or why not).
async fn views_of(
    host: &mcp_host::Host,
    server: &str,
) -> Vec<(String, Result<(String, String), String>)> {
    let mut uris: Vec<String> = views::tools_with_views(host)
        .into_values()
        .filter(|(s, _, _)| s == server)
        .map(|(_, uri, _)| uri)
        .collect();
    uris.sort();
    uris.dedup();
    let mut read = Vec::new();
    for uri in uris {
        let one = read_one(host, server, &uri)
            .await
            .map(|((html, _), digest)| (html, digest));
        read.push((uri, one));
    }
    read
}

async fn server_views(
    host: &mcp_host::Host,
    trust: &FlowConfig,
    store: &FlowStore,
) -> Vec<page::ServerView> {
    let reviews = store.reviews().unwrap_or_default();
    let quarantined = host.quarantined_tools();
    let mut views = Vec::new();
    for status in host.servers().await {
        let id = status.id.as_str().to_owned();
        let mut view = page::ServerView {
            state: match (&status.error, status.asleep) {
                (Some(_), _) => "failed",
                (None, true) => "lazy",
                (None, false) => "running",
            },
            error: status.error,
            redirected: status.redirected,
            trusted: trust.label(status.id.as_str()).integrity
                == mcp_agent::flow::Integrity::Trusted,
            ..page::ServerView::default()
        };
        if let Some(session) = status.session {
            view.era = Some(format!("{:?}", session.era).to_lowercase());
            view.version = Some(session.version.to_string());
            view.info = session.server_info.map(|info| {
                let info = info.accept();
                format!("{} {}", info.name, info.version)
            });
        }
        view.definitions =
            crate::terminal::review::definitions(host, trust, &reviews, Some(&id), None)
                .into_iter()
                .map(|d| page::DefinitionView {
                    tool: d.tool,
                    digest: d.digest,
                    status: d.status,
                    text: d.text,
                })
                .collect();
        // Its MCP Apps views, pinned like definitions.
        for (uri, read) in views_of(host, &id).await {
            let Ok((html, digest)) = read else { continue };
            let status = match reviews.pinned(&id, &uri) {
                Some(pinned) if pinned == digest => "accepted",
                Some(_) => "changed",
                None => "not reviewed",
            };
            view.definitions.push(page::DefinitionView {
                tool: uri,
                digest,
                status,
                text: visible(&html),
            });
        }
        view.quarantined = quarantined
            .iter()
            .filter(|t| t.server.as_str() == id)
            .map(|t| {
                let name = t.tool.accept_ref().name.clone();
                let why = match &t.quarantine {
                    Some(mcp_host::trust::Quarantine::Changed(change)) => format!(
                        "{}\n{}",
                        change.summary(),
                        crate::terminal::difference_lines(change)
                    ),
                    Some(other) => other.to_string(),
                    None => String::new(),
                };
                (name, why)
            })
            .collect();
        view.id = id;
        views.push(view);
    }
    views
}

fn routes(app: Arc<App>) -> Router {
    Router::new()
        .route("/", get(conversation_page))
        .route("/servers", get(servers_page))
        .route("/review", post(review))
        .route("/conversations", get(conversations_page))
        .route("/open", post(open_conversation))
        .route("/new", post(new_conversation))
        .route("/audit", get(audit_page))
        .route("/events", get(events))
        .route("/say", post(say))
        .route("/answer", post(answer))
        .route("/cancel", post(cancel))
        .route("/view/open", post(views::open))
        .route("/view/call", post(views::call))
        .route("/view/read", post(views::read))
        .route("/view/message", post(views::message))
        .route("/view/context", post(views::context))
        .route("/view/link", post(views::link))
        .route("/view/log", post(views::log))
        .route("/app.js", get(script))
        .route("/app.css", get(style))
        .layer(axum::middleware::from_fn_with_state(app.clone(), guarded))
        .with_state(app)
}

/// Every request passes the [`guard`] first; every answer carries the
/// security headers.
async fn guarded(State(app): State<Arc<App>>, request: Request, next: Next) -> Response {
    let headers = request.headers();
    let values = |name: header::HeaderName| -> Vec<&str> {
        headers
            .get_all(name)
            .iter()
            .map(|v| v.to_str().unwrap_or("\u{fffd}"))
            .collect()
    };
    let hosts = values(header::HOST);
    let origins = values(header::ORIGIN);
    let cookies = values(header::COOKIE);
    let fetch_site = headers
        .get("sec-fetch-site")
        .map(|v| v.to_str().unwrap_or("\u{fffd}"));
    let method = request.method().as_str().to_owned();
    let verdict = app.guard.check(&guard::Head {
        method: &method,
        query: request.uri().query(),
        hosts: &hosts,
        origins: &origins,
        fetch_site,
        cookies: &cookies,
    });
    let mut response = match verdict {
        guard::Verdict::Pass => next.run(request).await,
        guard::Verdict::Exchange(cookie) => {
            let mut response = (StatusCode::SEE_OTHER, [(header::LOCATION, "/")]).into_response();
            if let Ok(value) = HeaderValue::from_str(&cookie) {
                response.headers_mut().insert(header::SET_COOKIE, value);
            }
            response
        }
        guard::Verdict::Refuse(status, reason) => (
            StatusCode::from_u16(status).unwrap_or(StatusCode::FORBIDDEN),
            axum::response::Html(page::refused(reason).into_string()),
        )
            .into_response(),
    };
    secure(response.headers_mut(), &app.csp);
    response
}

fn secure(headers: &mut HeaderMap, csp: &HeaderValue) {
    headers.insert("content-security-policy", csp.clone());
    for (name, value) in [
        ("x-content-type-options", "nosniff"),
        // Not `no-referrer`: under it, the browser sends `Origin: null`
        // with the app's own forms, which the guard refuses. The address
        // (the secret is spent on first use) stays within the app.
        ("referrer-policy", "same-origin"),
        ("cross-origin-opener-policy", "same-origin"),
        ("cross-origin-resource-policy", "same-origin"),
        ("x-frame-options", "DENY"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    headers
        .entry(header::CACHE_CONTROL)
        .or_insert(HeaderValue::from_static("no-store"));
}

fn html(markup: maud::Markup) -> Response {
    axum::response::Html(markup.into_string()).into_response()
}

async fn conversation_page(State(app): State<Arc<App>>) -> Response {
    html(page::conversation(&app.model, &app.views.proxy_origin))
}

async fn servers_page(State(app): State<Arc<App>>) -> Response {
    let (tx, rx) = oneshot::channel();
    if app.pages.send(PageRequest::Servers(tx)).await.is_err() {
        return StatusCode::SERVICE_UNAVAILABLE.into_response();
    }
    match rx.await {
        Ok(views) => html(page::servers(&views)),
        Err(_) => StatusCode::SERVICE_UNAVAILABLE.into_response(),
    }
}

/// `POST /review` with the form `server=ID&digest=D&digest=…`: the
/// person accepts the definitions the servers page showed them.
async fn review(State(app): State<Arc<App>>, body: axum::body::Bytes) -> Response {
    if body.len() > 200_000 {
        return (StatusCode::PAYLOAD_TOO_LARGE, "the form is too large").into_response();
    }
    let mut server = None;
    let mut digests = Vec::new();
    for (key, value) in url::form_urlencoded::parse(&body) {
        match &*key {
            "server" => server = Some(value.into_owned()),
            "digest" => digests.push(value.into_owned()),
            _ => {}
        }
    }
    let Some(server) = server else {
        return (StatusCode::BAD_REQUEST, "`server` is needed").into_response();
    };
    let (reply, accepted) = oneshot::channel();
    let request = PageRequest::Accept {
        server,
        digests,
        reply,
    };
    if app.pages.send(request).await.is_err() {
        return StatusCode::SERVICE_UNAVAILABLE.into_response();
    }
    match accepted.await {
        Ok(Ok(_)) => (StatusCode::SEE_OTHER, [(header::LOCATION, "/servers")]).into_response(),
        Ok(Err(e)) => (StatusCode::INTERNAL_SERVER_ERROR, visible(&e)).into_response(),
        Err(_) => StatusCode::SERVICE_UNAVAILABLE.into_response(),
    }
}

/// `GET /conversations`: the saved conversations, newest first, each with
/// its taint.
async fn conversations_page(State(app): State<Arc<App>>) -> Response {
    let listing = match &app.conversations {
        Some(saved) => saved.list(),
        None => Ok(mcp_agent::conversation::Listing::default()),
    };
    match listing {
        Ok(listing) => html(page::conversations(&listing)),
        Err(e) => (StatusCode::INTERNAL_SERVER_ERROR, visible(&e.to_string())).into_response(),
    }
}

/// `POST /open` with the form `id=ID`: reopens a saved conversation.
async fn open_conversation(State(app): State<Arc<App>>, body: axum::body::Bytes) -> Response {
    let id = url::form_urlencoded::parse(&body)
        .find(|(k, _)| k == "id")
        .and_then(|(_, v)| v.parse::<ConversationId>().ok());
    let Some(id) = id else {
        return (StatusCode::BAD_REQUEST, "a conversation id is needed").into_response();
    };
    to_the_loop(&app, Input::Open(id))
}

/// `POST /new`: starts a new conversation.
async fn new_conversation(State(app): State<Arc<App>>) -> Response {
    to_the_loop(&app, Input::New)
}

/// Hands `input` to the conversation loop (after the turn under way) and
/// sends the page back to the conversation.
fn to_the_loop(app: &App, input: Input) -> Response {
    match app.inputs.try_send(input) {
        Ok(()) => (StatusCode::SEE_OTHER, [(header::LOCATION, "/")]).into_response(),
        Err(_) => (StatusCode::TOO_MANY_REQUESTS, "a turn is still under way").into_response(),
    }
}

/// `GET /audit?server=ID&decision=D`: the audit log, newest first (the
/// last 1,000 lines that pass the filter).
async fn audit_page(State(app): State<Arc<App>>, request: Request) -> Response {
    let query = request.uri().query().unwrap_or("");
    let param = |name: &str| -> Option<String> {
        url::form_urlencoded::parse(query.as_bytes())
            .find(|(k, v)| k == name && !v.is_empty())
            .map(|(_, v)| v.into_owned())
    };
    let (server, decision) = (param("server"), param("decision"));
    let text = match &app.audit {
        Some(path) => std::fs::read_to_string(path).unwrap_or_default(),
        None => String::new(),
    };
    let mut servers = std::collections::BTreeSet::new();
    let mut records = Vec::new();
    for line in text.lines() {
        let Ok(record) = serde_json::from_str::<mcp_host::audit::AuditRecord>(line) else {
            continue;
        };
        servers.insert(record.server.clone());
        if server.as_deref().is_some_and(|s| s != record.server)
            || decision.as_deref().is_some_and(|d| d != record.decision)
        {
            continue;
        }
        records.push(page::AuditView {
            time: record.time,
            server: record.server,
            qualified: record.qualified,
            decision: record.decision,
            how: record.how,
            reason: record.reason,
            outcome: record.outcome,
        });
    }
    records.reverse();
    records.truncate(1_000);
    let servers: Vec<String> = servers.into_iter().collect();
    html(page::audit(
        &records,
        &servers,
        server.as_deref(),
        decision.as_deref(),
    ))
}

/// `GET /events`: the conversation so far, then each new event, as
/// server-sent events.
async fn events(State(app): State<Arc<App>>) -> Response {
    let (history, live) = {
        let events = app.events.lock().unwrap_or_else(PoisonError::into_inner);
        (events.0.clone(), events.1.subscribe())
    };
    let history = futures_util::stream::iter(history);
    let live = futures_util::stream::unfold(live, |mut live| async move {
        match live.recv().await {
            Ok(text) => Some((text, live)),
            // A page too slow to follow is told to reload.
            Err(broadcast::error::RecvError::Lagged(_)) => {
                Some((json!({"type": "reload"}).to_string(), live))
            }
            Err(broadcast::error::RecvError::Closed) => None,
        }
    });
    use futures_util::StreamExt as _;
    let stream = history.chain(live).map(|text| {
        Ok::<_, std::convert::Infallible>(axum::response::sse::Event::default().data(text))
    });
    axum::response::sse::Sse::new(stream)
        .keep_alive(axum::response::sse::KeepAlive::default())
        .into_response()
}

/// `POST /say` with `{"text": "..."}`: the person's next message.
async fn say(State(app): State<Arc<App>>, body: axum::body::Bytes) -> Response {
    let Some(text) = json_field(&body, "text").and_then(|v| v.as_str().map(str::to_owned)) else {
        return (
            StatusCode::BAD_REQUEST,
            "a JSON object with `text` is needed",
        )
            .into_response();
    };
    if text.trim().is_empty() || text.len() > 100_000 {
        return (StatusCode::BAD_REQUEST, "the message is empty or too long").into_response();
    }
    match app.inputs.try_send(Input::Say(text)) {
        Ok(()) => StatusCode::ACCEPTED.into_response(),
        Err(_) => (StatusCode::TOO_MANY_REQUESTS, "a turn is still under way").into_response(),
    }
}

/// `POST /answer` with `{"id": N, "choice": C, "content": {...}}`: the
/// answer to a question, one of the choices it was put with (`content`:
/// the fields of a form).
async fn answer(State(app): State<Arc<App>>, body: axum::body::Bytes) -> Response {
    let id = json_field(&body, "id").and_then(|v| v.as_u64());
    let choice = json_field(&body, "choice").and_then(|v| v.as_str().map(str::to_owned));
    let content = match json_field(&body, "content") {
        None | Some(Value::Null) => Some(serde_json::Map::new()),
        Some(Value::Object(content)) => Some(content),
        Some(_) => None,
    };
    let (Some(id), Some(choice), Some(content)) = (id, choice, content) else {
        return (
            StatusCode::BAD_REQUEST,
            "`id`, `choice` and, for a form, an object `content` are needed",
        )
            .into_response();
    };
    match app.questions.answer(id, Reply { choice, content }) {
        Ok(()) => StatusCode::NO_CONTENT.into_response(),
        Err(Unheard::Gone) => (StatusCode::NOT_FOUND, "no such question waits").into_response(),
        Err(Unheard::Choice) => (
            StatusCode::BAD_REQUEST,
            "the question does not take that choice",
        )
            .into_response(),
    }
}

/// `POST /cancel`: cancels the turn under way, refusing the questions it
/// waits on.
async fn cancel(State(app): State<Arc<App>>) -> Response {
    app.questions.refuse_all();
    app.cancel.send_modify(|n| *n += 1);
    StatusCode::NO_CONTENT.into_response()
}

/// A progress report of a tool call, as an event for the page; what the
/// server wrote made visible.
fn progress_event(report: mcp_host::client::Progress) -> Value {
    #[cfg(feature = "tasks")]
    let task = report.task.map(|task| {
        let task = task.accept();
        json!({
            "id": visible(&task.task_id),
            "status": task.status.to_string(),
        })
    });
    #[cfg(not(feature = "tasks"))]
    let task: Option<Value> = None;
    json!({
        "type": "progress",
        "progress": report.progress,
        "total": report.total,
        "message": report.message.map(|m| visible(&m.accept())),
        "task": task,
    })
}

fn json_field(body: &[u8], name: &str) -> Option<Value> {
    if body.len() > 200_000 {
        return None;
    }
    let mut value: Value = serde_json::from_slice(body).ok()?;
    value.get_mut(name).map(Value::take)
}

async fn script() -> Response {
    asset(
        "text/javascript; charset=utf-8",
        include_str!("assets/app.js"),
    )
}

async fn style() -> Response {
    asset("text/css; charset=utf-8", include_str!("assets/app.css"))
}

fn asset(kind: &'static str, text: &'static str) -> Response {
    ([(header::CONTENT_TYPE, kind)], text).into_response()
}

/// Opens the system browser at `url`; if none opens, the address printed
/// above is the way in.
fn open_browser(url: &str) {
    let program = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    let spawned = std::process::Command::new(program)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if spawned.is_err() {
        eprintln!("mcp-host: no browser could be opened ({program}); open the address above");
    }
}
