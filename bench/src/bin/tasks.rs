//! The cost of the tasks extension on the server, without I/O: a
//! `tools/call` answered with `CreateTaskResult` plus the first `tasks/get`
//! of that task, beside a plain `tools/call` of the same work, both through
//! `Server::handle_bytes` on a current-thread runtime; then the resident
//! memory of 10,000 live tasks held in the in-memory store; then how many
//! `tasks/get` polls a server answers per second with its tasks in Redis
//! (a `redis-server` of its own on a loopback port, the Debian package
//! `redis-server`), beside the same polls from memory.
//!
//! ```text
//! cargo run --release -p mcp-bench --bin tasks
//! cargo run --release -p mcp-bench --bin tasks -- --live-only   # for a heap profiler
//! cargo run --release -p mcp-bench --bin tasks -- --full-store  # a store at its bound
//! cargo run --release -p mcp-bench --bin tasks -- --principals  # a quota's count, in the store alone
//! ```

use std::hint::black_box;
use std::time::{Duration, Instant};

use mcp_server::tasks::{MemoryTaskStore, RedisTaskStore, TaskSettings};
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
    answer(runtime, server, bytes).0
}

/// The encoded reply to `bytes`, which must be a result, and the time the
/// server took to answer (the bench's own work on the request and reply
/// left out).
fn answer(runtime: &tokio::runtime::Runtime, server: &Server, bytes: &[u8]) -> (Vec<u8>, Duration) {
    let start = Instant::now();
    let outcome = runtime.block_on(server.handle_bytes(bytes, None));
    let took = start.elapsed();
    let Outcome::Reply { message, .. } = outcome else {
        panic!("not a reply: {outcome:?}");
    };
    let bytes = message.into_bytes();
    assert!(
        bytes.windows(9).any(|w| w == br#""result":"#),
        "not a result: {}",
        String::from_utf8_lossy(&bytes)
    );
    (bytes, took)
}

/// The `taskId` of a `CreateTaskResult`.
fn task_id(reply: &[u8]) -> String {
    let text = std::str::from_utf8(reply).expect("UTF-8");
    let start = text.find(r#""taskId":""#).expect("a task id") + 10;
    let end = start + text[start..].find('"').expect("the id ends");
    text[start..end].to_owned()
}

/// The mean time per call of one run of `CALLS` calls of `work`, which
/// times the part it wants counted and returns that time and the time up
/// to the end of what it left running.
fn one_run(run: usize, mut work: impl FnMut(usize) -> (Duration, Duration)) -> [Duration; 2] {
    let (mut answered, mut settled) = (Duration::ZERO, Duration::ZERO);
    for i in 0..CALLS {
        let (a, s) = work(run * CALLS + i + 1);
        answered += a;
        settled += s;
    }
    [answered / CALLS as u32, settled / CALLS as u32]
}

/// The median of `values`.
fn median<T: PartialOrd + Copy>(mut values: Vec<T>) -> T {
    values.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    values[values.len() / 2]
}

/// Runs what the requests left queued on the runtime (a task's runner)
/// until nothing is, and says how long that took: `serve` returns as soon
/// as the answer is ready, before a current-thread runtime runs anything
/// that was spawned.
fn settle(runtime: &tokio::runtime::Runtime) -> Duration {
    let start = Instant::now();
    runtime.block_on(tokio::task::yield_now());
    start.elapsed()
}

/// Resident memory of this process in bytes, from `/proc/self/statm`.
/// This process's resident memory, when it can be read.
fn resident() -> Option<u64> {
    Some(mcp_bench::measure::resident()).filter(|&bytes| bytes > 0)
}

/// `--principals`: what a principal's quota costs a creation in the
/// in-memory store alone, as the store fills. Other principals hold
/// `held` unfinished tasks; then principal `p` makes 10,000 tasks, each
/// finished at once (so that its quota never refuses). The mean time of
/// one creation and one update, for each `held`.
fn principals() {
    use futures_util::FutureExt as _;
    use mcp_server::tasks::{TaskRecord, TaskStore};
    // The in-memory store answers at once.
    fn ready<T>(future: mcp_server::BoxFuture<'_, T>) -> T {
        future.now_or_never().expect("the memory store never waits")
    }
    println!("| unfinished tasks of other principals | create + finish, ns |");
    println!("| --- | --- |");
    for held in [1_000, 10_000, 100_000] {
        let store = MemoryTaskStore::new(held + CALLS + 1).with_quota(held + CALLS);
        let record = |id: String, owner: String| TaskRecord::new(id, Some(owner), 0, None, 500);
        for i in 0..held {
            let owner = format!("other{}", i % 100);
            ready(store.create(record(format!("o{i}"), owner), 0)).expect("room");
        }
        let start = Instant::now();
        for i in 0..CALLS {
            let id = format!("p{i}");
            ready(store.create(record(id.clone(), "p".to_owned()), 0)).expect("room");
            let mut finish = |r: &mut TaskRecord| {
                r.cancel(0);
            };
            ready(store.update(&id, 0, &mut finish)).expect("found");
        }
        let took = start.elapsed() / CALLS as u32;
        println!("| {held} | {} |", took.as_nanos());
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    if std::env::args().any(|a| a == "--principals") {
        principals();
        return Ok(());
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let _entered = runtime.enter();
    // Memory first, on a fresh process: later runs leave freed memory
    // that the allocator would hand to the live tasks unseen.
    let holding = Server::builder(Jobs)
        .info("jobs", "0")
        .tools()
        .tasks(
            TaskSettings::default()
                .store(MemoryTaskStore::new(LIVE))
                .inline_grace(Duration::ZERO),
        )
        .build()?;
    let before = resident();
    let mut ids = Vec::with_capacity(LIVE);
    for i in 0..LIVE {
        ids.push(task_id(&serve(&runtime, &holding, &call(i + 1, "hold"))));
    }
    runtime.block_on(tokio::task::yield_now());
    let after = resident();
    black_box(&ids);
    if std::env::args().any(|a| a == "--live-only") {
        // For a heap profiler: the live tasks, and nothing after them.
        if let (Some(before), Some(after)) = (before, after) {
            println!(
                "{} bytes a live task",
                after.saturating_sub(before) / LIVE as u64
            );
        }
        return Ok(());
    }

    // Room for every task the runs make: none is refused or swept. With
    // `--full-store`, the default bound of 10,000 instead, so that every
    // task after the first 10,000 is made in a full store, which evicts
    // finished tasks to make room.
    let bound = if std::env::args().any(|a| a == "--full-store") {
        MemoryTaskStore::default().max_tasks()
    } else {
        RUNS * CALLS + POLLERS + 1
    };
    let settings = TaskSettings::default()
        .store(MemoryTaskStore::new(bound))
        .ttl(Some(Duration::from_secs(600)))
        // What a task costs: no call is answered inline within a grace.
        .inline_grace(Duration::ZERO);
    let server = Server::builder(Jobs)
        .info("jobs", "0")
        .tools()
        .tasks(settings)
        .build()?;

    // Each call twice over: up to its answers, and up to the end of what
    // it left running (a task's runner, which stores the handler's
    // result), as a plain call's handler ends before its answer.
    // Plain runs and task runs alternate, and each ratio is taken within
    // one pair of runs: this machine's speed drifts by half between runs
    // (a plain call took 2.4 to 3.8 us in one session), which a ratio of
    // two separate series would take for the code's.
    let (mut plain, mut task, mut ratio, mut ratio_settled) = (vec![], vec![], vec![], vec![]);
    for run in 0..RUNS {
        let p = one_run(run, |id| {
            let (reply, took) = answer(&runtime, &server, &call(id, "add"));
            black_box(reply);
            (took, took + settle(&runtime))
        });
        let t = one_run(run, |id| {
            let (created, first) = answer(&runtime, &server, &call(id, "add_later"));
            let (polled, second) = answer(&runtime, &server, &get(id, &task_id(&created)));
            black_box(polled);
            (first + second, first + second + settle(&runtime))
        });
        ratio.push(t[0].as_secs_f64() / p[0].as_secs_f64());
        ratio_settled.push(t[1].as_secs_f64() / p[1].as_secs_f64());
        plain.push(p);
        task.push(t);
    }
    let times =
        |runs: &[[Duration; 2]], part: usize| median(runs.iter().map(|r| r[part]).collect());
    let (plain_settled, task_settled) = (times(&plain, 1), times(&task, 1));
    let (plain, task) = (times(&plain, 0), times(&task, 0));
    println!("| work per call | ns |");
    println!("| --- | --- |");
    println!("| plain tools/call, encoded | {} |", plain.as_nanos());
    println!(
        "| tools/call answered with CreateTaskResult + first tasks/get, encoded | {} |",
        task.as_nanos()
    );
    println!(
        "| ratio (median of the runs' ratios) | {:.2}x |",
        median(ratio)
    );
    println!(
        "| plain tools/call, up to its handler's end | {} |",
        plain_settled.as_nanos()
    );
    println!(
        "| the task's call and first poll, up to its runner's end | {} |",
        task_settled.as_nanos()
    );
    println!(
        "| ratio (median of the runs' ratios) | {:.2}x |",
        median(ratio_settled)
    );
    if let (Some(before), Some(after)) = (before, after) {
        println!();
        println!(
            "resident memory of {LIVE} live tasks: {:.1} MiB, {} bytes a task",
            after.saturating_sub(before) as f64 / (1024.0 * 1024.0),
            after.saturating_sub(before) / LIVE as u64
        );
    }

    println!();
    println!("| tasks/get polls, {POLLERS} pollers on one thread, {POLL_SECS} s | polls/s |");
    println!("| --- | --- |");
    let memory = polls_per_second(&runtime, &server)?;
    println!("| from memory | {memory:.0} |");
    match Redis::start() {
        Ok(redis) => {
            let store = runtime.block_on(RedisTaskStore::connect(&redis.url))?;
            let shared = Server::builder(Jobs)
                .info("jobs", "0")
                .tools()
                .tasks(
                    TaskSettings::default()
                        .store(store)
                        .inline_grace(Duration::ZERO),
                )
                .build()?;
            let from_redis = polls_per_second(&runtime, &shared)?;
            println!("| from Redis (one local redis-server) | {from_redis:.0} |");
        }
        Err(why) => println!("| from Redis | not measured: {why} |"),
    }
    Ok(())
}

const POLLERS: usize = 32;
const POLL_SECS: u64 = 5;

/// Starts a live task for each poller, then has every poller poll its task
/// for `POLL_SECS`; the polls answered per second.
fn polls_per_second(
    runtime: &tokio::runtime::Runtime,
    server: &Server,
) -> Result<f64, Box<dyn std::error::Error>> {
    let base = 1_000_000;
    let ids: Vec<String> = (0..POLLERS)
        .map(|i| task_id(&serve(runtime, server, &call(base + i, "hold"))))
        .collect();
    let deadline = Instant::now() + Duration::from_secs(POLL_SECS);
    let started = Instant::now();
    let counts = runtime.block_on(futures_util::future::join_all(ids.iter().enumerate().map(
        |(n, id)| async move {
            let mut polls = 0u64;
            while Instant::now() < deadline {
                let request = get(base + n, id);
                match server.handle_bytes(&request, None).await {
                    Outcome::Reply { message, .. } => {
                        black_box(message);
                        polls += 1;
                    }
                    other => panic!("not a reply: {other:?}"),
                }
            }
            polls
        },
    )));
    Ok(counts.iter().sum::<u64>() as f64 / started.elapsed().as_secs_f64())
}

/// A `redis-server` of the benchmark's own, stopped (by its pid) on drop.
struct Redis {
    child: std::process::Child,
    url: String,
}

impl Redis {
    fn start() -> Result<Self, String> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| e.to_string())?
            .port();
        let child = std::process::Command::new("redis-server")
            .args(["--bind", "127.0.0.1", "--port", &port.to_string()])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(std::process::Stdio::null())
            .spawn()
            .map_err(|_| String::from("install the Debian package redis-server"))?;
        let redis = Redis {
            child,
            url: format!("redis://127.0.0.1:{port}/"),
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if Instant::now() > deadline {
                return Err(String::from("redis-server did not start"));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(redis)
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
