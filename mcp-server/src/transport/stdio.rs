//! stdio: one JSON-RPC message per line on stdin and stdout.
//!
//! Only protocol messages are written to stdout. Requests run concurrently,
//! at most [`Limits::max_in_flight`](crate::Limits::max_in_flight) at once:
//! one more is answered at once with an error, so the reader never stops
//! and a `notifications/cancelled` always gets through. That notification
//! aborts the request it names. At end of input the transport lets the
//! requests in flight finish, then returns.
//!
//! A handler runs where its line was read until it first has to wait; only
//! then does it become a task of its own and count as in flight. Most tool
//! calls never wait, so they cost no task and no hand-off between threads.
//! The flip side: a handler that computes for long without awaiting holds
//! up the lines behind it, so such work belongs in
//! [`spawn_blocking`](tokio::task::spawn_blocking). Answers ready while more
//! input is already buffered are written together.

mod connection;
mod lines;

use std::io::{self, BufRead, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::runtime::Handle;
use tokio::sync::{mpsc, oneshot};

use crate::server::{Reply, Server};
use connection::{Connection, Received};
use lines::{Line, Lines};

/// Input is read, and answers are gathered, in chunks of this size.
const CHUNK: usize = 64 * 1024;

/// Serves `server` on the process's stdin and stdout until stdin closes.
///
/// stdin and stdout are read and written with blocking calls on a thread
/// of their own, the way a line echo would; the runtime runs only the
/// handlers that have to wait. Dropping the future stops serving after the
/// next line arrives.
///
/// # Errors
///
/// When stdin cannot be read or stdout cannot be written.
pub async fn serve(server: Server) -> io::Result<()> {
    let runtime = Handle::current();
    let stop = Stop::default();
    let stopped = stop.0.clone();
    let (done, result) = oneshot::channel();
    std::thread::Builder::new()
        .name("mcp-stdio".to_owned())
        .spawn(move || {
            let served = serve_blocking(server, &runtime, io::stdin(), io::stdout(), &stopped);
            let _ = done.send(served);
        })?;
    let result = result.await;
    drop(stop);
    result.map_err(|_| io::Error::other("the stdio thread panicked"))?
}

/// Serves `server` on any byte streams, as [`serve`] does on stdio.
///
/// # Errors
///
/// When `input` cannot be read or `output` cannot be written.
pub async fn serve_io<R, W>(server: Server, input: R, output: W) -> io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (out_tx, out_rx) = mpsc::channel::<Reply>(256);
    let writer = tokio::spawn(write_lines(output, out_rx));
    let mut lines = Lines::new(server.limits().max_message_bytes);
    let mut connection = Connection::new(server, out_tx.clone());
    let mut reader = tokio::io::BufReader::with_capacity(CHUNK, input);
    loop {
        let (used, line) = lines.feed(reader.fill_buf().await?);
        // A line may be borrowed from the reader's buffer: it is handled
        // before the buffer moves on.
        let received = match line {
            None => Received::Nothing,
            Some(Line::Eof) => break,
            Some(Line::TooLong) => Received::Answer(connection.too_long()),
            Some(Line::Message(line)) => connection.receive(&line),
        };
        reader.consume(used);
        let answer = match received {
            Received::Answer(message) => Some(message),
            Received::Initialize(value) => connection.initialize(value).await,
            Received::Nothing => None,
        };
        if let Some(message) = answer {
            let _ = out_tx.send(message).await;
        }
    }
    connection.finish().await;
    // The last senders: once they are gone, the writer ends.
    drop((connection, out_tx));
    writer.await.map_err(io::Error::other)?
}

/// Sets its flag when dropped: how [`serve`] tells its thread to stop.
#[derive(Default)]
struct Stop(Arc<AtomicBool>);

impl Drop for Stop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// The driver behind [`serve`], on a thread outside the runtime: answers
/// what it can as it reads, and leaves to `runtime` the handlers that have
/// to wait, whose answers a second thread writes.
fn serve_blocking<R, W>(
    server: Server,
    runtime: &Handle,
    input: R,
    output: W,
    stop: &AtomicBool,
) -> io::Result<()>
where
    R: Read,
    W: Write + Send + 'static,
{
    let _runtime = runtime.enter();
    let output = Arc::new(Mutex::new(output));
    let (out_tx, out_rx) = mpsc::channel::<Reply>(256);
    let writer = {
        let output = output.clone();
        std::thread::Builder::new()
            .name("mcp-stdio-out".to_owned())
            .spawn(move || write_lines_blocking(&output, out_rx))?
    };
    let mut lines = Lines::new(server.limits().max_message_bytes);
    let mut connection = Connection::new(server, out_tx);
    let mut reader = io::BufReader::with_capacity(CHUNK, input);
    let mut batch = Vec::new();
    let read = loop {
        // About to wait for input: send what is ready first.
        if reader.buffer().is_empty() || batch.len() >= CHUNK {
            if let Err(e) = write_batch(&output, &mut batch) {
                break Err(e);
            }
        }
        let buffer = match reader.fill_buf() {
            Ok(buffer) => buffer,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => break Err(e),
        };
        if stop.load(Ordering::Relaxed) {
            break Ok(());
        }
        let (used, line) = lines.feed(buffer);
        // A line may be borrowed from the reader's buffer: it is handled
        // before the buffer moves on.
        let received = match line {
            None => Received::Nothing,
            Some(Line::Eof) => break Ok(()),
            Some(Line::TooLong) => Received::Answer(connection.too_long()),
            Some(Line::Message(line)) => connection.receive(&line),
        };
        reader.consume(used);
        let answer = match received {
            Received::Answer(message) => Some(message),
            Received::Initialize(value) => runtime.block_on(connection.initialize(value)),
            Received::Nothing => None,
        };
        if let Some(message) = answer {
            push_line(&mut batch, &message);
        }
    };
    let written = write_batch(&output, &mut batch);
    if read.is_ok() && written.is_ok() && !stop.load(Ordering::Relaxed) {
        runtime.block_on(connection.finish());
    }
    // The last sender: once the tasks' copies are gone too, the writer ends.
    drop(connection);
    let forwarded = writer
        .join()
        .map_err(|_| io::Error::other("the stdout thread panicked"))?;
    read.and(written).and(forwarded)
}

