//! Reissue of modern requests whose response stream breaks (PROTOCOL.md
//! §7.2), against a modern HTTP peer scripted here: a lost request is sent
//! again with a new id and the same params, within its one timeout, up to
//! the bound, under the approval it already has; failures that are not a
//! broken stream, and calls the caller gave up on, are sent once.

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
use common::{answer, call_text, discovered, host_config, options, reply, serve, Answers};
use futures_util::stream::{self, StreamExt};
use mcp_host::approval::{ApprovalRequest, Approver, Decision};
use mcp_host::client::{CallOptions, Client, ClientError, ClientOptions, Target};
use mcp_host::{BoxFuture, Host, ServerId};
use mcp_types::version::Era;
use serde_json::{json, Value};

/// The `requestState` of the `ask` tool: escapes, non-ASCII and a line
/// separator, which must come back exactly.
const STATE: &str = "eyJzIjoxfQ.\u{e9}\\\"x\" \u{2028} \u{1f642}";

/// How long each `slow` stream stays open before it ends.
const SLOW: Duration = Duration::from_millis(400);

/// What the peer saw.
#[derive(Clone, Default)]
struct Peer {
    /// Every `tools/call` message, in the order it came.
    calls: Arc<Mutex<Vec<Value>>>,
    /// Response streams the client closed while they were open.
    closed: Arc<AtomicUsize>,
}

impl Peer {
    fn calls(&self) -> Vec<Value> {
        self.calls.lock().map(|c| c.clone()).unwrap_or_default()
    }

    fn closed(&self) -> usize {
        self.closed.load(Ordering::SeqCst)
    }
}

/// Counts, when dropped, a stream the client closed.
struct Closed(Arc<AtomicUsize>);

impl Drop for Closed {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// Counts a stream dropped before it reached its end (the flag).
struct CutShort(Arc<AtomicUsize>, Arc<std::sync::atomic::AtomicBool>);

impl Drop for CutShort {
    fn drop(&mut self) {
        if !self.1.load(Ordering::SeqCst) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
}

fn sse(body: impl Into<Body>) -> Response {
    (
        StatusCode::OK,
        [("content-type", "text/event-stream")],
        body.into(),
    )
        .into_response()
}

fn event(message: &Value) -> String {
    format!("data: {message}\n\n")
}

fn progress(token: &Value, progress: u32) -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/progress",
        "params": {"progressToken": token, "progress": progress}})
}

fn text(id: &Value, text: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "complete",
        "content": [{"type": "text", "text": text}]}})
}

const TOOLS: [&str; 11] = [
    "flaky", "reset", "doomed", "slow", "stalled", "ask", "status", "html", "huge", "empty",
    "marker",
];

/// A modern server whose tools each answer, or break, in one way.
async fn modern(State(peer): State<Peer>, body: Bytes) -> Response {
    let message: Value = serde_json::from_slice(&body).unwrap_or_default();
    let id = message["id"].clone();
    let ok = |result: Value| answer(&id, result);
    match message["method"].as_str() {
        Some("server/discover") => ok(discovered()),
        Some("tools/list") => {
            let tools: Vec<Value> = TOOLS
                .iter()
                .map(|name| json!({"name": name, "inputSchema": {"type": "object"}}))
                .collect();
            ok(json!({"resultType": "complete", "tools": tools,
                "ttlMs": 0, "cacheScope": "public"}))
        }
        Some("tools/call") => {
            let name = message["params"]["name"].as_str().unwrap_or("").to_owned();
            let before = match peer.calls.lock() {
                Ok(mut calls) => {
                    let before = calls
                        .iter()
                        .filter(|c| c["params"]["name"] == name.as_str())
                        .count();
                    calls.push(message.clone());
                    before
                }
                Err(_) => 0,
            };
            call(&peer, &message, &name, before)
        }
        _ => reply(
            StatusCode::NOT_FOUND,
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "no"}}),
        ),
    }
}

