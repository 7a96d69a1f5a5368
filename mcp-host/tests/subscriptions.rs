//! `subscriptions/listen` through the client: against the `everything`
//! example over stdio and HTTP, and against scripted peers that show what
//! dropping a subscription does on the wire.

mod common;

use std::convert::Infallible;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use common::{call_text, everything_http, everything_stdio, options, reply, serve};
use futures_util::stream::{self, StreamExt};
use mcp_host::client::{
    CallOptions, Client, ClientError, NoInput, StdioCommand, Subscription, Target,
};
use mcp_host::listen::Change;
use mcp_host::{Host, HostConfig, ServerId};
use mcp_types::v2026_07_28::SubscriptionFilter;
use serde_json::{json, Value};

fn filter(value: Value) -> SubscriptionFilter {
    serde_json::from_value(value).expect("a filter")
}

/// Runs one of the `everything` example's tools that announce a change.
async fn trigger(client: &Client, tool: &str) -> String {
    call_text(client, tool, json!({}), &CallOptions::default())
        .await
        .unwrap_or_else(|e| panic!("{tool}: {e}"))
}

async fn connect(target: Target, legacy: bool) -> Client {
    Client::connect(
        ServerId::new("ev").expect("id"),
        target,
        Arc::new(NoInput),
        options(legacy),
        None,
    )
    .await
    .expect("connects")
}

/// The next change, failing the test if none comes within five seconds.
async fn next_change(subscription: &mut Subscription) -> Change {
    tokio::time::timeout(Duration::from_secs(5), subscription.next())
        .await
        .expect("a change within 5 s")
        .expect("the stream is open")
        .expect("a change, not an error")
}

/// Two subscriptions at once on one client, each getting only what it
/// asked for, beside ordinary tool calls.
async fn two_subscriptions(client: &Client) {
    let mut everything = client
        .listen(filter(
            json!({"toolsListChanged": true, "promptsListChanged": true,
            "resourcesListChanged": true}),
        ))
        .await
        .expect("acknowledged");
    let honoured = everything.acknowledged();
    assert_eq!(
        (
            honoured.tools_list_changed,
            honoured.prompts_list_changed,
            honoured.resources_list_changed
        ),
        (Some(true), Some(true), Some(true))
    );
    let mut prompts = client
        .listen(filter(json!({"promptsListChanged": true})))
        .await
        .expect("acknowledged");
    assert_ne!(everything.id(), prompts.id());
    assert_eq!(prompts.acknowledged().tools_list_changed, None);

    let text = trigger(client, "test_trigger_tool_change").await;
    assert_eq!(text, "tools/list_changed sent");
    assert_eq!(next_change(&mut everything).await, Change::ToolsListChanged);
    trigger(client, "test_trigger_prompt_change").await;
    assert_eq!(
        next_change(&mut everything).await,
        Change::PromptsListChanged
    );
    // The tool change was never sent to the prompts-only subscription: its
    // first change is the prompt change.
    assert_eq!(next_change(&mut prompts).await, Change::PromptsListChanged);

    // Dropping one leaves the other working.
    drop(everything);
    trigger(client, "test_trigger_prompt_change").await;
    assert_eq!(next_change(&mut prompts).await, Change::PromptsListChanged);
}

#[tokio::test]
async fn listen_to_the_everything_example_over_stdio() {
    let client = connect(everything_stdio(), false).await;
    two_subscriptions(&client).await;
    client.shutdown().await;
}

#[tokio::test]
async fn listen_to_the_everything_example_over_http() {
    let (_server, url) = everything_http();
    let client = connect(
        Target::Http {
            url,
            headers: Vec::new(),
        },
        false,
    )
    .await;
    two_subscriptions(&client).await;
}

#[tokio::test]
async fn the_host_listens_by_server_id_and_legacy_servers_cannot() {
    let command = common::everything().display().to_string();
    let config = HostConfig::from_json(
        &json!({"mcpServers": {
            "new": {"command": command, "args": ["--stdio"]},
            "old": {"command": command, "args": ["--stdio"], "legacy": true},
        }})
        .to_string(),
    )
    .expect("config");
    let host = Host::builder(config).options(options(false)).start().await;
    let new = ServerId::new("new").expect("id");
    let mut subscription = host
        .listen(&new, filter(json!({"toolsListChanged": true})))
        .await
        .expect("acknowledged");
    let client = host.client(&new).await.expect("connected");
    trigger(&client, "test_trigger_tool_change").await;
    assert_eq!(
        next_change(&mut subscription).await,
        Change::ToolsListChanged
    );
    let old = ServerId::new("old").expect("id");
    let refused = host
        .listen(&old, filter(json!({"toolsListChanged": true})))
        .await;
    assert!(
        matches!(refused, Err(ClientError::WrongEra("subscriptions/listen"))),
        "{refused:?}"
    );
    host.shutdown().await;
}

/// Sets its flag when dropped: the peer's side of a closed connection.
struct Dropped(Arc<AtomicBool>);

