//! What `http::serve_with` does at the connection level, over raw TCP:
//! keep-alive comments on quiet event streams, the header that turns proxy
//! buffering off, the cap on open connections, the idle and header
//! timeouts, which must close abusive connections and spare busy ones, and
//! the answer to HTTP/2 without TLS.

#![cfg(feature = "http")]

mod common;

use std::time::{Duration, Instant};

use common::{call, listen, Tools};
use mcp_server::notify::Change;
use mcp_server::transport::http::{self, HttpConfig};
use mcp_server::Server;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Serves a fresh server with `config` on a free port.
async fn start(config: HttpConfig) -> (Server, u16) {
    let server = Server::builder(Tools)
        .tools()
        .build()
        .expect("server builds");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("address").port();
    tokio::spawn(http::serve_with(
        server.clone(),
        listener,
        config,
        std::future::pending(),
    ));
    (server, port)
}

fn add(id: i64) -> Value {
    call(id, "add", json!({"a": id, "b": 1}))
}

fn sleep(id: i64, ms: u64) -> Value {
    call(id, "sleep", json!({"ms": ms}))
}

/// A keep-alive HTTP/1.1 POST of `body` to `/mcp`.
fn post(port: u16, body: &Value) -> Vec<u8> {
    let method = body["method"].as_str().unwrap_or_default();
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: {method}\r\n"
    );
    if let Some(name) = body["params"]["name"].as_str() {
        head.push_str(&format!("Mcp-Name: {name}\r\n"));
    }
    let body = body.to_string();
    format!("{head}Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

/// How a wait for the server ended.
#[derive(Debug, PartialEq)]
enum End {
    /// What was waited for arrived.
    Arrived,
    /// The server closed the connection (or reset it).
    Closed,
    /// Nothing more came in time.
    Silent,
}

/// One client connection, with what it has read and not yet consumed.
struct Client {
    stream: TcpStream,
    text: String,
}

impl Client {
    async fn connect(port: u16) -> Self {
        let stream = TcpStream::connect(("127.0.0.1", port))
            .await
            .expect("connect");
        Client {
            stream,
            text: String::new(),
        }
    }

    async fn send(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).await.expect("send");
    }

    /// Reads until `done` holds of what was read, the server closes, or
    /// `within` passes.
    async fn wait(&mut self, within: Duration, done: impl Fn(&str) -> bool) -> End {
        let deadline = tokio::time::Instant::now() + within;
        let mut buffer = [0u8; 4096];
        while !done(&self.text) {
            match tokio::time::timeout_at(deadline, self.stream.read(&mut buffer)).await {
                Err(_) => return End::Silent,
                Ok(Ok(0) | Err(_)) => return End::Closed,
                Ok(Ok(n)) => self.text.push_str(&String::from_utf8_lossy(&buffer[..n])),
            }
        }
        End::Arrived
    }

    /// Reads one whole response with a `Content-Length` body and returns
    /// its status, head and body, keeping whatever follows.
    async fn response(&mut self) -> (u16, String, Value) {
        let end = self
            .wait(Duration::from_secs(2), |t| complete(t).is_some())
            .await;
        assert_eq!(end, End::Arrived, "no whole response: {:?}", self.text);
        let length = complete(&self.text).unwrap_or_default();
        let rest = self.text.split_off(length);
        let response = std::mem::replace(&mut self.text, rest);
        let (head, body) = response.split_once("\r\n\r\n").unwrap_or_default();
        let status = head
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let body = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {response}"));
        (status, head.to_ascii_lowercase(), body)
    }
}

/// The length of the first response in `text` when it has arrived whole.
fn complete(text: &str) -> Option<usize> {
    let head_end = text.find("\r\n\r\n")? + 4;
    let length = text[..head_end].lines().find_map(|l| {
        l.to_ascii_lowercase()
            .strip_prefix("content-length:")?
            .trim()
            .parse::<usize>()
            .ok()
    })?;
    (text.len() >= head_end + length).then_some(head_end + length)
}

