//! The stdio transport: a child process, one JSON message per line.
//!
//! A reader task routes every line from the child's stdout: responses by
//! request id, progress notifications by their token (the client uses the
//! request id as the token), and the server-to-client requests of the
//! legacy era to one queue the client answers from. A writer task owns the
//! child's stdin; closing it is the first step of shutdown.
//!
//! Lines that are not JSON-RPC messages are skipped, and so are responses
//! whose id no request waits for. A line longer than the client's message
//! limit ends the reader at once: the requests in flight fail with
//! [`ClientError::MessageTooLarge`], later ones with
//! [`ClientError::Closed`].
//!
//! Unless it is passed through to the host's stderr, the child's stderr is
//! read as it comes and only its last lines are kept ([`STDERR_LINES`],
//! each cut at [`STDERR_LINE_BYTES`]): the report of a server that exits
//! before it answers ([`Stdio::exit_report`]).

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio as ProcessStdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_types::jsonrpc::Message;
use mcp_types::meta;
use mcp_types::v2026_07_28::RequestId;
use serde_json::{json, Map, Value};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tracing::Instrument;

use super::error::ClientError;

/// How a server process is started.
///
/// Its `Debug` shows the names of the variables, never their values, and
/// the arguments as [`shown_args`](Self::shown_args) has them: an
/// argument or variable expanded from a secret never shows.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct StdioCommand {
    /// The program.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// The arguments as the configuration wrote them, before variables
    /// and inputs were expanded: what reports and `Debug` show instead of
    /// [`args`](Self::args), so that an expanded secret or input answer
    /// never shows. `None` shows `args`.
    pub shown_args: Option<Vec<String>>,
    /// Variables added to the host's environment.
    pub env: Vec<(String, String)>,
    /// The working directory.
    pub cwd: Option<PathBuf>,
    /// Whether the server's stderr goes to the host's stderr; otherwise
    /// only its last lines are kept, for the report of a failed start.
    pub inherit_stderr: bool,
}

impl std::fmt::Debug for StdioCommand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let env: Vec<&str> = self.env.iter().map(|(name, _)| name.as_str()).collect();
        f.debug_struct("StdioCommand")
            .field("command", &self.command)
            .field("args", self.shown_args.as_ref().unwrap_or(&self.args))
            .field("env", &env)
            .field("cwd", &self.cwd)
            .field("inherit_stderr", &self.inherit_stderr)
            .finish()
    }
}

impl StdioCommand {
    /// The program and its arguments, as one line to show a person: the
    /// arguments as the configuration wrote them, when it did
    /// ([`shown_args`](Self::shown_args)).
    pub fn command_line(&self) -> String {
        std::iter::once(&self.command)
            .chain(self.shown_args.as_ref().unwrap_or(&self.args))
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Most lines of a server's stderr kept for the report of a failed start.
pub const STDERR_LINES: usize = 10;

/// Longest line of a server's stderr kept, in bytes; the rest of a longer
/// line is dropped.
pub const STDERR_LINE_BYTES: usize = 512;

/// The last lines of a stream, bounded in number and in length.
#[derive(Debug, Default)]
struct Tail {
    lines: VecDeque<String>,
    current: Vec<u8>,
    cut: bool,
}

impl Tail {
    fn push(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            if byte == b'\n' {
                self.end_line();
            } else if self.current.len() < STDERR_LINE_BYTES {
                self.current.push(byte);
            } else {
                self.cut = true;
            }
        }
    }

    fn end_line(&mut self) {
        let mut line = String::from_utf8_lossy(&self.current).into_owned();
        if self.cut {
            line.push('…');
        }
        self.current.clear();
        self.cut = false;
        self.lines.push_back(line);
        if self.lines.len() > STDERR_LINES {
            self.lines.pop_front();
        }
    }

    /// The kept lines, the unfinished last one included.
    fn lines(&self) -> Vec<String> {
        let mut tail: Vec<String> = self.lines.iter().cloned().collect();
        if !self.current.is_empty() {
            tail.push(String::from_utf8_lossy(&self.current).into_owned());
        }
        let excess = tail.len().saturating_sub(STDERR_LINES);
        tail.drain(..excess);
        tail
    }
}

/// Reads `stream` to its end into `tail`.
async fn keep_tail<R: AsyncRead + Unpin>(mut stream: R, tail: Arc<Mutex<Tail>>) {
    let mut buffer = [0; 4096];
    while let Ok(n @ 1..) = stream.read(&mut buffer).await {
        if let Ok(mut tail) = tail.lock() {
            tail.push(&buffer[..n]);
        }
    }
}

/// How a server process ended, as far as the host saw it.
#[derive(Debug, Clone)]
pub(crate) struct ExitReport {
    /// Its exit status; `None` while it still runs.
    pub(crate) status: Option<ExitStatus>,
    /// The last lines of its stderr, unless it was passed through.
    pub(crate) stderr: Vec<String>,
}

enum Outgoing {
    Line(String),
    Close,
}

#[derive(Default)]
struct Routes {
    pending: HashMap<String, mpsc::UnboundedSender<Message>>,
    /// Why the reader stopped, once it has.
    end: Option<End>,
}

/// Why the reader of the server's output stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    /// The output ended or could not be read.
    Closed,
    /// A line passed the limit, in bytes.
    TooLarge(usize),
}