impl Drop for Dropped {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// A modern peer whose listen stream sends the acknowledgement and one
/// change, then stays open until the client goes away; a listen asking for
/// prompts is refused as the TypeScript SDK refuses one over its limit.
async fn listening_peer(closed: Arc<AtomicBool>, body: Bytes) -> Response {
    let message: Value = serde_json::from_slice(&body).unwrap_or_default();
    let id = message["id"].clone();
    match message["method"].as_str() {
        Some("server/discover") => reply(
            StatusCode::OK,
            json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "complete",
                "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {"listChanged": true}},
                "ttlMs": 0, "cacheScope": "public"}}),
        ),
        Some("subscriptions/listen")
            if message["params"]["notifications"]["promptsListChanged"] == true =>
        {
            reply(
                StatusCode::OK,
                json!({"jsonrpc": "2.0", "id": id,
                    "error": {"code": -32603, "message": "Subscription limit reached"}}),
            )
        }
        Some("subscriptions/listen") => {
            let meta = json!({"io.modelcontextprotocol/subscriptionId": id});
            let events = [
                json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
                    "params": {"notifications": {"toolsListChanged": true}, "_meta": meta}}),
                json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
                    "params": {"_meta": meta}}),
            ]
            .map(|e| Ok::<_, Infallible>(Bytes::from(format!("data: {e}\n\n"))));
            let guard = Dropped(closed);
            let body = stream::iter(events)
                .chain(stream::pending())
                .map(move |event| {
                    let _ = &guard;
                    event
                });
            (
                StatusCode::OK,
                [("content-type", "text/event-stream")],
                Body::from_stream(body),
            )
                .into_response()
        }
        _ => StatusCode::BAD_REQUEST.into_response(),
    }
}

/// Waits up to five seconds for `done`.
async fn eventually(what: &str, done: impl Fn() -> bool) {
    for _ in 0..250 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("{what} did not happen within 5 s");
}

#[tokio::test]
async fn dropping_a_subscription_closes_its_http_stream() {
    let closed = Arc::new(AtomicBool::new(false));
    let peer = closed.clone();
    let url = serve(Router::new().route(
        "/mcp",
        post(move |body: Bytes| listening_peer(peer.clone(), body)),
    ))
    .await;
    let client = connect(
        Target::Http {
            url,
            headers: Vec::new(),
        },
        false,
    )
    .await;
    let mut subscription = client
        .listen(filter(json!({"toolsListChanged": true})))
        .await
        .expect("acknowledged");
    assert_eq!(
        next_change(&mut subscription).await,
        Change::ToolsListChanged
    );
    assert!(!closed.load(Ordering::SeqCst));
    drop(subscription);
    eventually("closing the stream", || closed.load(Ordering::SeqCst)).await;

    let refused = client
        .listen(filter(json!({"promptsListChanged": true})))
        .await;
    assert!(
        matches!(&refused, Err(ClientError::Rpc(e)) if e.accept_ref().code == -32603),
        "{refused:?}"
    );
}

/// A stdio peer that acknowledges a listen (after a message of another
/// subscription), sends one change, and writes every
/// `notifications/cancelled` it gets to the file named by its argument.
const STDIO_PEER: &str = r#"
import json, sys
log = sys.argv[1]
def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()
for line in sys.stdin:
    message = json.loads(line)
    method, id = message.get("method"), message.get("id")
    if method == "server/discover":
        send({"jsonrpc": "2.0", "id": id, "result": {"resultType": "complete",
              "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {"listChanged": True}},
              "ttlMs": 0, "cacheScope": "public"}})
    elif method == "subscriptions/listen":
        def meta(sub):
            return {"_meta": {"io.modelcontextprotocol/subscriptionId": sub}}
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": meta("other")})
        send({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
              "params": dict(meta(id), notifications={"toolsListChanged": True})})
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": meta(id)})
    elif method == "notifications/cancelled":
        with open(log, "a") as f:
            f.write(json.dumps(message["params"]) + "\n")
"#;

#[tokio::test]
async fn dropping_a_subscription_cancels_it_over_stdio() {
    let log: PathBuf =
        std::env::temp_dir().join(format!("mcp-host-listen-cancel-{}.log", std::process::id()));
    let _ = std::fs::remove_file(&log);
    let client = connect(
        Target::Stdio(StdioCommand {
            command: "python3".into(),
            args: vec!["-c".into(), STDIO_PEER.into(), log.display().to_string()],
            ..StdioCommand::default()
        }),
        false,
    )
    .await;
    let mut subscription = client
        .listen(filter(json!({"toolsListChanged": true})))
        .await
        .expect("acknowledged");
    let id = serde_json::to_value(subscription.id()).expect("json");
    assert_eq!(
        next_change(&mut subscription).await,
        Change::ToolsListChanged
    );
    drop(subscription);
    let read = || std::fs::read_to_string(&log).unwrap_or_default();
    eventually("the cancel", || !read().is_empty()).await;
    let cancel: Value = serde_json::from_str(read().trim()).expect("json");
    assert_eq!(cancel["requestId"], id);
    client.shutdown().await;
    let _ = std::fs::remove_file(&log);
}
