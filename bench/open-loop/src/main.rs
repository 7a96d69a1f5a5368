//! Open-loop latency of a `tools/call` over Streamable HTTP at fixed
//! offered rates. `python3 bench/adoption_bench.py` builds the servers and
//! runs it:
//!
//! ```text
//! open_loop --server NAME=PATH... [--bare] [--rates 5000,20000,50000]
//!           [--seconds 5] [--warmup 1] [--connections 64] [--rounds 1]
//! ```
//!
//! Each server is started as `PATH --http ADDR`. `--bare` adds a bare
//! axum endpoint answering every POST with a fixed result (this program
//! started again with `--serve-bare`): the floor of HTTP on axum and hyper.
//!
//! The load generator keeps its schedule whatever the server does: request
//! `i` is due at `start + i / rate`, and its latency is measured from that
//! due time, not from when it could be sent. A server that falls behind
//! makes requests wait for a free connection (or for the server to read
//! them), and that wait is counted, so the queueing a closed loop hides
//! ("coordinated omission") shows in the tail. Requests go out on a pool
//! of keep-alive connections, one request at a time each, taken by
//! whichever connection is free. The pacer's own lateness is reported
//! beside the figures so that a late generator is not taken for a slow
//! server.

#[path = "../../src/bin/server/proc.rs"]
#[allow(dead_code)]
mod proc;

use std::io;
use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, Mutex};

use proc::Running;

/// What the bare endpoint answers: the calculator's result for 1 + 2.
const BARE_ANSWER: &str =
    r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"3"}],"isError":false}}"#;

/// The `tools/call` every request carries, with the headers of the
/// 2026-07-28 transport.
fn request(addr: SocketAddr) -> Vec<u8> {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"add","arguments":{"a":1,"b":2}}}"#;
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: add\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

struct Target {
    name: String,
    path: PathBuf,
    /// Arguments before `--http ADDR`.
    prefix: Vec<String>,
}

struct Options {
    targets: Vec<Target>,
    rates: Vec<u64>,
    window: Duration,
    warmup: Duration,
    connections: usize,
    rounds: usize,
}

fn options() -> Result<Options, String> {
    let mut options = Options {
        targets: Vec::new(),
        rates: vec![5_000, 20_000, 50_000],
        window: Duration::from_secs(5),
        warmup: Duration::from_secs(1),
        connections: 64,
        rounds: 1,
    };
    let mut args = std::env::args().skip(1);
    let number = |value: Option<String>, name: &str| -> Result<u64, String> {
        value
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("{name} needs a number"))
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--server" => {
                let value = args.next().ok_or("--server needs NAME=PATH")?;
                let (name, path) = value.split_once('=').ok_or("--server needs NAME=PATH")?;
                options.targets.push(Target {
                    name: name.to_owned(),
                    path: path.into(),
                    prefix: Vec::new(),
                });
            }
            "--bare" => options.targets.push(Target {
                name: "bare axum".to_owned(),
                path: std::env::current_exe().map_err(|e| e.to_string())?,
                prefix: vec!["--serve-bare".to_owned()],
            }),
            "--rates" => {
                let value = args.next().ok_or("--rates needs a list")?;
                options.rates = value
                    .split(',')
                    .map(|r| r.trim().parse().map_err(|_| format!("bad rate {r:?}")))
                    .collect::<Result<_, _>>()?;
            }
            "--seconds" => options.window = Duration::from_secs(number(args.next(), &arg)?),
            "--warmup" => options.warmup = Duration::from_secs(number(args.next(), &arg)?),
            "--connections" => options.connections = number(args.next(), &arg)? as usize,
            "--rounds" => options.rounds = number(args.next(), &arg)? as usize,
            other => return Err(format!("unknown option {other:?}")),
        }
    }
    if options.targets.is_empty() {
        return Err("no --server and no --bare: nothing to measure".to_owned());
    }
    Ok(options)
}

/// The bare endpoint: `--serve-bare --http ADDR`.
fn serve_bare(addr: &str) -> io::Result<()> {
    let addr: SocketAddr = addr.parse().map_err(io::Error::other)?;
    let runtime = tokio::runtime::Runtime::new()?;
    runtime.block_on(async move {
        let router = axum::Router::new().route(
            "/mcp",
            axum::routing::post(|| async {
                (
                    [(axum::http::header::CONTENT_TYPE, "application/json")],
                    BARE_ANSWER,
                )
            }),
        );
        let listener = tokio::net::TcpListener::bind(addr).await?;
        axum::serve(listener, router).await
    })
}