#[test]
fn defaults_are_documented_values() {
    let config = HttpConfig::default();
    assert_eq!(config.sse_keep_alive, Duration::from_secs(15));
    assert_eq!(config.max_connections, 1024);
    assert_eq!(config.idle_timeout, Duration::from_secs(60));
    assert_eq!(config.header_timeout, Duration::from_secs(10));
}

#[tokio::test]
async fn a_quiet_listen_stream_gets_keep_alives_and_outlives_the_idle_timeout() {
    let (server, port) = start(HttpConfig {
        sse_keep_alive: Duration::from_millis(100),
        idle_timeout: Duration::from_millis(300),
        header_timeout: Duration::from_millis(200),
        ..HttpConfig::default()
    })
    .await;
    let mut client = Client::connect(port).await;
    client.send(&post(port, &listen(1))).await;
    let end = client
        .wait(Duration::from_secs(2), |t| t.contains("acknowledged"))
        .await;
    assert_eq!(end, End::Arrived, "{}", client.text);
    assert!(!client.text.contains(": keep-alive"), "{}", client.text);
    // Three times the idle timeout with nothing to report.
    let end = client.wait(Duration::from_millis(900), |_| false).await;
    assert_eq!(end, End::Silent, "the stream ended: {}", client.text);
    let comments = client.text.matches("\n: keep-alive\n\n").count();
    assert!((3..=12).contains(&comments), "{comments}: {}", client.text);
    // Still open, and still delivering.
    server.notify(Change::Tools);
    let end = client
        .wait(Duration::from_secs(2), |t| t.contains("tools/list_changed"))
        .await;
    assert_eq!(end, End::Arrived, "{}", client.text);
}

#[tokio::test]
async fn a_stream_that_keeps_sending_gets_no_keep_alives() {
    let (server, port) = start(HttpConfig {
        sse_keep_alive: Duration::from_millis(300),
        ..HttpConfig::default()
    })
    .await;
    let mut client = Client::connect(port).await;
    client.send(&post(port, &listen(1))).await;
    let end = client
        .wait(Duration::from_secs(2), |t| t.contains("acknowledged"))
        .await;
    assert_eq!(end, End::Arrived, "{}", client.text);
    // A notification every 100 ms for three keep-alive periods.
    for sent in 1..=9 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        server.notify(Change::Tools);
        let end = client
            .wait(Duration::from_secs(2), |t| {
                t.matches("tools/list_changed").count() == sent
            })
            .await;
        assert_eq!(end, End::Arrived, "{}", client.text);
    }
    assert!(!client.text.contains(": keep-alive"), "{}", client.text);
    // Then silence brings one.
    let end = client
        .wait(Duration::from_secs(2), |t| t.contains(": keep-alive"))
        .await;
    assert_eq!(end, End::Arrived, "{}", client.text);
}

#[tokio::test]
async fn open_streams_and_slow_handlers_are_never_idle() {
    // Keep-alives off: nothing at all is written while the stream waits.
    let (server, port) = start(HttpConfig {
        sse_keep_alive: Duration::MAX,
        idle_timeout: Duration::from_millis(200),
        header_timeout: Duration::from_millis(200),
        ..HttpConfig::default()
    })
    .await;
    let mut listening = Client::connect(port).await;
    listening.send(&post(port, &listen(1))).await;
    let end = listening
        .wait(Duration::from_secs(2), |t| t.contains("acknowledged"))
        .await;
    assert_eq!(end, End::Arrived, "{}", listening.text);
    let mut slow = Client::connect(port).await;
    slow.send(&post(port, &sleep(2, 800))).await;
    let (status, _, body) = slow.response().await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["content"][0]["text"], "awake");
    assert!(!listening.text.contains("keep-alive"), "{}", listening.text);
    server.notify(Change::Tools);
    let end = listening
        .wait(Duration::from_secs(2), |t| t.contains("tools/list_changed"))
        .await;
    assert_eq!(end, End::Arrived, "{}", listening.text);
}

