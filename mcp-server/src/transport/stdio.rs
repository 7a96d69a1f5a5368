//! stdio: one JSON-RPC message per line on stdin and stdout.
//!
//! Only protocol messages are written to stdout. Requests run concurrently;
//! `notifications/cancelled` aborts the one it names. At end of input the
//! transport lets the requests in flight finish, then returns.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use mcp_types::jsonrpc::ErrorObject;
use serde_json::Value;
use tokio::io::{
    AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader,
};
use tokio::sync::{mpsc, Semaphore};
use tokio::task::JoinSet;

use crate::server::{Outcome, Server, Session};

/// Most requests one stdio connection runs at once; further lines wait.
const MAX_IN_FLIGHT: usize = 64;

/// Serves `server` on the process's stdin and stdout until stdin closes.
///
/// # Errors
///
/// When stdin cannot be read or stdout cannot be written.
pub async fn serve(server: Server) -> std::io::Result<()> {
    serve_io(server, tokio::io::stdin(), tokio::io::stdout()).await
}

/// Serves `server` on any byte streams, as [`serve`] does on stdio.
///
/// # Errors
///
/// When `input` cannot be read or `output` cannot be written.
pub async fn serve_io<R, W>(server: Server, input: R, output: W) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (out_tx, out_rx) = mpsc::channel::<Value>(256);
    let writer = tokio::spawn(write_lines(output, out_rx));
    let limit = server.limits().max_message_bytes;
    let in_flight: Arc<Mutex<HashMap<String, tokio::task::AbortHandle>>> = Arc::default();
    let permits = Arc::new(Semaphore::new(MAX_IN_FLIGHT));
    let mut tasks = JoinSet::new();
    let mut reader = BufReader::new(input);
    // Set by `initialize`: this connection then speaks the handshake era,
    // except for requests that carry the modern `_meta`.
    let mut session: Option<Arc<Session>> = None;
    loop {
        let line = match read_line(&mut reader, limit).await? {
            Line::Eof => break,
            Line::TooLong => {
                let error = ErrorObject::invalid_request(format!(
                    "message exceeds the limit of {limit} bytes"
                ));
                let _ = out_tx
                    .send(crate::server::error_message(None, &error))
                    .await;
                continue;
            }
            Line::Message(line) => line,
        };
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let value = match serde_json::from_slice::<Value>(&line) {
            Ok(value) => value,
            Err(e) => {
                let error = ErrorObject::parse_error(e.to_string());
                let _ = out_tx
                    .send(crate::server::error_message(None, &error))
                    .await;
                continue;
            }
        };
        let method = value.get("method").and_then(Value::as_str);
        let response =
            method.is_none() && (value.get("result").is_some() || value.get("error").is_some());
        if response {
            // A response to one of the server's own requests (legacy era).
            if let Some(session) = &session {
                session.deliver(value);
            }
            continue;
        }
        if method == Some("initialize") {
            let (outcome, created) = server.handle_legacy(value, None).await;
            if created.is_some() {
                session = created;
            }
            if let Outcome::Reply { message, .. } = outcome {
                let _ = out_tx.send(message).await;
            }
            continue;
        }
        let modern = value
            .pointer(&format!(
                "/params/_meta/{}",
                mcp_types::meta::PROTOCOL_VERSION.replace('/', "~1")
            ))
            .is_some();
        let legacy_session = session.clone().filter(|_| !modern);
        if method == Some("notifications/cancelled") {
            let key = value.pointer("/params/requestId").map(Value::to_string);
            if let Some(handle) = key.and_then(|k| in_flight.lock().ok()?.remove(&k)) {
                handle.abort();
            }
            continue;
        }
        let key = value.get("id").map(Value::to_string);
        let Ok(permit) = permits.clone().acquire_owned().await else {
            break;
        };
        let (server, out, registry, task_key) = (
            server.clone(),
            out_tx.clone(),
            in_flight.clone(),
            key.clone(),
        );
        let handle = tasks.spawn(async move {
            let _permit = permit;
            let outcome = match legacy_session {
                Some(session) => server.handle_legacy(value, Some(session)).await.0,
                None => server.handle(value, None).await,
            };
            match outcome {
                Outcome::Reply { message, .. } => {
                    let _ = out.send(message).await;
                }
                Outcome::Stream {
                    mut messages,
                    guard,
                } => {
                    while let Some(message) = messages.recv().await {
                        if out.send(message).await.is_err() {
                            break;
                        }
                    }
                    drop(guard);
                }
                Outcome::Accepted => {}
            }
            if let Some(key) = task_key {
                if let Ok(mut registry) = registry.lock() {
                    registry.remove(&key);
                }
            }
        });
        if let (Some(key), Ok(mut registry)) = (key, in_flight.lock()) {
            registry.insert(key, handle);
        }
        while tasks.try_join_next().is_some() {}
    }
    while tasks.join_next().await.is_some() {}
    drop(out_tx);
    writer.await.map_err(std::io::Error::other)?
}

enum Line {
    Message(Vec<u8>),
    TooLong,
    Eof,
}

/// Reads one line of at most `limit` bytes; a longer line is skipped to its
/// end and reported, never buffered whole.
async fn read_line<R: AsyncBufRead + Unpin>(reader: &mut R, limit: usize) -> std::io::Result<Line> {
    let mut line = Vec::new();
    let read = (&mut *reader)
        .take(limit as u64 + 1)
        .read_until(b'\n', &mut line)
        .await?;
    if read == 0 {
        return Ok(Line::Eof);
    }
    if line.last() == Some(&b'\n') || line.len() <= limit {
        return Ok(Line::Message(line));
    }
    loop {
        let buffer = reader.fill_buf().await?;
        if buffer.is_empty() {
            return Ok(Line::TooLong);
        }
        match buffer.iter().position(|&b| b == b'\n') {
            Some(end) => {
                reader.consume(end + 1);
                return Ok(Line::TooLong);
            }
            None => {
                let len = buffer.len();
                reader.consume(len);
            }
        }
    }
}

async fn write_lines<W: AsyncWrite + Unpin>(
    mut output: W,
    mut messages: mpsc::Receiver<Value>,
) -> std::io::Result<()> {
    while let Some(message) = messages.recv().await {
        let mut line = serde_json::to_vec(&message).map_err(std::io::Error::other)?;
        line.push(b'\n');
        output.write_all(&line).await?;
        output.flush().await?;
    }
    Ok(())
}
