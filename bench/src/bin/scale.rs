//! How a server's costs grow: with its number of tools, `tools/list` (the
//! first page, and every page), `tools/call` of the last tool, and the
//! memory of the built server, at 10, 100, 1,000 and 10,000 tools; with
//! its number of legacy sessions, the memory they hold and what one more
//! `initialize` costs, at 100, 1,000 and 10,000; and the memory of 100,
//! 1,000 and 10,000 live tasks.
//!
//! `cargo run --release -p mcp-bench --bin scale [DIR]`: tool requests go
//! through `Server::handle_bytes` on a current-thread runtime, legacy
//! sessions through the HTTP router called in process (no sockets); each
//! time is the median of 7 runs. Each memory figure is taken in a fresh
//! process of its own (the bench runs itself with `--memory KIND COUNT`),
//! where no freed memory of an earlier measurement can hide what is held.
//! `--serve-stdio N` serves the server of `N` tools over stdio, for
//! `--bin host_scale`. The tables go to stdout, and the charts
//! (log-log) to `DIR`, by default `bench/figures`: `server-tools.svg`
//! and `server-state.svg`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use mcp_bench::chart::{Chart, Series};
use mcp_bench::measure::{figures, in_fresh_process, resident};
use mcp_server::tasks::{MemoryTaskStore, TaskSettings};
use mcp_server::tool::{ToolOutput, ToolSet};
use mcp_server::transport::http::{self, HttpConfig};
use mcp_server::{tool, tools, BoxFuture, Context, ErrorObject, Outcome, Server};
use mcp_types::v2026_07_28::Tool;
use serde_json::{json, Map, Value};
use tower_service::Service as _;

/// `N` tools named `t0` to `t{N-1}`, each taking an integer `a`. The set
/// finds a tool from its name in constant time, so that what grows is the
/// server's own work.
struct Many<const N: usize>;

impl<const N: usize> ToolSet for Many<N> {
    fn tools() -> Vec<Tool> {
        (0..N)
            .map(|i| {
                serde_json::from_value(json!({
                    "name": format!("t{i}"),
                    "description": format!("Tool number {i}: returns its argument."),
                    "inputSchema": {"type": "object", "properties": {"a": {"type": "integer"}}},
                }))
                .expect("a tool")
            })
            .collect()
    }

    fn call_tool<'a>(
        &'a self,
        name: &str,
        _cx: &'a Context,
        arguments: Map<String, Value>,
    ) -> Option<BoxFuture<'a, Result<ToolOutput, ErrorObject>>> {
        let index: usize = name.strip_prefix('t')?.parse().ok()?;
        if index >= N {
            return None;
        }
        let a = arguments.get("a").and_then(Value::as_i64).unwrap_or(0);
        Some(Box::pin(async move { Ok(ToolOutput::text(a.to_string())) }))
    }
}

const RUNS: usize = 7;

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

fn list(cursor: Option<&str>) -> Vec<u8> {
    let cursor = cursor.map_or(String::new(), |c| format!(r#""cursor":"{c}","#));
    format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{{cursor}{META}}}}}"#)
        .into_bytes()
}

fn call(tool: &str) -> Vec<u8> {
    format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"{tool}","arguments":{{"a":7}},{META}}}}}"#
    )
    .into_bytes()
}

