//! Legacy (2025-11-25) `resources/subscribe`: after it, a change to the
//! resource that the server publishes ([`Server::notify`] with
//! [`Change::Resource`]) reaches the session as
//! `notifications/resources/updated`, on its GET stream over HTTP and
//! between answers over stdio; a resource the session did not subscribe
//! to, or unsubscribed from, is never named.

#![cfg(all(feature = "http", feature = "legacy"))]

use std::time::Duration;

use mcp_server::notify::Change;
use mcp_server::transport::http::{self, HttpConfig};
use mcp_server::transport::stdio;
use mcp_server::types::v2026_07_28::TextResourceContents;
use mcp_server::{resource, resources, Server};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

struct Shop;

fn text(uri: &str, text: &str) -> TextResourceContents {
    TextResourceContents {
        meta: None,
        mime_type: Some("text/plain".into()),
        text: text.into(),
        uri: uri.into(),
        extra: Default::default(),
    }
}

#[resources]
impl Shop {
    /// The opening hours.
    #[resource("shop://hours", mime_type = "text/plain")]
    fn hours(&self) -> TextResourceContents {
        text("shop://hours", "9 to 5")
    }

    /// One item of the catalogue.
    #[resource("shop://items/{id}", name = "item", mime_type = "text/plain")]
    fn item(&self, id: String) -> TextResourceContents {
        text(&format!("shop://items/{id}"), &format!("item {id}"))
    }
}

fn server() -> Server {
    Server::builder(Shop)
        .info("shop", "1.0.0")
        .resources()
        .build()
        .expect("server builds")
}

const WAIT: Duration = Duration::from_secs(10);

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "subscriptions-test", "version": "1"}}})
}

fn subscribe(id: u64, method: &str, uri: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {"uri": uri}})
}

/// Sends a request and reads its whole answer: the status, the session id
/// header and the body.
async fn post(port: u16, session: Option<&str>, body: &Value) -> (u16, Option<String>, String) {
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
    let mut stream = TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    stream.write_all(request.as_bytes()).await.expect("send");
    let mut raw = Vec::new();
    tokio::time::timeout(WAIT, stream.read_to_end(&mut raw))
        .await
        .expect("an answer in time")
        .expect("read");
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
    (status, session, body.to_owned())
}

/// Opens a GET stream and reads its head; the stream stays open.
async fn get(port: u16, session: Option<&str>) -> (u16, BufReader<TcpStream>) {
    let mut request = format!(
        "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\
         Accept: text/event-stream\r\n"
    );
    if let Some(id) = session {
        request.push_str(&format!(
            "Mcp-Session-Id: {id}\r\nMCP-Protocol-Version: 2025-11-25\r\n"
        ));
    }
    request.push_str("\r\n");
    let mut stream = TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    stream.write_all(request.as_bytes()).await.expect("send");
    let mut reader = BufReader::new(stream);
    let mut status = 0;
    loop {
        let mut line = String::new();
        tokio::time::timeout(WAIT, reader.read_line(&mut line))
            .await
            .expect("a head in time")
            .expect("read");
        if status == 0 {
            status = line
                .split(' ')
                .nth(1)
                .and_then(|s| s.parse().ok())
                .expect("a status line");
        }
        if line == "\r\n" || line.is_empty() {
            break;
        }
    }
    (status, reader)
}

/// The next JSON-RPC message on an SSE stream (chunked framing and
/// comments skipped: every `data:` line is one message).
async fn next_event(reader: &mut BufReader<TcpStream>) -> Value {
    loop {
        let mut line = String::new();
        let read = tokio::time::timeout(WAIT, reader.read_line(&mut line))
            .await
            .expect("an event in time")
            .expect("read");
        assert!(read > 0, "the stream ended");
        if let Some(data) = line.trim_end().strip_prefix("data:") {
            return serde_json::from_str(data.trim()).expect("a JSON event");
        }
    }
}

fn updated(uri: &str) -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": uri}})
}