impl End {
    fn error(self) -> ClientError {
        match self {
            Self::Closed => ClientError::Closed,
            Self::TooLarge(limit) => ClientError::MessageTooLarge { limit },
        }
    }
}

/// A running server process.
pub(crate) struct Stdio {
    out: mpsc::UnboundedSender<Outgoing>,
    routes: Arc<Mutex<Routes>>,
    child: tokio::sync::Mutex<Option<Child>>,
    server_requests: Mutex<Option<mpsc::UnboundedReceiver<Message>>>,
    stderr: Arc<Mutex<Tail>>,
    stderr_reader: Mutex<Option<JoinHandle<()>>>,
}

/// The answer stream of one request.
pub(crate) struct Pending {
    rx: mpsc::UnboundedReceiver<Message>,
    routes: Arc<Mutex<Routes>>,
    key: String,
}

impl Pending {
    /// The next message for the request; once the server's output has
    /// ended, the reason as an error.
    pub(crate) async fn next(&mut self) -> Result<Message, ClientError> {
        if let Some(message) = self.rx.recv().await {
            return Ok(message);
        }
        let end = self.routes.lock().ok().and_then(|r| r.end);
        Err(end.unwrap_or(End::Closed).error())
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        if let Ok(mut routes) = self.routes.lock() {
            routes.pending.remove(&self.key);
        }
    }
}

fn key(id: &RequestId) -> String {
    id.to_string()
}