/// The encoded reply to `bytes`, which must be a result.
fn serve(runtime: &tokio::runtime::Runtime, server: &Server, bytes: &[u8]) -> String {
    match runtime.block_on(server.handle_bytes(bytes, None)) {
        Outcome::Reply { message, .. } => {
            let text = String::from_utf8(message.into_bytes()).expect("UTF-8");
            assert!(text.contains(r#""result":"#), "not a result: {text}");
            text
        }
        other => panic!("not a reply: {other:?}"),
    }
}

/// The `nextCursor` of a `tools/list` reply, found without decoding the
/// reply (which would cost more than serving it).
fn next_cursor(reply: &str) -> Option<String> {
    let start = reply.find(r#""nextCursor":""#)? + 14;
    let end = start + reply[start..].find('"')?;
    Some(reply[start..end].to_owned())
}

/// The median time of `work`, repeated `times` a run.
fn median(times: usize, mut work: impl FnMut()) -> Duration {
    let mut runs: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..times {
                work();
            }
            start.elapsed() / times as u32
        })
        .collect();
    runs.sort();
    runs[RUNS / 2]
}

struct Row {
    tools: usize,
    first_page: Duration,
    every_page: Duration,
    call_last: Duration,
    memory: u64,
}

fn many<const N: usize>() -> Server {
    Server::builder(Many::<N>)
        .info("scale", "0")
        .tools()
        .build()
        .expect("a server")
}

/// The resident memory that `count` of `kind` hold, in a fresh process.
fn memory_of(kind: &str, count: usize) -> u64 {
    in_fresh_process(&["--memory", kind, &count.to_string()])
}

/// In a fresh process: the resident memory `count` of `kind` hold.
fn held(kind: &str, count: usize) -> u64 {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let before = resident();
    let kept: Box<dyn std::any::Any> = match (kind, count) {
        ("tools", 10) => Box::new(many::<10>()),
        ("tools", 100) => Box::new(many::<100>()),
        ("tools", 1_000) => Box::new(many::<1_000>()),
        ("tools", 10_000) => Box::new(many::<10_000>()),
        ("sessions", n) => Box::new(sessions(&runtime, &[n], false)),
        ("tasks", n) => Box::new(live_tasks(&runtime, n)),
        other => panic!("nothing to measure for {other:?}"),
    };
    let after = resident();
    black_box(&kept);
    after.saturating_sub(before)
}

fn measure<const N: usize>(runtime: &tokio::runtime::Runtime) -> Row {
    let server = many::<N>();
    let memory = memory_of("tools", N);
    let times = (100_000 / N).clamp(20, 2_000);
    let first_page = median(times, || {
        black_box(serve(runtime, &server, &list(None)));
    });
    let every_page = median(times.div_ceil(10).max(5), || {
        let mut cursor = None;
        loop {
            let reply = serve(runtime, &server, &list(cursor.as_deref()));
            cursor = next_cursor(&reply);
            if cursor.is_none() {
                break;
            }
        }
    });
    let last = call(&format!("t{}", N - 1));
    let call_last = median(2_000, || {
        black_box(serve(runtime, &server, &last));
    });
    Row {
        tools: N,
        first_page,
        every_page,
        call_last,
        memory,
    }
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// A tool that holds its task until it is cancelled.
struct Holder;

#[tools]
impl Holder {
    /// Runs until cancelled.
    #[tool(task = "optional")]
    async fn hold(&self, cx: &Context) -> String {
        cx.cancelled().await;
        String::new()
    }
}

/// A legacy `initialize` POSTed to `router` in process; its session id.
async fn initialize(router: &mut axum::Router) -> String {
    let body = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"scale","version":"0"}}}"#;
    let request = axum::http::Request::post("/mcp")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(axum::body::Body::from(body))
        .expect("a request");
    let response = router.call(request).await.expect("infallible");
    assert!(response.status().is_success(), "{}", response.status());
    response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .expect("a session id")
        .to_owned()
}

/// The cost of one more `initialize` with `counts` legacy sessions open,
/// in increasing order, on one server (when `timed`); the router, which
/// holds them.
fn sessions(
    runtime: &tokio::runtime::Runtime,
    counts: &[usize],
    timed: bool,
) -> (Vec<(usize, Duration)>, axum::Router) {
    let server = Server::builder(Holder)
        .info("scale", "0")
        .tools()
        .build()
        .expect("a server");
    let config = HttpConfig {
        max_sessions: counts.iter().max().copied().unwrap_or(0) + 10_000,
        ..HttpConfig::default()
    };
    let mut router = http::router(server, "/mcp", config);
    let mut ids = Vec::new();
    let mut rows = Vec::new();
    for &count in counts {
        while ids.len() < count {
            ids.push(runtime.block_on(initialize(&mut router)));
        }
        if timed {
            // One more session each time, a few hundred in all: next to
            // the count, they do not move it.
            let one = median(50, || {
                ids.push(runtime.block_on(initialize(&mut router)));
            });
            rows.push((count, one));
        }
    }
    black_box(ids);
    (rows, router)
}

