//! The HTTP client against a scripted provider on loopback: one
//! `127.0.0.1` listener per test, bound to port 0 and kept open for the
//! whole test. Each connection gets the next reply of the script and is
//! closed after it; the server records what it received and when a
//! client hung up.

mod provider_common;

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_agent::provider::http::{Client, Endpoint, Error, Timeouts};
use mcp_agent::provider::key::ApiKey;
use mcp_agent::provider::retry::RetryPolicy;
use mcp_agent::provider::{DecodeError, Limits, Provider, Request, StreamEvent};
use provider_common::{plain_request, sse};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{oneshot, Notify};

const KEY: &str = "sk-test-0123456789-secret";

/// What the server answers to one request.
enum Reply {
    /// A status, headers and a body with its length.
    Whole {
        status: u16,
        headers: Vec<(&'static str, String)>,
        body: Vec<u8>,
    },
    /// A 200 event stream in chunks; `cut` ends it without the closing
    /// chunk.
    Stream { chunks: Vec<Vec<u8>>, cut: bool },
    /// A 200 event stream of `first`, then comments every 20 ms until the
    /// client hangs up, which is reported on `closed`.
    Slow {
        first: Vec<u8>,
        closed: oneshot::Sender<()>,
    },
    /// A 200 event stream of `first`, then silence.
    Stall { first: Vec<u8> },
    /// The connection closed before any byte of a response.
    Hangup,
    /// A body of this many bytes sent chunked, without a length.
    Endless(usize),
}

/// One request as the server saw it.
#[derive(Debug, Clone)]
struct Seen {
    /// The request line.
    line: String,
    /// Header names (lowercase) and values.
    headers: Vec<(String, String)>,
    body: Value,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

struct Server {
    base: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Server {
    async fn start(script: Vec<Reply>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("binds");
        let base = format!("http://{}", listener.local_addr().expect("address"));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let script = Arc::new(Mutex::new(VecDeque::from(script)));
        let log = Arc::clone(&seen);
        tokio::spawn(async move {
            loop {
                let Ok((socket, _)) = listener.accept().await else {
                    continue;
                };
                let log = Arc::clone(&log);
                let script = Arc::clone(&script);
                tokio::spawn(async move {
                    serve(socket, log, script).await;
                });
            }
        });
        Self { base, seen }
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().expect("log").clone()
    }
}

async fn serve(
    mut socket: TcpStream,
    log: Arc<Mutex<Vec<Seen>>>,
    script: Arc<Mutex<VecDeque<Reply>>>,
) {
    let Some(seen) = read_request(&mut socket).await else {
        return;
    };
    log.lock().expect("log").push(seen);
    let reply = script.lock().expect("script").pop_front();
    let Some(reply) = reply else {
        let _ = socket
            .write_all(
                b"HTTP/1.1 599 Script Over\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
            )
            .await;
        return;
    };
    let _ = answer(&mut socket, reply).await;
}

async fn answer(socket: &mut TcpStream, reply: Reply) -> std::io::Result<()> {
    let stream_head = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n";
    match reply {
        Reply::Whole {
            status,
            headers,
            body,
        } => {
            let mut head = format!("HTTP/1.1 {status} Scripted\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n", body.len());
            for (name, value) in headers {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
            head.push_str("\r\n");
            socket.write_all(head.as_bytes()).await?;
            socket.write_all(&body).await?;
        }
        Reply::Stream { chunks, cut } => {
            socket.write_all(stream_head).await?;
            for piece in chunks {
                chunk(socket, &piece).await?;
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            if !cut {
                socket.write_all(b"0\r\n\r\n").await?;
            }
        }
        Reply::Slow { first, closed } => {
            socket.write_all(stream_head).await?;
            chunk(socket, &first).await?;
            loop {
                tokio::time::sleep(Duration::from_millis(20)).await;
                if chunk(socket, b": still thinking\n\n").await.is_err() {
                    let _ = closed.send(());
                    return Ok(());
                }
            }
        }
        Reply::Stall { first } => {
            socket.write_all(stream_head).await?;
            chunk(socket, &first).await?;
            tokio::time::sleep(Duration::from_secs(30)).await;
        }
        Reply::Hangup => {}
        Reply::Endless(size) => {
            socket.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n").await?;
            let piece = vec![b' '; 16 << 10];
            let mut sent = 0;
            while sent < size {
                chunk(socket, &piece).await?;
                sent += piece.len();
            }
            socket.write_all(b"0\r\n\r\n").await?;
        }
    }
    socket.flush().await
}

async fn chunk(socket: &mut TcpStream, data: &[u8]) -> std::io::Result<()> {
    socket
        .write_all(format!("{:x}\r\n", data.len()).as_bytes())
        .await?;
    socket.write_all(data).await?;
    socket.write_all(b"\r\n").await?;
    socket.flush().await
}

async fn read_request(socket: &mut TcpStream) -> Option<Seen> {
    let mut buffer = Vec::new();
    let mut piece = [0u8; 4096];
    let head_end = loop {
        if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break at;
        }
        let n = socket.read(&mut piece).await.ok()?;
        if n == 0 {
            return None;
        }
        buffer.extend_from_slice(&piece[..n]);
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let line = lines.next()?.to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = buffer[head_end + 4..].to_vec();
    while body.len() < length {
        let n = socket.read(&mut piece).await.ok()?;
        if n == 0 {
            return None;
        }
        body.extend_from_slice(&piece[..n]);
    }
    Some(Seen {
        line,
        headers,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    })
}

/// A client of `server` with fast retries of `attempts` attempts.
fn client(provider: Provider, server: &Server, attempts: u32) -> Client {
    client_with(provider, server, fast_retries(attempts), Limits::default())
}

fn client_with(provider: Provider, server: &Server, retry: RetryPolicy, limits: Limits) -> Client {
    let base = match provider {
        Provider::OpenAi => format!("{}/v1", server.base),
        _ => server.base.clone(),
    };
    let endpoint = Endpoint {
        provider,
        base_url: base,
        key: Some(ApiKey::new(KEY).expect("valid")),
    };
    let timeouts = Timeouts {
        connect: Duration::from_secs(5),
        read: Duration::from_secs(5),
        total: Duration::from_secs(20),
    };
    Client::with(endpoint, limits, retry, timeouts).expect("client")
}

fn fast_retries(max_attempts: u32) -> RetryPolicy {
    RetryPolicy {
        max_attempts,
        base_delay: Duration::from_millis(10),
        max_delay: Duration::from_millis(50),
        max_total_wait: Duration::from_secs(5),
    }
}

fn whole(status: u16, body: Value) -> Reply {
    Reply::Whole {
        status,
        headers: vec![],
        body: body.to_string().into_bytes(),
    }
}

fn openai_ok(text: &str) -> Value {
    json!({
        "id": "c", "object": "chat.completion", "created": 1, "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}
    })
}

/// The key must show in no error, however it is printed.
fn assert_no_key(error: &Error) {
    for shown in [error.to_string(), format!("{error:?}")] {
        assert!(!shown.contains(KEY), "the key leaked: {shown}");
        assert!(!shown.contains("secret"), "part of the key leaked: {shown}");
    }
}

fn request() -> Request {
    plain_request("gemini-x")
}

#[tokio::test]
async fn a_429_with_retry_after_is_waited_out() {
    let server = Server::start(vec![
        Reply::Whole {
            status: 429,
            headers: vec![("retry-after", "1".to_owned())],
            body: br#"{"error": {"message": "slow down", "type": "rate_limit"}}"#.to_vec(),
        },
        whole(200, openai_ok("after the wait")),
    ])
    .await;
    let client = client_with(
        Provider::OpenAi,
        &server,
        RetryPolicy::default(),
        Limits::default(),
    );
    let started = Instant::now();
    let response = client
        .complete(&request())
        .await
        .expect("succeeds on the second attempt");
    assert_eq!(response.text, "after the wait");
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "did not wait: {:?}",
        started.elapsed()
    );
    assert_eq!(server.seen().len(), 2, "attempts seen by the server");
}

#[tokio::test]
async fn server_errors_past_the_cap_are_a_clear_error() {
    let body = json!({"type": "error", "error": {"type": "api_error", "message": "Internal\u{1b}[31m error"}});
    let server = Server::start((0..5).map(|_| whole(500, body.clone())).collect()).await;
    let client = client(Provider::Anthropic, &server, 3);
    let error = client.complete(&request()).await.expect_err("fails");
    match &error {
        Error::Status {
            provider,
            status,
            message,
            attempts,
        } => {
            assert_eq!((*provider, *status, *attempts), ("anthropic", 500, 3));
            assert_eq!(message, "api_error: Internal\\u{1b}[31m error");
        }
        other => panic!("not a status error: {other:?}"),
    }
    assert_eq!(server.seen().len(), 3);
    assert!(
        error
            .to_string()
            .contains("anthropic answered 500 after 3 attempt(s)"),
        "{error}"
    );
    assert_no_key(&error);
}

#[tokio::test]
async fn a_400_is_not_retried() {
    let server = Server::start(vec![
        whole(
            400,
            json!({"error": {"message": "bad request", "status": "INVALID_ARGUMENT"}}),
        ),
        whole(200, json!({})),
    ])
    .await;
    let client = client(Provider::Gemini, &server, 4);
    let error = client.complete(&request()).await.expect_err("fails");
    assert!(
        matches!(&error, Error::Status { status: 400, attempts: 1, message, .. } if message == "INVALID_ARGUMENT: bad request"),
        "{error:?}"
    );
    assert_eq!(server.seen().len(), 1);
}

#[tokio::test]
async fn a_connection_closed_before_the_answer_is_retried() {
    let server = Server::start(vec![Reply::Hangup, whole(200, openai_ok("second try"))]).await;
    let client = client(Provider::OpenAi, &server, 3);
    let response = client.complete(&request()).await.expect("succeeds");
    assert_eq!(response.text, "second try");
    assert_eq!(server.seen().len(), 2);
}

#[tokio::test]
async fn the_key_goes_in_each_providers_header_only() {
    let gemini_ok = json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]}, "finishReason": "STOP"}]});
    let anthropic_ok = json!({"type": "message", "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn", "usage": {"input_tokens": 1, "output_tokens": 1}});
    let table = [
        (
            Provider::OpenAi,
            openai_ok("ok"),
            "POST /v1/chat/completions HTTP/1.1",
            "authorization",
            format!("Bearer {KEY}"),
        ),
        (
            Provider::Anthropic,
            anthropic_ok,
            "POST /v1/messages HTTP/1.1",
            "x-api-key",
            KEY.to_owned(),
        ),
        (
            Provider::Gemini,
            gemini_ok,
            "POST /v1beta/models/gemini-x:generateContent HTTP/1.1",
            "x-goog-api-key",
            KEY.to_owned(),
        ),
    ];
    for (provider, body, line, header, value) in table {
        let server = Server::start(vec![whole(200, body)]).await;
        let client = client(provider, &server, 1);
        assert!(
            !format!("{client:?}").contains(KEY),
            "the client's Debug shows the key"
        );
        let response = client.complete(&request()).await.expect("succeeds");
        assert_eq!(response.text, "ok", "{provider:?}");
        let seen = server.seen();
        assert_eq!(seen.len(), 1);
        assert_eq!(seen[0].line, line, "{provider:?}");
        assert_eq!(seen[0].header(header), Some(value.as_str()), "{provider:?}");
        let elsewhere: Vec<&(String, String)> = seen[0]
            .headers
            .iter()
            .filter(|(n, v)| n != header && v.contains(KEY))
            .collect();
        assert!(elsewhere.is_empty(), "{provider:?}: {elsewhere:?}");
        assert!(!seen[0].line.contains(KEY) && !seen[0].body.to_string().contains(KEY));
        if provider == Provider::Anthropic {
            assert_eq!(seen[0].header("anthropic-version"), Some("2023-06-01"));
        }
    }
}

