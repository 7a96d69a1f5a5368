//! How a host's costs grow: its start-up time and memory with 1, 10 and
//! 50 stdio servers, and a tool call's latency with 10 to 10,000 tools in
//! its catalogue.
//!
//! ```text
//! cargo build --release -p mcp-bench --bin scale
//! cargo run --release -p mcp-bench --bin host_scale [DIR]
//! ```
//!
//! The servers are `scale --serve-stdio N` (the bench's server of `N`
//! tools, over stdio), started beside this binary. Start-up is
//! `Host::start` (every server spawned, probed, its lists read and
//! pinned), the median of 5 starts; memory is that of this process once
//! started, each figure in a fresh process of its own (`--memory N`). A
//! call is `Host::prepare`, `Host::authorize` and `Host::call_tool` of the
//! last tool, the median of 7 runs of 200 calls. The charts go to `DIR`
//! (default `bench/figures`): `host-servers.svg` and `host-tools.svg`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_bench::chart::{Chart, Series};
use mcp_bench::measure::{figures, in_fresh_process, resident};
use mcp_host::approval::ApproveAll;
use mcp_host::client::CallOptions;
use mcp_host::{Host, HostConfig};
use serde_json::{json, Map, Value};

/// The bench's server binary, beside this one.
fn scale() -> String {
    let exe = std::env::current_exe().expect("this bench");
    let path = exe.with_file_name("scale");
    assert!(
        path.is_file(),
        "build it first: cargo build --release -p mcp-bench --bin scale"
    );
    path.display().to_string()
}

/// A host of `servers` stdio servers of `tools` tools each.
async fn start(servers: usize, tools: usize) -> Host {
    let entries: Map<String, Value> = (0..servers)
        .map(|n| {
            let entry = json!({"command": scale(), "args": ["--serve-stdio", tools.to_string()]});
            (format!("s{n}"), entry)
        })
        .collect();
    let config = HostConfig::from_json(&json!({ "mcpServers": entries }).to_string())
        .expect("a configuration");
    let host = Host::builder(config)
        .approver(Arc::new(ApproveAll))
        .start()
        .await;
    let down: Vec<_> = host
        .servers()
        .await
        .into_iter()
        .filter(|s| s.error.is_some())
        .collect();
    assert!(down.is_empty(), "servers that did not start: {down:?}");
    host
}

/// The resident memory of a host of `servers` servers, in a fresh process.
fn memory_of(servers: usize) -> u64 {
    in_fresh_process(&["--memory", &servers.to_string()])
}

fn median(mut runs: Vec<Duration>) -> Duration {
    runs.sort();
    runs[runs.len() / 2]
}

/// One approved call of `tool`.
async fn call(host: &Host, tool: &str) {
    let Value::Object(arguments) = json!({"a": 7}) else {
        unreachable!()
    };
    let prepared = host.prepare(tool, arguments).await.expect("prepared");
    let approval = host.authorize(&prepared).await.expect("approved");
    host.call_tool(prepared, approval, &CallOptions::default())
        .await
        .expect("called");
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, servers] = args.as_slice() {
        if flag == "--memory" {
            let servers: usize = servers.parse()?;
            let before = resident();
            let host = runtime.block_on(start(servers, 10));
            println!("{}", resident().saturating_sub(before));
            runtime.block_on(host.shutdown());
            return Ok(());
        }
    }
    let dir = figures(&args)?;
    let dir = dir.as_path();

    let mut starts = Vec::new();
    for servers in [1, 10, 50] {
        let times: Vec<Duration> = (0..5)
            .map(|_| {
                runtime.block_on(async {
                    let begun = Instant::now();
                    let host = start(servers, 10).await;
                    let took = begun.elapsed();
                    host.shutdown().await;
                    took
                })
            })
            .collect();
        starts.push((servers, median(times), memory_of(servers)));
    }
    println!("| stdio servers | `Host::start` | host memory |");
    println!("| --- | --- | --- |");
    for (servers, took, memory) in &starts {
        println!(
            "| {servers} | {:.1} ms | {:.1} MiB |",
            took.as_secs_f64() * 1e3,
            *memory as f64 / (1024.0 * 1024.0)
        );
    }

    let mut calls = Vec::new();
    for tools in [10, 100, 1_000, 10_000] {
        let took = runtime.block_on(async {
            let host = start(1, tools).await;
            let last = format!("s0__t{}", tools - 1);
            call(&host, &last).await;
            let mut runs = Vec::new();
            for _ in 0..7 {
                let begun = Instant::now();
                for _ in 0..200 {
                    call(&host, &last).await;
                }
                runs.push(begun.elapsed() / 200);
            }
            host.shutdown().await;
            median(runs)
        });
        calls.push((tools, took));
    }
    println!();
    println!("| tools in the catalogue | a call of the last tool |");
    println!("| --- | --- |");
    for (tools, took) in &calls {
        println!("| {tools} | {:.1} µs |", micros(*took));
    }

    let servers = Chart {
        title: "A host's start-up against its number of stdio servers",
        x_label: "stdio servers",
        y_label: "ms to start, MiB held",
        series: vec![
            Series {
                name: "Host::start, ms",
                points: starts
                    .iter()
                    .map(|&(n, took, _)| (n as f64, took.as_secs_f64() * 1e3))
                    .collect(),
            },
            Series {
                name: "host memory, MiB",
                points: starts
                    .iter()
                    .map(|&(n, _, bytes)| (n as f64, bytes as f64 / (1024.0 * 1024.0)))
                    .collect(),
            },
        ],
    };
    std::fs::write(dir.join("host-servers.svg"), servers.svg())?;
    let tools = Chart {
        title: "A host's tool call against the tools in its catalogue",
        x_label: "tools in the catalogue",
        y_label: "µs a call",
        series: vec![Series {
            name: "prepare, authorize, call",
            points: calls
                .iter()
                .map(|&(n, took)| (n as f64, micros(took)))
                .collect(),
        }],
    };
    std::fs::write(dir.join("host-tools.svg"), tools.svg())?;
    eprintln!("wrote the charts to {}", dir.display());
    Ok(())
}