#[tokio::test]
async fn event_streams_ask_proxies_not_to_buffer() {
    let (_, port) = start(HttpConfig::default()).await;
    let mut streamed = sleep(1, 1);
    streamed["params"]["_meta"]["progressToken"] = json!("p");
    for request in [listen(2), streamed] {
        let mut client = Client::connect(port).await;
        client.send(&post(port, &request)).await;
        let end = client
            .wait(Duration::from_secs(2), |t| t.contains("\r\n\r\n"))
            .await;
        assert_eq!(end, End::Arrived, "{}", client.text);
        let head = client.text.to_ascii_lowercase();
        assert!(
            head.contains("content-type: text/event-stream\r\n"),
            "{head}"
        );
        assert!(head.contains("\r\nx-accel-buffering: no\r\n"), "{head}");
    }
    let mut client = Client::connect(port).await;
    client.send(&post(port, &add(3))).await;
    let (status, head, _) = client.response().await;
    assert_eq!(status, 200);
    assert!(!head.contains("x-accel-buffering"), "{head}");
}

#[tokio::test]
async fn connections_beyond_the_cap_wait_until_one_closes() {
    let (_, port) = start(HttpConfig {
        max_connections: 2,
        ..HttpConfig::default()
    })
    .await;
    let mut first = Client::connect(port).await;
    let mut second = Client::connect(port).await;
    for (id, client) in [&mut first, &mut second].into_iter().enumerate() {
        client.send(&post(port, &add(id as i64))).await;
        assert_eq!(client.response().await.0, 200);
    }
    // The kernel completes the handshake, but nobody serves the third.
    let mut third = Client::connect(port).await;
    third.send(&post(port, &add(7))).await;
    let end = third
        .wait(Duration::from_millis(400), |t| !t.is_empty())
        .await;
    assert_eq!(end, End::Silent, "served beyond the cap: {}", third.text);
    // The two open ones go on being served.
    second.send(&post(port, &add(8))).await;
    assert_eq!(second.response().await.0, 200);
    drop(first);
    let (status, _, body) = third.response().await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["structuredContent"]["result"], 8);
}

#[tokio::test]
async fn a_silent_connection_is_closed_after_the_idle_timeout() {
    let (_, port) = start(HttpConfig {
        idle_timeout: Duration::from_millis(300),
        header_timeout: Duration::from_secs(5),
        ..HttpConfig::default()
    })
    .await;
    let started = Instant::now();
    let mut client = Client::connect(port).await;
    let end = client.wait(Duration::from_secs(2), |_| false).await;
    assert_eq!(end, End::Closed);
    let waited = started.elapsed();
    assert!(waited >= Duration::from_millis(250), "{waited:?}");
    assert!(client.text.is_empty(), "{}", client.text);
}

#[tokio::test]
async fn a_request_head_trickled_past_the_header_timeout_is_closed() {
    let (_, port) = start(HttpConfig {
        idle_timeout: Duration::from_secs(5),
        header_timeout: Duration::from_millis(300),
        ..HttpConfig::default()
    })
    .await;
    let stream = TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    let (mut reader, mut writer) = stream.into_split();
    let request = post(port, &add(1));
    let started = Instant::now();
    // One byte every 20 ms: the head alone would take seconds.
    let trickle = tokio::spawn(async move {
        for byte in request {
            if writer.write_all(&[byte]).await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    });
    let mut buffer = [0u8; 1024];
    let read = tokio::time::timeout(Duration::from_secs(2), reader.read(&mut buffer))
        .await
        .expect("closed in time");
    let waited = started.elapsed();
    assert!(matches!(read, Ok(0) | Err(_)), "answered: {read:?}");
    assert!(waited >= Duration::from_millis(250), "{waited:?}");
    assert!(!trickle.is_finished(), "the whole head got through");
    trickle.abort();
}

#[tokio::test]
async fn a_slow_body_is_timed_by_the_body_timeout_not_the_header_timeout() {
    let (_, port) = start(HttpConfig {
        idle_timeout: Duration::from_millis(200),
        header_timeout: Duration::from_millis(200),
        ..HttpConfig::default()
    })
    .await;
    let request = post(port, &add(4));
    let head_end = request
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a head")
        + 4;
    let mut client = Client::connect(port).await;
    client.send(&request[..head_end]).await;
    for chunk in request[head_end..].chunks(20) {
        tokio::time::sleep(Duration::from_millis(60)).await;
        client.send(chunk).await;
    }
    let (status, _, body) = client.response().await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["structuredContent"]["result"], 5);
}

