//! Servers that misbehave, over stdio (the scripted python server) and over
//! HTTP (a peer scripted here): each fault reaches the caller as its own
//! error, the client goes on where it can, the host restarts a stdio
//! server whose connection failed, and no answer reaches the wrong caller.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use common::{
    answer, call_text, discovered, host_config, options, reply, scripted, scripted_entry, serve,
};
use futures_util::future::join_all;
use mcp_host::approval::ApproveAll;
use mcp_host::client::{CallOptions, Client, ClientError, ClientOptions, NoInput, Target};
use mcp_host::{Host, ServerId};
use mcp_types::version::Era;
use serde_json::{json, Value};
use tokio::sync::watch;

fn id(name: &str) -> ServerId {
    ServerId::new(name).expect("id")
}

async fn connect(target: Target, options: ClientOptions) -> Client {
    Client::connect(id("faulty"), target, Arc::new(NoInput), options, None)
        .await
        .expect("connects")
}

fn within(timeout: Duration) -> CallOptions {
    CallOptions {
        timeout: Some(timeout),
        progress: None,
        ..CallOptions::default()
    }
}

/// A scratch directory for the server's marker files, removed on drop.
struct Markers(std::path::PathBuf);

impl Markers {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("mcp-host-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("marker dir");
        Self(dir)
    }

    fn env(&self) -> Vec<(String, String)> {
        vec![("MARKER_DIR".to_owned(), self.0.display().to_string())]
    }

    fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.0)
            .expect("marker dir")
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .collect();
        names.sort();
        names
    }
}

impl Drop for Markers {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

// ---- stdio ----

#[tokio::test]
async fn a_hung_call_times_out_is_cancelled_and_its_late_answer_dropped() {
    let markers = Markers::new("stall");
    let client = connect(
        scripted("versions", markers.env()),
        ClientOptions {
            request_timeout: Duration::from_millis(500),
            ..options(false)
        },
    )
    .await;
    client.list_tools().await.expect("tools");
    // The server holds the answer: the client's own timeout ends the call.
    let outcome = call_text(&client, "stall", json!({}), &CallOptions::default()).await;
    match outcome {
        Err(ClientError::Timeout(after)) => assert_eq!(after, Duration::from_millis(500)),
        other => panic!("expected a timeout, got {other:?}"),
    }
    // The next request works. The server answers the stalled call first,
    // crossing the cancel; that answer goes to nobody.
    let echo = call_text(&client, "echo", json!({}), &within(Duration::from_secs(10))).await;
    assert_eq!(echo.expect("the client goes on"), "echo done");
    assert!(!client.is_closed());
    // The server heard `notifications/cancelled` for the stalled request
    // before the next one (one pipe, in order), and for nothing else.
    let cancelled = markers.names();
    assert_eq!(cancelled.len(), 1, "{cancelled:?}");
    assert!(cancelled[0].starts_with("cancelled-"), "{cancelled:?}");
    client.shutdown().await;
}

#[tokio::test]
async fn a_banner_before_the_first_message_is_skipped() {
    let client = connect(scripted("banner", Vec::new()), options(false)).await;
    // The probe was answered, not taken for silence: the server is modern.
    let session = client.session().expect("session");
    assert_eq!(session.era, Era::Modern);
    let name = session.server_info.expect("server info").accept().name;
    assert_eq!(name, "scripted-banner");
    let echo = call_text(&client, "echo", json!({}), &CallOptions::default()).await;
    assert_eq!(echo.expect("answered"), "echo done");
    client.shutdown().await;
}

#[tokio::test]
async fn lines_that_are_not_messages_are_skipped() {
    // Before every message the server writes text, bad UTF-8, JSON that is
    // no message, and responses to ids the client never issued, among
    // them the string "1" beside the integer id 1 of the probe.
    let client = connect(scripted("noisy", Vec::new()), options(false)).await;
    assert_eq!(client.session().expect("session").era, Era::Modern);
    let tools = client.list_tools().await.expect("tools");
    assert!(tools.tools.iter().any(|t| t.accept_ref().name == "flood"));
    let echo = call_text(&client, "echo", json!({}), &CallOptions::default()).await;
    assert_eq!(echo.expect("answered"), "echo done");
    // Four MiB of short garbage lines: each is dropped as it comes, so the
    // flood costs no memory and the answer behind it still arrives.
    let flood = call_text(
        &client,
        "flood",
        json!({"lines": 4096}),
        &CallOptions::default(),
    )
    .await;
    assert_eq!(flood.expect("answered"), "flood done");
    assert!(!client.is_closed());
    client.shutdown().await;
}

#[tokio::test]
async fn a_line_past_the_limit_fails_the_connection_and_the_host_restarts() {
    const LIMIT: usize = 64 * 1024;
    // The failed call is cancelled; the server notes it here.
    let markers = Markers::new("limit");
    let env = json!({"env": {"MARKER_DIR": markers.0.display().to_string()}});
    let host = Host::builder(host_config(json!({"svc": scripted_entry("versions", env)})))
        .approver(Arc::new(ApproveAll))
        .options(ClientOptions {
            max_message_size: LIMIT,
            shutdown_grace: Duration::from_millis(200),
            ..options(false)
        })
        .start()
        .await;
    let call = |tool: &'static str, arguments: Value| {
        let host = &host;
        async move {
            let Value::Object(arguments) = arguments else {
                unreachable!("arguments are objects")
            };
            let call = host.prepare(tool, arguments).await?;
            let approval = host.authorize(&call).await?;
            let result = host
                .call_tool(call, approval, &CallOptions::default())
                .await?;
            let result = serde_json::to_value(result.accept()).expect("encodes");
            Ok::<_, ClientError>(result["content"][0]["text"].as_str().map(str::to_owned))
        }
    };
    // Just under the limit, a message passes.
    let big = call("svc__big", json!({"bytes": LIMIT - 1024})).await;
    let big = big.expect("fits").expect("a text");
    assert_eq!(big.len(), LIMIT - 1024);
    assert!(big.bytes().all(|b| b == b'b'));
    let before = host.client(&id("svc")).await.expect("connected");
    // A megabyte with no newline: refused once the limit is passed, not
    // buffered until the server stops, and not left to the timeout.
    let huge = call("svc__huge", json!({"bytes": 1 << 20})).await;
    assert!(
        matches!(huge, Err(ClientError::MessageTooLarge { limit: LIMIT })),
        "{huge:?}"
    );
    assert!(before.is_closed(), "the connection failed");
    // The next call finds the connection closed: the host restarts the
    // server and the call runs on the new process.
    let echo = call("svc__echo", json!({})).await;
    assert_eq!(
        echo.expect("after the restart").as_deref(),
        Some("echo done")
    );
    let after = host.client(&id("svc")).await.expect("reconnected");
    assert!(!Arc::ptr_eq(&before, &after), "a new client replaced it");
    host.shutdown().await;
}