/// The answer to the call `message` of tool `name`, which came `before`
/// times before.
fn call(peer: &Peer, message: &Value, name: &str, before: usize) -> Response {
    let id = &message["id"];
    let token = &message["params"]["_meta"]["progressToken"];
    match (name, before) {
        // The stream ends after a report, before the response, once.
        ("flaky", 0) => sse(event(&progress(token, 1))),
        ("flaky", _) => sse(event(&progress(token, 2)) + &event(&text(id, "flaky done"))),
        // The connection is cut in the middle of the stream, once.
        // (The pause lets the first chunk go out before the cut.)
        ("reset", 0) => {
            let first = Bytes::from(event(&progress(token, 1)) + "data: {\"jsonrpc\"");
            let cut = stream::once(async {
                tokio::time::sleep(Duration::from_millis(100)).await;
                Err(std::io::Error::from(std::io::ErrorKind::ConnectionReset))
            });
            sse(Body::from_stream(stream::iter([Ok(first)]).chain(cut)))
        }
        ("reset", _) => reply(StatusCode::OK, text(id, "reset done")),
        // Every stream ends before the response.
        ("doomed", _) => sse(format!(": open\n\n{}", event(&progress(token, 1)))),
        // Every stream stays open for a while, then ends.
        // (A stream the client closes before its end is counted.)
        ("slow", _) => {
            let ended = Arc::new(std::sync::atomic::AtomicBool::new(false));
            let cut = CutShort(peer.closed.clone(), ended.clone());
            let open = stream::iter([Ok::<_, std::io::Error>(Bytes::from(": open\n\n"))]);
            let end = stream::once(async move {
                tokio::time::sleep(SLOW).await;
                ended.store(true, Ordering::SeqCst);
                Ok(Bytes::from(": bye\n\n"))
            });
            let body = open.chain(end).map(move |chunk| {
                let _ = &cut;
                chunk
            });
            sse(Body::from_stream(body))
        }
        // A report, then keep-alives until the client closes the stream.
        ("stalled", _) => {
            let closed = Closed(peer.closed.clone());
            let first = stream::iter([Bytes::from(event(&progress(token, 1)))]);
            let alive = stream::unfold((), |()| async {
                tokio::time::sleep(Duration::from_millis(50)).await;
                Some((Bytes::from(": alive\n\n"), ()))
            });
            let body = first.chain(alive).map(move |chunk| {
                let _ = &closed;
                Ok::<_, std::io::Error>(chunk)
            });
            sse(Body::from_stream(body))
        }
        ("ask", n) => ask(message, n),
        ("status", _) => reply(
            StatusCode::SERVICE_UNAVAILABLE,
            json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": -32603, "message": "overloaded"}}),
        ),
        ("html", _) => (
            StatusCode::OK,
            [("content-type", "text/html")],
            "<html>Welcome</html>",
        )
            .into_response(),
        ("huge", _) => sse(format!("data: {}\n\n", "x".repeat(64 * 1024))),
        ("empty", _) => {
            (StatusCode::OK, [("content-type", "application/json")], "").into_response()
        }
        ("marker", _) => reply(StatusCode::OK, text(id, "marker")),
        _ => reply(StatusCode::OK, text(id, "unknown")),
    }
}

/// Proves that nothing was sent after the call that ended: a call the
/// client makes afterwards is the next one the peer sees, with no reissue
/// of the ended one in between or before it.
async fn nothing_sent_after(client: &Client, peer: &Peer, ended: &str) {
    let outcome = call_text(
        client,
        "marker",
        json!({}),
        &within(Duration::from_secs(10)),
    )
    .await;
    assert_eq!(outcome.expect("the marker is answered"), "marker");
    let names: Vec<String> = peer
        .calls()
        .iter()
        .map(|c| c["params"]["name"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(names, [ended, "marker"]);
}

/// A tool that asks a question: the first call gets an
/// `InputRequiredResult`, the stream of the first retry breaks, and the
/// reissued retry is answered with the name it was given.
fn ask(message: &Value, n: usize) -> Response {
    let id = &message["id"];
    match n {
        0 => reply(
            StatusCode::OK,
            json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "input_required",
                "requestState": STATE,
                "inputRequests": {"who": {"method": "elicitation/create", "params": {
                    "message": "Name?", "requestedSchema": {"type": "object",
                        "properties": {"name": {"type": "string"}}}}}}}}),
        ),
        1 => sse(": thinking\n\n"),
        _ => {
            let name = message["params"]["inputResponses"]["who"]["content"]["name"]
                .as_str()
                .unwrap_or("nobody");
            reply(StatusCode::OK, text(id, &format!("ask done: {name}")))
        }
    }
}

