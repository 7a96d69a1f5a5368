//! HTTP peers scripted in the test: a legacy server that answers the probe
//! with a bare 400, and a modern one whose tools test the header rules.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use common::{answer, discovered, reply, serve};
use mcp_host::approval::{ApproveAll, Gate, Policy};
use mcp_host::client::{CallOptions, Client, ClientError, ClientOptions, NoInput, Target};
use mcp_host::ServerId;
use mcp_types::version::Era;
use serde_json::{json, Map, Value};

#[derive(Clone, Default)]
struct Peer {
    calls: Arc<AtomicUsize>,
    seen: Arc<Mutex<Vec<(String, String)>>>,
}

/// A legacy server: a modern request gets 400 with an empty body.
async fn legacy(headers: HeaderMap, body: Bytes) -> Response {
    let message: Value = serde_json::from_slice(&body).unwrap_or_default();
    let id = message["id"].clone();
    match message["method"].as_str() {
        Some("initialize") => {
            let mut response = reply(
                StatusCode::OK,
                json!({"jsonrpc": "2.0", "id": id, "result": {"protocolVersion": "2025-06-18",
                    "capabilities": {"tools": {}}, "serverInfo": {"name": "old", "version": "1"}}}),
            );
            response
                .headers_mut()
                .insert("mcp-session-id", "s-1".parse().expect("header"));
            response
        }
        Some("notifications/initialized") => StatusCode::ACCEPTED.into_response(),
        Some("tools/list") if headers.get("mcp-session-id").is_some() => reply(
            StatusCode::OK,
            json!({"jsonrpc": "2.0", "id": id, "result": {"tools": []}}),
        ),
        _ => StatusCode::BAD_REQUEST.into_response(),
    }
}

fn tools() -> Value {
    json!([
        {"name": "locate", "inputSchema": {"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"}}}},
        {"name": "broken", "inputSchema": {"type": "object", "properties": {
            "n": {"type": "number", "x-mcp-header": "N"}}}},
    ])
}

/// A modern server; its first `tools/call` fails with -32020 as if the
/// client's tool list were stale.
async fn modern(State(peer): State<Peer>, headers: HeaderMap, body: Bytes) -> Response {
    let message: Value = serde_json::from_slice(&body).unwrap_or_default();
    let id = message["id"].clone();
    let ok = |result: Value| answer(&id, result);
    match message["method"].as_str() {
        Some("server/discover") => ok(discovered()),
        Some("tools/list") => ok(
            json!({"resultType": "complete", "tools": tools(), "ttlMs": 0, "cacheScope": "public"}),
        ),
        Some("tools/call") => {
            let mut seen = Vec::new();
            for (name, value) in &headers {
                if name.as_str().starts_with("mcp-") {
                    seen.push((name.to_string(), value.to_str().unwrap_or("").to_owned()));
                }
            }
            if let Ok(mut slot) = peer.seen.lock() {
                *slot = seen;
            }
            if peer.calls.fetch_add(1, Ordering::SeqCst) == 0 {
                return reply(
                    StatusCode::BAD_REQUEST,
                    json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32020, "message": "header mismatch"}}),
                );
            }
            ok(json!({"resultType": "complete", "content": [{"type": "text", "text": "found"}]}))
        }
        _ => reply(
            StatusCode::NOT_FOUND,
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "no"}}),
        ),
    }
}

fn options() -> ClientOptions {
    ClientOptions {
        probe_timeout: Duration::from_secs(5),
        ..ClientOptions::default()
    }
}

#[tokio::test]
async fn a_bare_400_means_legacy_with_a_session() {
    let url = serve(Router::new().route("/mcp", post(legacy))).await;
    let id = ServerId::new("old").expect("id");
    let client = Client::connect(
        id,
        Target::Http {
            url,
            headers: Vec::new(),
        },
        Arc::new(NoInput),
        options(),
        None,
    )
    .await
    .expect("falls back to initialize");
    let session = client.session().expect("session");
    assert_eq!(session.era, Era::Legacy);
    assert_eq!(session.version.as_str(), "2025-06-18");
    // The session header rides along: the listing is answered.
    assert!(client.list_tools().await.expect("tools").tools.is_empty());
}

