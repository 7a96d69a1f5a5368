//! Client-side `tools/call` latency over stdio and HTTP in both eras, and
//! the host's memory per connected server, against the `everything`
//! example of `mcp-server`.
//!
//! ```text
//! cargo build --release -p mcp-toolkit-server --features sealed-state,validation --example everything
//! cargo run --release -p mcp-toolkit-host --example latency -- target/release/examples/everything
//! ```

use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_host::approval::{ApproveAll, Gate, Policy};
use mcp_host::client::{CallOptions, Client, ClientOptions, NoInput, StdioCommand, Target};
use mcp_host::ServerId;
use serde_json::Map;

const CALLS: usize = 2000;
const WARM_UP: usize = 200;
const SERVERS: usize = 20;

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

async fn connect(target: Target, legacy: bool, n: usize) -> Client {
    let options = ClientOptions {
        force_legacy: legacy,
        ..ClientOptions::default()
    };
    let id = ServerId::new(format!("s{n}")).expect("id");
    Client::connect(id, target, Arc::new(NoInput), options, None)
        .await
        .expect("connects")
}

async fn one_call(client: &Client, gate: &Gate) -> Duration {
    let started = Instant::now();
    let call = client
        .prepare_call("test_simple_text", Map::new())
        .await
        .expect("prepared");
    let approval = gate.authorize(&call).await.expect("approved");
    client
        .call_tool(call, approval, &CallOptions::default())
        .await
        .expect("called");
    started.elapsed()
}

async fn latency(label: &str, client: &Client) {
    let gate = Gate::new(Policy::default(), Arc::new(ApproveAll));
    for _ in 0..WARM_UP {
        one_call(client, &gate).await;
    }
    let started = Instant::now();
    let mut times = Vec::with_capacity(CALLS);
    for _ in 0..CALLS {
        times.push(one_call(client, &gate).await);
    }
    let total = started.elapsed();
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
    println!(
        "| {label} | {:.1} µs | {:.1} µs | {:.1} µs | {:.0} |",
        at(0.0).as_secs_f64() * 1e6,
        at(0.5).as_secs_f64() * 1e6,
        at(0.99).as_secs_f64() * 1e6,
        CALLS as f64 / total.as_secs_f64()
    );
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let Some(server) = std::env::args().nth(1) else {
        eprintln!("usage: latency PATH_TO_EVERYTHING");
        std::process::exit(2);
    };
    let stdio = || {
        Target::Stdio(StdioCommand {
            command: server.clone(),
            args: vec!["--stdio".into()],
            ..StdioCommand::default()
        })
    };
    let addr = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port");
    let mut http_server = Command::new(&server)
        .args(["--http", &addr.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the server starts");
    while std::net::TcpStream::connect(addr).is_err() {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let http = || Target::Http {
        url: format!("http://{addr}/mcp"),
        headers: Vec::new(),
    };

    println!("| transport, era | min | median | p99 | calls/s |");
    println!("| --- | --- | --- | --- | --- |");
    for (label, target, legacy) in [
        ("stdio, modern", stdio(), false),
        ("stdio, legacy", stdio(), true),
        ("HTTP, modern", http(), false),
        ("HTTP, legacy", http(), true),
    ] {
        let client = connect(target, legacy, 0).await;
        latency(label, &client).await;
        client.shutdown().await;
    }

    println!();
    println!("| transport | host RSS per connected server |");
    println!("| --- | --- |");
    for (label, make) in [("stdio", &stdio as &dyn Fn() -> Target), ("HTTP", &http)] {
        let before = rss_kib();
        let mut clients = Vec::new();
        for n in 0..SERVERS {
            let client = connect(make(), false, n).await;
            client.list_tools().await.expect("tools");
            clients.push(client);
        }
        let after = rss_kib();
        println!(
            "| {label} | {:.0} KiB |",
            after.saturating_sub(before) as f64 / SERVERS as f64
        );
        for client in &clients {
            client.shutdown().await;
        }
    }
    let _ = http_server.kill();
    let _ = http_server.wait();
}
