//! Every limit in `Limits`: exceeding it gets an error that names it, and
//! the server goes on serving.

#![cfg(feature = "http")]

mod common;

use std::time::Duration;

use common::{call, eventually, hold, listen, started, Tools};
use mcp_server::transport::{http, stdio};
use mcp_server::{Limits, Outcome, Server};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

fn server(limits: Limits) -> Server {
    Server::builder(Tools)
        .tools()
        .limits(limits)
        .build()
        .expect("server builds")
}

fn cancel(id: i64) -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id}})
}

/// The reply of an outcome that must be a plain reply.
fn reply(outcome: Outcome) -> (u16, Value) {
    match outcome {
        Outcome::Reply { status, message } => (status, message.to_value()),
        other => panic!("expected a reply, got {other:?}"),
    }
}

/// A stdio connection to an in-process server.
struct Pipe {
    input: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    output: BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>,
}

impl Pipe {
    fn start(server: Server) -> Self {
        let (client, server_side) = tokio::io::duplex(1 << 16);
        let (r, w) = tokio::io::split(server_side);
        tokio::spawn(stdio::serve_io(server, r, w));
        let (output, input) = tokio::io::split(client);
        Pipe {
            input,
            output: BufReader::new(output),
        }
    }

    async fn send(&mut self, message: &Value) {
        let mut line = serde_json::to_vec(message).expect("encodes");
        line.push(b'\n');
        self.input.write_all(&line).await.expect("write");
    }

    async fn next(&mut self) -> Value {
        let mut line = String::new();
        tokio::time::timeout(Duration::from_secs(10), self.output.read_line(&mut line))
            .await
            .expect("a line in time")
            .expect("read");
        serde_json::from_str(&line).expect("JSON line")
    }
}

/// Sends a POST and returns the status line, the headers and whatever body
/// arrived once `done` says it is enough (or the server closed).
async fn post(
    port: u16,
    body: &Value,
    name: Option<&str>,
    done: impl Fn(&str) -> bool,
) -> (u16, String, tokio::net::TcpStream) {
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    let body = body.to_string();
    let method = serde_json::from_str::<Value>(&body).expect("JSON")["method"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: {method}\r\nContent-Length: {}\r\n",
        body.len()
    );
    if let Some(name) = name {
        request.push_str(&format!("Mcp-Name: {name}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(&body);
    stream.write_all(request.as_bytes()).await.expect("send");
    let (status, text) = read_until(&mut stream, done).await;
    (status, text, stream)
}

/// Reads from `stream` until `done` says what arrived is enough, or the
/// peer closes: the status and the text.
async fn read_until(
    stream: &mut tokio::net::TcpStream,
    done: impl Fn(&str) -> bool,
) -> (u16, String) {
    let mut text = String::new();
    let mut buffer = [0u8; 4096];
    while !done(&text) {
        let read = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut buffer))
            .await
            .expect("data in time")
            .expect("read");
        if read == 0 {
            break;
        }
        text.push_str(&String::from_utf8_lossy(&buffer[..read]));
    }
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, text)
}

/// Whether a whole JSON body (by Content-Length) has arrived.
fn complete(text: &str) -> bool {
    let Some((head, body)) = text.split_once("\r\n\r\n") else {
        return false;
    };
    let length = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-length:")
                .map(|v| v.trim().to_owned())
        })
        .and_then(|v| v.parse::<usize>().ok());
    length.is_some_and(|n| body.len() >= n)
}

/// Serves `limits` with `config` through `serve_with`, which tells the
/// router each request's peer: the port.
async fn serve_peers(limits: Limits, config: http::HttpConfig) -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("address").port();
    tokio::spawn(http::serve_with(
        server(limits),
        listener,
        config,
        std::future::pending(),
    ));
    port
}

async fn serve_http(server: Server) -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("address").port();
    let app = http::router(server, "/mcp", http::HttpConfig::default());
    tokio::spawn(async move { axum::serve(listener, app).await });
    port
}

