//! Resumption of legacy event streams against scripted HTTP peers: a
//! stream that closes before its response is resumed with a GET naming the
//! last event, after the delay the server asked for, and is never sent
//! again; resuming is bounded; and a modern stream is never resumed: its
//! request is reissued instead.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use common::{answer, discovered, options, serve};
use mcp_host::approval::{ApproveAll, Gate, Policy};
use mcp_host::client::{CallOptions, Client, ClientError, NoInput, Target};
use mcp_host::ServerId;
use mcp_types::version::Era;
use serde_json::{json, Map, Value};

/// One GET: when it came, and its `Last-Event-ID`, session and protocol
/// version headers.
#[derive(Clone, Debug)]
struct Get {
    at: Instant,
    last_event_id: String,
    session: String,
    version: String,
}

/// What a resuming peer saw of the client's GETs.
#[derive(Clone, Default)]
struct Breaking {
    /// When the POST's stream was sent and closed.
    closed: Arc<Mutex<Option<Instant>>>,
    /// Each GET the client sent.
    gets: Arc<Mutex<Vec<Get>>>,
    /// Whether the GETs bring the response, or only another priming event.
    answers: bool,
    /// Whether the server is modern (no session, no resumption expected).
    modern: bool,
    /// How many times `tools/call` was POSTed.
    posts: Arc<AtomicUsize>,
}

fn sse(body: String) -> Response {
    (
        StatusCode::OK,
        [
            ("content-type", "text/event-stream"),
            ("mcp-session-id", "s-9"),
        ],
        body,
    )
        .into_response()
}

fn header_text(headers: &HeaderMap, name: &str) -> String {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned()
}

