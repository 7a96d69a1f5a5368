//! Fairness under abuse, end to end over loopback HTTP: one client per
//! abused resource (slow bodies, slow handlers, handles, legacy sessions,
//! tasks), each from its own 127.0.0.x address, while an ordinary client
//! from another address goes about its work. With the per-client shares
//! on, the ordinary client is served and keeps what it made before the
//! abuse; with the shares off (the positive control), the same abuse makes
//! it fail, which shows the test can fail; so does it with only the share
//! of requests in flight on, which shows the shares of what a client
//! holds (handles, sessions) matter on their own.
//!
//! Run with `--nocapture` to see the figures: the ordinary client's
//! latency quiet and under abuse, and what each abuser ran into.

#![cfg(all(feature = "http", feature = "legacy", feature = "tasks"))]

use std::io;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_server::handle::{Handle, HandleStore};
use mcp_server::tasks::{MemoryTaskStore, TaskSettings};
use mcp_server::tool::ToolError;
use mcp_server::transport::http::{self, HttpConfig};
use mcp_server::{tool, tools, Context, Limits, Server};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio::sync::watch;

/// The ordinary client.
const ORDINARY: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 10);
/// The abusers, one address each.
const SLOW_BODIES: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 2);
const SLOW_HANDLERS: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 3);
const HANDLES: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 4);
const SESSIONS: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 5);
const TASKS: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 6);

/// The bounds of the server under test: small, so that the abusers reach
/// them within a second or two.
const MAX_IN_FLIGHT: usize = 64;
const IN_FLIGHT_SHARE: usize = 16;
const HANDLE_CAPACITY: usize = 256;
const MAX_SESSIONS: usize = 100;
const SESSION_SHARE: usize = 8;
const MAX_TASKS: usize = 100;
/// Above what the ordinary client makes (one task before the abuse and
/// one in eight of its operations during it), so that a well-behaved
/// client never meets its own share.
const TASK_SHARE: usize = 32;

/// How many operations the ordinary client runs in each phase.
const OPERATIONS: usize = 200;
/// How long the abusers have to reach their bounds before the ordinary
/// client starts, and the least time they run in all.
const WARM_UP: Duration = Duration::from_millis(1_000);
const LEAST_ABUSE: Duration = Duration::from_secs(5);
/// Longest any one request of the ordinary client may take, and any one
/// of its operations (a task is several requests).
const REQUEST_LIMIT: Duration = Duration::from_secs(5);
const OPERATION_LIMIT: Duration = Duration::from_secs(8);
/// How long a refused abuser waits before it tries again: it ignores
/// `Retry-After`, but does not spin through the machine's ports either.
const PAUSE: Duration = Duration::from_millis(25);
/// How many connections each in-flight abuser keeps going, and how many
/// requests each of the others has outstanding.
const HOLDERS: usize = 40;
const LOOPERS: usize = 4;

/// The kind of the handles `put` makes.
enum Memo {}
mcp_server::handle_kind!(Memo, prefix = "memo", ttl_secs = 600);

/// The tools: one quick, one slow, a handle store, and one that may run
/// as a task.
struct Kit {
    memos: HandleStore<Memo, String>,
}

#[tools]
impl Kit {
    /// Says `text` back.
    #[tool]
    fn echo(&self, text: String) -> String {
        text
    }

    /// Sleeps for twenty seconds, or until its client leaves.
    #[tool]
    async fn slow(&self) -> String {
        tokio::time::sleep(Duration::from_secs(20)).await;
        "slept".into()
    }

    /// Keeps `text` and returns its handle, counted against the client.
    #[tool]
    fn put(&self, cx: &Context, text: String) -> Result<String, ToolError> {
        self.memos
            .insert_for(cx, text)
            .map(|handle| handle.to_string())
            .map_err(|e| ToolError::execution(e.to_string()))
    }

    /// The text kept under `handle`.
    #[tool]
    fn get(&self, cx: &Context, handle: String) -> Result<String, ToolError> {
        let handle: Handle<Memo> =
            handle
                .parse()
                .map_err(|e: mcp_server::handle::ParseHandleError| {
                    ToolError::execution(e.to_string())
                })?;
        self.memos
            .get(&handle, cx.principal())
            .map_err(|e| ToolError::execution(e.to_string()))
    }