fn body_json(text: &str) -> Value {
    let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    serde_json::from_str(body.trim()).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[test]
fn defaults_are_documented_values() {
    let limits = Limits::default();
    assert_eq!(limits.max_message_bytes, 4 * 1024 * 1024);
    assert_eq!(limits.max_depth, 64);
    assert_eq!(limits.max_in_flight, 64);
    assert_eq!(limits.request_timeout, Duration::from_secs(300));
    assert_eq!(limits.body_timeout, Duration::from_secs(30));
    assert_eq!(limits.max_streams, 256);
}

#[tokio::test]
async fn nesting_deeper_than_the_limit_is_refused_before_parsing() {
    let server = server(Limits {
        max_depth: 8,
        ..Limits::default()
    });
    let deep = format!("{}{}", "[".repeat(9), "]".repeat(9));
    let (status, message) = reply(server.handle_bytes(deep.as_bytes(), None).await);
    assert_eq!(
        (status, message["error"]["code"].as_i64()),
        (400, Some(-32600))
    );
    assert!(message["error"]["message"]
        .as_str()
        .is_some_and(|m| m.contains("deeper than 8 levels")));
    // Within the limit, the same shape is parsed (and is then a batch).
    let shallow = format!("{}{}", "[".repeat(8), "]".repeat(8));
    let (_, message) = reply(server.handle_bytes(shallow.as_bytes(), None).await);
    assert!(message["error"]["message"]
        .as_str()
        .is_some_and(|m| m.contains("batches")));
    // Above the parser's own guard, the parser refuses: still an error,
    // never a stack overflow.
    let server = self::server(Limits {
        max_depth: 100_000,
        ..Limits::default()
    });
    let deeper = "[".repeat(50_000);
    let (_, message) = reply(server.handle_bytes(deeper.as_bytes(), None).await);
    assert_eq!(message["error"]["code"], -32700);
    assert!(message["error"]["message"]
        .as_str()
        .is_some_and(|m| m.contains("recursion limit")));
}

#[tokio::test]
async fn an_oversized_http_body_gets_413_with_a_json_rpc_error() {
    let port = serve_http(server(Limits {
        max_message_bytes: 1024,
        ..Limits::default()
    }))
    .await;
    let mut request = call(1, "add", json!({"a": 1, "b": 2}));
    request["params"]["pad"] = json!("x".repeat(2000));
    let (status, text, _) = post(port, &request, Some("add"), complete).await;
    assert_eq!(status, 413, "{text}");
    let error = &body_json(&text)["error"];
    assert_eq!(error["code"], -32600);
    assert!(error["message"]
        .as_str()
        .is_some_and(|m| m.contains("exceeds the limit of 1024 bytes")));
    let (status, text, _) = post(
        port,
        &call(2, "add", json!({"a": 1, "b": 2})),
        Some("add"),
        complete,
    )
    .await;
    assert_eq!(status, 200, "{text}");
}

/// Everything the server sends on `stream` until it closes it (the
/// requests say `Connection: close`); the status and the text.
async fn answer(stream: &mut tokio::net::TcpStream) -> (u16, String) {
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(30), stream.read_to_end(&mut raw))
        .await
        .expect("answered in time")
        .expect("read");
    let text = String::from_utf8_lossy(&raw).into_owned();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, text)
}

/// Sends the chunked `body` as it is; the status and the answer.
async fn post_chunked(port: u16, body: &str) -> (u16, String) {
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: add\r\nTransfer-Encoding: chunked\r\n\
         Connection: close\r\n\r\n{body}"
    );
    stream.write_all(request.as_bytes()).await.expect("send");
    answer(&mut stream).await
}

/// A chunked body whose framing is broken could not be read: 400, not the
/// 413 of a body over the limit, which a chunked body over it still gets.
#[tokio::test]
async fn a_malformed_chunked_body_gets_400_and_an_oversized_one_413() {
    let port = serve_http(server(Limits {
        max_message_bytes: 1024,
        ..Limits::default()
    }))
    .await;
    let (status, text) = post_chunked(port, "zz\r\n{}\r\n0\r\n\r\n").await;
    assert_eq!(status, 400, "{text}");
    let error = &body_json(&text)["error"];
    assert_eq!(error["code"], -32600, "{text}");
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("could not be read")),
        "{text}"
    );
    let big = "x".repeat(2000);
    let (status, text) =
        post_chunked(port, &format!("{:x}\r\n{big}\r\n0\r\n\r\n", big.len())).await;
    assert_eq!(status, 413, "{text}");
    // And a well-formed chunked call is served: the control.
    let call = call(3, "add", json!({"a": 1, "b": 2})).to_string();
    let (status, text) =
        post_chunked(port, &format!("{:x}\r\n{call}\r\n0\r\n\r\n", call.len())).await;
    assert_eq!(status, 200, "{text}");
}