#[tokio::test]
async fn http_sessions_hear_of_the_resources_they_subscribed_to() {
    let server = server();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("address").port();
    let app = http::router(server.clone(), "/mcp", HttpConfig::default());
    tokio::spawn(async move { axum::serve(listener, app).await });

    let (status, session, body) = post(port, None, &initialize()).await;
    assert_eq!(status, 200, "{body}");
    let initialized: Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(
        initialized["result"]["capabilities"]["resources"]["subscribe"], true,
        "{initialized}"
    );
    let session = session.expect("a session id");
    let (other, _, _) = post(port, None, &initialize()).await;
    assert_eq!(other, 200);

    for (id, uri) in [(2, "shop://hours"), (3, "shop://items/7")] {
        let (status, _, body) = post(
            port,
            Some(&session),
            &subscribe(id, "resources/subscribe", uri),
        )
        .await;
        assert_eq!(status, 200, "{body}");
        let answer: Value = serde_json::from_str(&body).expect("JSON");
        assert_eq!(answer["result"], json!({}), "{answer}");
    }
    let (status, _, body) = post(
        port,
        Some(&session),
        &subscribe(4, "resources/unsubscribe", "shop://items/7"),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let (status, _, body) = post(
        port,
        Some(&session),
        &json!({
            "jsonrpc": "2.0", "id": 5, "method": "resources/subscribe", "params": {"uri": 7}
        }),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let refused: Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(refused["error"]["code"], -32602, "{refused}");

    // No session: GET stays not allowed; an unknown session is not found.
    assert_eq!(get(port, None).await.0, 405);
    assert_eq!(
        get(port, Some("0123456789abcdef0123456789abcdef")).await.0,
        404
    );

    let (status, mut stream) = get(port, Some(&session)).await;
    assert_eq!(status, 200);
    // Unsubscribed, never subscribed, and a list change: none of them is
    // for this stream; the subscribed resource is, in the order published.
    server.notify(Change::Resource("shop://items/7".into()));
    server.notify(Change::Resource("shop://items/8".into()));
    server.notify(Change::Resources);
    server.notify(Change::Resource("shop://hours".into()));
    assert_eq!(next_event(&mut stream).await, updated("shop://hours"));

    // A newer stream of the session takes over: the update goes out once.
    let (status, mut newer) = get(port, Some(&session)).await;
    assert_eq!(status, 200);
    server.notify(Change::Resource("shop://hours".into()));
    assert_eq!(next_event(&mut newer).await, updated("shop://hours"));
    let mut rest = String::new();
    let ended = tokio::time::timeout(WAIT, stream.read_to_string(&mut rest)).await;
    assert!(
        matches!(ended, Ok(Ok(_))) && !rest.contains("resources/updated"),
        "the older stream ends without the update: {rest:?}"
    );
}

#[tokio::test]
async fn stdio_sessions_hear_of_the_resources_they_subscribed_to() {
    let server = server();
    let (client, server_side) = tokio::io::duplex(1 << 16);
    let (r, w) = tokio::io::split(server_side);
    tokio::spawn(stdio::serve_io(server.clone(), r, w));
    let (output, mut input) = tokio::io::split(client);
    let mut output = BufReader::new(output);
    let mut exchange = async |message: Option<Value>| -> Value {
        if let Some(message) = message {
            let mut line = serde_json::to_vec(&message).expect("encodes");
            line.push(b'\n');
            input.write_all(&line).await.expect("write");
        }
        let mut line = String::new();
        tokio::time::timeout(WAIT, output.read_line(&mut line))
            .await
            .expect("a line in time")
            .expect("read");
        serde_json::from_str(&line).expect("a JSON line")
    };
    let initialized = exchange(Some(initialize())).await;
    assert_eq!(
        initialized["result"]["capabilities"]["resources"]["subscribe"],
        true
    );
    let answer = exchange(Some(subscribe(2, "resources/subscribe", "shop://items/1"))).await;
    assert_eq!(answer["result"], json!({}), "{answer}");

    server.notify(Change::Resource("shop://hours".into()));
    server.notify(Change::Resource("shop://items/1".into()));
    assert_eq!(exchange(None).await, updated("shop://items/1"));

    let answer = exchange(Some(subscribe(
        3,
        "resources/unsubscribe",
        "shop://items/1",
    )))
    .await;
    assert_eq!(answer["result"], json!({}), "{answer}");
    let answer = exchange(Some(subscribe(4, "resources/subscribe", "shop://hours"))).await;
    assert_eq!(answer["result"], json!({}), "{answer}");
    server.notify(Change::Resource("shop://items/1".into()));
    server.notify(Change::Resource("shop://hours".into()));
    assert_eq!(exchange(None).await, updated("shop://hours"));
}