#[tokio::test]
async fn header_rules_drop_tools_and_a_mismatch_refreshes() {
    let peer = Peer::default();
    let url = serve(
        Router::new()
            .route("/mcp", post(modern))
            .with_state(peer.clone()),
    )
    .await;
    let id = ServerId::new("new").expect("id");
    let client = Client::connect(
        id,
        Target::Http {
            url,
            headers: Vec::new(),
        },
        Arc::new(NoInput),
        options(),
        None,
    )
    .await
    .expect("modern");
    let list = client.list_tools().await.expect("tools");
    let names: Vec<String> = list
        .tools
        .iter()
        .map(|t| t.accept_ref().name.clone())
        .collect();
    assert_eq!(names, ["locate"]);
    assert_eq!(list.excluded.len(), 1);
    assert_eq!(list.excluded[0].name.accept_ref(), "broken");
    // A dropped tool cannot be called: it is unknown, as if never listed.
    let refused = client
        .prepare_call("broken", Map::new())
        .await
        .expect_err("dropped tools cannot be called");
    assert!(
        matches!(&refused, ClientError::Unknown { name, .. } if name == "broken"),
        "{refused:?}"
    );

    let mut arguments = Map::new();
    arguments.insert("region".into(), json!("Île"));
    let call = client
        .prepare_call("locate", arguments)
        .await
        .expect("prepared");
    let approval = Gate::new(Policy::default(), Arc::new(ApproveAll))
        .authorize(&call)
        .await
        .expect("approved");
    let result = client
        .call_tool(call, approval, &CallOptions::default())
        .await
        .expect("retried after the refresh");
    assert_eq!(
        serde_json::to_value(result.accept()).expect("json")["content"][0]["text"],
        "found"
    );
    assert_eq!(peer.calls.load(Ordering::SeqCst), 2);
    let seen = peer.seen.lock().map(|s| s.clone()).unwrap_or_default();
    let header = |name: &str| seen.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
    assert_eq!(
        header("mcp-protocol-version").as_deref(),
        Some("2026-07-28")
    );
    assert_eq!(header("mcp-method").as_deref(), Some("tools/call"));
    assert_eq!(header("mcp-name").as_deref(), Some("locate"));
    assert_eq!(
        header("mcp-param-region").as_deref(),
        Some("=?base64?w45sZQ==?=")
    );
}

/// A legacy server that asks for the client's roots on its GET stream.
async fn asking_stream() -> Response {
    let ask = json!({"jsonrpc": "2.0", "id": "srv-1", "method": "roots/list"});
    (
        StatusCode::OK,
        [("content-type", "text/event-stream")],
        format!(": open\n\ndata: {ask}\n\n"),
    )
        .into_response()
}

/// Records the answers the client POSTs; otherwise the legacy server.
async fn recording(State(peer): State<Peer>, headers: HeaderMap, body: Bytes) -> Response {
    let message: Value = serde_json::from_slice(&body).unwrap_or_default();
    if message.get("method").is_none() {
        if let Ok(mut seen) = peer.seen.lock() {
            seen.push(("answer".into(), message.to_string()));
        }
        return StatusCode::ACCEPTED.into_response();
    }
    legacy(headers, body).await
}

#[tokio::test]
async fn requests_on_the_legacy_get_stream_are_answered() {
    let peer = Peer::default();
    let router = Router::new()
        .route("/mcp", post(recording).get(asking_stream))
        .with_state(peer.clone());
    let url = serve(router).await;
    let id = ServerId::new("old").expect("id");
    let _client = Client::connect(
        id,
        Target::Http {
            url,
            headers: Vec::new(),
        },
        Arc::new(NoInput),
        options(),
        None,
    )
    .await
    .expect("legacy");
    let mut answer = None;
    for _ in 0..100 {
        answer = peer
            .seen
            .lock()
            .ok()
            .and_then(|s| s.first().map(|(_, a)| a.clone()));
        if answer.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let answer: Value = serde_json::from_str(&answer.expect("the client answered")).expect("json");
    assert_eq!(answer["id"], "srv-1");
    assert_eq!(answer["result"], json!({"roots": []}));
}