/// Sends `body` as a POST from `source` (an address of 127.0.0.0/8, a
/// peer of its own) and reads the answer whole; the status and the text.
async fn post_from(source: [u8; 4], port: u16, body: &Value, name: &str) -> (u16, String) {
    post_via(source, port, body, name, "").await
}

/// [`post_from`] with more header lines (each ending in CRLF).
async fn post_via(
    source: [u8; 4],
    port: u16,
    body: &Value,
    name: &str,
    headers: &str,
) -> (u16, String) {
    let mut stream = connect_from(source, port).await;
    let body = body.to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: {name}\r\nConnection: close\r\n{headers}\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.expect("send");
    answer(&mut stream).await
}

/// `GET path` from 127.0.0.1.
async fn get(port: u16, path: &str) -> (u16, String) {
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    let request =
        format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.expect("send");
    answer(&mut stream).await
}

/// Behind a proxy listed in `trusted_proxies`, each forwarded client gets
/// its own share of the places in flight, and `/readyz` names the share
/// that refused while staying ready; a peer that is not a listed proxy is
/// one client whatever its `X-Forwarded-For` says. With `trusted` off (the
/// control), every client behind the proxy is the proxy and shares one
/// share.
async fn forwarded_shares(trusted: bool) -> (u16, String) {
    let limits = Limits {
        max_in_flight: 16,
        max_in_flight_per_client: 2,
        ..Limits::default()
    };
    let config = http::HttpConfig {
        trusted_proxies: match trusted {
            true => vec![std::net::Ipv4Addr::LOCALHOST.into()],
            false => Vec::new(),
        },
        ..http::HttpConfig::default()
    };
    let port = serve_peers(limits, config).await;
    let proxy = [127, 0, 0, 1];
    let outsider = [127, 0, 0, 3];
    // The proxy forwards two held calls of 10.0.0.1; the outsider holds
    // two of its own, claiming to forward for 10.0.0.3.
    let mut held = Vec::new();
    for (i, (source, forwarded)) in [
        (proxy, "10.0.0.1"),
        (proxy, "10.0.0.1"),
        (outsider, "10.0.0.3"),
        (outsider, "10.0.0.3"),
    ]
    .into_iter()
    .enumerate()
    {
        let key = format!("forwarded-{trusted}-{port}-{i}");
        let started = started(&key);
        let call = hold(30 + i as i64, &key, 3_000);
        let headers = format!("X-Forwarded-For: 6.6.6.6, {forwarded}\r\n");
        held.push(tokio::spawn(async move {
            post_via(source, port, &call, "hold", &headers).await
        }));
        tokio::time::timeout(Duration::from_secs(30), started.notified())
            .await
            .expect("the held call started");
    }
    let add = |id| call(id, "add", json!({"a": 1, "b": 2}));
    if trusted {
        // 10.0.0.1 holds its share.
        let (status, text) = post_via(
            proxy,
            port,
            &add(40),
            "add",
            "X-Forwarded-For: 10.0.0.1\r\n",
        )
        .await;
        assert_eq!(status, 429, "{text}");
        let (status, text) = get(port, "/readyz").await;
        assert_eq!(status, 200, "a saturated replica stays ready: {text}");
        // The record is the process's: other tests of this binary may
        // have filled other limits meanwhile.
        let ready = body_json(&text);
        let saturated: Vec<&Value> = ready["saturated"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|s| &s["limit"])
            .collect();
        assert!(
            saturated.contains(&&json!("max_in_flight_per_client")),
            "{text}"
        );
        // The outsider's header is its own words: it is one client.
        let (status, text) = post_via(
            outsider,
            port,
            &add(41),
            "add",
            "X-Forwarded-For: 10.0.0.4\r\n",
        )
        .await;
        assert_eq!(status, 429, "{text}");
    }
    // Another client behind the proxy.
    let answer = post_via(
        proxy,
        port,
        &add(42),
        "add",
        "X-Forwarded-For: 10.0.0.1, 10.0.0.2\r\n",
    )
    .await;
    for call in held {
        let (status, text) = call.await.expect("joined");
        assert_eq!(status, 200, "{text}");
    }
    answer
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_a_trusted_proxy_each_forwarded_client_has_its_share() {
    let (status, text) = forwarded_shares(true).await;
    assert_eq!(status, 200, "{text}");
    assert!(text.contains("\"result\""), "{text}");
}

/// The control: the same requests through a proxy not listed are one
/// client, and the second forwarded client is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_an_unlisted_proxy_every_client_is_the_proxy() {
    let (status, text) = forwarded_shares(false).await;
    assert_eq!(status, 429, "{text}");
}

