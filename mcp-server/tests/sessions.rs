//! Legacy (2025-11-25) sessions over Streamable HTTP have a lifecycle: a
//! full table makes room by dropping the session used longest ago, whose
//! client then gets `404` and initializes again, so that no number of
//! `initialize` requests locks later clients out.

#![cfg(all(feature = "http", feature = "legacy"))]

use std::time::Duration;

use mcp_server::transport::http::{self, HttpConfig};
use mcp_server::{tool, tools, Server};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

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
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("address").port();
    let app = http::router(server, "/mcp", config);
    tokio::spawn(async move { axum::serve(listener, app).await });
    port
}

struct Response {
    status: u16,
    session: Option<String>,
    body: String,
}

async fn post(port: u16, session: Option<&str>, body: &Value) -> Response {
    let body = body.to_string();
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         Content-Length: {}\r\n",
        body.len()
    );
    if let Some(id) = session {
        request.push_str(&format!(
            "Mcp-Session-Id: {id}\r\nMCP-Protocol-Version: 2025-11-25\r\n"
        ));
    }
    request.push_str("\r\n");
    request.push_str(&body);
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    stream.write_all(request.as_bytes()).await.expect("send");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.expect("read");
    let raw = String::from_utf8_lossy(&raw);
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let session = head.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.eq_ignore_ascii_case("mcp-session-id")
            .then(|| value.trim().to_owned())
    });
    Response {
        status,
        session,
        body: body.to_owned(),
    }
}

async fn initialize(port: u16) -> String {
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "sessions-test", "version": "1"}}});
    let response = post(port, None, &request).await;
    assert_eq!(response.status, 200, "{}", response.body);
    assert!(
        response.body.contains("\"protocolVersion\""),
        "{}",
        response.body
    );
    response.session.expect("initialize gives a session id")
}

/// Calls `echo` in `session` and returns the status, checking the answer
/// when it is served.
async fn echo(port: u16, session: &str) -> u16 {
    let request = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "still here"}}});
    let response = post(port, Some(session), &request).await;
    match response.status {
        200 => assert!(response.body.contains("still here"), "{}", response.body),
        404 => {
            let answer: Value = serde_json::from_str(&response.body).expect("a JSON error");
            assert_eq!(answer["error"]["code"], -32600, "{answer}");
            assert_eq!(answer["error"]["message"], "unknown or ended session");
        }
        other => panic!("unexpected status {other}: {}", response.body),
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