impl Stdio {
    /// Starts the process and its reader and writer tasks; lines longer
    /// than `limit` bytes fail the connection.
    ///
    /// # Errors
    ///
    /// When the process cannot be started.
    pub(crate) fn spawn(spec: &StdioCommand, limit: usize) -> std::io::Result<Self> {
        let mut command = Command::new(&spec.command);
        command
            .args(&spec.args)
            .envs(spec.env.iter().map(|(k, v)| (k, v)))
            .stdin(ProcessStdio::piped())
            .stdout(ProcessStdio::piped())
            .stderr(if spec.inherit_stderr {
                ProcessStdio::inherit()
            } else {
                ProcessStdio::piped()
            })
            .kill_on_drop(true);
        if let Some(cwd) = &spec.cwd {
            command.current_dir(cwd);
        }
        let mut child = command.spawn()?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(std::io::Error::other("no pipes to the child"));
        };
        let stderr = Arc::new(Mutex::new(Tail::default()));
        let stderr_reader = child
            .stderr
            .take()
            .map(|stream| tokio::spawn(keep_tail(stream, stderr.clone())));
        let (out, out_rx) = mpsc::unbounded_channel();
        tokio::spawn(write_lines(stdin, out_rx));
        let routes = Arc::new(Mutex::new(Routes::default()));
        let (requests_tx, requests_rx) = mpsc::unbounded_channel();
        tokio::spawn(
            read_lines(BufReader::new(stdout), limit, routes.clone(), requests_tx)
                .in_current_span(),
        );
        Ok(Self {
            out,
            routes,
            child: tokio::sync::Mutex::new(Some(child)),
            server_requests: Mutex::new(Some(requests_rx)),
            stderr,
            stderr_reader: Mutex::new(stderr_reader),
        })
    }

    /// How the process ended: its exit status and the end of its stderr,
    /// waiting at most `wait` for each.
    pub(crate) async fn exit_report(&self, wait: Duration) -> ExitReport {
        let status = match self.child.lock().await.as_mut() {
            Some(child) => tokio::time::timeout(wait, child.wait())
                .await
                .ok()
                .and_then(Result::ok),
            None => None,
        };
        let reader = self.stderr_reader.lock().ok().and_then(|mut r| r.take());
        if let Some(reader) = reader {
            let _ = tokio::time::timeout(wait, reader).await;
        }
        let stderr = self.stderr.lock().map(|t| t.lines()).unwrap_or_default();
        ExitReport { status, stderr }
    }

    /// The queue of the server's own requests (legacy era); taken once.
    pub(crate) fn take_server_requests(&self) -> Option<mpsc::UnboundedReceiver<Message>> {
        self.server_requests.lock().ok()?.take()
    }

    /// Whether the process's output has ended.
    pub(crate) fn is_closed(&self) -> bool {
        self.routes.lock().map_or(true, |r| r.end.is_some())
    }

    /// Sends a request and returns the stream of what comes back for it.
    pub(crate) fn send(&self, id: &RequestId, message: &Value) -> Result<Pending, ClientError> {
        let (tx, rx) = mpsc::unbounded_channel();
        let key = key(id);
        {
            let mut routes = self.routes.lock().map_err(|_| ClientError::Closed)?;
            if routes.end.is_some() {
                return Err(ClientError::Closed);
            }
            routes.pending.insert(key.clone(), tx);
        }
        let pending = Pending {
            rx,
            routes: self.routes.clone(),
            key,
        };
        self.write(message)?;
        Ok(pending)
    }

    /// Writes one message (a notification, or an answer to the server).
    pub(crate) fn write(&self, message: &Value) -> Result<(), ClientError> {
        self.out
            .send(Outgoing::Line(message.to_string()))
            .map_err(|_| ClientError::Closed)
    }

    /// Tells the server to stop working on `id`.
    pub(crate) fn cancel(&self, id: &RequestId, reason: &str) {
        let _ = self.write(&json!({
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": { "requestId": id, "reason": reason },
        }));
    }

    /// Closes stdin, waits `grace`, then sends SIGTERM, waits `grace`
    /// again, then SIGKILL. Returns how the process ended.
    pub(crate) async fn shutdown(&self, grace: Duration) -> Shutdown {
        let _ = self.out.send(Outgoing::Close);
        let Some(mut child) = self.child.lock().await.take() else {
            return Shutdown::AlreadyGone;
        };
        if tokio::time::timeout(grace, child.wait()).await.is_ok() {
            return Shutdown::Exited;
        }
        if let Some(pid) = child.id().and_then(|p| i32::try_from(p).ok()) {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGTERM,
            );
            if tokio::time::timeout(grace, child.wait()).await.is_ok() {
                return Shutdown::Terminated;
            }
        }
        let _ = child.kill().await;
        Shutdown::Killed
    }
}

/// How a server process ended at shutdown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shutdown {
    /// It exited on its own once stdin closed.
    Exited,
    /// It exited on SIGTERM.
    Terminated,
    /// It had to be killed.
    Killed,
    /// It had already been shut down.
    AlreadyGone,
}

async fn write_lines(mut stdin: ChildStdin, mut rx: mpsc::UnboundedReceiver<Outgoing>) {
    while let Some(Outgoing::Line(line)) = rx.recv().await {
        let mut bytes = line.into_bytes();
        bytes.push(b'\n');
        if stdin.write_all(&bytes).await.is_err() || stdin.flush().await.is_err() {
            break;
        }
    }
    // Dropping stdin closes it: the server sees end of input.
}