/// One client holding its whole share of the places in flight is told to
/// retry (429, `Retry-After`), and another client, from another address,
/// is served meanwhile; once the first client's requests end, it is
/// served again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_over_its_share_gets_429_and_others_are_served() {
    let limits = Limits {
        max_in_flight: 8,
        max_in_flight_per_client: 2,
        ..Limits::default()
    };
    let port = serve_peers(limits, http::HttpConfig::default()).await;
    let abuser = [127, 0, 0, 1];
    let held: Vec<_> = (0..2)
        .map(|i| {
            let key = format!("share-{port}-{i}");
            let started = started(&key);
            let call = hold(10 + i, &key, 2_000);
            let answer = tokio::spawn(async move { post_from(abuser, port, &call, "hold").await });
            (started, answer)
        })
        .collect();
    for (started, _) in &held {
        tokio::time::timeout(Duration::from_secs(30), started.notified())
            .await
            .expect("the held call started");
    }
    let (status, text) = post_from(
        abuser,
        port,
        &call(20, "add", json!({"a": 1, "b": 2})),
        "add",
    )
    .await;
    assert_eq!(status, 429, "{text}");
    assert!(
        text.to_ascii_lowercase().contains("retry-after: 1"),
        "{text}"
    );
    let error = &body_json(&text)["error"];
    assert_eq!(error["data"]["limit"], "max_in_flight_per_client", "{text}");
    // Another peer, meanwhile: served.
    let (status, text) = post_from(
        [127, 0, 0, 2],
        port,
        &call(21, "add", json!({"a": 1, "b": 2})),
        "add",
    )
    .await;
    assert_eq!(status, 200, "{text}");
    for (_, answer) in held {
        let (status, text) = answer.await.expect("joined");
        assert_eq!(status, 200, "{text}");
    }
    // Its requests over, the first client is served again.
    let (status, text) = post_from(
        abuser,
        port,
        &call(22, "add", json!({"a": 1, "b": 2})),
        "add",
    )
    .await;
    assert_eq!(status, 200, "{text}");
}