    /// Works for `ms` milliseconds; a task for a client that can have one.
    #[tool(task = "optional")]
    async fn job(&self, ms: u64) -> String {
        tokio::time::sleep(Duration::from_millis(ms)).await;
        format!("worked {ms} ms")
    }
}

/// Whether the per-client shares are in force, or made as large as the
/// whole so that they do nothing (the positive controls).
#[derive(Clone, Copy, PartialEq)]
enum Shares {
    On,
    Off,
    /// Only the share of places in flight is in force: the abusers of
    /// handles, sessions and tasks are then not crowded out by the
    /// in-flight abusers, and meet only the shares of what they hoard.
    InFlightOnly,
}

/// Serves a fresh server on 127.0.0.1 with the bounds above; returns its
/// port and the task serving it.
async fn serve(shares: Shares) -> (u16, tokio::task::JoinHandle<io::Result<()>>) {
    let (in_flight_share, session_share, handle_share, task_share) = match shares {
        Shares::On => (IN_FLIGHT_SHARE, SESSION_SHARE, None, TASK_SHARE),
        Shares::InFlightOnly => (
            IN_FLIGHT_SHARE,
            MAX_SESSIONS,
            Some(HANDLE_CAPACITY),
            MAX_TASKS,
        ),
        Shares::Off => (
            MAX_IN_FLIGHT,
            MAX_SESSIONS,
            Some(HANDLE_CAPACITY),
            MAX_TASKS,
        ),
    };
    let memos = HandleStore::new(HANDLE_CAPACITY);
    let memos = match handle_share {
        Some(share) => memos.with_share(share),
        None => memos,
    };
    let server = Server::builder(Kit { memos })
        .info("fairness", "1.0.0")
        .tools()
        .limits(Limits {
            max_in_flight: MAX_IN_FLIGHT,
            max_in_flight_per_client: in_flight_share,
            body_timeout: Duration::from_secs(2),
            ..Limits::default()
        })
        // No grace: every call of `job` that waits becomes a task.
        .tasks(
            TaskSettings::default()
                .store(MemoryTaskStore::new(MAX_TASKS).with_quota(task_share))
                .poll_interval(Duration::from_millis(10))
                .inline_grace(Duration::ZERO),
        )
        .build()
        .expect("server builds");
    let config = HttpConfig {
        max_sessions: MAX_SESSIONS,
        max_sessions_per_client: session_share,
        ..HttpConfig::default()
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("address").port();
    let serving = tokio::spawn(http::serve_with(
        server,
        listener,
        config,
        std::future::pending(),
    ));
    (port, serving)
}

// ---------------------------------------------------------------------
// Raw HTTP/1.1 from a chosen source address.
// ---------------------------------------------------------------------

/// A connection to the server from `from`: the server tells clients apart
/// by their address, so each party binds its own.
async fn connect(from: Ipv4Addr, port: u16) -> io::Result<TcpStream> {
    let socket = TcpSocket::new_v4()?;
    socket.bind(SocketAddrV4::new(from, 0).into())?;
    socket
        .connect(SocketAddr::from((Ipv4Addr::LOCALHOST, port)))
        .await
}

/// A POST to `/mcp` with `headers` besides the usual ones; one request a
/// connection, so that the answer ends where the connection does.
fn request(port: u16, headers: &[(&str, &str)], body: &str) -> String {
    let mut text = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         Content-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text.push_str("\r\n");
    text.push_str(body);
    text
}

/// The `_meta` of a modern request from a client with the tasks extension.
fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "extensions": {"io.modelcontextprotocol/tasks": {}}
        },
    })
}

/// A modern (2026-07-28) request: `method` routed by `name` (the tool, or
/// the task id).
fn modern(port: u16, method: &str, name: &str, mut params: Value) -> String {
    params["_meta"] = meta();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let headers = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", method),
        ("Mcp-Name", name),
    ];
    request(port, &headers, &body.to_string())
}

/// A modern `tools/call` of `tool`.
fn call(port: u16, tool: &str, arguments: Value) -> String {
    modern(
        port,
        "tools/call",
        tool,
        json!({"name": tool, "arguments": arguments}),
    )
}