/// A legacy (or modern) server whose `tools/call` stream sends a priming
/// event (id and `retry: 200`), one progress report, and closes before the
/// response, which a GET naming the last event id then brings.
async fn breaking_post(State(peer): State<Breaking>, body: Bytes) -> Response {
    let message: Value = serde_json::from_slice(&body).unwrap_or_default();
    let id = message["id"].clone();
    let ok = |result: Value| {
        let mut response = answer(&id, result);
        response
            .headers_mut()
            .insert("mcp-session-id", "s-9".parse().expect("header"));
        response
    };
    match message["method"].as_str() {
        Some("server/discover") if peer.modern => ok(discovered()),
        Some("initialize") => ok(json!({"protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}}, "serverInfo": {"name": "breaking", "version": "1"}})),
        Some("tools/list") => ok(json!({"resultType": "complete", "ttlMs": 0,
            "cacheScope": "public", "tools": [{"name": "slow", "inputSchema": {"type": "object"}}]})),
        Some("tools/call") => {
            peer.posts.fetch_add(1, Ordering::SeqCst);
            let token = message["params"]["_meta"]["progressToken"].clone();
            let progress = json!({"jsonrpc": "2.0", "method": "notifications/progress",
                "params": {"progressToken": token, "progress": 1}});
            if let Ok(mut closed) = peer.closed.lock() {
                *closed = Some(Instant::now());
            }
            if let Ok(mut pending) = PENDING.lock() {
                *pending = Some(id);
            }
            sse(format!(
                "id: p-1\nretry: 200\ndata: \n\nid: p-2\ndata: {progress}\n\n"
            ))
        }
        // Notifications and answers.
        _ if id.is_null() => StatusCode::ACCEPTED.into_response(),
        _ => StatusCode::BAD_REQUEST.into_response(),
    }
}

/// The id of the `tools/call` the stream broke on.
static PENDING: Mutex<Option<Value>> = Mutex::new(None);

async fn breaking_get(State(peer): State<Breaking>, headers: HeaderMap) -> Response {
    let last = header_text(&headers, "last-event-id");
    if let Ok(mut gets) = peer.gets.lock() {
        gets.push(Get {
            at: Instant::now(),
            last_event_id: last.clone(),
            session: header_text(&headers, "mcp-session-id"),
            version: header_text(&headers, "mcp-protocol-version"),
        });
    }
    if last.is_empty() {
        // No standalone stream for this session.
        return StatusCode::METHOD_NOT_ALLOWED.into_response();
    }
    if !peer.answers {
        let n = peer.gets.lock().map(|g| g.len()).unwrap_or(0);
        return sse(format!("id: q-{n}\nretry: 10\ndata: \n\n"));
    }
    let id = PENDING.lock().ok().and_then(|p| p.clone());
    let response = json!({"jsonrpc": "2.0", "id": id,
        "result": {"content": [{"type": "text", "text": "after the break"}]}});
    sse(format!("id: p-3\ndata: {response}\n\n"))
}

async fn breaking_client(peer: &Breaking) -> Client {
    let router = Router::new()
        .route("/mcp", post(breaking_post).get(breaking_get))
        .with_state(peer.clone());
    let url = serve(router).await;
    Client::connect(
        ServerId::new("breaking").expect("id"),
        Target::Http {
            url,
            headers: Vec::new(),
        },
        Arc::new(NoInput),
        options(!peer.modern),
        None,
    )
    .await
    .expect("connects")
}

async fn call_slow(client: &Client, options: &CallOptions) -> Result<String, ClientError> {
    let call = client.prepare_call("slow", Map::new()).await?;
    let approval = Gate::new(Policy::default(), Arc::new(ApproveAll))
        .authorize(&call)
        .await?;
    let result = client.call_tool(call, approval, options).await?;
    let value = serde_json::to_value(result.accept()).expect("json");
    Ok(value["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned())
}

// One test drives the peers that share `PENDING`, one after the other.
#[tokio::test]
async fn a_broken_legacy_stream_is_resumed_and_a_modern_one_is_reissued() {
    // Resumed: after the server's delay, a GET naming the last event.
    let peer = Breaking {
        answers: true,
        ..Breaking::default()
    };
    let client = breaking_client(&peer).await;
    let reports = Arc::new(AtomicUsize::new(0));
    let seen = reports.clone();
    let options = CallOptions {
        timeout: None,
        progress: Some(Arc::new(move |_| {
            seen.fetch_add(1, Ordering::SeqCst);
        })),
        ..CallOptions::default()
    };
    assert_eq!(
        call_slow(&client, &options).await.expect("resumed"),
        "after the break"
    );
    assert_eq!(
        reports.load(Ordering::SeqCst),
        1,
        "the report before the break"
    );
    let closed = peer.closed.lock().ok().and_then(|c| *c).expect("called");
    let gets = peer.gets.lock().map(|g| g.clone()).unwrap_or_default();
    let resumes: Vec<_> = gets
        .iter()
        .filter(|g| !g.last_event_id.is_empty())
        .collect();
    assert_eq!(resumes.len(), 1, "{gets:?}");
    let Get {
        at,
        last_event_id,
        session,
        version,
    } = resumes[0];
    assert_eq!(
        (last_event_id.as_str(), session.as_str(), version.as_str()),
        ("p-2", "s-9", "2025-11-25")
    );
    assert!(
        at.duration_since(closed) >= Duration::from_millis(190),
        "resumed after {:?}, before the 200 ms the server asked for",
        at.duration_since(closed)
    );
    assert_eq!(
        peer.posts.load(Ordering::SeqCst),
        1,
        "resumed, not reissued"
    );

    // Bounded: GETs that bring nothing but new ids are given up.
    let peer = Breaking::default();
    let client = breaking_client(&peer).await;
    let outcome = call_slow(&client, &CallOptions::default()).await;
    assert!(
        matches!(outcome, Err(ClientError::Truncated { attempts: 1 })),
        "{outcome:?}"
    );
    assert_eq!(peer.posts.load(Ordering::SeqCst), 1, "never reissued");
    let resumes = peer
        .gets
        .lock()
        .map(|g| g.iter().filter(|g| !g.last_event_id.is_empty()).count())
        .unwrap_or(0);
    assert_eq!(resumes, 5, "one GET per allowed reconnection");

    // Modern: no event ids, no resumption; the request is lost, and sent
    // again with a new id until the reissues are spent.
    let peer = Breaking {
        answers: true,
        modern: true,
        ..Breaking::default()
    };
    let client = breaking_client(&peer).await;
    assert_eq!(client.session().expect("session").era, Era::Modern);
    let outcome = call_slow(&client, &CallOptions::default()).await;
    assert!(
        matches!(outcome, Err(ClientError::Truncated { attempts: 3 })),
        "{outcome:?}"
    );
    assert_eq!(peer.posts.load(Ordering::SeqCst), 3);
    assert!(peer.gets.lock().map(|g| g.is_empty()).unwrap_or(false));
}