#[tokio::test]
async fn stdio_answers_requests_beyond_max_in_flight_at_once() {
    let mut pipe = Pipe::start(server(Limits {
        max_in_flight: 2,
        ..Limits::default()
    }));
    pipe.send(&call(1, "sleep", json!({"ms": 60_000}))).await;
    pipe.send(&call(2, "sleep", json!({"ms": 60_000}))).await;
    pipe.send(&call(3, "add", json!({"a": 1, "b": 2}))).await;
    let busy = pipe.next().await;
    assert_eq!(busy["id"], 3);
    assert_eq!(busy["error"]["code"], -32603);
    assert_eq!(
        busy["error"]["data"],
        json!({"limit": "max_in_flight", "max": 2})
    );
    // The reader never blocked, so cancellations get through and free the
    // places; until they have, a call is still refused as busy.
    pipe.send(&cancel(1)).await;
    pipe.send(&cancel(2)).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    let mut id = 3;
    let answer = loop {
        id += 1;
        pipe.send(&call(id, "add", json!({"a": 1, "b": 2}))).await;
        let answer = pipe.next().await;
        assert_eq!(answer["id"], id);
        if answer["error"]["code"] != -32603 {
            break answer;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no place within 30 s of the cancellations"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    assert_eq!(answer["result"]["structuredContent"]["result"], 3);
}

#[tokio::test]
async fn an_http_body_that_never_arrives_gets_408() {
    // The handler limit stays long: the body limit alone must answer.
    let port = serve_http(server(Limits {
        body_timeout: Duration::from_millis(200),
        ..Limits::default()
    }))
    .await;
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         Content-Length: 100\r\n\r\n{{\"jsonrpc\""
    );
    stream.write_all(head.as_bytes()).await.expect("send");
    let mut text = String::new();
    let mut buffer = [0u8; 4096];
    while !complete(&text) {
        let read = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buffer))
            .await
            .expect("answered in time")
            .expect("read");
        if read == 0 {
            break;
        }
        text.push_str(&String::from_utf8_lossy(&buffer[..read]));
    }
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    assert_eq!(body_json(&text)["error"]["code"], -32600);
}

#[tokio::test]
async fn http_answers_503_beyond_max_in_flight() {
    let port = serve_http(server(Limits {
        max_in_flight: 1,
        ..Limits::default()
    }))
    .await;
    // Once its handler runs, the slow call holds the one place.
    let slow =
        tokio::spawn(
            async move { post(port, &hold(1, "503", 60_000), Some("hold"), complete).await },
        );
    tokio::time::timeout(Duration::from_secs(30), started("503").notified())
        .await
        .expect("the handler runs");
    let (status, text, _) = post(
        port,
        &call(2, "add", json!({"a": 1, "b": 2})),
        Some("add"),
        complete,
    )
    .await;
    assert_eq!(status, 503, "{text}");
    assert!(text.to_ascii_lowercase().contains("retry-after: 1"));
    let error = &body_json(&text)["error"];
    assert_eq!(error["code"], -32603);
    assert_eq!(error["data"], json!({"limit": "max_in_flight", "max": 1}));
    // The client leaving cancels the handler and frees the place.
    slow.abort();
    eventually("the place freed", || async {
        let (status, _, _) = post(
            port,
            &call(3, "add", json!({"a": 1, "b": 2})),
            Some("add"),
            complete,
        )
        .await;
        (status == 200).then_some(())
    })
    .await;
}

#[tokio::test]
async fn a_handler_past_the_timeout_is_cancelled_and_answered() {
    let server = server(Limits {
        request_timeout: Duration::from_millis(200),
        ..Limits::default()
    });
    let started = std::time::Instant::now();
    let (status, message) = reply(
        server
            .handle(call(1, "sleep", json!({"ms": 30_000})), None)
            .await,
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(status, 200);
    assert_eq!(message["id"], 1);
    assert_eq!(message["error"]["code"], -32603);
    assert_eq!(
        message["error"]["data"],
        json!({"limit": "request_timeout", "max": 200})
    );
    // A streamed answer (progress requested) is timed the same way.
    let mut streamed = call(2, "sleep", json!({"ms": 30_000}));
    streamed["params"]["_meta"]["progressToken"] = json!("p");
    let Outcome::Stream {
        mut messages,
        guard: _guard,
    } = server.handle(streamed, None).await
    else {
        panic!("a request for progress streams");
    };
    let last = tokio::time::timeout(Duration::from_secs(5), messages.recv())
        .await
        .expect("answered in time")
        .expect("one message");
    assert_eq!(
        (last["id"].as_i64(), last["error"]["code"].as_i64()),
        (Some(2), Some(-32603))
    );
    let (_, message) = reply(
        server
            .handle(call(3, "sleep", json!({"ms": 1})), None)
            .await,
    );
    assert_eq!(message["result"]["content"][0]["text"], "awake");
}

#[tokio::test]
async fn streams_beyond_max_streams_are_refused_until_one_closes() {
    let server = server(Limits {
        max_streams: 1,
        ..Limits::default()
    });
    let first = server.handle(listen(1), None).await;
    assert!(matches!(first, Outcome::Stream { .. }));
    let (status, message) = reply(server.handle(listen(2), None).await);
    assert_eq!(status, 503);
    assert_eq!(message["id"], 2);
    assert_eq!(message["error"]["code"], -32603);
    assert_eq!(
        message["error"]["data"],
        json!({"limit": "max_streams", "max": 1})
    );
    // A streamed tool answer needs a place too; a plain one does not.
    let mut streamed = call(3, "add", json!({"a": 1, "b": 2}));
    streamed["params"]["_meta"]["progressToken"] = json!(1);
    let (status, _) = reply(server.handle(streamed.clone(), None).await);
    assert_eq!(status, 503);
    let (status, _) = reply(
        server
            .handle(call(4, "add", json!({"a": 1, "b": 2})), None)
            .await,
    );
    assert_eq!(status, 200);
    // Closing the listen stream frees its place.
    drop(first);
    assert!(matches!(
        server.handle(streamed, None).await,
        Outcome::Stream { .. }
    ));
}

#[tokio::test]
async fn http_listen_streams_are_bounded() {
    let port = serve_http(server(Limits {
        max_streams: 1,
        ..Limits::default()
    }))
    .await;
    let (status, text, open) = post(port, &listen(1), None, |t| t.contains("acknowledged")).await;
    assert_eq!(status, 200, "{text}");
    let (status, text, _) = post(port, &listen(2), None, complete).await;
    assert_eq!(status, 503, "{text}");
    assert_eq!(body_json(&text)["error"]["data"]["limit"], "max_streams");
    // The client leaving ends the stream and frees the place.
    drop(open);
    let (text, _stream) = eventually("the stream's place freed", || async {
        let (status, text, stream) = post(port, &listen(3), None, |t| {
            t.contains("acknowledged") || complete(t)
        })
        .await;
        (status == 200).then_some((text, stream))
    })
    .await;
    assert!(text.contains("acknowledged"), "{text}");
}

/// A connection to the server on `port` from the loopback address
/// `source`, which stands for another peer.
async fn connect_from(source: [u8; 4], port: u16) -> tokio::net::TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().expect("socket");
    socket
        .bind((std::net::Ipv4Addr::from(source), 0).into())
        .expect("bind the source address");
    socket
        .connect(([127, 0, 0, 1], port).into())
        .await
        .expect("connect")
}

/// A `subscriptions/listen` stream opened from `source`: the status, what
/// arrived up to the acknowledgement (or a whole refusal), and the open
/// connection that keeps the stream.
async fn listen_from(source: [u8; 4], port: u16, id: i64) -> (u16, String, tokio::net::TcpStream) {
    let mut stream = connect_from(source, port).await;
    let body = listen(id).to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: subscriptions/listen\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.expect("send");
    let (status, text) =
        read_until(&mut stream, |t| t.contains("acknowledged") || complete(t)).await;
    (status, text, stream)
}

/// One client holding its share of open streams is told to retry (429,
/// `Retry-After`) while another client opens its own; with the share as
/// large as the server's bound (the control), the first client takes every
/// place and the second is refused with 503.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_at_its_share_of_streams_gets_429_and_others_open_theirs() {
    for share in [2, 4] {
        let limits = Limits {
            max_streams: 4,
            max_streams_per_client: share,
            ..Limits::default()
        };
        let port = serve_peers(limits, http::HttpConfig::default()).await;
        let abuser = [127, 0, 0, 4];
        let mut open = Vec::new();
        for id in 0..share as i64 {
            let (status, text, stream) = listen_from(abuser, port, id).await;
            assert_eq!(status, 200, "{text}");
            open.push(stream);
        }
        let (status, text, _) = listen_from(abuser, port, 10).await;
        let (other, other_text, _kept) = listen_from([127, 0, 0, 5], port, 11).await;
        if share == 2 {
            assert_eq!(status, 429, "{text}");
            assert!(
                text.to_ascii_lowercase().contains("retry-after: 1"),
                "{text}"
            );
            assert_eq!(
                body_json(&text)["error"]["data"]["limit"],
                "max_streams_per_client"
            );
            assert_eq!(other, 200, "another client is served: {other_text}");
        } else {
            assert_ne!(status, 200, "{text}");
            assert_eq!(
                other, 503,
                "the control: every place is taken: {other_text}"
            );
        }
    }
}

#[tokio::test]
async fn a_legacy_client_may_pipeline_past_max_in_flight_when_calls_do_not_wait() {
    let mut pipe = Pipe::start(server(Limits {
        max_in_flight: 2,
        ..Limits::default()
    }));
    pipe.send(
        &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"}}}),
    )
    .await;
    assert_eq!(pipe.next().await["result"]["protocolVersion"], "2025-11-25");
    pipe.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    // Written back to back before any answer is read: calls that finish
    // without waiting are answered as they are read and hold no place.
    let mut burst = Vec::new();
    for id in 1..=200 {
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "add", "arguments": {"a": id, "b": 1}}});
        burst.extend(serde_json::to_vec(&request).expect("encodes"));
        burst.push(b'\n');
    }
    pipe.input.write_all(&burst).await.expect("write");
    for id in 1..=200 {
        let answer = pipe.next().await;
        assert_eq!(answer["id"], id, "{answer}");
        assert_eq!(answer["result"]["structuredContent"]["result"], id + 1);
        assert!(answer["result"].get("resultType").is_none(), "{answer}");
    }
}