/// A modern `tasks/get` of task `id`.
fn task_get(port: u16, id: &str) -> String {
    modern(port, "tasks/get", id, json!({"taskId": id}))
}

/// A legacy (2025-11-25) `initialize`, which opens a session.
fn initialize(port: u16) -> String {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "fairness", "version": "1"}}});
    request(port, &[], &body.to_string())
}

/// A legacy call of `echo` in `session`.
fn legacy_echo(port: u16, session: &str, text: &str) -> String {
    let body = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": text}}});
    let headers = [
        ("Mcp-Session-Id", session),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    request(port, &headers, &body.to_string())
}

/// An answer: its status, headers and body (de-chunked).
struct Answer {
    status: u16,
    head: String,
    body: String,
}

impl Answer {
    fn parse(bytes: &[u8]) -> io::Result<Answer> {
        let text = String::from_utf8_lossy(bytes);
        let (head, body) = text
            .split_once("\r\n\r\n")
            .ok_or_else(|| io::Error::new(io::ErrorKind::UnexpectedEof, "no whole head"))?;
        let status = head
            .split(' ')
            .nth(1)
            .and_then(|code| code.parse().ok())
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "no status"))?;
        let head = head.to_ascii_lowercase();
        let body = match head.contains("transfer-encoding: chunked") {
            true => dechunk(body),
            false => body.to_owned(),
        };
        Ok(Answer { status, head, body })
    }

    /// The value of header `name` (lowercase).
    fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            (key == name).then_some(value.trim())
        })
    }

    /// The JSON-RPC message of the body, whether sent as JSON or as the
    /// last event of a stream; `Null` when there is none.
    fn message(&self) -> Value {
        serde_json::from_str(&self.body)
            .ok()
            .or_else(|| {
                self.body
                    .lines()
                    .rev()
                    .filter_map(|line| line.strip_prefix("data:"))
                    .find_map(|data| serde_json::from_str(data.trim()).ok())
            })
            .unwrap_or(Value::Null)
    }

    /// The text of a tool result's first content block.
    fn text(&self) -> Option<String> {
        let message = self.message();
        message["result"]["content"][0]["text"]
            .as_str()
            .map(str::to_owned)
    }
}

/// The body of a chunked transfer, joined.
fn dechunk(mut rest: &str) -> String {
    let mut body = String::new();
    while let Some((size, after)) = rest.split_once("\r\n") {
        let Ok(size) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if size == 0 || after.len() < size {
            break;
        }
        body.push_str(&after[..size]);
        rest = after[size..].trim_start_matches("\r\n");
    }
    body
}

/// Sends `request` from `from` and reads the answer to the end of the
/// connection, within `limit`.
async fn exchange(from: Ipv4Addr, port: u16, request: &str, limit: Duration) -> io::Result<Answer> {
    let exchange = async {
        let mut stream = connect(from, port).await?;
        stream.write_all(request.as_bytes()).await?;
        let mut bytes = Vec::new();
        stream.read_to_end(&mut bytes).await?;
        Answer::parse(&bytes)
    };
    tokio::time::timeout(limit, exchange)
        .await
        .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "no answer in time"))?
}

// ---------------------------------------------------------------------
// The ordinary client.
// ---------------------------------------------------------------------

/// What the ordinary client made before the abuse, to look for after it.
struct Before {
    session: String,
    handle: String,
    task: String,
}

/// What the ordinary client found of it afterwards.
#[derive(Debug)]
struct Kept {
    session: bool,
    handle: bool,
    task: bool,
}

impl Kept {
    fn all(&self) -> bool {
        self.session && self.handle && self.task
    }
}

/// Opens a legacy session; its id.
async fn open_session(from: Ipv4Addr, port: u16) -> Option<String> {
    let answer = exchange(from, port, &initialize(port), REQUEST_LIMIT)
        .await
        .ok()?;
    (answer.status == 200)
        .then(|| answer.header("mcp-session-id").map(str::to_owned))
        .flatten()
}