#[tokio::test]
async fn a_key_echoed_by_the_provider_stays_out_of_the_error() {
    let body = format!(
        r#"{{"error": {{"message": "Incorrect API key provided: {KEY}", "type": "invalid_request_error"}}}}"#
    );
    let server = Server::start(vec![
        Reply::Whole {
            status: 401,
            headers: vec![],
            body: body.into_bytes(),
        },
        Reply::Whole {
            status: 401,
            headers: vec![],
            body: format!("plain text {KEY}").into_bytes(),
        },
    ])
    .await;
    let client = client(Provider::OpenAi, &server, 1);
    for _ in 0..2 {
        let error = client.complete(&request()).await.expect_err("fails");
        assert!(
            matches!(error, Error::Status { status: 401, .. }),
            "{error:?}"
        );
        assert!(error.to_string().contains("[redacted]"), "{error}");
        assert_no_key(&error);
    }
}

#[tokio::test]
async fn redirects_are_not_followed_so_the_key_stays_home() {
    let elsewhere = Server::start(vec![whole(200, openai_ok("stolen"))]).await;
    let server = Server::start(vec![Reply::Whole {
        status: 307,
        headers: vec![(
            "location",
            format!("{}/v1/chat/completions", elsewhere.base),
        )],
        body: b"{}".to_vec(),
    }])
    .await;
    let client = client(Provider::OpenAi, &server, 3);
    let error = client
        .complete(&request())
        .await
        .expect_err("a redirect is an error");
    assert!(
        matches!(
            error,
            Error::Status {
                status: 307,
                attempts: 1,
                ..
            }
        ),
        "{error:?}"
    );
    assert!(elsewhere.seen().is_empty(), "the redirect was followed");
}

