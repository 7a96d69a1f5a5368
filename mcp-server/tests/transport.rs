//! The server over its two transports: stdio framing (one message a line,
//! errors for bad lines, nothing but protocol on stdout, exit at end of
//! input, cancellation) and Streamable HTTP (statuses, SSE, DNS-rebinding
//! protection).

#![cfg(feature = "http")]

use std::time::Duration;

use mcp_server::transport::{http, stdio};
use mcp_server::{tool, tools, Context, Server};
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

    /// Reports progress, then answers.
    #[tool]
    async fn slow(&self, cx: &Context) -> String {
        for step in [1.0, 2.0] {
            cx.progress(step, Some(2.0), None).await;
        }
        String::from("done")
    }

    /// Never finishes on its own.
    #[tool]
    async fn forever(&self) -> String {
        tokio::time::sleep(Duration::from_secs(3600)).await;
        String::from("unreachable")
    }
}

fn server() -> Server {
    Server::builder(Calc)
        .info("calc", "1.0.0")
        .tools()
        .build()
        .expect("server builds")
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

fn call(id: i64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"_meta": meta(), "name": name, "arguments": arguments}})
}

/// Runs the stdio transport over `input` and returns every output line.
async fn stdio_session(input: &[u8]) -> Vec<Value> {
    let (mut client, server_side) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(server_side);
    let task = tokio::spawn(stdio::serve_io(server(), server_read, server_write));
    client.write_all(input).await.expect("write");
    client.shutdown().await.expect("close input");
    let mut output = Vec::new();
    client.read_to_end(&mut output).await.expect("read");
    task.await.expect("joins").expect("serves");
    output
        .split(|&b| b == b'\n')
        .filter(|line| !line.is_empty())
        .map(|line| serde_json::from_slice(line).expect("every output line is JSON"))
        .collect()
}

fn by_id(messages: &[Value], id: i64) -> &Value {
    messages
        .iter()
        .find(|m| m["id"] == json!(id))
        .unwrap_or_else(|| panic!("no response {id} in {messages:?}"))
}

#[tokio::test]
async fn stdio_answers_each_line_and_exits_at_end_of_input() {
    let mut input = Vec::new();
    for message in [
        call(1, "add", json!({"a": 2, "b": 3})),
        json!({"jsonrpc": "2.0", "id": 2, "method": "server/discover", "params": {"_meta": meta()}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        call(3, "nope", json!({})),
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": {}}),
    ] {
        input.extend(serde_json::to_vec(&message).expect("encodes"));
        input.push(b'\n');
    }
    input.extend(b"{not json\n\n   \n[1,2]\n\xff\xfe\n");
    let out = stdio_session(&input).await;
    assert_eq!(by_id(&out, 1)["result"]["structuredContent"]["result"], 5);
    assert_eq!(by_id(&out, 1)["result"]["resultType"], "complete");
    assert_eq!(
        by_id(&out, 2)["result"]["supportedVersions"],
        json!(["2026-07-28"])
    );
    assert_eq!(by_id(&out, 3)["error"]["code"], -32602);
    assert_eq!(by_id(&out, 4)["error"]["code"], -32602, "missing _meta");
    let mut codes: Vec<i64> = out
        .iter()
        .filter(|m| m.get("id").is_none())
        .filter_map(|m| m["error"]["code"].as_i64())
        .collect();
    codes.sort_unstable();
    // Bad JSON and invalid UTF-8 are parse errors, a batch is an invalid
    // request; the notification is not answered. Requests run concurrently,
    // so the order of the lines is not fixed.
    assert_eq!(codes, [-32700, -32700, -32600]);
    assert_eq!(out.len(), 7);
}

#[tokio::test]
async fn stdio_streams_progress_before_the_result() {
    let mut request = call(7, "slow", json!({}));
    request["params"]["_meta"]["progressToken"] = json!("p-1");
    let mut input = serde_json::to_vec(&request).expect("encodes");
    input.push(b'\n');
    let out = stdio_session(&input).await;
    let kinds: Vec<&str> = out
        .iter()
        .map(|m| m["method"].as_str().unwrap_or("response"))
        .collect();
    assert_eq!(
        kinds,
        [
            "notifications/progress",
            "notifications/progress",
            "response"
        ]
    );
    assert_eq!(out[0]["params"]["progressToken"], "p-1");
}

#[tokio::test]
async fn stdio_cancellation_stops_the_handler() {
    let mut input = Vec::new();
    for message in [
        call(9, "forever", json!({})),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}}),
    ] {
        input.extend(serde_json::to_vec(&message).expect("encodes"));
        input.push(b'\n');
    }
    // Without cancellation the session would wait an hour for `forever`.
    let out = tokio::time::timeout(Duration::from_secs(10), stdio_session(&input))
        .await
        .expect("cancelled in time");
    assert!(
        out.is_empty(),
        "a cancelled request gets no response: {out:?}"
    );
}

