//! Streamable HTTP for the tests: a server on loopback, and a raw
//! HTTP/1.1 client that sends one request a connection and reads the
//! answer to the end.

use mcp_server::transport::http::{self, HttpConfig};
use mcp_server::Server;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Serves `server` at `/mcp` on loopback; returns the port.
pub async fn listen(server: Server, config: HttpConfig) -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("address").port();
    tokio::spawn(async move { axum::serve(listener, http::router(server, "/mcp", config)).await });
    port
}

/// What came back: the status, and the rest of the response (headers and
/// body) as text.
pub struct Answer {
    pub status: u16,
    pub text: String,
}

impl Answer {
    /// The value of header `name`.
    pub fn header(&self, name: &str) -> Option<&str> {
        let (head, _) = self.text.split_once("\r\n\r\n")?;
        head.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.eq_ignore_ascii_case(name).then_some(value.trim())
        })
    }

    /// The body, as text.
    pub fn body(&self) -> &str {
        self.text
            .split_once("\r\n\r\n")
            .map_or("", |(_, body)| body)
    }

    /// The body, as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_str(self.body()).expect("a JSON body")
    }
}

/// POSTs a legacy (2025-11-25) `initialize` to `/mcp` on `port`.
pub async fn initialize(port: u16) -> Answer {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "mcp-server-tests", "version": "1"}}});
    post(port, &[], &body).await
}

/// The headers of a modern `tools/call` of the tool `name`.
pub fn call_headers(name: &str) -> [(&'static str, &str); 3] {
    [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", name),
    ]
}

/// POSTs `body` to `/mcp` on `port`; see [`send`].
pub async fn post(port: u16, headers: &[(&str, &str)], body: &Value) -> Answer {
    send(port, "POST", headers, body.to_string()).await
}

/// Sends `method` to `/mcp` on `port` with `headers` besides `Host`,
/// `Content-Type`, `Accept` and `Connection: close`.
pub async fn send(port: u16, method: &str, headers: &[(&str, &str)], body: String) -> Answer {
    let mut request = format!(
        "{method} /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         Content-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(&body);
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    stream.write_all(request.as_bytes()).await.expect("send");
    let mut text = String::new();
    // A server that drops the connection mid-answer leaves what it sent.
    let _ = stream.read_to_string(&mut text).await;
    let status = text
        .get(9..12)
        .and_then(|code| code.parse().ok())
        .unwrap_or_default();
    Answer { status, text }
}