/// Whether `session` still answers a call.
async fn session_answers(port: u16, session: &str, text: &str) -> bool {
    match exchange(
        ORDINARY,
        port,
        &legacy_echo(port, session, text),
        REQUEST_LIMIT,
    )
    .await
    {
        Ok(answer) => answer.status == 200 && answer.text().as_deref() == Some(text),
        Err(_) => false,
    }
}

/// Keeps `text` in the handle store; the handle.
async fn put(port: u16, text: &str) -> Option<String> {
    let answer = exchange(
        ORDINARY,
        port,
        &call(port, "put", json!({"text": text})),
        REQUEST_LIMIT,
    )
    .await
    .ok()?;
    let message = answer.message();
    if answer.status != 200 || message["result"]["isError"] == true {
        return None;
    }
    answer.text()
}

/// Whether `handle` resolves to `text`.
async fn get(port: u16, handle: &str, text: &str) -> bool {
    let request = call(port, "get", json!({"handle": handle}));
    match exchange(ORDINARY, port, &request, REQUEST_LIMIT).await {
        Ok(answer) => {
            answer.status == 200
                && answer.message()["result"]["isError"] != true
                && answer.text().as_deref() == Some(text)
        }
        Err(_) => false,
    }
}

/// Starts `job` from `from`: the task's id, or `Err` with the immediate
/// answer's text when the server ran it as an ordinary call.
async fn start_job(
    from: Ipv4Addr,
    port: u16,
    ms: u64,
) -> io::Result<Result<String, Option<String>>> {
    let answer = exchange(
        from,
        port,
        &call(port, "job", json!({"ms": ms})),
        REQUEST_LIMIT,
    )
    .await?;
    let message = answer.message();
    match message["result"]["taskId"].as_str() {
        Some(id) if message["result"]["resultType"] == "task" => Ok(Ok(id.to_owned())),
        _ => Ok(Err(answer.text())),
    }
}

/// The task `id` as `tasks/get` shows it (`Null` when unknown or refused).
async fn task_status(from: Ipv4Addr, port: u16, id: &str) -> Value {
    match exchange(from, port, &task_get(port, id), REQUEST_LIMIT).await {
        Ok(answer) if answer.status == 200 => answer.message()["result"].clone(),
        _ => Value::Null,
    }
}

/// Polls task `id` until it has finished; its result's text.
async fn await_task(port: u16, id: &str) -> Option<String> {
    loop {
        let task = task_status(ORDINARY, port, id).await;
        match task["status"].as_str()? {
            "completed" => {
                return task["result"]["content"][0]["text"]
                    .as_str()
                    .map(str::to_owned)
            }
            "working" => tokio::time::sleep(Duration::from_millis(10)).await,
            _ => return None,
        }
    }
}

/// Runs `job` to its result: as a task polled to completion, or answered
/// at once when the server would not make a task of it.
async fn run_job(port: u16, ms: u64) -> Option<String> {
    match start_job(ORDINARY, port, ms).await.ok()? {
        Ok(id) => await_task(port, &id).await,
        Err(text) => text,
    }
}

/// Makes the three records the ordinary client looks for after the abuse.
async fn make_before(port: u16) -> Before {
    let session = open_session(ORDINARY, port)
        .await
        .expect("a legacy session");
    let handle = put(port, "first memo").await.expect("a handle");
    let task = match start_job(ORDINARY, port, 50).await.expect("a task") {
        Ok(id) => id,
        Err(text) => panic!("the job was not made a task: {text:?}"),
    };
    let result = await_task(port, &task).await;
    assert_eq!(result.as_deref(), Some("worked 50 ms"));
    Before {
        session,
        handle,
        task,
    }
}

/// Whether the records made before are all still there.
async fn look_for(port: u16, before: &Before) -> Kept {
    let task = task_status(ORDINARY, port, &before.task).await;
    Kept {
        session: session_answers(port, &before.session, "still here").await,
        handle: get(port, &before.handle, "first memo").await,
        task: task["status"] == "completed"
            && task["result"]["content"][0]["text"] == "worked 50 ms",
    }
}

