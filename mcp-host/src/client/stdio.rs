//! The stdio transport: a child process, one JSON message per line, over
//! a [`Channel`] that routes them.
//!
//! A reader task reads the child's stdout; a writer task owns the child's
//! stdin, and closing it is the first step of shutdown.
//!
//! Lines that are not JSON-RPC messages are skipped. A line longer than the client's message
//! limit ends the reader at once: the requests in flight fail with
//! [`ClientError::MessageTooLarge`], later ones with
//! [`ClientError::Closed`].
//!
//! Unless it is passed through to the host's stderr, the child's stderr is
//! read as it comes and only its last lines are kept ([`STDERR_LINES`],
//! each cut at [`STDERR_LINE_BYTES`]): the report of a server that exits
//! before it answers ([`Channel::exit_report`]).

use std::collections::VecDeque;
use std::path::PathBuf;
use std::process::Stdio as ProcessStdio;
use std::sync::{Arc, Mutex};

use mcp_types::jsonrpc::Message;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{ChildStdin, Command};
use tokio::sync::mpsc;
use tracing::Instrument;

use super::channel::{Channel, End, Outgoing, Process, Routes};

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
pub(super) struct Tail {
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
    pub(super) fn lines(&self) -> Vec<String> {
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

impl Channel {
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
        let (channel, ends) = Channel::new();
        tokio::spawn(write_lines(stdin, ends.out));
        tokio::spawn(
            read_lines(BufReader::new(stdout), limit, ends.routes, ends.requests).in_current_span(),
        );
        Ok(channel.with_process(Process {
            child: tokio::sync::Mutex::new(Some(child)),
            stderr,
            stderr_reader: Mutex::new(stderr_reader),
        }))
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
    while let Some(Outgoing::Message(message)) = rx.recv().await {
        let mut bytes = message.to_string().into_bytes();
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
        if let Ok(message) = Message::from_slice(&line) {
            Routes::route(&routes, message, &requests);
        }
    };
    Routes::end(&routes, end);
}

#[cfg(test)]
mod tests {
    use mcp_types::v2026_07_28::RequestId;
    use serde_json::json;

    use super::super::error::ClientError;
    use super::*;

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
        let (channel, ends) = Channel::new();
        let mut pending = channel
            .send(&RequestId::Integer(1), &json!({}))
            .expect("sent");
        let mut input = b"Starting server...\n".to_vec();
        input.extend_from_slice(&[b'x'; 200]);
        read_lines(BufReader::new(&input[..]), 100, ends.routes, ends.requests).await;
        assert!(matches!(
            pending.next().await,
            Err(ClientError::MessageTooLarge { limit: 100 })
        ));
        assert!(channel.is_closed());
        assert!(matches!(
            channel.send(&RequestId::Integer(2), &json!({})),
            Err(ClientError::Closed)
        ));
    }
}