#[tokio::test]
async fn stdio_refuses_an_oversized_line_and_goes_on() {
    let limits = mcp_server::Limits {
        max_message_bytes: 64,
        ..Default::default()
    };
    let server = Server::builder(Calc)
        .tools()
        .limits(limits)
        .build()
        .expect("server builds");
    let (mut client, server_side) = tokio::io::duplex(1 << 16);
    let (r, w) = tokio::io::split(server_side);
    let task = tokio::spawn(stdio::serve_io(server, r, w));
    let mut input = vec![b'x'; 1000];
    input.push(b'\n');
    input.extend(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n");
    client.write_all(&input).await.expect("write");
    client.shutdown().await.expect("close");
    let mut output = String::new();
    client.read_to_string(&mut output).await.expect("read");
    task.await.expect("joins").expect("serves");
    let lines: Vec<Value> = output
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    assert_eq!(lines[0]["error"]["code"], -32600);
    assert!(lines[0]["error"]["message"]
        .as_str()
        .is_some_and(|m| m.contains("limit")));
    assert_eq!(lines[1]["id"], 1, "the next line is still served");
}

/// Sends one HTTP/1.1 request and returns the status line and body.
async fn http_request(
    port: u16,
    method: &str,
    host: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String) {
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    let mut request = format!(
        "{method} /mcp HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
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

async fn http_server() -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("address").port();
    let app = http::router(server(), "/mcp", http::HttpConfig::default());
    tokio::spawn(async move { axum::serve(listener, app).await });
    port
}

fn modern_headers<'a>(method: &'a str, name: Option<&'a str>) -> Vec<(&'a str, &'a str)> {
    let mut headers = vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", method),
    ];
    if let Some(name) = name {
        headers.push(("Mcp-Name", name));
    }
    headers
}

#[tokio::test]
async fn http_statuses_follow_the_spec() {
    let port = http_server().await;
    let host = format!("127.0.0.1:{port}");
    let add = call(1, "add", json!({"a": 1, "b": 1})).to_string();
    let (status, body) = http_request(
        port,
        "POST",
        &host,
        &modern_headers("tools/call", Some("add")),
        &add,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let reply: Value = serde_json::from_str(body.trim()).expect("JSON body");
    assert_eq!(reply["result"]["structuredContent"]["result"], 2);

    let (status, _) = http_request(
        port,
        "POST",
        &host,
        &modern_headers("tools/call", Some("other")),
        &add,
    )
    .await;
    assert_eq!(status, 400, "Mcp-Name differs from the body");
    let (status, _) = http_request(
        port,
        "POST",
        &host,
        &modern_headers("tools/list", None),
        &add,
    )
    .await;
    assert_eq!(status, 400, "Mcp-Method differs from the body");

    let unknown =
        json!({"jsonrpc": "2.0", "id": 2, "method": "nope/nope", "params": {"_meta": meta()}})
            .to_string();
    let (status, body) = http_request(
        port,
        "POST",
        &host,
        &modern_headers("nope/nope", None),
        &unknown,
    )
    .await;
    assert_eq!(status, 404, "{body}");

    let no_meta =
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {}}).to_string();
    let (status, body) = http_request(
        port,
        "POST",
        &host,
        &modern_headers("tools/list", None),
        &no_meta,
    )
    .await;
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("-32602"));

    let note =
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}})
            .to_string();
    let (status, _) = http_request(
        port,
        "POST",
        &host,
        &modern_headers("notifications/cancelled", None),
        &note,
    )
    .await;
    assert_eq!(status, 202);

    let (status, _) = http_request(port, "GET", &host, &[], "").await;
    assert_eq!(status, 405);
    let (status, _) = http_request(port, "DELETE", &host, &[], "").await;
    assert_eq!(status, 405);
    let (status, body) = http_request(
        port,
        "POST",
        &host,
        &modern_headers("tools/call", None),
        "{oops",
    )
    .await;
    assert_eq!((status, body.contains("-32700")), (400, true));
}