/// One operation of the ordinary client's mix, by its number: mostly quick
/// calls, handles and its legacy session, and one in eight a task.
async fn operation(port: u16, session: &str, n: usize) -> bool {
    let text = format!("op {n}");
    match n % 8 {
        0 | 3 | 6 => {
            let request = call(port, "echo", json!({"text": text}));
            match exchange(ORDINARY, port, &request, REQUEST_LIMIT).await {
                Ok(answer) => answer.status == 200 && answer.text() == Some(text),
                Err(_) => false,
            }
        }
        1 | 4 => match put(port, &text).await {
            Some(handle) => get(port, &handle, &text).await,
            None => false,
        },
        2 | 5 => session_answers(port, session, &text).await,
        _ => run_job(port, 20).await.as_deref() == Some("worked 20 ms"),
    }
}

/// What the ordinary client saw in one phase.
struct Workload {
    latencies: Vec<Duration>,
    succeeded: usize,
}

impl Workload {
    fn success_rate(&self) -> f64 {
        self.succeeded as f64 / self.latencies.len() as f64
    }

    /// The `q` quantile of the latencies (nearest rank).
    fn quantile(&self, q: f64) -> Duration {
        let mut sorted = self.latencies.clone();
        sorted.sort();
        let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
        sorted[rank - 1]
    }

    fn summary(&self) -> String {
        format!(
            "{} operations, {} succeeded ({:.1}%), median {:.2} ms, p99 {:.2} ms",
            self.latencies.len(),
            self.succeeded,
            100.0 * self.success_rate(),
            ms(self.quantile(0.5)),
            ms(self.quantile(0.99)),
        )
    }
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}

/// The ordinary client's fixed workload, each operation timed; one after
/// another, as one client works.
async fn ordinary_workload(port: u16, session: &str) -> Workload {
    let mut latencies = Vec::with_capacity(OPERATIONS);
    let mut succeeded = 0;
    for n in 0..OPERATIONS {
        let started = Instant::now();
        let ok = tokio::time::timeout(OPERATION_LIMIT, operation(port, session, n))
            .await
            .unwrap_or(false);
        latencies.push(started.elapsed());
        succeeded += usize::from(ok);
    }
    Workload {
        latencies,
        succeeded,
    }
}

// ---------------------------------------------------------------------
// The abusers.
// ---------------------------------------------------------------------

/// What one abuser ran into: how often it tried, how often it met its
/// bound, how often it got another answer (served, or 408 for a slow
/// body), and how often the network or an unexpected answer failed it.
#[derive(Default)]
struct Tally {
    tries: AtomicU64,
    bound: AtomicU64,
    answered: AtomicU64,
    errors: AtomicU64,
}

impl Tally {
    fn count(&self, counter: &AtomicU64) {
        counter.fetch_add(1, Relaxed);
    }

    fn line(&self, name: &str, bound: &str) -> String {
        format!(
            "{name}: {} tries, {} {bound}, {} other answers, {} errors",
            self.tries.load(Relaxed),
            self.bound.load(Relaxed),
            self.answered.load(Relaxed),
            self.errors.load(Relaxed),
        )
    }
}

/// The five abusers' tallies, and the first session and task the session
/// and task abusers made, to look for once the abuse is over.
#[derive(Default)]
struct Abuse {
    slow_bodies: Tally,
    slow_handlers: Tally,
    handles: Tally,
    sessions: Tally,
    tasks: Tally,
    first_session: Mutex<Option<String>>,
    first_task: Mutex<Option<String>>,
}

/// Resolves once the abuse is to stop.
async fn stopped(stop: &mut watch::Receiver<bool>) {
    let _ = stop.wait_for(|stop| *stop).await;
}

/// Sets `slot` to `value` unless it holds one already.
fn first(slot: &Mutex<Option<String>>, value: &str) {
    slot.lock()
        .unwrap_or_else(|e| e.into_inner())
        .get_or_insert_with(|| value.to_owned());
}

/// Starts every abuser; each runs until `stop`.
fn start_abuse(
    port: u16,
    abuse: &Arc<Abuse>,
    stop: &watch::Receiver<bool>,
) -> Vec<tokio::task::JoinHandle<()>> {
    let mut workers = Vec::new();
    for _ in 0..HOLDERS {
        workers.push(tokio::spawn(slow_body(port, abuse.clone(), stop.clone())));
        workers.push(tokio::spawn(slow_handler(
            port,
            abuse.clone(),
            stop.clone(),
        )));
    }
    for _ in 0..LOOPERS {
        workers.push(tokio::spawn(handle_flood(
            port,
            abuse.clone(),
            stop.clone(),
        )));
        workers.push(tokio::spawn(session_flood(
            port,
            abuse.clone(),
            stop.clone(),
        )));
        workers.push(tokio::spawn(task_flood(port, abuse.clone(), stop.clone())));
    }
    workers
}

