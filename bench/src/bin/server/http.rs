//! Driving a server over Streamable HTTP on loopback: a fixed number of
//! keep-alive connections, each sending its next request as soon as the
//! last answer is in, from a single-threaded load generator.

use std::io;
use std::net::{SocketAddr, TcpListener};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::task::JoinSet;

use crate::figures::Figures;
use crate::proc::{self, Running};
use crate::stdio::{call, contains, Era};
use crate::Plan;

/// What one measurement runs and sends.
#[derive(Clone, Copy, Debug)]
pub struct Load<'a> {
    pub path: &'a Path,
    /// Options after `--http ADDR`.
    pub options: &'a [String],
    /// Bearer tokens, sent in turn; none for an unprotected server.
    pub tokens: &'a [String],
}

impl<'a> Load<'a> {
    /// The server at `path`, unprotected.
    pub fn plain(path: &'a Path) -> Load<'a> {
        Load {
            path,
            options: &[],
            tokens: &[],
        }
    }
}

/// One modern `tools/call` as an HTTP/1.1 request, with the headers the
/// 2026-07-28 transport requires beside the body, and `token` as a bearer
/// token when given.
fn request(addr: SocketAddr, token: Option<&str>) -> Vec<u8> {
    let body = call(1, Era::Modern);
    let body = body.trim_end();
    let authorization =
        token.map_or_else(String::new, |t| format!("Authorization: Bearer {t}\r\n"));
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: add\r\n{authorization}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// The requests a measurement sends in turn: one per token, or one
/// without a token.
struct Requests {
    all: Vec<Vec<u8>>,
    next: AtomicUsize,
}

impl Requests {
    fn new(addr: SocketAddr, tokens: &[String]) -> Requests {
        let all = match tokens {
            [] => vec![request(addr, None)],
            tokens => tokens.iter().map(|t| request(addr, Some(t))).collect(),
        };
        Requests {
            all,
            next: AtomicUsize::new(0),
        }
    }

    fn next(&self) -> &[u8] {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        &self.all[n % self.all.len()]
    }
}

fn free_port() -> io::Result<SocketAddr> {
    TcpListener::bind("127.0.0.1:0")?.local_addr()
}

fn wait_until_listening(addr: SocketAddr) -> io::Result<()> {
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(addr).is_err() {
        if Instant::now() > deadline {
            return Err(io::Error::other(format!("nothing listens on {addr}")));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(())
}

/// One round: start the server of `load`, read its idle RSS, load it for
/// the warm-up and the timed window, then read its RSS again.
pub fn measure(load: &Load, plan: &Plan, connections: usize) -> io::Result<Figures> {
    let addr = free_port()?;
    let addr_text = addr.to_string();
    let mut args = vec!["--http", addr_text.as_str()];
    args.extend(load.options.iter().map(String::as_str));
    let process = Running::spawn(load.path, &args)?;
    wait_until_listening(addr)?;
    let pid = process.pid();
    let idle = process.idle_rss()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let requests = Arc::new(Requests::new(addr, load.tokens));
    let mut figures = runtime.block_on(drive(addr, pid, requests, plan, connections))?;
    figures.idle_rss_kib.push(idle);
    figures.loaded_rss_kib.push(proc::rss_kib(pid)?);
    Ok(figures)
}

async fn drive(
    addr: SocketAddr,
    pid: u32,
    requests: Arc<Requests>,
    plan: &Plan,
    connection_count: usize,
) -> io::Result<Figures> {
    let window_start = Instant::now() + plan.http_warmup;
    let end = window_start + plan.http_window;
    let mut connections = JoinSet::new();
    for _ in 0..connection_count {
        connections.spawn(connection(addr, requests.clone(), window_start, end));
    }
    tokio::time::sleep_until(window_start.into()).await;
    let cpu_before = proc::cpu_time(pid)?;
    tokio::time::sleep_until(end.into()).await;
    let cpu = proc::cpu_time(pid)? - cpu_before;
    let mut figures = Figures::default();
    while let Some(latencies) = connections.join_next().await {
        figures
            .latencies
            .extend(latencies.map_err(io::Error::other)??);
    }
    figures.calls = figures.latencies.len() as u64;
    figures.cpu = cpu;
    figures
        .rates
        .push(figures.calls as f64 / plan.http_window.as_secs_f64());
    Ok(figures)
}

/// Sends requests back to back on one connection until `end`; returns the
/// latencies of those sent from `window_start` on.
async fn connection(
    addr: SocketAddr,
    requests: Arc<Requests>,
    window_start: Instant,
    end: Instant,
) -> io::Result<Vec<Duration>> {
    let mut stream = TcpStream::connect(addr).await?;
    stream.set_nodelay(true)?;
    let mut buffer = Vec::with_capacity(4096);
    let mut latencies = Vec::new();
    loop {
        let sent = Instant::now();
        if sent >= end {
            return Ok(latencies);
        }
        stream.write_all(requests.next()).await?;
        read_response(&mut stream, &mut buffer).await?;
        if sent >= window_start {
            latencies.push(sent.elapsed());
        }
    }
}

/// Reads one `200` response with a `Content-Length` body holding a result.
async fn read_response(stream: &mut TcpStream, buffer: &mut Vec<u8>) -> io::Result<()> {
    buffer.clear();
    let head_end = loop {
        if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        read_more(stream, buffer).await?;
    };
    let length = {
        let head = String::from_utf8_lossy(&buffer[..head_end]);
        let length = head
            .lines()
            .filter_map(|line| line.split_once(':'))
            .find(|(name, _)| name.eq_ignore_ascii_case("content-length"))
            .and_then(|(_, value)| value.trim().parse::<usize>().ok());
        match length {
            Some(length) if head.starts_with("HTTP/1.1 200 ") => length,
            _ => return Err(io::Error::other(format!("unexpected response: {head}"))),
        }
    };
    while buffer.len() < head_end + length {
        read_more(stream, buffer).await?;
    }
    if !contains(&buffer[head_end..], b"\"result\"") {
        return Err(io::Error::other(format!(
            "unexpected answer: {}",
            String::from_utf8_lossy(&buffer[head_end..])
        )));
    }
    Ok(())
}

async fn read_more(stream: &mut TcpStream, buffer: &mut Vec<u8>) -> io::Result<()> {
    if stream.read_buf(buffer).await? == 0 {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "server closed the connection",
        ));
    }
    Ok(())
}