/// What [`read_line`] found.
#[derive(Debug, PartialEq, Eq)]
enum Read {
    /// A line, without its newline.
    Line(Vec<u8>),
    /// A line longer than the limit; the rest of it is left unread.
    TooLong,
    /// The end of input.
    End,
}

/// One line of at most `limit` bytes. A longer line is reported as soon as
/// it passes the limit, without waiting for its end.
async fn read_line<R: AsyncBufRead + Unpin>(reader: &mut R, limit: usize) -> std::io::Result<Read> {
    let mut line = Vec::new();
    loop {
        let buffer = reader.fill_buf().await?;
        if buffer.is_empty() {
            return Ok(if line.is_empty() {
                Read::End
            } else {
                Read::Line(line)
            });
        }
        let (chunk, used) = match buffer.iter().position(|b| *b == b'\n') {
            Some(end) => (&buffer[..end], Some(end + 1)),
            None => (buffer, None),
        };
        if line.len() + chunk.len() > limit {
            return Ok(Read::TooLong);
        }
        line.extend_from_slice(chunk);
        let done = used.is_some();
        let used = used.unwrap_or(buffer.len());
        reader.consume(used);
        if done {
            return Ok(Read::Line(line));
        }
    }
}

/// The request a notification belongs to: a progress report by its token
/// (the request's id), a listen stream's notification by its subscription
/// id (the listen request's id), and the server's end of a listen stream
/// by the id it cancels. All three render like [`key`].
fn notification_route(method: &str, params: &Map<String, Value>) -> Option<String> {
    let subscription = || {
        params
            .get("_meta")
            .and_then(|m| m.get(meta::SUBSCRIPTION_ID))
    };
    let cancelled = || {
        (method == "notifications/cancelled")
            .then(|| params.get("requestId"))
            .flatten()
    };
    params
        .get("progressToken")
        .or_else(subscription)
        .or_else(cancelled)
        .filter(|id| id.is_string() || id.is_i64())
        .map(Value::to_string)
}