/// Keeps one connection sending a request body a byte every 200 ms, and
/// opens another whenever the server answers (429 at the share, 408 at
/// the body timeout) or drops it.
async fn slow_body(port: u16, abuse: Arc<Abuse>, mut stop: watch::Receiver<bool>) {
    let tally = &abuse.slow_bodies;
    while !*stop.borrow() {
        tally.count(&tally.tries);
        let status = tokio::select! {
            status = trickle(port) => status,
            () = stopped(&mut stop) => return,
        };
        match status {
            Ok(429) => tally.count(&tally.bound),
            Ok(_) => tally.count(&tally.answered),
            Err(_) => tally.count(&tally.errors),
        }
        if !matches!(status, Ok(408)) {
            tokio::time::sleep(PAUSE).await;
        }
    }
}

/// One slow body: the status the server answered it with.
async fn trickle(port: u16) -> io::Result<u16> {
    let stream = connect(SLOW_BODIES, port).await?;
    let (mut reader, mut writer) = stream.into_split();
    let headers = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "echo"),
    ];
    let head =
        request(port, &headers, "").replace("Content-Length: 0\r\n", "Content-Length: 4096\r\n");
    writer.write_all(head.as_bytes()).await?;
    // The status line comes back once the server refuses or times the
    // body out; until then, a byte every 200 ms.
    let answered = async move {
        let mut line = [0u8; 12];
        reader.read_exact(&mut line).await?;
        let code = std::str::from_utf8(&line[9..]).unwrap_or("0");
        Ok::<u16, io::Error>(code.parse().unwrap_or(0))
    };
    tokio::pin!(answered);
    loop {
        tokio::select! {
            status = &mut answered => return status,
            () = tokio::time::sleep(Duration::from_millis(200)) => {
                if writer.write_all(b" ").await.is_err() {
                    // The server stopped reading: its answer, if any, is
                    // on its way.
                    return tokio::time::timeout(Duration::from_secs(1), &mut answered)
                        .await
                        .map_err(|_| io::Error::from(io::ErrorKind::TimedOut))?;
                }
            }
        }
    }
}

/// Keeps one call of `slow` in flight, calling again when refused.
async fn slow_handler(port: u16, abuse: Arc<Abuse>, mut stop: watch::Receiver<bool>) {
    let tally = &abuse.slow_handlers;
    let request = call(port, "slow", json!({}));
    while !*stop.borrow() {
        tally.count(&tally.tries);
        let answer = tokio::select! {
            answer = exchange(SLOW_HANDLERS, port, &request, Duration::from_secs(30)) => answer,
            () = stopped(&mut stop) => return,
        };
        match answer {
            Ok(answer) if answer.status == 429 => tally.count(&tally.bound),
            Ok(_) => tally.count(&tally.answered),
            Err(_) => tally.count(&tally.errors),
        }
        tokio::time::sleep(PAUSE).await;
    }
}

/// Puts handles in a loop, far past its share.
async fn handle_flood(port: u16, abuse: Arc<Abuse>, mut stop: watch::Receiver<bool>) {
    let tally = &abuse.handles;
    let request = call(port, "put", json!({"text": "hoarded"}));
    while !*stop.borrow() {
        tally.count(&tally.tries);
        let answer = tokio::select! {
            answer = exchange(HANDLES, port, &request, REQUEST_LIMIT) => answer,
            () = stopped(&mut stop) => return,
        };
        match answer {
            Ok(answer) if answer.text().is_some_and(|t| t.contains("its whole share")) => {
                tally.count(&tally.bound);
            }
            Ok(answer) if answer.status == 200 => tally.count(&tally.answered),
            _ => {
                tally.count(&tally.errors);
                tokio::time::sleep(PAUSE).await;
            }
        }
    }
}

