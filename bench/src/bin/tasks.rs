//! The cost of the tasks extension on the server, without I/O: a
//! `tools/call` answered with `CreateTaskResult` plus the first `tasks/get`
//! of that task, beside a plain `tools/call` of the same work, both through
//! `Server::handle_bytes` on a current-thread runtime; then the resident
//! memory of 10,000 live tasks held in the in-memory store.
//!
//! ```text
//! cargo run --release -p mcp-bench --bin tasks
//! ```

use std::hint::black_box;
use std::time::{Duration, Instant};

use mcp_server::tasks::{MemoryTaskStore, TaskSettings};
use mcp_server::{tool, tools, Context, Outcome, Server};

struct Jobs;

#[tools]
impl Jobs {
    /// Adds `a` and `b`.
    #[tool]
    fn add(&self, a: i64, b: i64) -> String {
        (i128::from(a) + i128::from(b)).to_string()
    }

    /// Adds `a` and `b` after yielding once, so that the call becomes a
    /// task.
    #[tool(task = "optional")]
    async fn add_later(&self, a: i64, b: i64) -> String {
        tokio::task::yield_now().await;
        (i128::from(a) + i128::from(b)).to_string()
    }

    /// Runs until cancelled: a live task. Takes the same arguments as the
    /// others, so that one request shape serves all three.
    #[tool(task = "optional")]
    async fn hold(&self, cx: &Context, a: i64, b: i64) -> String {
        cx.cancelled().await;
        (i128::from(a) + i128::from(b)).to_string()
    }
}

const CALLS: usize = 10_000;
const RUNS: usize = 7;
const LIVE: usize = 10_000;

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}"#;

fn call(id: usize, tool: &str) -> Vec<u8> {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{{"a":{id},"b":1}},{META}}}}}"#
    )
    .into_bytes()
}

fn get(id: usize, task: &str) -> Vec<u8> {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tasks/get","params":{{"taskId":"{task}",{META}}}}}"#
    )
    .into_bytes()
}

/// The encoded reply to `bytes`, which must be a result.
fn serve(runtime: &tokio::runtime::Runtime, server: &Server, bytes: &[u8]) -> Vec<u8> {
    let outcome = runtime.block_on(server.handle_bytes(bytes, None));
    let Outcome::Reply { message, .. } = outcome else {
        panic!("not a reply: {outcome:?}");
    };
    let bytes = message.into_bytes();
    assert!(
        bytes.windows(9).any(|w| w == br#""result":"#),
        "not a result: {}",
        String::from_utf8_lossy(&bytes)
    );
    bytes
}

/// The `taskId` of a `CreateTaskResult`.
fn task_id(reply: &[u8]) -> String {
    let text = std::str::from_utf8(reply).expect("UTF-8");
    let start = text.find(r#""taskId":""#).expect("a task id") + 10;
    let end = start + text[start..].find('"').expect("the id ends");
    text[start..end].to_owned()
}

/// The median over runs of the time per call of `work`.
fn per_call(mut work: impl FnMut(usize) -> usize) -> Duration {
    let mut runs: Vec<Duration> = (0..RUNS)
        .map(|run| {
            let start = Instant::now();
            let mut bytes = 0;
            for i in 0..CALLS {
                bytes += work(run * CALLS + i + 1);
            }
            black_box(bytes);
            start.elapsed() / CALLS as u32
        })
        .collect();
    runs.sort();
    runs[RUNS / 2]
}

/// Resident memory of this process in bytes, from `/proc/self/statm`.
fn resident() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let _entered = runtime.enter();
    // Room for every task the runs make: none is refused or swept.
    let settings = TaskSettings::default()
        .store(MemoryTaskStore::new(RUNS * CALLS + LIVE + 1))
        .ttl(Some(Duration::from_secs(600)));
    let server = Server::builder(Jobs)
        .info("jobs", "0")
        .tools()
        .tasks(settings)
        .build()?;

    let plain = per_call(|id| serve(&runtime, &server, &call(id, "add")).len());
    let task = per_call(|id| {
        let created = serve(&runtime, &server, &call(id, "add_later"));
        let polled = serve(&runtime, &server, &get(id, &task_id(&created)));
        created.len() + polled.len()
    });
    // Let the finished tasks' runners end before measuring memory.
    runtime.block_on(tokio::time::sleep(Duration::from_millis(100)));

    let before = resident();
    let mut ids = Vec::with_capacity(LIVE);
    for i in 0..LIVE {
        ids.push(task_id(&serve(&runtime, &server, &call(i + 1, "hold"))));
    }
    runtime.block_on(tokio::task::yield_now());
    let after = resident();
    black_box(&ids);

    println!("| work per call | ns |");
    println!("| --- | --- |");
    println!("| plain tools/call, encoded | {} |", plain.as_nanos());
    println!(
        "| tools/call answered with CreateTaskResult + first tasks/get, encoded | {} |",
        task.as_nanos()
    );
    println!(
        "| ratio | {:.2}x |",
        task.as_secs_f64() / plain.as_secs_f64()
    );
    if let (Some(before), Some(after)) = (before, after) {
        println!();
        println!(
            "resident memory of {LIVE} live tasks: {:.1} MiB, {} bytes a task",
            after.saturating_sub(before) as f64 / (1024.0 * 1024.0),
            after.saturating_sub(before) / LIVE as u64
        );
    }
    Ok(())
}