async fn peer_url(peer: &Peer) -> String {
    let router = Router::new()
        .route("/mcp", post(modern))
        .with_state(peer.clone());
    serve(router).await
}

async fn connect(peer: &Peer, options: ClientOptions) -> Client {
    let target = Target::Http {
        url: peer_url(peer).await,
        headers: Vec::new(),
    };
    let id = ServerId::new("flaky").expect("id");
    let client = Client::connect(id, target, Answers::new(), options, None)
        .await
        .expect("connects");
    assert_eq!(client.session().expect("session").era, Era::Modern);
    client
}

fn within(timeout: Duration) -> CallOptions {
    CallOptions {
        timeout: Some(timeout),
        progress: None,
        ..CallOptions::default()
    }
}

async fn run(client: &Client, tool: &str) -> Result<String, ClientError> {
    call_text(client, tool, json!({}), &within(Duration::from_secs(10))).await
}

/// The ids of `calls`, which must all differ.
fn distinct_ids(calls: &[Value]) -> Vec<Value> {
    let ids: Vec<Value> = calls.iter().map(|c| c["id"].clone()).collect();
    for (n, id) in ids.iter().enumerate() {
        assert!(!id.is_null(), "{calls:?}");
        assert!(!ids[..n].contains(id), "id {id} was reused: {ids:?}");
    }
    ids
}

#[tokio::test]
async fn a_broken_stream_is_reissued_with_a_new_id_and_the_same_params() {
    let peer = Peer::default();
    let client = connect(&peer, options(false)).await;
    let arguments = json!({"path": "/tmp/a", "n": 1.5, "deep": {"list": [1, "two", null]}});
    let outcome = call_text(
        &client,
        "flaky",
        arguments.clone(),
        &within(Duration::from_secs(10)),
    )
    .await;
    assert_eq!(outcome.expect("the reissue is answered"), "flaky done");
    let calls = peer.calls();
    assert_eq!(calls.len(), 2, "{calls:?}");
    distinct_ids(&calls);
    // Without progress the params carry nothing tied to the id: the
    // reissue is the same request, byte for byte once encoded.
    assert_eq!(calls[1]["params"], calls[0]["params"]);
    assert_eq!(
        calls[1]["params"].to_string(),
        calls[0]["params"].to_string()
    );
    assert_eq!(calls[1]["params"]["arguments"], arguments);
    assert_eq!(calls[1]["method"], "tools/call");
}

#[tokio::test]
async fn progress_reports_of_every_send_reach_the_callback() {
    let peer = Peer::default();
    let client = connect(&peer, options(false)).await;
    let reports = Arc::new(Mutex::new(Vec::new()));
    let seen = reports.clone();
    let options = CallOptions {
        timeout: Some(Duration::from_secs(10)),
        progress: Some(Arc::new(move |report| {
            if let Ok(mut seen) = seen.lock() {
                seen.push(report.progress);
            }
        })),
        ..CallOptions::default()
    };
    let outcome = call_text(&client, "flaky", json!({}), &options).await;
    assert_eq!(outcome.expect("answered"), "flaky done");
    // The report of the broken stream, then that of the reissue.
    assert_eq!(*reports.lock().expect("reports"), [1.0, 2.0]);
    let calls = peer.calls();
    let ids = distinct_ids(&calls);
    // Each send asks for progress under its own id; nothing else differs.
    let mut params = Vec::new();
    for (call, id) in calls.iter().zip(&ids) {
        let mut call = call["params"].clone();
        let token = call["_meta"]
            .as_object_mut()
            .and_then(|m| m.remove("progressToken"));
        assert_eq!(token.as_ref(), Some(id));
        params.push(call);
    }
    assert_eq!(params[0], params[1]);
}

#[tokio::test]
async fn a_connection_cut_mid_stream_is_reissued() {
    let peer = Peer::default();
    let client = connect(&peer, options(false)).await;
    assert_eq!(run(&client, "reset").await.expect("answered"), "reset done");
    let calls = peer.calls();
    assert_eq!(calls.len(), 2, "{calls:?}");
    distinct_ids(&calls);
    assert_eq!(calls[1]["params"], calls[0]["params"]);
}