/// Routes every message of the server's output until it ends or breaks
/// the limit, then fails what is still waiting.
async fn read_lines<R: AsyncBufRead + Unpin>(
    mut reader: R,
    limit: usize,
    routes: Arc<Mutex<Routes>>,
    requests: mpsc::UnboundedSender<Message>,
) {
    let end = loop {
        let line = match read_line(&mut reader, limit).await {
            Ok(Read::Line(line)) => line,
            Ok(Read::TooLong) => break End::TooLarge(limit),
            Ok(Read::End) | Err(_) => break End::Closed,
        };
        // Not a message (a banner, a log line, a blank line, stray JSON):
        // the channel is impure, but the messages around it still count.
        let Ok(message) = Message::from_slice(&line) else {
            continue;
        };
        let route = match &message {
            Message::Response { id, .. } => Some(key(id)),
            Message::ErrorResponse { id, .. } => id.as_ref().map(key),
            Message::Notification { method, params } => {
                let route = params.as_ref().and_then(|p| notification_route(method, p));
                if method == "notifications/message" && route.is_none() {
                    super::log::forward(params.as_ref());
                }
                route
            }
            Message::Request { .. } => {
                let _ = requests.send(message);
                continue;
            }
        };
        // A response to an id no request waits for (never issued, already
        // answered, or cancelled) goes nowhere.
        let Some(route) = route else { continue };
        let sender = routes
            .lock()
            .ok()
            .and_then(|r| r.pending.get(&route).cloned());
        if let Some(sender) = sender {
            let _ = sender.send(message);
        }
    };
    if let Ok(mut routes) = routes.lock() {
        routes.end = Some(end);
        routes.pending.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notifications_route_to_their_request() {
        let route = |method: &str, params: Value| {
            notification_route(method, params.as_object().expect("an object"))
        };
        let request = key(&RequestId::Integer(4));
        let listen = key(&RequestId::String("l-1".into()));
        assert_eq!(
            route(
                "notifications/progress",
                json!({"progressToken": 4, "progress": 1})
            ),
            Some(request.clone())
        );
        assert_eq!(
            route(
                "notifications/tools/list_changed",
                json!({"_meta": {meta::SUBSCRIPTION_ID: "l-1"}})
            ),
            Some(listen.clone())
        );
        // The server ends a listen stream by cancelling its id.
        assert_eq!(
            route("notifications/cancelled", json!({"requestId": "l-1"})),
            Some(listen)
        );
        assert_eq!(
            route("notifications/message", json!({"requestId": 4})),
            None
        );
        assert_eq!(
            route("notifications/progress", json!({"progressToken": 1.5})),
            None
        );
        assert_eq!(route("notifications/tools/list_changed", json!({})), None);
    }

    #[test]
    fn the_stderr_tail_is_bounded() {
        let mut tail = Tail::default();
        for n in 0..STDERR_LINES * 3 {
            tail.push(format!("line {n}\n").as_bytes());
        }
        // A line far longer than the limit, split across writes, unended.
        tail.push(&[b'x'; STDERR_LINE_BYTES]);
        tail.push(&[b'y'; STDERR_LINE_BYTES * 4]);
        let lines = tail.lines();
        assert_eq!(lines.len(), STDERR_LINES);
        assert_eq!(lines[0], format!("line {}", STDERR_LINES * 2 + 1));
        assert_eq!(lines[STDERR_LINES - 1], "x".repeat(STDERR_LINE_BYTES));
        tail.push(b"\n\xff bad\n");
        let lines = tail.lines();
        assert_eq!(
            lines[STDERR_LINES - 2],
            format!("{}…", "x".repeat(STDERR_LINE_BYTES))
        );
        assert_eq!(lines[STDERR_LINES - 1], "\u{fffd} bad");
    }

    #[tokio::test]
    async fn lines_are_bounded_and_split() {
        let mut input = Vec::new();
        input.extend_from_slice(b"{\"a\":1}\r\n");
        input.extend_from_slice(&[b'y'; 16]);
        input.extend_from_slice(b"\nlast");
        let mut reader = BufReader::with_capacity(4, &input[..]);
        let first = read_line(&mut reader, 16).await.expect("read");
        assert_eq!(first, Read::Line(b"{\"a\":1}\r".to_vec()));
        // A line of exactly the limit is accepted.
        let full = read_line(&mut reader, 16).await.expect("read");
        assert_eq!(full, Read::Line(vec![b'y'; 16]));
        let last = read_line(&mut reader, 16).await.expect("read");
        assert_eq!(last, Read::Line(b"last".to_vec()));
        assert_eq!(read_line(&mut reader, 16).await.expect("read"), Read::End);
    }

    #[tokio::test]
    async fn a_long_line_is_refused_before_its_end() {
        // Far longer than the limit, and never ended: the reader stops
        // once the limit is passed instead of buffering the rest.
        let input = vec![b'x'; 1 << 20];
        let mut reader = BufReader::with_capacity(64, &input[..]);
        assert_eq!(
            read_line(&mut reader, 100).await.expect("read"),
            Read::TooLong
        );
        assert!(reader.buffer().len() <= 64);
    }

    #[tokio::test]
    async fn a_long_line_fails_the_requests_in_flight() {
        let routes = Arc::new(Mutex::new(Routes::default()));
        let (tx, rx) = mpsc::unbounded_channel();
        routes
            .lock()
            .expect("lock")
            .pending
            .insert(key(&RequestId::Integer(1)), tx);
        let mut pending = Pending {
            rx,
            routes: routes.clone(),
            key: key(&RequestId::Integer(1)),
        };
        let mut input = b"Starting server...\n".to_vec();
        input.extend_from_slice(&[b'x'; 200]);
        let (requests, _) = mpsc::unbounded_channel();
        read_lines(BufReader::new(&input[..]), 100, routes.clone(), requests).await;
        assert!(matches!(
            pending.next().await,
            Err(ClientError::MessageTooLarge { limit: 100 })
        ));
        assert_eq!(routes.lock().expect("lock").end, Some(End::TooLarge(100)));
    }
}