#[tokio::test]
async fn http_refuses_foreign_hosts_and_origins() {
    let port = http_server().await;
    let discover = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta()}}).to_string();
    let headers = modern_headers("server/discover", None);
    let (status, _) = http_request(port, "POST", "evil.example.com", &headers, &discover).await;
    assert_eq!(status, 403);
    let mut with_origin = headers.clone();
    with_origin.push(("Origin", "http://evil.example.com"));
    let (status, _) = http_request(
        port,
        "POST",
        &format!("localhost:{port}"),
        &with_origin,
        &discover,
    )
    .await;
    assert_eq!(status, 403);
    let (status, _) = http_request(
        port,
        "POST",
        &format!("localhost:{port}"),
        &headers,
        &discover,
    )
    .await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn http_streams_progress_as_sse() {
    let port = http_server().await;
    let mut request = call(5, "slow", json!({}));
    request["params"]["_meta"]["progressToken"] = json!(42);
    let (status, body) = http_request(
        port,
        "POST",
        &format!("127.0.0.1:{port}"),
        &modern_headers("tools/call", Some("slow")),
        &request.to_string(),
    )
    .await;
    assert_eq!(status, 200);
    let events: Vec<Value> = body
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(|d| serde_json::from_str(d).expect("each event is one line of JSON"))
        .collect();
    assert_eq!(events.len(), 3, "{body}");
    assert_eq!(events[0]["method"], "notifications/progress");
    assert_eq!(events[0]["params"]["progressToken"], 42);
    assert_eq!(events[2]["id"], 5);
}

/// `modern_headers` with `Content-Type` and `Accept` replaced by `media`
/// (either left out when its value is `None`).
fn with_media<'a>(
    content_type: Option<&'a str>,
    accept: Option<&'a str>,
) -> Vec<(&'a str, &'a str)> {
    let mut headers: Vec<_> = modern_headers("server/discover", None)
        .into_iter()
        .filter(|(name, _)| !matches!(*name, "Content-Type" | "Accept"))
        .collect();
    headers.extend(content_type.map(|v| ("Content-Type", v)));
    headers.extend(accept.map(|v| ("Accept", v)));
    headers
}

fn discover() -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta()}})
        .to_string()
}

/// The JSON-RPC refusal in a body, with its `data.expected`.
fn refusal(body: &str) -> (i64, Vec<String>) {
    let message: Value = serde_json::from_str(body.trim()).expect("a JSON body");
    assert_eq!(message["id"], Value::Null, "{body}");
    let expected = message["error"]["data"]["expected"]
        .as_array()
        .expect("the expected media types")
        .iter()
        .map(|v| v.as_str().expect("a media type").to_owned())
        .collect();
    (message["error"]["code"].as_i64().expect("a code"), expected)
}

#[tokio::test]
async fn http_refuses_a_body_that_is_not_json() {
    let port = http_server().await;
    let host = format!("127.0.0.1:{port}");
    let accept = Some("application/json, text/event-stream");
    for content_type in [
        Some("text/plain"),
        Some("text/plain;charset=UTF-8"),
        Some("application/x-www-form-urlencoded"),
        Some("multipart/form-data; boundary=x"),
        Some("application/json-seq"),
        None,
    ] {
        let headers = with_media(content_type, accept);
        let (status, body) = http_request(port, "POST", &host, &headers, &discover()).await;
        assert_eq!(status, 415, "{content_type:?}: {body}");
        assert_eq!(
            refusal(&body),
            (-32600, vec!["application/json".to_owned()]),
            "{content_type:?}"
        );
        assert!(body.contains("Content-Type: application/json"), "{body}");
    }
    for content_type in ["application/json; charset=utf-8", "Application/JSON"] {
        let headers = with_media(Some(content_type), accept);
        let (status, body) = http_request(port, "POST", &host, &headers, &discover()).await;
        assert_eq!(status, 200, "{content_type:?}: {body}");
    }
}