/// A server holding `count` live tasks.
fn live_tasks(runtime: &tokio::runtime::Runtime, count: usize) -> Server {
    let server = Server::builder(Holder)
        .info("scale", "0")
        .tools()
        .tasks(
            TaskSettings::default()
                .store(MemoryTaskStore::new(count + 1))
                .inline_grace(Duration::ZERO),
        )
        .build()
        .expect("a server");
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}"#;
    for made in 1..=count {
        let call = format!(
            r#"{{"jsonrpc":"2.0","id":{made},"method":"tools/call","params":{{"name":"hold","arguments":{{}},{meta}}}}}"#
        );
        let reply = serve(runtime, &server, call.as_bytes());
        assert!(reply.contains(r#""resultType":"task""#), "{reply}");
    }
    runtime.block_on(tokio::task::yield_now());
    server
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, kind, count] = args.as_slice() {
        if flag == "--memory" {
            println!("{}", held(kind, count.parse()?));
            return Ok(());
        }
    }
    // The server of `--bin host_scale`: `N` tools over stdio.
    if let [flag, count] = args.as_slice() {
        if flag == "--serve-stdio" {
            let server = match count.as_str() {
                "10" => many::<10>(),
                "100" => many::<100>(),
                "1000" => many::<1_000>(),
                "10000" => many::<10_000>(),
                other => return Err(format!("no server of {other} tools").into()),
            };
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            runtime.block_on(mcp_server::transport::stdio::serve(server))?;
            return Ok(());
        }
    }
    let dir = figures(&args)?;
    let dir = dir.as_path();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let counts = [100, 1_000, 10_000];
    let (legacy, _router) = sessions(&runtime, &counts, true);
    let legacy: Vec<(usize, Duration, u64)> = legacy
        .into_iter()
        .map(|(count, one)| (count, one, memory_of("sessions", count)))
        .collect();
    let tasks: Vec<(usize, u64)> = counts
        .iter()
        .map(|&count| (count, memory_of("tasks", count)))
        .collect();
    let rows = [
        measure::<10>(&runtime),
        measure::<100>(&runtime),
        measure::<1_000>(&runtime),
        measure::<10_000>(&runtime),
    ];
    println!("| tools | tools/list, first page | tools/list, every page | tools/call, the last tool | server memory |");
    println!("| --- | --- | --- | --- | --- |");
    for row in &rows {
        println!(
            "| {} | {:.1} µs | {:.1} µs | {:.2} µs | {:.1} KiB |",
            row.tools,
            micros(row.first_page),
            micros(row.every_page),
            micros(row.call_last),
            row.memory as f64 / 1024.0
        );
    }
    let points = |f: fn(&Row) -> f64| rows.iter().map(|r| (r.tools as f64, f(r))).collect();
    let chart = Chart {
        title: "A server's costs against its number of tools",
        x_label: "tools",
        y_label: "µs per request",
        series: vec![
            Series {
                name: "tools/list, every page",
                points: points(|r| micros(r.every_page)),
            },
            Series {
                name: "tools/list, first page",
                points: points(|r| micros(r.first_page)),
            },
            Series {
                name: "tools/call, the last tool",
                points: points(|r| micros(r.call_last)),
            },
        ],
    };
    std::fs::write(dir.join("server-tools.svg"), chart.svg())?;

    println!();
    println!("| count | legacy sessions: memory | one more `initialize` | live tasks: memory |");
    println!("| --- | --- | --- | --- |");
    for ((count, one, memory), (_, held)) in legacy.iter().zip(&tasks) {
        println!(
            "| {count} | {:.1} KiB ({} B each) | {:.1} µs | {:.1} KiB ({} B each) |",
            *memory as f64 / 1024.0,
            memory / *count as u64,
            micros(*one),
            *held as f64 / 1024.0,
            held / *count as u64,
        );
    }
    let per = |rows: &[(usize, u64)]| -> Vec<(f64, f64)> {
        rows.iter()
            .map(|&(count, bytes)| (count as f64, (bytes as f64 / 1024.0).max(1.0)))
            .collect()
    };
    let state = Chart {
        title: "Memory a server holds for its sessions and tasks",
        x_label: "sessions or live tasks",
        y_label: "KiB",
        series: vec![
            Series {
                name: "legacy sessions",
                points: per(&legacy.iter().map(|&(c, _, m)| (c, m)).collect::<Vec<_>>()),
            },
            Series {
                name: "live tasks",
                points: per(&tasks),
            },
        ],
    };
    std::fs::write(dir.join("server-state.svg"), state.svg())?;
    eprintln!("wrote the charts to {}", dir.display());
    Ok(())
}