/// What one measurement of one server at one rate found.
#[derive(Default)]
struct Sample {
    /// From each request's due time to the end of its answer, for the
    /// requests due in the timed window.
    latencies: Vec<Duration>,
    /// How late the pacer handed out requests, over the whole run.
    pacer_lag: Vec<Duration>,
    /// Answers completed within the timed window, per second.
    achieved: f64,
    /// Requests due in the window left unanswered when the run was cut.
    unanswered: u64,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [bare, http, addr] = &args[..] {
        if bare == "--serve-bare" && http == "--http" {
            if let Err(e) = serve_bare(addr) {
                eprintln!("bare endpoint: {e}");
                std::process::exit(1);
            }
            return;
        }
    }
    let options = match options() {
        Ok(options) => options,
        Err(e) => {
            eprintln!("open_loop: {e}");
            std::process::exit(2);
        }
    };
    if let Err(e) = run(&options) {
        eprintln!("open_loop: {e}");
        std::process::exit(1);
    }
}

fn run(options: &Options) -> io::Result<()> {
    // samples[rate][target], pooled over rounds.
    let mut samples: Vec<Vec<Sample>> = options
        .rates
        .iter()
        .map(|_| options.targets.iter().map(|_| Sample::default()).collect())
        .collect();
    for round in 0..options.rounds {
        for (r, &rate) in options.rates.iter().enumerate() {
            for (t, target) in options.targets.iter().enumerate() {
                eprintln!(
                    "round {}/{}: {} at {rate} req/s",
                    round + 1,
                    options.rounds,
                    target.name
                );
                let sample = measure(target, rate, options)?;
                let pooled = &mut samples[r][t];
                pooled.latencies.extend(sample.latencies);
                pooled.pacer_lag.extend(sample.pacer_lag);
                pooled.achieved += sample.achieved / options.rounds as f64;
                pooled.unanswered += sample.unanswered;
            }
        }
    }
    print_table(options, &mut samples);
    Ok(())
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

fn measure(target: &Target, rate: u64, options: &Options) -> io::Result<Sample> {
    let addr = free_port()?;
    let addr_text = addr.to_string();
    let mut args: Vec<&str> = target.prefix.iter().map(String::as_str).collect();
    args.extend(["--http", addr_text.as_str()]);
    let _process = Running::spawn(&target.path, &args)?;
    wait_until_listening(addr)?;
    std::thread::sleep(Duration::from_millis(200));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(drive(addr, rate, options))
}

/// Waits until `due`: on the timer while it is more than a tick away,
/// then by yielding, since the timer's resolution is a millisecond.
async fn wait_until(due: Instant) {
    loop {
        let now = Instant::now();
        if now >= due {
            return;
        }
        let left = due - now;
        if left > Duration::from_micros(1500) {
            tokio::time::sleep(left - Duration::from_millis(1)).await;
        } else {
            tokio::task::yield_now().await;
        }
    }
}

async fn drive(addr: SocketAddr, rate: u64, options: &Options) -> io::Result<Sample> {
    let request: Arc<[u8]> = request(addr).into();
    let (due_tx, due_rx) = mpsc::unbounded_channel::<Instant>();
    let due_rx = Arc::new(Mutex::new(due_rx));
    let start = Instant::now() + Duration::from_millis(100);
    let window_start = start + options.warmup;
    let window_end = window_start + options.window;
    // A run whose server fell far behind is cut this long after the
    // last request was due; what is still unanswered is counted.
    let cut = window_end + Duration::from_secs(10);
    let mut connections = tokio::task::JoinSet::new();
    for _ in 0..options.connections {
        let (request, due_rx) = (request.clone(), due_rx.clone());
        connections.spawn(async move {
            let mut stream = TcpStream::connect(addr).await?;
            stream.set_nodelay(true)?;
            let mut buffer = Vec::with_capacity(4096);
            let mut latencies = Vec::new();
            let mut completed = 0u64;
            loop {
                let next = due_rx.lock().await.recv().await;
                let Some(due) = next else {
                    return Ok::<_, io::Error>((latencies, completed));
                };
                if Instant::now() >= cut {
                    continue;
                }
                let answered = tokio::time::timeout_at(cut.into(), async {
                    stream.write_all(&request).await?;
                    read_answer(&mut stream, &mut buffer).await
                });
                match answered.await {
                    Ok(result) => result?,
                    // Cut: this connection's request stays unanswered.
                    Err(_) => return Ok((latencies, completed)),
                }
                let done = Instant::now();
                let window = window_start..window_end;
                if window.contains(&due) {
                    latencies.push(done - due);
                }
                if window.contains(&done) {
                    completed += 1;
                }
            }
        });
    }
    let total = rate * (options.warmup + options.window).as_secs();
    let mut pacer_lag = Vec::with_capacity(total as usize);
    for i in 0..total {
        let due = start + Duration::from_nanos(i * 1_000_000_000 / rate);
        wait_until(due).await;
        pacer_lag.push(due.elapsed());
        let _ = due_tx.send(due);
    }
    drop(due_tx);
    let mut sample = Sample {
        pacer_lag,
        ..Sample::default()
    };
    let mut completed = 0;
    while let Some(joined) = connections.join_next().await {
        let (latencies, done) = joined.map_err(io::Error::other)??;
        sample.latencies.extend(latencies);
        completed += done;
    }
    let due_in_window = rate * options.window.as_secs();
    sample.unanswered = due_in_window.saturating_sub(sample.latencies.len() as u64);
    sample.achieved = completed as f64 / options.window.as_secs_f64();
    Ok(sample)
}

/// Reads one `200` answer with a `Content-Length` body holding a result.
async fn read_answer(stream: &mut TcpStream, buffer: &mut Vec<u8>) -> io::Result<()> {
    buffer.clear();
    let head_end = loop {
        if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        read_more(stream, buffer).await?;
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
    let length = head
        .lines()
        .filter_map(|line| line.split_once(':'))
        .find(|(name, _)| name.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, value)| value.trim().parse::<usize>().ok());
    let Some(length) = length.filter(|_| head.starts_with("HTTP/1.1 200 ")) else {
        return Err(io::Error::other(format!("unexpected response: {head}")));
    };
    while buffer.len() < head_end + length {
        read_more(stream, buffer).await?;
    }
    let body = &buffer[head_end..head_end + length];
    let needle = b"\"result\"";
    if !body.windows(needle.len()).any(|w| w == needle) {
        return Err(io::Error::other(format!(
            "unexpected answer: {}",
            String::from_utf8_lossy(body)
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

/// The `q` quantile of sorted `values`, in milliseconds.
fn quantile_ms(sorted: &[Duration], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let index = ((sorted.len() as f64 * q).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[index].as_secs_f64() * 1e3
}

fn print_table(options: &Options, samples: &mut [Vec<Sample>]) {
    let names: Vec<&str> = options.targets.iter().map(|t| t.name.as_str()).collect();
    println!(
        "| offered req/s | {} |",
        names
            .iter()
            .map(|n| format!("{n}: p50 / p99 / p99.9 (ms)"))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    println!("| --- |{}", " --- |".repeat(names.len()));
    for (rate, row) in options.rates.iter().zip(samples.iter_mut()) {
        let cells: Vec<String> = row
            .iter_mut()
            .map(|sample| {
                sample.latencies.sort_unstable();
                let l = &sample.latencies;
                format!(
                    "{:.2} / {:.2} / {:.2}",
                    quantile_ms(l, 0.5),
                    quantile_ms(l, 0.99),
                    quantile_ms(l, 0.999)
                )
            })
            .collect();
        println!("| {rate} | {} |", cells.join(" | "));
    }
    println!();
    println!(
        "| offered req/s | {} |",
        names
            .iter()
            .map(|n| format!("{n}: answered req/s, unanswered, pacer lag p99 (ms)"))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    println!("| --- |{}", " --- |".repeat(names.len()));
    for (rate, row) in options.rates.iter().zip(samples.iter_mut()) {
        let cells: Vec<String> = row
            .iter_mut()
            .map(|sample| {
                sample.pacer_lag.sort_unstable();
                format!(
                    "{:.0}, {}, {:.3}",
                    sample.achieved,
                    sample.unanswered,
                    quantile_ms(&sample.pacer_lag, 0.99)
                )
            })
            .collect();
        println!("| {rate} | {} |", cells.join(" | "));
    }
}
