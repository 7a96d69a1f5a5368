//! A server built with features left off answers what would need them
//! with the protocol's errors, over both transports, and serves the rest.
//! Runs only in such a build (CI: `.ci/features`):
//!
//! ```text
//! cargo test -p mcp-toolkit-server --no-default-features --features http --test features_off
//! ```

#![cfg(all(feature = "http", not(feature = "legacy"), not(feature = "validation")))]

use mcp_server::transport::{http, stdio};
use mcp_server::{tool, tools, Server};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

struct Calc;

#[tools]
impl Calc {
    /// Adds two numbers.
    #[tool]
    fn add(&self, a: i64, b: i64) -> i64 {
        a + b
    }
}

fn server() -> Server {
    Server::builder(Calc)
        .info("calc", "1.0.0")
        .tools()
        .build()
        .expect("server builds")
}

fn initialize(id: i64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "old", "version": "1"}}})
}

fn add(id: i64, a: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}
        },
        "name": "add", "arguments": {"a": a, "b": 1}}})
}

/// The -32022 refusal of a legacy `initialize`: the versions served, and
/// the one asked for.
fn assert_unsupported(message: &Value, id: i64) {
    assert_eq!(message["id"], id, "{message}");
    assert_eq!(message["error"]["code"], -32022, "{message}");
    assert_eq!(
        message["error"]["data"],
        json!({"supported": ["2026-07-28"], "requested": "2025-06-18"}),
    );
}

#[tokio::test]
async fn stdio_refuses_initialize_and_serves_modern_calls() {
    let (mut client, server_side) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(server_side);
    let task = tokio::spawn(stdio::serve_io(server(), read, write));
    let input = format!("{}\n{}\n", initialize(1), add(2, json!(2)));
    client.write_all(input.as_bytes()).await.expect("write");
    client.shutdown().await.expect("close input");
    let mut output = String::new();
    client.read_to_string(&mut output).await.expect("read");
    task.await.expect("joins").expect("serves");
    let lines: Vec<Value> = output
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len(), 2, "{output}");
    let by_id = |id: i64| lines.iter().find(|m| m["id"] == id).expect("answered");
    assert_unsupported(by_id(1), 1);
    assert_eq!(by_id(2)["result"]["structuredContent"]["result"], 3);
}

/// One POST (or other method) and its status and body.
async fn request(port: u16, method: &str, headers: &str, body: &str) -> (u16, String) {
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    let request = format!(
        "{method} /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         {headers}Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.expect("send");
    let mut response = String::new();
    stream.read_to_string(&mut response).await.expect("read");
    let status = response
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = response
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default();
    (status, body)
}

#[tokio::test]
async fn http_refuses_the_handshake_era_and_checks_arguments_with_serde() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("address").port();
    let app = http::router(server(), "/mcp", http::HttpConfig::default());
    tokio::spawn(async move { axum::serve(listener, app).await });

    // A legacy client opens with `initialize`, without a version header.
    let (status, body) = request(port, "POST", "", &initialize(1).to_string()).await;
    assert_eq!(status, 400, "{body}");
    let reply: Value = serde_json::from_str(body.trim()).expect("a JSON body");
    assert_unsupported(&reply, 1);
    assert!(!body.contains("Mcp-Session-Id"));
    // There are no sessions to end.
    let (status, _) = request(port, "DELETE", "Mcp-Session-Id: abc\r\n", "").await;
    assert_eq!(status, 405);

    // Without the schema check, serde still refuses what `i64` cannot
    // hold, as an `isError` result naming the argument.
    let modern = "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: add\r\n";
    let (status, body) = request(port, "POST", modern, &add(2, json!("two")).to_string()).await;
    assert_eq!(status, 200, "{body}");
    let reply: Value = serde_json::from_str(body.trim()).expect("a JSON body");
    assert_eq!(reply["result"]["isError"], true, "{body}");
    let text = reply["result"]["content"][0]["text"]
        .as_str()
        .expect("text");
    assert!(text.contains("invalid argument `a`"), "{text}");
    let (_, body) = request(port, "POST", modern, &add(3, json!(2)).to_string()).await;
    let reply: Value = serde_json::from_str(body.trim()).expect("a JSON body");
    assert_eq!(reply["result"]["structuredContent"]["result"], 3, "{body}");
}