#[tokio::test]
async fn a_keep_alive_client_with_requests_spaced_below_the_idle_timeout_keeps_working() {
    // Requests 300 ms apart under a 3 s idle timeout: a margin that a busy
    // machine does not eat, while the whole still outlasts one timeout.
    let (_, port) = start(HttpConfig {
        idle_timeout: Duration::from_secs(3),
        header_timeout: Duration::from_secs(3),
        ..HttpConfig::default()
    })
    .await;
    let mut client = Client::connect(port).await;
    let started = Instant::now();
    for id in 1..=11 {
        tokio::time::sleep(Duration::from_millis(300)).await;
        client.send(&post(port, &add(id))).await;
        let (status, _, body) = client.response().await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["result"]["structuredContent"]["result"], id + 1);
    }
    assert!(started.elapsed() > Duration::from_secs(3));
    // Then, left idle, the connection is closed.
    let end = client.wait(Duration::from_secs(10), |_| false).await;
    assert_eq!(end, End::Closed);
}

/// The connection preface of HTTP/2 (RFC 9113 §3.4), which a client with
/// prior knowledge sends first.
const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// An empty SETTINGS frame, the frame such a client sends next.
const SETTINGS: &[u8] = &[0, 0, 0, 4, 0, 0, 0, 0, 0];

/// Reads what the server sends until it closes the connection, or until
/// `within` passes.
async fn read_until_closed(stream: &mut TcpStream, within: Duration) -> (Vec<u8>, End) {
    let deadline = tokio::time::Instant::now() + within;
    let mut read = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        match tokio::time::timeout_at(deadline, stream.read(&mut buffer)).await {
            Err(_) => return (read, End::Silent),
            Ok(Ok(0) | Err(_)) => return (read, End::Closed),
            Ok(Ok(n)) => read.extend_from_slice(&buffer[..n]),
        }
    }
}

/// The HTTP/2 frames in `bytes`, as type, flags, stream and payload; a
/// frame cut short ends the list.
fn frames(mut bytes: &[u8]) -> Vec<(u8, u8, u32, &[u8])> {
    let mut frames = Vec::new();
    while bytes.len() >= 9 {
        let length =
            usize::from(bytes[0]) << 16 | usize::from(bytes[1]) << 8 | usize::from(bytes[2]);
        let stream = u32::from_be_bytes([bytes[5], bytes[6], bytes[7], bytes[8]]) & 0x7fff_ffff;
        let Some(payload) = bytes.get(9..9 + length) else {
            break;
        };
        frames.push((bytes[3], bytes[4], stream, payload));
        bytes = &bytes[9 + length..];
    }
    frames
}

/// Asserts that `answer` is a server preface (SETTINGS) and then a GOAWAY
/// that refuses every stream with HTTP_1_1_REQUIRED.
fn assert_refused_with_http_1_1_required(answer: &[u8]) {
    let frames = frames(answer);
    let [(4, 0, 0, settings), (7, 0, 0, goaway)] = frames.as_slice() else {
        panic!("not SETTINGS then GOAWAY: {answer:?}");
    };
    assert!(settings.len() % 6 == 0, "{answer:?}");
    assert!(goaway.len() >= 8, "{answer:?}");
    // No stream was processed, and the error is HTTP_1_1_REQUIRED (0xd).
    assert_eq!(goaway[..8], [0, 0, 0, 0, 0, 0, 0, 0xd], "{answer:?}");
}