#[tokio::test]
async fn http_refuses_a_client_that_does_not_accept_both_answers() {
    let port = http_server().await;
    let host = format!("127.0.0.1:{port}");
    let both = vec![
        "application/json".to_owned(),
        "text/event-stream".to_owned(),
    ];
    for accept in [
        Some("text/html"),
        Some("application/json"),
        Some("text/event-stream"),
        Some("application/*"),
        Some("*/*;q=0"),
        Some("application/json;q=0, */*"),
        None,
    ] {
        let headers = with_media(Some("application/json"), accept);
        let (status, body) = http_request(port, "POST", &host, &headers, &discover()).await;
        assert_eq!(status, 406, "{accept:?}: {body}");
        assert_eq!(refusal(&body), (-32600, both.clone()), "{accept:?}");
    }
    for accept in [
        "*/*",
        "application/*, text/*",
        "text/event-stream;q=0.5, application/json",
        "application/json, */*;q=0.1",
    ] {
        let headers = with_media(Some("application/json"), Some(accept));
        let (status, body) = http_request(port, "POST", &host, &headers, &discover()).await;
        assert_eq!(status, 200, "{accept:?}: {body}");
    }
}

#[cfg(feature = "legacy")]
/// The handshake era goes through the same door: a legacy `initialize`
/// sent as `text/plain` opens no session.
#[tokio::test]
async fn http_refuses_a_legacy_initialize_that_is_not_json() {
    let port = http_server().await;
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}})
    .to_string();
    let accept = ("Accept", "application/json, text/event-stream");
    let (status, body) = http_request(
        port,
        "POST",
        &format!("127.0.0.1:{port}"),
        &[("Content-Type", "text/plain"), accept],
        &initialize,
    )
    .await;
    assert_eq!(status, 415, "{body}");
    let (status, body) = http_request(
        port,
        "POST",
        &format!("127.0.0.1:{port}"),
        &[("Content-Type", "application/json"), accept],
        &initialize,
    )
    .await;
    assert_eq!(status, 200, "the same initialize as JSON is served: {body}");
}

/// `Host` and `Origin` are judged first: a foreign page learns nothing of
/// what the endpoint expects, whatever else is wrong with its request.
#[tokio::test]
async fn http_checks_the_origin_before_the_media_types() {
    let port = http_server().await;
    let local = format!("127.0.0.1:{port}");
    let plain = with_media(Some("text/plain"), Some("text/html"));
    let (status, body) = http_request(port, "POST", "evil.example.com", &plain, &discover()).await;
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("host"), "{body}");
    let mut from_page = plain.clone();
    from_page.push(("Origin", "http://evil.example.com"));
    let (status, body) = http_request(port, "POST", &local, &from_page, &discover()).await;
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("origin"), "{body}");

    // From an allowed origin, the body's type is judged before `Accept`.
    let mut allowed = plain.clone();
    allowed.push(("Origin", "http://localhost:3000"));
    let (status, _) = http_request(port, "POST", &local, &allowed, &discover()).await;
    assert_eq!(status, 415);
    let mut allowed = with_media(Some("application/json"), Some("text/html"));
    allowed.push(("Origin", "http://localhost:3000"));
    let (status, _) = http_request(port, "POST", &local, &allowed, &discover()).await;
    assert_eq!(status, 406);
}

/// The refusal comes from the head alone: a client that announces a body
/// and never sends it is answered at once, not after the body timeout.
#[tokio::test]
async fn http_refuses_media_types_before_reading_the_body() {
    let port = http_server().await;
    for (content_type, accept, status) in [
        ("text/plain", "application/json, text/event-stream", "415"),
        ("application/json", "text/html", "406"),
    ] {
        let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .expect("connect");
        let head = format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: {content_type}\r\n\
             Accept: {accept}\r\nMCP-Protocol-Version: 2026-07-28\r\nContent-Length: 1000\r\n\r\n"
        );
        stream.write_all(head.as_bytes()).await.expect("send");
        let mut buffer = [0u8; 512];
        let read = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buffer))
            .await
            .expect("answered without the body")
            .expect("read");
        let text = String::from_utf8_lossy(&buffer[..read]);
        assert!(
            text.starts_with(&format!("HTTP/1.1 {status} ")),
            "{content_type} / {accept}: {text}"
        );
    }
}