#[tokio::test]
async fn a_stream_that_always_breaks_is_truncated_after_the_bound() {
    // The default: two reissues, three sends.
    let peer = Peer::default();
    let client = connect(&peer, options(false)).await;
    let outcome = run(&client, "doomed").await;
    assert!(
        matches!(outcome, Err(ClientError::Truncated { attempts: 3 })),
        "{outcome:?}"
    );
    let calls = peer.calls();
    assert_eq!(calls.len(), 3, "{calls:?}");
    distinct_ids(&calls);
    assert!(calls.iter().all(|c| c["params"] == calls[0]["params"]));
    // The client goes on with fresh ids.
    assert_eq!(run(&client, "flaky").await.expect("answered"), "flaky done");
    distinct_ids(&peer.calls());

    // The bound is the client's to set, down to none.
    for (max_reissues, sends) in [(0, 1), (4, 5)] {
        let peer = Peer::default();
        let options = ClientOptions {
            max_reissues,
            ..options(false)
        };
        let client = connect(&peer, options).await;
        let outcome = run(&client, "doomed").await;
        assert!(
            matches!(outcome, Err(ClientError::Truncated { attempts }) if attempts == sends),
            "{max_reissues}: {outcome:?}"
        );
        assert_eq!(peer.calls().len(), sends);
    }
}

#[tokio::test]
async fn an_mrtr_retry_whose_stream_breaks_is_reissued_with_its_state() {
    let peer = Peer::default();
    let target = Target::Http {
        url: peer_url(&peer).await,
        headers: Vec::new(),
    };
    let answers = Answers::new();
    let client = Client::connect(
        ServerId::new("asking").expect("id"),
        target,
        answers.clone(),
        options(false),
        None,
    )
    .await
    .expect("connects");
    let outcome = run(&client, "ask").await;
    assert_eq!(outcome.expect("answered"), "ask done: Ada");
    // The question was put to the host once: the reissue sends the answer
    // it already has.
    assert_eq!(answers.asked(), 1);
    let calls = peer.calls();
    assert_eq!(calls.len(), 3, "{calls:?}");
    distinct_ids(&calls);
    let first = &calls[0]["params"];
    assert!(first.get("requestState").is_none() && first.get("inputResponses").is_none());
    let (retry, reissue) = (&calls[1]["params"], &calls[2]["params"]);
    for params in [retry, reissue] {
        assert_eq!(
            params["requestState"].as_str().map(str::as_bytes),
            Some(STATE.as_bytes())
        );
        assert_eq!(params["inputResponses"]["who"]["action"], "accept");
        assert_eq!(params["arguments"], first["arguments"]);
    }
    assert_eq!(reissue, retry);
    assert_eq!(reissue.to_string(), retry.to_string());
}

#[tokio::test]
async fn the_reissues_share_the_request_timeout() {
    let peer = Peer::default();
    let client = connect(&peer, options(false)).await;
    // Each stream ends after 400 ms: alone, each send would be inside a
    // one-second timeout, so a send timed on its own would never be cut
    // short. Sharing the first one's deadline, the last send is: the call
    // times out, and the client closes that stream before its end.
    let timeout = Duration::from_millis(1000);
    let outcome = call_text(&client, "slow", json!({}), &within(timeout)).await;
    assert!(
        matches!(outcome, Err(ClientError::Timeout(t)) if t == timeout),
        "{outcome:?}"
    );
    wait_for(|| peer.closed() == 1).await;
    let sends = peer.calls().len();
    assert!((2..=3).contains(&sends), "{sends} sends");
}

#[tokio::test]
async fn a_timeout_is_not_reissued() {
    let peer = Peer::default();
    let client = connect(&peer, options(false)).await;
    let timeout = Duration::from_millis(300);
    let outcome = call_text(&client, "stalled", json!({}), &within(timeout)).await;
    assert!(
        matches!(outcome, Err(ClientError::Timeout(t)) if t == timeout),
        "{outcome:?}"
    );
    // The timeout closed the stream, which cancels the call on the server,
    // and nothing was sent after it.
    wait_for(|| peer.closed() == 1).await;
    nothing_sent_after(&client, &peer, "stalled").await;
}