#[tokio::test]
async fn concurrent_answers_in_reverse_order_reach_their_own_callers() {
    let client = connect(scripted("versions", Vec::new()), options(false)).await;
    client.list_tools().await.expect("tools");
    // The server holds every call until all four have come, then answers
    // them last first, after a response to an id never issued, one to the
    // string form of an issued id and an error without an id, and then
    // answers each again.
    let calls = (1..=4).map(|n| {
        let client = &client;
        async move {
            let arguments = json!({"n": n, "of": 4});
            let patient = within(Duration::from_secs(10));
            (n, call_text(client, "gather", arguments, &patient).await)
        }
    });
    for (n, text) in join_all(calls).await {
        assert_eq!(text.expect("answered"), format!("gather {n}"));
    }
    // The duplicates went to nobody: the next call gets its own answer.
    let echo = call_text(&client, "echo", json!({}), &CallOptions::default()).await;
    assert_eq!(echo.expect("answered"), "echo done");
    client.shutdown().await;
}

// ---- HTTP ----

/// What the HTTP peer shares between requests: the `gather` calls that
/// have come, and whose turn it is to be answered.
#[derive(Clone)]
struct Peer {
    gathered: Arc<AtomicUsize>,
    turn: Arc<watch::Sender<u64>>,
    order: Arc<Mutex<Vec<u64>>>,
}

impl Default for Peer {
    fn default() -> Self {
        Self {
            gathered: Arc::default(),
            turn: Arc::new(watch::channel(0).0),
            order: Arc::default(),
        }
    }
}

const GATHER: u64 = 4;

fn sse(body: impl Into<Body>) -> Response {
    (
        StatusCode::OK,
        [("content-type", "text/event-stream")],
        body.into(),
    )
        .into_response()
}

