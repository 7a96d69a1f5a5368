//! How a server's costs grow with its number of tools: `tools/list` (the
//! first page, and every page), `tools/call` of the last tool, and the
//! memory of the built server, at 10, 100, 1,000 and 10,000 tools.
//!
//! `cargo run --release -p mcp-bench --bin scale [SVG]`: requests go
//! through `Server::handle_bytes` on a current-thread runtime (no I/O);
//! each figure is the median of 7 runs. The table goes to stdout, and the
//! chart (log-log) to `SVG`, by default `bench/figures/server-tools.svg`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use mcp_bench::chart::{Chart, Series};
use mcp_server::tool::{ToolOutput, ToolSet};
use mcp_server::{BoxFuture, Context, ErrorObject, Outcome, Server};
use mcp_types::v2026_07_28::Tool;
use serde_json::{json, Map, Value};

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

/// Resident memory of this process in bytes, from `/proc/self/statm`.
fn resident() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| pages * 4096)
}

struct Row {
    tools: usize,
    first_page: Duration,
    every_page: Duration,
    call_last: Duration,
    memory: u64,
}

fn measure<const N: usize>(runtime: &tokio::runtime::Runtime) -> Row {
    let before = resident();
    let server = Server::builder(Many::<N>)
        .info("scale", "0")
        .tools()
        .build()
        .expect("a server");
    let memory = resident().saturating_sub(before);
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

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let svg = std::env::args()
        .nth(1)
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/figures/server-tools.svg").into());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
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
    if let Some(dir) = std::path::Path::new(&svg).parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(&svg, chart.svg())?;
    eprintln!("wrote {svg}");
    Ok(())
}