/// The code of the JSON-RPC error in a reply body.
fn error_code(body: &str) -> Option<i64> {
    serde_json::from_str::<Value>(body.trim()).ok()?["error"]["code"].as_i64()
}

/// One value per routing header: a second `Mcp-Name`, `Mcp-Method`,
/// `MCP-Protocol-Version` or `Mcp-Param-*` is refused with the header
/// validation error, whichever value it carries, in both eras; so is a
/// second `Host`. A gateway that routes on the last value then never sees
/// another tool from the one the server would run.
#[tokio::test]
async fn http_refuses_a_routing_header_given_twice_in_both_eras() {
    let port = http_server().await;
    let host = format!("127.0.0.1:{port}");
    let add = call(1, "add", json!({"a": 1, "b": 1})).to_string();
    // The control: each once, served.
    let (status, body) = http_request(
        port,
        "POST",
        &host,
        &modern_headers("tools/call", Some("add")),
        &add,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let twice: [(&str, &str); 4] = [
        ("Mcp-Name", "other"),
        ("Mcp-Name", "add"),
        ("Mcp-Method", "tools/call"),
        ("MCP-Protocol-Version", "2026-07-28"),
    ];
    for extra in twice {
        let mut headers = modern_headers("tools/call", Some("add"));
        headers.push(extra);
        let (status, body) = http_request(port, "POST", &host, &headers, &add).await;
        assert_eq!(status, 400, "{extra:?} twice: {body}");
        assert_eq!(error_code(&body), Some(-32020), "{extra:?} twice: {body}");
    }
    let mut headers = modern_headers("tools/call", Some("add"));
    headers.extend([("Mcp-Param-Region", "eu"), ("Mcp-Param-Region", "us")]);
    let (status, body) = http_request(port, "POST", &host, &headers, &add).await;
    assert_eq!((status, error_code(&body)), (400, Some(-32020)), "{body}");
    // The legacy era: the same refusal, before the session is looked at.
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}})
    .to_string();
    let legacy = [
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("Mcp-Method", "initialize"),
        ("Mcp-Method", "tools/call"),
    ];
    let (status, body) = http_request(port, "POST", &host, &legacy, &initialize).await;
    assert_eq!((status, error_code(&body)), (400, Some(-32020)), "{body}");
    // A second Host.
    let mut headers = modern_headers("tools/call", Some("add"));
    headers.push(("Host", "evil.example"));
    let (status, body) = http_request(port, "POST", &host, &headers, &add).await;
    assert!(
        matches!(status, 400 | 403),
        "two Host headers: {status} {body}"
    );
}

/// The routing headers of a legacy request, when present, must agree with
/// its body too; and what a refusal quotes of a header is bounded.
#[tokio::test]
async fn http_checks_the_routing_headers_of_a_legacy_request() {
    let port = http_server().await;
    let host = format!("127.0.0.1:{port}");
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}})
    .to_string();
    let with = |method: &'static str| {
        vec![
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
            ("Mcp-Method", method),
        ]
    };
    let (status, body) = http_request(port, "POST", &host, &with("tools/call"), &initialize).await;
    assert_eq!((status, error_code(&body)), (400, Some(-32020)), "{body}");
    // The control: agreeing headers are served.
    let (status, body) = http_request(port, "POST", &host, &with("initialize"), &initialize).await;
    assert_eq!(status, 200, "{body}");
    // A 50 KB header value is not echoed back.
    let long = "x".repeat(50_000);
    let headers = modern_headers(&long, Some("add"));
    let add = call(1, "add", json!({"a": 1, "b": 1})).to_string();
    let (status, body) = http_request(port, "POST", &host, &headers, &add).await;
    assert_eq!(status, 400, "{}", &body[..body.len().min(300)]);
    assert!(
        body.len() < 2_000,
        "the refusal quotes {} bytes",
        body.len()
    );
}