fn text(id: &Value, text: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "complete",
        "content": [{"type": "text", "text": text}]}})
}

/// A modern server whose tools each fail in one way.
async fn faulty(State(peer): State<Peer>, body: Bytes) -> Response {
    let message: Value = serde_json::from_slice(&body).unwrap_or_default();
    let id = message["id"].clone();
    let ok = |result: Value| answer(&id, result);
    let tools: Vec<Value> = [
        "echo",
        "html500",
        "rpc500",
        "truncated",
        "cut",
        "stalled",
        "hang",
        "html200",
        "garbage",
        "untyped",
        "wrongid",
        "gather",
    ]
    .iter()
    .map(|name| json!({"name": name, "inputSchema": {"type": "object"}}))
    .collect();
    match message["method"].as_str() {
        Some("server/discover") => ok(discovered()),
        Some("tools/list") => ok(json!({"resultType": "complete", "tools": tools,
            "ttlMs": 0, "cacheScope": "public"})),
        Some("tools/call") => {
            let name = message["params"]["name"].as_str().unwrap_or("");
            call(&peer, &id, name, &message["params"]["arguments"]).await
        }
        _ => reply(
            StatusCode::NOT_FOUND,
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "no"}}),
        ),
    }
}

async fn call(peer: &Peer, id: &Value, name: &str, arguments: &Value) -> Response {
    let log = json!({"jsonrpc": "2.0", "method": "notifications/message",
        "params": {"level": "info", "data": "working"}});
    match name {
        "html500" => (
            StatusCode::INTERNAL_SERVER_ERROR,
            [("content-type", "text/html")],
            "<html><body><h1>Internal Server Error</h1></body></html>",
        )
            .into_response(),
        "rpc500" => reply(
            StatusCode::INTERNAL_SERVER_ERROR,
            json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": -32603, "message": "database unavailable"}}),
        ),
        // The stream ends after a notification, before the response.
        "truncated" => sse(format!(": open\n\ndata: {log}\n\n")),
        // The stream breaks off in the middle of the response event.
        "cut" => {
            let whole = text(id, "cut done").to_string();
            sse(format!("data: {}", &whole[..whole.len() / 2]))
        }
        // The stream stays open and says nothing more.
        "stalled" => {
            let opened = futures_util::stream::iter([Ok::<_, std::io::Error>(Bytes::from(
                format!(": open\n\ndata: {log}\n\n"),
            ))]);
            let stream = futures_util::StreamExt::chain(opened, futures_util::stream::pending());
            sse(Body::from_stream(stream))
        }
        // No reply at all.
        "hang" => std::future::pending().await,
        "html200" => (
            StatusCode::OK,
            [("content-type", "text/html; charset=utf-8")],
            "<html><body>Welcome</body></html>",
        )
            .into_response(),
        "garbage" => (
            StatusCode::OK,
            [("content-type", "application/json")],
            "this is not JSON",
        )
            .into_response(),
        // A good message, but no content type.
        "untyped" => Response::builder()
            .status(StatusCode::OK)
            .body(Body::from(text(id, "untyped done").to_string()))
            .expect("a response"),
        "wrongid" => {
            let other = json!(id.as_i64().unwrap_or(0) + 1000);
            reply(StatusCode::OK, text(&other, "not yours"))
        }
        "gather" => {
            let n = arguments["n"].as_u64().unwrap_or(0);
            let mut turn = peer.turn.subscribe();
            if peer.gathered.fetch_add(1, Ordering::SeqCst) + 1 == GATHER as usize {
                peer.turn.send_replace(GATHER);
            }
            // Answered last first: each waits for its turn, then hands it
            // to the one before.
            let _ = turn.wait_for(|t| *t == n).await;
            if let Ok(mut order) = peer.order.lock() {
                order.push(n);
            }
            peer.turn.send_replace(n - 1);
            sse(format!(
                "data: {log}\n\ndata: {}\n\n",
                text(id, &format!("gather {n}"))
            ))
        }
        other => reply(StatusCode::OK, text(id, &format!("{other} done"))),
    }
}

async fn faulty_peer(peer: Peer) -> Client {
    let router = Router::new().route("/mcp", post(faulty)).with_state(peer);
    let url = serve(router).await;
    let target = Target::Http {
        url,
        headers: Vec::new(),
    };
    let client = connect(target, options(false)).await;
    assert_eq!(client.session().expect("session").era, Era::Modern);
    client
}

