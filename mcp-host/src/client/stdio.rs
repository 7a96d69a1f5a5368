//! The stdio transport: a child process, one JSON message per line.
//!
//! A reader task routes every line from the child's stdout: responses by
//! request id, progress notifications by their token (the client uses the
//! request id as the token), and the server-to-client requests of the
//! legacy era to one queue the client answers from. A writer task owns the
//! child's stdin; closing it is the first step of shutdown.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Stdio as ProcessStdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_types::jsonrpc::Message;
use mcp_types::v2026_07_28::RequestId;
use serde_json::{json, Value};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;

use super::error::ClientError;

/// Largest line accepted from a server, in bytes.
const MAX_LINE: usize = 16 * 1024 * 1024;

/// How a server process is started.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StdioCommand {
    /// The program.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Variables added to the host's environment.
    pub env: Vec<(String, String)>,
    /// The working directory.
    pub cwd: Option<PathBuf>,
    /// Whether the server's stderr goes to the host's stderr; otherwise it
    /// is discarded.
    pub inherit_stderr: bool,
}

enum Outgoing {
    Line(String),
    Close,
}

#[derive(Default)]
struct Routes {
    pending: HashMap<String, mpsc::UnboundedSender<Message>>,
    closed: bool,
}

/// A running server process.
pub(crate) struct Stdio {
    out: mpsc::UnboundedSender<Outgoing>,
    routes: Arc<Mutex<Routes>>,
    child: tokio::sync::Mutex<Option<Child>>,
    server_requests: Mutex<Option<mpsc::UnboundedReceiver<Message>>>,
}

/// The answer stream of one request.
pub(crate) struct Pending {
    rx: mpsc::UnboundedReceiver<Message>,
    routes: Arc<Mutex<Routes>>,
    key: String,
}

impl Pending {
    pub(crate) async fn next(&mut self) -> Option<Message> {
        self.rx.recv().await
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
    /// Starts the process and its reader and writer tasks.
    pub(crate) fn spawn(spec: &StdioCommand) -> Result<Self, ClientError> {
        let mut command = Command::new(&spec.command);
        command
            .args(&spec.args)
            .envs(spec.env.iter().map(|(k, v)| (k, v)))
            .stdin(ProcessStdio::piped())
            .stdout(ProcessStdio::piped())
            .stderr(if spec.inherit_stderr {
                ProcessStdio::inherit()
            } else {
                ProcessStdio::null()
            })
            .kill_on_drop(true);
        if let Some(cwd) = &spec.cwd {
            command.current_dir(cwd);
        }
        let mut child = command.spawn().map_err(ClientError::Spawn)?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(ClientError::Spawn(std::io::Error::other(
                "no pipes to the child",
            )));
        };
        let (out, out_rx) = mpsc::unbounded_channel();
        tokio::spawn(write_lines(stdin, out_rx));
        let routes = Arc::new(Mutex::new(Routes::default()));
        let (requests_tx, requests_rx) = mpsc::unbounded_channel();
        tokio::spawn(read_lines(
            BufReader::new(stdout),
            routes.clone(),
            requests_tx,
        ));
        Ok(Self {
            out,
            routes,
            child: tokio::sync::Mutex::new(Some(child)),
            server_requests: Mutex::new(Some(requests_rx)),
        })
    }

    /// The queue of the server's own requests (legacy era); taken once.
    pub(crate) fn take_server_requests(&self) -> Option<mpsc::UnboundedReceiver<Message>> {
        self.server_requests.lock().ok()?.take()
    }

    /// Whether the process's output has ended.
    pub(crate) fn is_closed(&self) -> bool {
        self.routes.lock().map_or(true, |r| r.closed)
    }

    /// Sends a request and returns the stream of what comes back for it.
    pub(crate) fn send(&self, id: &RequestId, message: &Value) -> Result<Pending, ClientError> {
        let (tx, rx) = mpsc::unbounded_channel();
        let key = key(id);
        {
            let mut routes = self.routes.lock().map_err(|_| ClientError::Closed)?;
            if routes.closed {
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

/// One line of at most `MAX_LINE` bytes, without its newline; `None` at the
/// end of input. Longer lines are skipped.
async fn read_line<R: AsyncBufRead + Unpin>(reader: &mut R) -> std::io::Result<Option<Vec<u8>>> {
    let mut line = Vec::new();
    let mut too_long = false;
    loop {
        let buffer = reader.fill_buf().await?;
        if buffer.is_empty() {
            return Ok((!line.is_empty() && !too_long).then_some(line));
        }
        let (chunk, done) = match buffer.iter().position(|b| *b == b'\n') {
            Some(end) => (&buffer[..end], Some(end + 1)),
            None => (buffer, None),
        };
        if !too_long && line.len() + chunk.len() <= MAX_LINE {
            line.extend_from_slice(chunk);
        } else {
            too_long = true;
            line.clear();
        }
        let used = done.unwrap_or(buffer.len());
        reader.consume(used);
        if done.is_some() {
            if too_long {
                too_long = false;
                continue;
            }
            return Ok(Some(line));
        }
    }
}

async fn read_lines<R: AsyncBufRead + Unpin>(
    mut reader: R,
    routes: Arc<Mutex<Routes>>,
    requests: mpsc::UnboundedSender<Message>,
) {
    while let Ok(Some(line)) = read_line(&mut reader).await {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let Ok(message) = Message::from_slice(&line) else {
            continue;
        };
        let route = match &message {
            Message::Response { id, .. } => Some(key(id)),
            Message::ErrorResponse { id, .. } => id.as_ref().map(key),
            Message::Notification { params, .. } => params
                .as_ref()
                .and_then(|p| p.get("progressToken"))
                .map(Value::to_string),
            Message::Request { .. } => {
                let _ = requests.send(message);
                continue;
            }
        };
        let Some(route) = route else { continue };
        let sender = routes
            .lock()
            .ok()
            .and_then(|r| r.pending.get(&route).cloned());
        if let Some(sender) = sender {
            let _ = sender.send(message);
        }
    }
    if let Ok(mut routes) = routes.lock() {
        routes.closed = true;
        routes.pending.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn lines_are_bounded_and_split() {
        let long = vec![b'x'; MAX_LINE + 10];
        let mut input = Vec::new();
        input.extend_from_slice(b"{\"a\":1}\r\n");
        input.extend_from_slice(&long);
        input.extend_from_slice(b"\nlast");
        let mut reader = BufReader::with_capacity(64, &input[..]);
        let first = read_line(&mut reader).await.expect("read");
        assert_eq!(first.as_deref(), Some(&b"{\"a\":1}\r"[..]));
        let next = read_line(&mut reader).await.expect("read");
        assert_eq!(next.as_deref(), Some(&b"last"[..]));
        assert_eq!(read_line(&mut reader).await.expect("read"), None);
    }
}
