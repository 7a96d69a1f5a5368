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
//! - [`guard`]: who may use the app (the launch secret exchanged once for
//!   an `HttpOnly`, `SameSite=Strict` cookie, `Host`, `Origin` and
//!   `Sec-Fetch-Site` checks), without I/O.
//! - [`page`]: the pages, rendered on the server with `maud` (every value
//!   escaped, text from the other side through `visible` first).
//! - `assets/`: the app's only stylesheet and script, shipped inside the
//!   binary. The script writes what it receives as text (`textContent`),
//!   never as markup; the content security policy allows no inline code
//!   and no other origin.
//!
//! Events of the conversation (the model's text, each tool call with its
//! decision, the questions) reach the page as server-sent events; the
//! person's messages and answers go back as `POST`s of JSON.

pub mod guard;
pub mod page;

use std::collections::HashMap;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use mcp_agent::conversation::{catalogue, Agent, Bounds, Conversation, Event, Offer};
use mcp_agent::flow::{Answer, Endorser, FlowConfig, FlowPolicy, FlowStore, Question};
use mcp_agent::names::tool_budget;
use mcp_agent::provider::http::Client;
use mcp_host::approval::{ApprovalRequest, ApproveAll, Approver, Decision};
use mcp_host::untrusted::{safe_json, visible};
use serde_json::{json, Value};
use tokio::sync::{broadcast, mpsc, oneshot, watch};

use crate::model;
use crate::terminal::{Global, ModelArgs};

/// The content security policy of every answer: the app's own files, and
/// nothing inline, framed or from elsewhere.
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
    says: mpsc::Sender<String>,
    pages: mpsc::Sender<oneshot::Sender<Vec<page::ServerView>>>,
    questions: Arc<Questions>,
    cancel: watch::Sender<u64>,
    audit: Option<std::path::PathBuf>,
}

fn emit(events: &Events, event: Value) {
    let text = event.to_string();
    let mut events = events.lock().unwrap_or_else(PoisonError::into_inner);
    events.0.push(text.clone());
    // Nobody listening is fine: the page reads the history when it opens.
    let _ = events.1.send(text);
}

/// The questions waiting for the person, by id.
struct Questions {
    next: AtomicU64,
    waiting: Mutex<HashMap<u64, oneshot::Sender<bool>>>,
    events: Events,
}

impl Questions {
    /// Puts a question to the page; the answer arrives on the receiver
    /// (`true` to allow), or it is dropped unanswered.
    fn ask(&self, kind: &str, title: &str, text: &str) -> oneshot::Receiver<bool> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        self.waiting
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id, tx);
        emit(
            &self.events,
            json!({"type": "question", "kind": kind, "id": id, "title": title, "text": visible(text)}),
        );
        rx
    }

    /// Refuses every question still waiting: a cancelled turn does not
    /// stay blocked on a dialog nobody will answer.
    fn refuse_all(&self) {
        let waiting: Vec<(u64, oneshot::Sender<bool>)> = self
            .waiting
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .drain()
            .collect();
        for (id, tx) in waiting {
            emit(
                &self.events,
                json!({"type": "answered", "id": id, "allow": false}),
            );
            let _ = tx.send(false);
        }
    }

    fn answer(&self, id: u64, allow: bool) -> bool {
        let waiting = self
            .waiting
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&id);
        match waiting {
            Some(tx) => {
                emit(
                    &self.events,
                    json!({"type": "answered", "id": id, "allow": allow}),
                );
                tx.send(allow).is_ok()
            }
            None => false,
        }
    }
}

/// The host's approval gate, asked in a dialog.
struct WebApprover(Arc<Questions>);

impl Approver for WebApprover {
    fn decide<'a>(&'a self, request: &'a ApprovalRequest) -> mcp_host::BoxFuture<'a, Decision> {
        Box::pin(async move {
            let call = &request.call;
            let text = format!(
                "Tool `{}` of server `{}` ({}) needs approval ({:?}).\nArguments:\n{}",
                call.tool(),
                call.server(),
                call.qualified(),
                request.reason,
                safe_json(call.arguments())
            );
            match self.0.ask("approval", "Run this tool?", &text).await {
                Ok(true) => Decision::Approve,
                Ok(false) => Decision::Deny(String::from("denied in the browser")),
                Err(_) => Decision::Deny(String::from("the question was not answered")),
            }
        })
    }

    fn label(&self) -> &'static str {
        "prompt"
    }
}

/// The flow policy's endorsement question, asked in a dialog. The policy
/// asks synchronously, from within the turn: the worker thread waits for
/// the answer outside the runtime's scheduling.
struct WebEndorser(Arc<Questions>);

impl Endorser for WebEndorser {
    fn answer(&mut self, question: &Question) -> Answer {
        let rx = self.0.ask(
            "endorsement",
            "Untrusted text may have shaped this call. Endorse it?",
            &question.summary(),
        );
        let handle = tokio::runtime::Handle::current();
        match tokio::task::block_in_place(|| handle.block_on(rx)) {
            Ok(true) => Answer::Endorse,
            Ok(false) => Answer::Decline,
            Err(_) => Answer::NoPerson,
        }
    }
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

    let (events_tx, _) = broadcast::channel(1024);
    let events: Events = Arc::new(Mutex::new((Vec::new(), events_tx)));
    let questions = Arc::new(Questions {
        next: AtomicU64::new(1),
        waiting: Mutex::new(HashMap::new()),
        events: events.clone(),
    });
    let approver: Arc<dyn Approver> = if args.model.yes {
        Arc::new(ApproveAll)
    } else {
        Arc::new(WebApprover(questions.clone()))
    };
    let host = crate::terminal::start_host(global, config, approver, false).await?;
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
    let mut conversation =
        Conversation::new(args.model.system.clone(), bounds).map_err(|e| e.to_string())?;
    let mut agent =
        Agent::new(&host, &client, chosen.name, policy, offer).with_store(store.clone());