/// Opens legacy sessions in a loop; the first is looked for afterwards.
async fn session_flood(port: u16, abuse: Arc<Abuse>, mut stop: watch::Receiver<bool>) {
    let tally = &abuse.sessions;
    while !*stop.borrow() {
        tally.count(&tally.tries);
        let session = tokio::select! {
            session = open_session(SESSIONS, port) => session,
            () = stopped(&mut stop) => return,
        };
        match session {
            Some(session) => {
                tally.count(&tally.answered);
                first(&abuse.first_session, &session);
            }
            None => {
                tally.count(&tally.errors);
                tokio::time::sleep(PAUSE).await;
            }
        }
    }
}

/// Starts quick tasks in a loop, never reading them; the first is looked
/// for afterwards. A call the server answers at once rather than make a
/// task of counts as meeting the bound.
async fn task_flood(port: u16, abuse: Arc<Abuse>, mut stop: watch::Receiver<bool>) {
    let tally = &abuse.tasks;
    while !*stop.borrow() {
        tally.count(&tally.tries);
        let started = tokio::select! {
            started = start_job(TASKS, port, 1) => started,
            () = stopped(&mut stop) => return,
        };
        match started {
            Ok(Ok(id)) => {
                tally.count(&tally.answered);
                first(&abuse.first_task, &id);
            }
            Ok(Err(Some(_))) => tally.count(&tally.bound),
            Ok(Err(None)) | Err(_) => {
                tally.count(&tally.errors);
                tokio::time::sleep(PAUSE).await;
            }
        }
    }
}

// ---------------------------------------------------------------------
// The phases.
// ---------------------------------------------------------------------

/// One phase: a fresh server, the ordinary client's records made before,
/// its workload (under abuse or not), and what was kept afterwards.
struct Phase {
    workload: Workload,
    kept: Kept,
    /// The abusers' tallies, and whether the session and task abusers'
    /// first records were gone afterwards (taken out by their own later
    /// ones).
    abuse: Option<(Arc<Abuse>, bool, bool)>,
}

async fn phase(shares: Shares, abused: bool) -> Phase {
    let (port, serving) = serve(shares).await;
    let before = make_before(port).await;
    let (stop_tx, stop) = watch::channel(false);
    let abuse = Arc::new(Abuse::default());
    let abuse_started = Instant::now();
    let workers = match abused {
        true => {
            let workers = start_abuse(port, &abuse, &stop);
            // The abusers reach their bounds before the ordinary client
            // starts, so that it works against a server already under
            // pressure.
            tokio::time::sleep(WARM_UP).await;
            workers
        }
        false => Vec::new(),
    };
    let workload = ordinary_workload(port, &before.session).await;
    if abused {
        // The abuse lasts at least LEAST_ABUSE, however quick the
        // ordinary client was.
        let left = LEAST_ABUSE.saturating_sub(abuse_started.elapsed());
        tokio::time::sleep(left).await;
    }
    let _ = stop_tx.send(true);
    for worker in workers {
        // A worker stuck past this has its connection dropped with it.
        if tokio::time::timeout(Duration::from_secs(2), worker)
            .await
            .is_err()
        {
            eprintln!("fairness: an abuser did not stop in time");
        }
    }
    let kept = look_for(port, &before).await;
    let abuse = match abused {
        true => {
            let first_session = abuse.first_session.lock().unwrap().clone();
            let first_task = abuse.first_task.lock().unwrap().clone();
            let session_gone = match first_session {
                Some(id) => {
                    let answer =
                        exchange(SESSIONS, port, &legacy_echo(port, &id, "?"), REQUEST_LIMIT).await;
                    answer.is_ok_and(|a| a.status == 404)
                }
                None => false,
            };
            let task_gone = match first_task {
                Some(id) => task_status(TASKS, port, &id).await.is_null(),
                None => false,
            };
            Some((abuse, session_gone, task_gone))
        }
        false => None,
    };
    serving.abort();
    Phase {
        workload,
        kept,
        abuse,
    }
}