#[tokio::test]
async fn an_oversized_body_is_refused() {
    let limits = Limits {
        max_body_bytes: 64 << 10,
        ..Limits::default()
    };
    let big = vec![b' '; 100 << 10];
    let server = Server::start(vec![
        Reply::Whole {
            status: 200,
            headers: vec![],
            body: big,
        },
        Reply::Endless(1 << 20),
    ])
    .await;
    let client = client_with(Provider::OpenAi, &server, fast_retries(3), limits);
    for what in ["with a length", "chunked"] {
        let error = client.complete(&request()).await.expect_err(what);
        assert!(
            matches!(
                error,
                Error::Decode {
                    source: DecodeError::TooLarge { limit: 65536, .. },
                    ..
                }
            ),
            "{what}: {error:?}"
        );
        assert_no_key(&error);
    }
    assert_eq!(server.seen().len(), 2, "neither was retried");
}

fn openai_events(texts: &[&str]) -> Vec<String> {
    texts
        .iter()
        .map(|t| json!({"choices": [{"index": 0, "delta": {"content": t}}]}).to_string())
        .collect()
}

#[tokio::test]
async fn a_stream_streams_and_counts_usage() {
    let mut events = openai_events(&["Hel", "lo"]);
    events
        .push(json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}).to_string());
    events.push(json!({"choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 2, "prompt_tokens_details": {"cached_tokens": 4}}}).to_string());
    events.push("[DONE]".to_owned());
    // Split mid-event, as a network would.
    let body = sse(&events);
    let (a, b) = body.split_at(body.len() / 3);
    let server = Server::start(vec![Reply::Stream {
        chunks: vec![a.to_vec(), b.to_vec()],
        cut: false,
    }])
    .await;
    let client = client(Provider::OpenAi, &server, 1);
    let mut seen_events = Vec::new();
    let response = client
        .stream(&request(), std::future::pending(), |e| seen_events.push(e))
        .await
        .expect("streams");
    assert_eq!(response.text, "Hello");
    assert_eq!(
        (
            response.usage.input_tokens,
            response.usage.output_tokens,
            response.usage.cached_input_tokens
        ),
        (9, 2, Some(4))
    );
    assert_eq!(seen_events[0], StreamEvent::TextDelta("Hel".into()));
    let sent = &server.seen()[0].body;
    assert_eq!(sent["stream"], json!(true));
    assert_eq!(sent["stream_options"], json!({"include_usage": true}));
}

#[tokio::test]
async fn a_stream_cut_midway_is_an_error_and_not_retried() {
    let body = sse(openai_events(&["Hel", "lo"]));
    let server = Server::start(vec![
        Reply::Stream {
            chunks: vec![body.clone()],
            cut: true,
        },
        Reply::Stream {
            chunks: vec![body],
            cut: false,
        },
    ])
    .await;
    let client = client(Provider::OpenAi, &server, 3);
    let mut texts = Vec::new();
    let error = client
        .stream(&request(), std::future::pending(), |e| {
            if let StreamEvent::TextDelta(t) = e {
                texts.push(t);
            }
        })
        .await
        .expect_err("cut");
    assert_eq!(texts, ["Hel", "lo"], "what arrived was delivered");
    assert!(
        matches!(
            error,
            Error::Transport { .. }
                | Error::Decode {
                    source: DecodeError::Sequence { .. },
                    ..
                }
        ),
        "{error:?}"
    );
    assert_eq!(
        server.seen().len(),
        1,
        "output had been delivered: no retry"
    );
    assert_no_key(&error);
}

#[tokio::test]
async fn a_slow_stream_cancelled_by_the_caller_ends_promptly() {
    let (closed_tx, closed_rx) = oneshot::channel();
    let first =
        sse([json!({"candidates": [{"content": {"parts": [{"text": "Thinking"}]}}]}).to_string()]);
    let server = Server::start(vec![Reply::Slow {
        first,
        closed: closed_tx,
    }])
    .await;
    let client = client(Provider::Gemini, &server, 3);
    let first_event = Notify::new();
    let started = Instant::now();
    let outcome = client
        .stream(&request(), first_event.notified(), |e| {
            if matches!(e, StreamEvent::TextDelta(_)) {
                first_event.notify_one();
            }
        })
        .await;
    assert!(
        matches!(outcome, Err(Error::Cancelled { provider: "gemini" })),
        "{outcome:?}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "took {:?}",
        started.elapsed()
    );
    tokio::time::timeout(Duration::from_secs(3), closed_rx)
        .await
        .expect("the server saw the connection close")
        .expect("reported");
    assert!(server.seen()[0]
        .line
        .ends_with(":streamGenerateContent?alt=sse HTTP/1.1"));
}

#[tokio::test]
async fn a_dropped_request_future_closes_the_connection() {
    let (closed_tx, closed_rx) = oneshot::channel();
    let first = sse(openai_events(&["Hi"]));
    let server = Server::start(vec![Reply::Slow {
        first,
        closed: closed_tx,
    }])
    .await;
    let client = client(Provider::OpenAi, &server, 1);
    let request = request();
    let turn = client.stream(&request, std::future::pending(), |_| {});
    let timed = tokio::time::timeout(Duration::from_millis(300), turn).await;
    assert!(timed.is_err(), "the slow stream cannot have ended");
    tokio::time::timeout(Duration::from_secs(3), closed_rx)
        .await
        .expect("the server saw the connection close")
        .expect("reported");
}

#[tokio::test]
async fn a_stalled_stream_ends_at_the_read_timeout() {
    let first = sse(openai_events(&["Hi"]));
    let server = Server::start(vec![Reply::Stall { first }]).await;
    let endpoint = Endpoint {
        provider: Provider::OpenAi,
        base_url: format!("{}/v1", server.base),
        key: None,
    };
    let timeouts = Timeouts {
        connect: Duration::from_secs(5),
        read: Duration::from_millis(300),
        total: Duration::from_secs(20),
    };
    let client =
        Client::with(endpoint, Limits::default(), fast_retries(3), timeouts).expect("client");
    let started = Instant::now();
    let mut delivered = 0;
    let error = client
        .stream(&request(), std::future::pending(), |_| delivered += 1)
        .await
        .expect_err("stalled");
    assert!(
        matches!(error, Error::Transport { attempts: 1, .. }),
        "{error:?}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(delivered, 1);
    assert_eq!(
        server.seen().len(),
        1,
        "output had been delivered: no retry"
    );
    assert_eq!(
        server.seen()[0].header("authorization"),
        None,
        "no key, no header"
    );
}

/// A turn can run on a multi-threaded runtime's task.
#[tokio::test]
async fn a_turn_is_send() {
    fn send<T: Send>(_: &T) {}
    let server = Server::start(vec![]).await;
    let client = client(Provider::OpenAi, &server, 1);
    let request = request();
    let turn = client.stream(&request, std::future::pending(), |_| {});
    send(&turn);
    let complete = client.complete(&request);
    send(&complete);
}

#[tokio::test]
async fn gemini_retry_info_in_the_body_is_honoured() {
    let quota = json!({"error": {"code": 429, "status": "RESOURCE_EXHAUSTED", "message": "quota",
        "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "0.4s"}]}});
    let ok = json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]}, "finishReason": "STOP"}]});
    let server = Server::start(vec![whole(429, quota), whole(200, ok)]).await;
    // The policy's own backoff is 10 ms: a wait of 400 ms is the body's.
    let client = client(Provider::Gemini, &server, 3);
    let started = Instant::now();
    let response = client.complete(&request()).await.expect("succeeds");
    assert_eq!(response.text, "ok");
    assert!(
        started.elapsed() >= Duration::from_millis(400),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(server.seen().len(), 2);
}

#[tokio::test]
async fn a_retry_after_past_the_wait_cap_gives_up_at_once() {
    let server = Server::start(vec![
        Reply::Whole {
            status: 503,
            headers: vec![("retry-after", "3600".to_owned())],
            body: br#"{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}"#.to_vec(),
        },
        whole(200, json!({})),
    ])
    .await;
    let client = client(Provider::Anthropic, &server, 3);
    let started = Instant::now();
    let error = client.complete(&request()).await.expect_err("gives up");
    assert!(
        matches!(&error, Error::Status { status: 503, attempts: 1, message, .. } if message == "overloaded_error: Overloaded"),
        "{error:?}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(server.seen().len(), 1);
}
