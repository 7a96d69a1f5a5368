//! Legacy (2025-11-25) sessions over Streamable HTTP have a lifecycle: a
//! full table makes room by dropping the session used longest ago, whose
//! client then gets `404` and initializes again, so that no number of
//! `initialize` requests locks later clients out.

#![cfg(all(feature = "http", feature = "legacy"))]

mod common;

use std::time::Duration;

use common::http::{self as client, Answer};
use mcp_server::transport::http::HttpConfig;
use mcp_server::{tool, tools, Server};
use serde_json::{json, Value};

struct Echo;

#[tools]
impl Echo {
    /// Echoes its text.
    #[tool]
    fn echo(&self, text: String) -> String {
        text
    }
}

async fn serve(config: HttpConfig) -> u16 {
    let server = Server::builder(Echo)
        .info("echo", "1.0.0")
        .tools()
        .build()
        .expect("server builds");
    client::listen(server, config).await
}

/// POSTs `body` in `session`, if any.
async fn post(port: u16, session: Option<&str>, body: &Value) -> Answer {
    let headers = match session {
        Some(id) => vec![
            ("Mcp-Session-Id", id),
            ("MCP-Protocol-Version", "2025-11-25"),
        ],
        None => Vec::new(),
    };
    client::post(port, &headers, body).await
}

async fn initialize(port: u16) -> String {
    let response = client::initialize(port).await;
    assert_eq!(response.status, 200, "{}", response.body());
    assert!(
        response.body().contains("\"protocolVersion\""),
        "{}",
        response.body()
    );
    response
        .header("mcp-session-id")
        .expect("initialize gives a session id")
        .to_owned()
}

/// Calls `echo` in `session` and returns the status, checking the answer
/// when it is served.
async fn echo(port: u16, session: &str) -> u16 {
    let request = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "still here"}}});
    let response = post(port, Some(session), &request).await;
    match response.status {
        200 => assert!(
            response.body().contains("still here"),
            "{}",
            response.body()
        ),
        404 => {
            let answer: Value = serde_json::from_str(response.body()).expect("a JSON error");
            assert_eq!(answer["error"]["code"], -32600, "{answer}");
            assert_eq!(answer["error"]["message"], "unknown or ended session");
        }
        other => panic!("unexpected status {other}: {}", response.body()),
    }
    response.status
}

#[tokio::test]
async fn a_full_table_drops_the_session_used_longest_ago() {
    let port = serve(HttpConfig {
        max_sessions: 3,
        ..HttpConfig::default()
    })
    .await;
    let a = initialize(port).await;
    let b = initialize(port).await;
    let c = initialize(port).await;
    // `a` used after `b` was created: `b` is now the one used longest ago.
    assert_eq!(echo(port, &a).await, 200);
    let d = initialize(port).await;
    assert_eq!(echo(port, &b).await, 404, "the least recently used is gone");
    for live in [&a, &c, &d] {
        assert_eq!(echo(port, live).await, 200);
    }
    // The dropped client initializes again, as the spec has it, and is
    // served; that makes room by dropping `a`, now the oldest in use.
    let b = initialize(port).await;
    assert_eq!(echo(port, &b).await, 200);
    assert_eq!(echo(port, &a).await, 404);
}

#[tokio::test]
async fn a_flood_of_initializes_leaves_a_new_client_served() {
    let port = serve(HttpConfig {
        max_sessions: 50,
        ..HttpConfig::default()
    })
    .await;
    let first = initialize(port).await;
    for _ in 0..500 {
        initialize(port).await;
    }
    let fresh = initialize(port).await;
    assert_eq!(echo(port, &fresh).await, 200);
    assert_eq!(echo(port, &first).await, 404);
}

#[tokio::test]
async fn an_idle_session_is_forgotten() {
    let port = serve(HttpConfig {
        session_idle_timeout: Duration::ZERO,
        ..HttpConfig::default()
    })
    .await;
    // With no idle time allowed, any later request finds the session
    // expired (the clock has moved on since `initialize`).
    let session = initialize(port).await;
    let status = echo(port, &session).await;
    assert_eq!(status, 404);
    let again = initialize(port).await;
    assert_ne!(again, session);
}
