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
//!
//! Then 10 configured servers of which 2 are used: the processes running
//! and the memory of the host and its servers together, with every server
//! started with the host and with lazy ones (`"lazy": true`, pinned by an
//! earlier start), each in a fresh process (`--used-of-ten eager|lazy`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_bench::chart::{Chart, Series};
use mcp_bench::measure::{children, figures, in_fresh_process, resident, resident_of};
use mcp_host::approval::ApproveAll;
use mcp_host::client::CallOptions;
use mcp_host::trust::PinFile;
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
    start_with(servers, tools, None).await
}

/// As [`start`], the servers lazy when `pins` is given, and pinned there.
async fn start_with(servers: usize, tools: usize, pins: Option<&std::path::Path>) -> Host {
    let entries: Map<String, Value> = (0..servers)
        .map(|n| {
            let mut entry =
                json!({"command": scale(), "args": ["--serve-stdio", tools.to_string()]});
            if pins.is_some() {
                entry["lazy"] = json!(true);
            }
            (format!("s{n}"), entry)
        })
        .collect();
    let config = HostConfig::from_json(&json!({ "mcpServers": entries }).to_string())
        .expect("a configuration");
    let mut builder = Host::builder(config).approver(Arc::new(ApproveAll));
    if let Some(pins) = pins {
        builder = builder.pin_file(PinFile::new(pins));
    }
    let host = builder.start().await;
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

/// 10 servers configured, 2 of them used: the servers running, and the
/// memory of this process and theirs together.
async fn used_of_ten(lazy: bool) -> (usize, u64) {
    let pins = std::env::temp_dir().join(format!("host-scale-pins-{}.json", std::process::id()));
    let _ = std::fs::remove_file(&pins);
    let pins = lazy.then_some(pins.as_path());
    if pins.is_some() {
        // The first start pins every server; the lazy ones then sleep.
        start_with(10, 10, pins).await.shutdown().await;
    }
    let host = start_with(10, 10, pins).await;
    for server in ["s3", "s7"] {
        call(&host, &format!("{server}__t0")).await;
    }
    let running = children();
    let bytes = resident() + running.iter().map(|&pid| resident_of(pid)).sum::<u64>();
    host.shutdown().await;
    if let Some(pins) = pins {
        let _ = std::fs::remove_file(pins);
    }
    (running.len(), bytes)
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, mode] = args.as_slice() {
        if flag == "--used-of-ten" {
            let (running, bytes) = runtime.block_on(used_of_ten(mode == "lazy"));
            println!("{}", bytes);
            eprintln!("{running} processes");
            return Ok(());
        }
    }
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

    println!("| 10 servers configured, 2 used | servers running | host and servers memory |");
    println!("| --- | --- | --- |");
    for mode in ["eager", "lazy"] {
        let output = std::process::Command::new(std::env::current_exe()?)
            .args(["--used-of-ten", mode])
            .output()?;
        assert!(output.status.success(), "{mode}: {output:?}");
        let bytes: f64 = String::from_utf8_lossy(&output.stdout).trim().parse()?;
        let running = String::from_utf8_lossy(&output.stderr);
        println!(
            "| {mode} | {} | {:.1} MiB |",
            running.split_whitespace().next().unwrap_or("?"),
            bytes / (1024.0 * 1024.0)
        );
    }
    println!();

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