/// Prints what the ordinary client kept and what each abuser ran into.
fn print_abuse(label: &str, phase: &Phase) {
    eprintln!("fairness: {label}: kept after abuse: {:?}", phase.kept);
    let Some((abuse, session_gone, task_gone)) = &phase.abuse else {
        return;
    };
    eprintln!(
        "fairness: {label}: {}",
        abuse.slow_bodies.line("slow bodies", "429")
    );
    eprintln!(
        "fairness: {label}: {}",
        abuse.slow_handlers.line("slow handlers", "429")
    );
    eprintln!(
        "fairness: {label}: {}",
        abuse.handles.line("handles", "share refusals")
    );
    eprintln!(
        "fairness: {label}: {} (its first session gone: {session_gone})",
        abuse.sessions.line("sessions", "refusals")
    );
    eprintln!(
        "fairness: {label}: {} (its first task gone: {task_gone})",
        abuse.tasks.line("tasks", "answered at once")
    );
}

/// The two tests each fill the machine; one at a time, so that neither's
/// figures measure the other.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// With the shares on, an ordinary client keeps being served, and keeps
/// its session, handle and task, while five clients each abuse one
/// resource from their own addresses; each abuser meets its bound.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ordinary_client_is_served_while_others_abuse_every_resource() {
    let _serial = ONE_AT_A_TIME.lock().await;
    let quiet = tokio::time::timeout(Duration::from_secs(20), phase(Shares::On, false))
        .await
        .expect("the quiet phase ends in time");
    let loaded = tokio::time::timeout(Duration::from_secs(30), phase(Shares::On, true))
        .await
        .expect("the abused phase ends in time");
    let (abuse, session_gone, task_gone) = loaded.abuse.as_ref().expect("abusers ran");

    eprintln!("fairness: quiet: {}", quiet.workload.summary());
    eprintln!("fairness: under abuse: {}", loaded.workload.summary());
    eprintln!(
        "fairness: under abuse / quiet: median {:.1}x, p99 {:.1}x",
        ms(loaded.workload.quantile(0.5)) / ms(quiet.workload.quantile(0.5)),
        ms(loaded.workload.quantile(0.99)) / ms(quiet.workload.quantile(0.99)),
    );
    print_abuse("shares on", &loaded);

    assert!(quiet.kept.all(), "quiet: {:?}", quiet.kept);
    assert!(
        quiet.workload.success_rate() >= 0.99,
        "quiet: {}",
        quiet.workload.summary()
    );
    assert!(
        loaded.workload.success_rate() >= 0.99,
        "under abuse: {}",
        loaded.workload.summary()
    );
    assert!(loaded.kept.all(), "lost under abuse: {:?}", loaded.kept);
    // Each abuser met its bound, so none of this passed with idle abusers.
    assert!(
        abuse.slow_bodies.bound.load(Relaxed) > 0,
        "slow bodies never got 429"
    );
    assert!(
        abuse.slow_handlers.bound.load(Relaxed) > 0,
        "slow handlers never got 429"
    );
    assert!(
        abuse.handles.bound.load(Relaxed) > 0,
        "the handle share never refused"
    );
    assert!(
        session_gone,
        "the session abuser's first session outlived its share"
    );
    assert!(
        *task_gone || abuse.tasks.bound.load(Relaxed) > 0,
        "the task abuser never met its share"
    );
}

/// The positive controls: with every share as large as the whole, the
/// same abuse makes the ordinary client fail, so the test above can fail.
/// With only the in-flight share in force, it fails too: the shares of
/// handles and sessions matter on their own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_shares_the_same_abuse_makes_the_ordinary_client_fail() {
    let _serial = ONE_AT_A_TIME.lock().await;
    for (shares, label) in [
        (Shares::Off, "shares off"),
        (Shares::InFlightOnly, "in-flight share only"),
    ] {
        let loaded = tokio::time::timeout(Duration::from_secs(30), phase(shares, true))
            .await
            .expect("the abused phase ends in time");
        eprintln!(
            "fairness: {label}: under abuse: {}",
            loaded.workload.summary()
        );
        print_abuse(label, &loaded);
        assert!(
            loaded.workload.success_rate() < 0.99 || !loaded.kept.all(),
            "{label}: the ordinary client was still served: {}, kept {:?}",
            loaded.workload.summary(),
            loaded.kept
        );
    }
}