#[tokio::test]
async fn a_call_the_caller_drops_is_not_reissued() {
    let peer = Peer::default();
    let client = connect(&peer, options(false)).await;
    let (tx, rx) = tokio::sync::oneshot::channel();
    let tx = Mutex::new(Some(tx));
    let options = CallOptions {
        timeout: Some(Duration::from_secs(10)),
        progress: Some(Arc::new(move |_| {
            if let Some(tx) = tx.lock().ok().and_then(|mut t| t.take()) {
                let _ = tx.send(());
            }
        })),
        ..CallOptions::default()
    };
    // The caller gives up once the call is under way.
    tokio::select! {
        outcome = call_text(&client, "stalled", json!({}), &options) => {
            panic!("the stalled call returned: {outcome:?}")
        }
        _ = rx => {}
    }
    wait_for(|| peer.closed() == 1).await;
    nothing_sent_after(&client, &peer, "stalled").await;
}

#[tokio::test]
async fn failures_other_than_a_broken_stream_are_not_reissued() {
    let peer = Peer::default();
    let options = ClientOptions {
        max_message_size: 4096,
        ..options(false)
    };
    let client = connect(&peer, options).await;
    let outcome = run(&client, "status").await;
    assert!(matches!(outcome, Err(ClientError::Rpc(_))), "{outcome:?}");
    let outcome = run(&client, "html").await;
    assert!(
        matches!(outcome, Err(ClientError::ContentType(_))),
        "{outcome:?}"
    );
    let outcome = run(&client, "huge").await;
    assert!(
        matches!(outcome, Err(ClientError::MessageTooLarge { limit: 4096 })),
        "{outcome:?}"
    );
    // An empty body is an answer without a response, not a broken stream.
    let outcome = run(&client, "empty").await;
    assert!(
        matches!(outcome, Err(ClientError::Truncated { attempts: 1 })),
        "{outcome:?}"
    );
    let names: Vec<Value> = peer
        .calls()
        .iter()
        .map(|c| c["params"]["name"].clone())
        .collect();
    assert_eq!(names, ["status", "html", "huge", "empty"]);
}

/// Approves everything, and keeps the calls it was asked about.
#[derive(Default)]
struct Recording {
    asked: Mutex<Vec<Value>>,
}

impl Approver for Recording {
    fn decide<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, Decision> {
        if let Ok(mut asked) = self.asked.lock() {
            asked.push(Value::Object(request.call.arguments().clone()));
        }
        Box::pin(async { Decision::Approve })
    }
}

#[tokio::test]
async fn a_reissued_tool_call_runs_under_its_one_approval() {
    let peer = Peer::default();
    let url = peer_url(&peer).await;
    let approver = Arc::new(Recording::default());
    let host = Host::builder(host_config(json!({"svc": {"url": url}})))
        .approver(approver.clone())
        .options(options(false))
        .start()
        .await;
    let arguments = json!({"path": "/tmp/a"});
    let Value::Object(map) = arguments.clone() else {
        unreachable!("an object")
    };
    let call = host.prepare("svc__flaky", map).await.expect("prepared");
    let approval = host.authorize(&call).await.expect("approved");
    let result = host
        .call_tool(call, approval, &CallOptions::default())
        .await
        .expect("the reissue is answered");
    let result = serde_json::to_value(result.accept()).expect("json");
    assert_eq!(result["content"][0]["text"], "flaky done");
    // Asked once, about exactly the arguments both sends carried.
    let asked = approver.asked.lock().map(|a| a.clone()).unwrap_or_default();
    assert_eq!(asked, std::slice::from_ref(&arguments));
    let calls = peer.calls();
    assert_eq!(calls.len(), 2, "{calls:?}");
    distinct_ids(&calls);
    for call in &calls {
        assert_eq!(call["params"]["name"], "flaky");
        assert_eq!(call["params"]["arguments"], arguments);
    }
    host.shutdown().await;
}

/// Waits up to two seconds for `done`.
async fn wait_for(done: impl Fn() -> bool) {
    for _ in 0..100 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("gave up waiting");
}