    let (says_tx, says) = mpsc::channel(8);
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
        says: says_tx,
        pages: pages_tx,
        questions: questions.clone(),
        cancel,
        audit,
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
    let serve = axum::serve(listener, router).with_graceful_shutdown(async {
        let _ = tokio::signal::ctrl_c().await;
    });
    let turns = turns(
        &mut agent,
        &mut conversation,
        says,
        cancelled,
        WebEndorser(questions),
        move |event| emit(&events, event),
    );
    let pages = serve_pages(&host, &trust, pages);
    let (served, (), ()) = tokio::join!(
        async {
            let served = serve.await;
            // The router is gone: nothing more will be said or asked.
            drop(app);
            served
        },
        turns,
        pages
    );
    drop(agent);
    host.shutdown().await;
    served.map_err(|e| e.to_string())?;
    Ok(ExitCode::SUCCESS)
}

/// The conversation: one turn per message, its events to the page.
async fn turns(
    agent: &mut Agent<'_>,
    conversation: &mut Conversation,
    mut says: mpsc::Receiver<String>,
    cancelled: watch::Receiver<u64>,
    mut endorser: WebEndorser,
    emit: impl Fn(Value),
) {
    while let Some(text) = says.recv().await {
        emit(json!({"type": "user", "text": visible(&text)}));
        let before = *cancelled.borrow();
        let wait = || {
            let mut rx = cancelled.clone();
            async move {
                if rx.wait_for(|n| *n != before).await.is_err() {
                    std::future::pending::<()>().await;
                }
            }
        };
        let outcome = agent
            .turn(
                conversation,
                &text,
                &mut endorser,
                wait,
                &mut |event| match event {
                    Event::Text { delta } => emit(json!({"type": "text", "text": visible(&delta)})),
                    Event::Call(record) => emit(json!({
                        "type": "call",
                        "name": visible(record.qualified.as_deref().unwrap_or(&record.name)),
                        "arguments": safe_json(&record.arguments),
                        "decision": record.decision,
                        "reason": visible(&record.reason),
                        "result": record.result.as_deref().map(visible),
                        "isError": record.is_error,
                    })),
                    _ => {}
                },
            )
            .await;
        let ledger = conversation.ledger();
        let sources: Vec<String> = ledger
            .untrusted_sources()
            .map(|(origin, n)| visible(&format!("{origin} ({n})")))
            .collect();
        emit(json!({"type": "taint", "tainted": ledger.tainted(), "sources": sources}));
        emit(json!({"type": "end", "error": outcome.err().map(|e| visible(&e.to_string()))}));
    }
}

/// Answers the servers page's requests with the host's view of them.
async fn serve_pages(
    host: &mcp_host::Host,
    trust: &FlowConfig,
    mut pages: mpsc::Receiver<oneshot::Sender<Vec<page::ServerView>>>,
) {
    while let Some(reply) = pages.recv().await {
        let _ = reply.send(server_views(host, trust).await);
    }
}

async fn server_views(host: &mcp_host::Host, trust: &FlowConfig) -> Vec<page::ServerView> {
    let tools = host.tools();
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
        view.tools = tools
            .iter()
            .filter(|t| t.server.as_str() == id)
            .map(|t| {
                let description = t.tool.accept_ref().description.clone();
                (t.qualified.clone(), description.unwrap_or_default())
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
        .route("/audit", get(audit_page))
        .route("/events", get(events))
        .route("/say", post(say))
        .route("/answer", post(answer))
        .route("/cancel", post(cancel))
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
    secure(response.headers_mut());
    response
}

fn secure(headers: &mut HeaderMap) {
    for (name, value) in [
        ("content-security-policy", CSP),
        ("x-content-type-options", "nosniff"),
        ("referrer-policy", "no-referrer"),
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
    html(page::conversation(&app.model))
}

async fn servers_page(State(app): State<Arc<App>>) -> Response {
    let (tx, rx) = oneshot::channel();
    if app.pages.send(tx).await.is_err() {
        return StatusCode::SERVICE_UNAVAILABLE.into_response();
    }
    match rx.await {
        Ok(views) => html(page::servers(&views)),
        Err(_) => StatusCode::SERVICE_UNAVAILABLE.into_response(),
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
    match app.says.try_send(text) {
        Ok(()) => StatusCode::ACCEPTED.into_response(),
        Err(_) => (StatusCode::TOO_MANY_REQUESTS, "a turn is still under way").into_response(),
    }
}

/// `POST /answer` with `{"id": N, "allow": bool}`: the answer to a
/// question.
async fn answer(State(app): State<Arc<App>>, body: axum::body::Bytes) -> Response {
    let id = json_field(&body, "id").and_then(|v| v.as_u64());
    let allow = json_field(&body, "allow").and_then(|v| v.as_bool());
    match (id, allow) {
        (Some(id), Some(allow)) if app.questions.answer(id, allow) => {
            StatusCode::NO_CONTENT.into_response()
        }
        (Some(_), Some(_)) => (StatusCode::NOT_FOUND, "no such question waits").into_response(),
        _ => (StatusCode::BAD_REQUEST, "`id` and `allow` are needed").into_response(),
    }
}

/// `POST /cancel`: cancels the turn under way, refusing the questions it
/// waits on.
async fn cancel(State(app): State<Arc<App>>) -> Response {
    app.questions.refuse_all();
    app.cancel.send_modify(|n| *n += 1);
    StatusCode::NO_CONTENT.into_response()
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