async fn run(client: &Client, tool: &str) -> Result<String, ClientError> {
    call_text(client, tool, json!({}), &within(Duration::from_secs(10))).await
}

#[tokio::test]
async fn http_500s_are_reported() {
    let client = faulty_peer(Peer::default()).await;
    match run(&client, "html500").await {
        Err(ClientError::HttpStatus { status, body }) => {
            assert_eq!(status, 500);
            assert!(String::from_utf8_lossy(&body).contains("Internal Server Error"));
        }
        other => panic!("expected HTTP status 500, got {other:?}"),
    }
    // A JSON-RPC error in the body is the server's error, whatever the
    // status.
    match run(&client, "rpc500").await {
        Err(ClientError::Rpc(error)) => {
            let error = error.accept();
            assert_eq!(error.code, -32603);
            assert_eq!(error.message, "database unavailable");
        }
        other => panic!("expected the JSON-RPC error, got {other:?}"),
    }
    assert_eq!(run(&client, "echo").await.expect("goes on"), "echo done");
}

#[tokio::test]
async fn a_truncated_event_stream_is_an_error_not_a_hang() {
    let client = faulty_peer(Peer::default()).await;
    // Well inside the ten-second timeout: a stream that ends is reported
    // when it ends, and the reissues of the request with it.
    for tool in ["truncated", "cut"] {
        let outcome = run(&client, tool).await;
        assert!(
            matches!(outcome, Err(ClientError::Truncated { attempts: 3 })),
            "{tool}: {outcome:?}"
        );
    }
    assert_eq!(
        ClientError::Truncated { attempts: 1 }.to_string(),
        "the server's reply ended before the response to the request"
    );
    assert_eq!(
        ClientError::Truncated { attempts: 3 }.to_string(),
        "the server's reply ended before the response to the request (sent 3 times)"
    );
    // A stream, or a reply, that never ends is the timeout's to end.
    for tool in ["stalled", "hang"] {
        let hurried = within(Duration::from_millis(500));
        let outcome = call_text(&client, tool, json!({}), &hurried).await;
        assert!(
            matches!(outcome, Err(ClientError::Timeout(t)) if t == Duration::from_millis(500)),
            "{tool}: {outcome:?}"
        );
    }
    assert_eq!(run(&client, "echo").await.expect("goes on"), "echo done");
}

#[tokio::test]
async fn replies_that_are_not_json_rpc_are_refused() {
    let client = faulty_peer(Peer::default()).await;
    let outcome = run(&client, "html200").await;
    assert!(
        matches!(&outcome, Err(ClientError::ContentType(Some(t))) if t == "text/html"),
        "{outcome:?}"
    );
    assert_eq!(
        outcome.expect_err("refused").to_string(),
        "the server answered with content type `text/html`, \
         not `application/json` or `text/event-stream`"
    );
    let outcome = run(&client, "untyped").await;
    assert!(
        matches!(outcome, Err(ClientError::ContentType(None))),
        "{outcome:?}"
    );
    match run(&client, "garbage").await {
        Err(ClientError::Protocol(why)) => assert!(
            why.starts_with("the response body is not a JSON-RPC message"),
            "{why}"
        ),
        other => panic!("expected a protocol error, got {other:?}"),
    }
    // A response to another request is nobody's answer.
    match run(&client, "wrongid").await {
        Err(ClientError::Protocol(why)) => {
            assert!(why.contains("with a response to"), "{why}");
        }
        other => panic!("expected a protocol error, got {other:?}"),
    }
    assert_eq!(run(&client, "echo").await.expect("goes on"), "echo done");
}

#[tokio::test]
async fn concurrent_http_calls_answered_out_of_order_match() {
    let peer = Peer::default();
    let client = faulty_peer(peer.clone()).await;
    // The peer holds each call until all four are in, so they must be in
    // flight together; then it answers them last first.
    let calls = (1..=GATHER).map(|n| {
        let client = &client;
        async move {
            let arguments = json!({"n": n});
            let patient = within(Duration::from_secs(10));
            (n, call_text(client, "gather", arguments, &patient).await)
        }
    });
    for (n, text) in join_all(calls).await {
        assert_eq!(text.expect("answered"), format!("gather {n}"));
    }
    let order = peer.order.lock().map(|o| o.clone()).unwrap_or_default();
    assert_eq!(order, [4, 3, 2, 1]);
}