fn push_line(batch: &mut Vec<u8>, message: &Reply) {
    batch.extend_from_slice(message.as_bytes());
    batch.push(b'\n');
}

/// Appends `first` and the messages already queued behind it, up to about
/// one chunk.
fn gather(batch: &mut Vec<u8>, first: &Reply, messages: &mut mpsc::Receiver<Reply>) {
    push_line(batch, first);
    while batch.len() < CHUNK {
        let Ok(message) = messages.try_recv() else {
            break;
        };
        push_line(batch, &message);
    }
}

async fn write_lines<W: AsyncWrite + Unpin>(
    mut output: W,
    mut messages: mpsc::Receiver<Reply>,
) -> io::Result<()> {
    let mut batch = Vec::new();
    while let Some(message) = messages.recv().await {
        gather(&mut batch, &message, &mut messages);
        output.write_all(&batch).await?;
        output.flush().await?;
        batch.clear();
    }
    Ok(())
}

fn write_lines_blocking<W: Write>(
    output: &Mutex<W>,
    mut messages: mpsc::Receiver<Reply>,
) -> io::Result<()> {
    let mut batch = Vec::new();
    while let Some(message) = messages.blocking_recv() {
        gather(&mut batch, &message, &mut messages);
        write_batch(output, &mut batch)?;
    }
    Ok(())
}

/// Writes and flushes `batch`, whole lines only, then empties it.
fn write_batch<W: Write>(output: &Mutex<W>, batch: &mut Vec<u8>) -> io::Result<()> {
    if batch.is_empty() {
        return Ok(());
    }
    let mut output = output
        .lock()
        .map_err(|_| io::Error::other("a writer of stdout panicked"))?;
    output.write_all(batch)?;
    output.flush()?;
    batch.clear();
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use mcp_types::v2026_07_28::Tool;
    use serde_json::{json, Map, Value};

    use super::*;
    use crate::tool::{ToolOutput, ToolSet};
    use crate::{BoxFuture, Context, ErrorObject};

    /// One tool that answers at once and one that has to wait.
    struct Tools;

    impl ToolSet for Tools {
        fn tools() -> Vec<Tool> {
            ["now", "later"]
                .map(|name| {
                    serde_json::from_value(json!({"name": name, "inputSchema": {"type": "object"}}))
                        .expect("a tool")
                })
                .into()
        }

        fn call_tool<'a>(
            &'a self,
            name: &str,
            _: &'a Context,
            _: Map<String, Value>,
        ) -> Option<BoxFuture<'a, Result<ToolOutput, ErrorObject>>> {
            match name {
                "now" => Some(Box::pin(async { Ok(ToolOutput::text("now")) })),
                "later" => Some(Box::pin(async {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    Ok(ToolOutput::text("later"))
                })),
                _ => None,
            }
        }
    }

    /// An output the test reads once the driver is done with it.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.0
                .lock()
                .map_err(|_| io::Error::other("poisoned"))?
                .extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn call(id: u64, name: &str) -> String {
        let meta = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}
        });
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": {}, "_meta": meta}});
        format!("{call}\n")
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_blocking_driver_answers_inline_or_from_a_task() {
        blocking_driver().await;
    }

    #[tokio::test(flavor = "current_thread")]
    async fn the_blocking_driver_works_beside_a_current_thread_runtime() {
        blocking_driver().await;
    }

    async fn blocking_driver() {
        let server = Server::builder(Tools).tools().build().expect("builds");
        let input = [
            call(1, "later"),
            call(2, "now"),
            "not json\n".into(),
            "\n".into(),
        ]
        .concat();
        let output = Shared::default();
        let (out, runtime) = (output.clone(), Handle::current());
        tokio::task::spawn_blocking(move || {
            serve_blocking(
                server,
                &runtime,
                input.as_bytes(),
                out,
                &AtomicBool::new(false),
            )
        })
        .await
        .expect("joins")
        .expect("serves");
        let text = String::from_utf8(output.0.lock().expect("unpoisoned").clone()).expect("UTF-8");
        let answers: Vec<Value> = text
            .lines()
            .map(|line| serde_json::from_str(line).expect("a JSON line"))
            .collect();
        // What needed no waiting went out as it was read; the waiting call
        // was answered from its task before the driver returned.
        assert_eq!(answers.len(), 3, "{text}");
        assert_eq!(answers[0]["result"]["content"][0]["text"], "now");
        assert_eq!(answers[1]["error"]["code"], -32700);
        assert_eq!(answers[2]["id"], 1);
        assert_eq!(answers[2]["result"]["content"][0]["text"], "later");
    }
}