#[tokio::test]
async fn http2_with_prior_knowledge_is_refused_at_once_with_http_1_1_required() {
    let (_, port) = start(HttpConfig::default()).await;
    let opening = [PREFACE, SETTINGS].concat();
    // Whole, in two writes, and a byte at a time.
    let ways: [(Vec<&[u8]>, u64); 3] = [
        (vec![&opening], 0),
        (vec![&opening[..10], &opening[10..]], 100),
        (opening.chunks(1).collect(), 5),
    ];
    for (writes, pause) in ways {
        let mut stream = TcpStream::connect(("127.0.0.1", port))
            .await
            .expect("connect");
        stream.set_nodelay(true).expect("nodelay");
        for write in &writes {
            stream.write_all(write).await.expect("send");
            tokio::time::sleep(Duration::from_millis(pause)).await;
        }
        let started = Instant::now();
        let (answer, end) = read_until_closed(&mut stream, Duration::from_secs(2)).await;
        assert_eq!(end, End::Closed, "in {} writes: {answer:?}", writes.len());
        assert!(started.elapsed() < Duration::from_secs(2));
        assert_refused_with_http_1_1_required(&answer);
    }
    // HTTP/1.1 is served as before.
    let mut client = Client::connect(port).await;
    client.send(&post(port, &add(1))).await;
    let (status, _, body) = client.response().await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["structuredContent"]["result"], 2);
}

#[tokio::test]
async fn an_upgrade_to_h2c_is_ignored_and_the_request_served_as_http_1_1() {
    let (_, port) = start(HttpConfig::default()).await;
    let upgrade = |id| {
        String::from_utf8(post(port, &add(id)))
            .expect("text")
            .replacen(
                "\r\nHost:",
                "\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n\
                 HTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\nHost:",
                1,
            )
    };
    let mut client = Client::connect(port).await;
    for id in [1, 2] {
        client.send(upgrade(id).as_bytes()).await;
        let (status, head, body) = client.response().await;
        assert_eq!(status, 200, "{head}");
        assert!(head.starts_with("http/1.1 200 "), "{head}");
        assert!(!head.contains("upgrade"), "{head}");
        assert_eq!(body["result"]["structuredContent"]["result"], id + 1);
    }
}

#[tokio::test]
async fn a_refused_http2_client_holds_its_place_no_longer_than_the_header_timeout() {
    let (_, port) = start(HttpConfig {
        max_connections: 1,
        idle_timeout: Duration::from_secs(5),
        header_timeout: Duration::from_millis(300),
        ..HttpConfig::default()
    })
    .await;
    // Refused, but it neither closes nor stops sending.
    let mut refused = TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    refused.write_all(PREFACE).await.expect("send");
    let mut answer = Vec::new();
    let mut buffer = [0u8; 256];
    while frames(&answer).len() < 2 {
        let read = tokio::time::timeout(Duration::from_secs(2), refused.read(&mut buffer))
            .await
            .expect("an answer in time")
            .expect("read");
        assert!(read > 0, "closed without an answer: {answer:?}");
        answer.extend_from_slice(&buffer[..read]);
    }
    assert_refused_with_http_1_1_required(&answer);
    let _ = refused.write_all(SETTINGS).await;
    // The next client gets the place once the header timeout has passed.
    let started = Instant::now();
    let mut client = Client::connect(port).await;
    client.send(&post(port, &add(3))).await;
    let (status, _, body) = client.response().await;
    assert!(started.elapsed() >= Duration::from_millis(150));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["structuredContent"]["result"], 4);
}

#[tokio::test]
async fn a_preface_cut_short_is_closed_after_the_header_timeout() {
    let (_, port) = start(HttpConfig {
        idle_timeout: Duration::from_secs(5),
        header_timeout: Duration::from_millis(300),
        ..HttpConfig::default()
    })
    .await;
    let mut stream = TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    let started = Instant::now();
    stream.write_all(&PREFACE[..20]).await.expect("send");
    let (answer, end) = read_until_closed(&mut stream, Duration::from_secs(2)).await;
    assert_eq!(end, End::Closed, "{answer:?}");
    assert!(answer.is_empty(), "{answer:?}");
    assert!(started.elapsed() >= Duration::from_millis(250));
}
