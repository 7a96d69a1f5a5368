//! DNS-rebinding protection over the wire: every `Host`, `Origin` and
//! absolute-form target case
//! gets the exact status, JSON-RPC code and message, on POST, GET and
//! DELETE alike, before anything else about the request is looked at.

#![cfg(feature = "http")]

use mcp_server::transport::http;
use mcp_server::{tool, tools, Server};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use std::sync::atomic::{AtomicUsize, Ordering};

/// How many times `add` ran, in this test process.
static ADDED: AtomicUsize = AtomicUsize::new(0);

struct Calc;

#[tools]
impl Calc {
    /// Adds two numbers.
    #[tool]
    fn add(&self, a: i64, b: i64) -> i64 {
        ADDED.fetch_add(1, Ordering::SeqCst);
        a + b
    }
}

async fn serve() -> u16 {
    let server = Server::builder(Calc)
        .info("calc", "1.0.0")
        .tools()
        .build()
        .expect("server builds");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("address").port();
    let app = http::router(server, "/mcp", http::HttpConfig::default());
    tokio::spawn(async move { axum::serve(listener, app).await });
    port
}

/// Sends a discovery request with `method`, the `Host` and `Origin` given
/// (or none); returns the status and the body.
async fn exchange(
    port: u16,
    method: &str,
    host: Option<&str>,
    origin: Option<&str>,
) -> (u16, String) {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {
    "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }}})
    .to_string();
    let mut request = format!("{method} /mcp HTTP/1.1\r\nConnection: close\r\n");
    if let Some(host) = host {
        request.push_str(&format!("Host: {host}\r\n"));
    }
    if let Some(origin) = origin {
        request.push_str(&format!("Origin: {origin}\r\n"));
    }
    request.push_str(&format!(
        "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: server/discover\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    ));
    send(port, &request).await
}

/// Sends `request` as it is, on a connection of its own; the status and
/// the body.
async fn send(port: u16, request: &str) -> (u16, String) {
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    stream.write_all(request.as_bytes()).await.expect("send");
    let mut raw = Vec::new();
    // Bounded: a peer that keeps the connection open answers nothing more.
    let read = stream.read_to_end(&mut raw);
    let _ = tokio::time::timeout(std::time::Duration::from_secs(5), read).await;
    let raw = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, body.to_owned())
}

/// A refusal: 403 with a JSON-RPC error of code -32600 and `message`.
fn assert_refused(case: &str, (status, body): (u16, String), message: &str) {
    assert_eq!(status, 403, "{case}: {body}");
    let answer: Value =
        serde_json::from_str(&body).unwrap_or_else(|e| panic!("{case}: not JSON ({e}): {body}"));
    assert_eq!(answer["jsonrpc"], "2.0", "{case}");
    assert_eq!(answer["id"], Value::Null, "{case}");
    assert_eq!(answer["error"]["code"], -32600, "{case}: {answer}");
    assert_eq!(answer["error"]["message"], message, "{case}");
}

#[tokio::test]
async fn foreign_hosts_are_refused_with_the_exact_error() {
    let port = serve().await;
    for (case, host) in [
        ("a foreign name", "evil.example.com".to_owned()),
        (
            "a foreign name with a port",
            format!("evil.example.com:{port}"),
        ),
        (
            "loopback as a subdomain",
            format!("localhost.evil.com:{port}"),
        ),
        (
            "loopback as user information",
            "localhost@evil.com".to_owned(),
        ),
        (
            "user information before loopback",
            "evil.com@localhost".to_owned(),
        ),
        ("an address as a subdomain", "127.0.0.1.evil.com".to_owned()),
        ("a trailing dot", format!("localhost.:{port}")),
        ("a port that is not a number", "localhost:http".to_owned()),
        ("another IPv6 address", format!("[::2]:{port}")),
        ("an unclosed IPv6 literal", "[::1".to_owned()),
        (
            "a name after a loopback IPv6 literal",
            "[::1].evil.example".to_owned(),
        ),
        ("an unbracketed IPv6 address", "::1".to_owned()),
        ("a second port", format!("localhost:{port}:{port}")),
        ("IPv4 mapped into IPv6", "[::ffff:127.0.0.1]".to_owned()),
        ("an empty host", String::new()),
    ] {
        let message = format!("host `{host}` is not allowed");
        assert_refused(
            case,
            exchange(port, "POST", Some(&host), None).await,
            &message,
        );
        assert_refused(
            case,
            exchange(port, "GET", Some(&host), None).await,
            &message,
        );
    }
    // DELETE answers with the status alone.
    let (status, body) = exchange(port, "DELETE", Some("evil.example.com"), None).await;
    assert_eq!((status, body.as_str()), (403, ""));
    // Without `Host` at all: refused the same, as an empty name.
    assert_refused(
        "no Host",
        exchange(port, "POST", None, None).await,
        "host `` is not allowed",
    );
}

#[tokio::test]
async fn foreign_origins_are_refused_with_the_exact_error() {
    let port = serve().await;
    let host = format!("127.0.0.1:{port}");
    for (case, origin) in [
        ("a foreign origin", "http://evil.example.com".to_owned()),
        ("the null origin of a sandboxed page", "null".to_owned()),
        (
            "loopback as a subdomain",
            "http://localhost.evil.com".to_owned(),
        ),
        (
            "loopback as user information",
            "http://localhost@evil.com".to_owned(),
        ),
        ("another IPv6 address", "http://[::2]".to_owned()),
        ("no scheme", "localhost".to_owned()),
        ("an empty origin", String::new()),
    ] {
        let message = format!("origin `{origin}` is not allowed");
        assert_refused(
            case,
            exchange(port, "POST", Some(&host), Some(&origin)).await,
            &message,
        );
    }
}

#[tokio::test]
async fn loopback_names_are_served_in_any_case_with_any_port() {
    let port = serve().await;
    for (host, origin) in [
        (format!("localhost:{port}"), None),
        (
            format!("LocalHost:{port}"),
            Some(format!("http://LOCALHOST:{port}")),
        ),
        (
            format!("127.0.0.1:{port}"),
            Some("http://127.0.0.1:1".to_owned()),
        ),
        (
            format!("[::1]:{port}"),
            Some(format!("https://[::1]:{port}")),
        ),
        ("localhost".to_owned(), Some("http://localhost".to_owned())),
    ] {
        let (status, body) = exchange(port, "POST", Some(&host), origin.as_deref()).await;
        assert_eq!(status, 200, "{host} {origin:?}: {body}");
        let answer: Value = serde_json::from_str(&body).expect("JSON");
        assert_eq!(
            answer["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "calc",
            "{answer}"
        );
    }
}

/// A request whose target is in absolute form names the host it is for,
/// whatever `Host` says: another host is refused as a foreign `Host` is,
/// and the tool it calls never runs.
#[tokio::test]
async fn an_absolute_target_for_another_host_is_refused_and_nothing_runs() {
    let port = serve().await;
    let call = |target: String| {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
            },
            "name": "add", "arguments": {"a": 2, "b": 3}}})
        .to_string();
        format!(
            "POST {target} HTTP/1.1\r\nConnection: close\r\nHost: 127.0.0.1:{port}\r\n\
             Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
             MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: add\r\n\
             Content-Length: {}\r\n\r\n{body}",
            body.len()
        )
    };
    let before = ADDED.load(Ordering::SeqCst);
    for target in [
        "http://evil.example/mcp".to_owned(),
        format!("http://evil.example:{port}/mcp"),
        format!("http://[::1].evil.example:{port}/mcp"),
    ] {
        let (status, body) = send(port, &call(target.clone())).await;
        // hyper refuses what it cannot parse as a target (400) before we
        // see it; what it parses, this server refuses (403).
        assert!(matches!(status, 400 | 403), "{target}: {status} {body}");
        if status == 403 {
            assert!(body.contains("is not allowed"), "{target}: {body}");
        }
    }
    assert_eq!(ADDED.load(Ordering::SeqCst), before, "the tool ran");
    // The same request for this host is served: the control.
    let (status, body) = send(port, &call(format!("http://127.0.0.1:{port}/mcp"))).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(ADDED.load(Ordering::SeqCst), before + 1);
}
