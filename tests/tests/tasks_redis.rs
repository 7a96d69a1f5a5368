//! Tasks shared through a real Redis (the Debian `redis-server` package):
//! two replicas of the `everything` example keep their tasks in one Redis,
//! and `mcp-host` clients move between them. A task created on one replica
//! is followed, answered and cancelled through the other; a replica killed
//! while it runs a task leaves it `failed` once its lease runs out; a
//! handle minted on one replica resolves on the other; and the stores
//! themselves keep concurrent updates, carry signals between processes and
//! let a single-use token through once across replicas.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use mcp_host::approval::{ApproveAll, Gate, Policy};
use mcp_host::client::{
    CallOptions, Client, ClientError, ClientOptions, InputHandler, Target, ToolStart,
};
use mcp_host::untrusted::Untrusted;
use mcp_host::{BoxFuture, ServerId};
use mcp_server::shared::{RedisShared, SharedStore};
use mcp_server::state::SharedReplayGuard;
use mcp_server::tasks::record::Encoded;
use mcp_server::tasks::{RedisTaskStore, Signal, StoreError, TaskRecord, TaskStore};
use mcp_tests::redis::Redis;
use mcp_types::ext::tasks::GetTaskResult;
use mcp_types::v2026_07_28::{ClientCapabilities, ElicitRequestParams, ElicitResult};
use serde_json::{json, Value};

/// A child process killed (by its own pid) when dropped.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A Redis of this test's own, and its URL.
fn redis() -> (Redis, String) {
    let redis = Redis::start();
    let url = redis.url().to_owned();
    (redis, url)
}

/// The `everything` example with Redis, built once.
fn everything() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| mcp_tests::build::example("everything"))
        .clone()
}

/// A replica over HTTP keeping its tasks in `redis`, with a short lease,
/// on a port of its own choosing: it binds port 0 and says which port it
/// got, so that no other process can take the port in between.
fn replica(redis: &str) -> (Running, String) {
    use std::io::BufRead;
    let mut child = Command::new(everything())
        .args(["--http", "127.0.0.1:0", "--redis", redis])
        .env("MCP_TASK_LEASE_MS", "600")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the example starts");
    let stderr = child.stderr.take().expect("piped");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            match line.strip_prefix("serving MCP at ") {
                Some(url) => {
                    let _ = tx.send(url.trim().to_owned());
                }
                None => eprintln!("{line}"),
            }
        }
    });
    let mut running = Running(child);
    match rx.recv_timeout(Duration::from_secs(30)) {
        Ok(url) => (running, url),
        Err(_) => {
            let status = running.0.try_wait();
            panic!("the everything replica never said where it serves (exit: {status:?})")
        }
    }
}

/// Accepts every elicitation with `confirm: true`.
struct Confirm;

impl InputHandler for Confirm {
    fn capabilities(&self) -> ClientCapabilities {
        serde_json::from_value(json!({"elicitation": {"form": {}}})).expect("capabilities")
    }

    fn elicit<'a>(&'a self, _: Untrusted<ElicitRequestParams>) -> BoxFuture<'a, ElicitResult> {
        Box::pin(async {
            serde_json::from_value(json!({"action": "accept", "content": {"confirm": true}}))
                .expect("an elicit result")
        })
    }
}

async fn client(url: &str) -> Client {
    let options = ClientOptions {
        probe_timeout: Duration::from_secs(20),
        request_timeout: Duration::from_secs(20),
        ..ClientOptions::default()
    };
    let target = Target::Http {
        url: url.to_owned(),
        headers: Vec::new(),
    };
    Client::connect(
        ServerId::new("ev").expect("id"),
        target,
        Arc::new(Confirm),
        options,
        None,
    )
    .await
    .expect("connects")
}

/// `tool` with `args`, prepared and approved on `client`.
async fn approved(
    client: &Client,
    tool: &str,
    args: Value,
) -> (mcp_host::approval::ToolCall, mcp_host::approval::Approval) {
    let Value::Object(args) = args else {
        panic!("arguments are an object")
    };
    let call = client.prepare_call(tool, args).await.expect("prepared");
    let approval = Gate::new(Policy::default(), Arc::new(ApproveAll))
        .authorize(&call)
        .await
        .expect("approved");
    (call, approval)
}

/// Starts `tool` on `client` and returns the task it became.
async fn start(client: &Client, tool: &str, args: Value) -> String {
    let (call, approval) = approved(client, tool, args).await;
    match client
        .start_tool(call, approval, &CallOptions::default())
        .await
        .expect("started")
    {
        ToolStart::Task(task) => task.accept().task_id,
        ToolStart::Complete(result) => panic!("not a task: {result:?}"),
    }
}

/// Calls `tool` and returns its result as JSON.
async fn call(client: &Client, tool: &str, args: Value) -> Value {
    let (call, approval) = approved(client, tool, args).await;
    let result = client
        .call_tool(call, approval, &CallOptions::default())
        .await
        .expect("called");
    serde_json::to_value(result.accept()).expect("encodes")
}

fn text(result: &mcp_types::v2026_07_28::CallToolResult) -> String {
    serde_json::to_value(result).expect("encodes")["content"][0]["text"]
        .as_str()
        .expect("a text block")
        .to_owned()
}

/// Polls `task_id` through `client` until its status is `want`, for up to
/// `within`; the task as last seen.
async fn until(client: &Client, task_id: &str, want: &str, within: Duration) -> GetTaskResult {
    let deadline = Instant::now() + within;
    loop {
        let got = client.get_task(task_id).await.expect("tasks/get").accept();
        let status = match &got {
            GetTaskResult::Working(_) => "working",
            GetTaskResult::InputRequired(_) => "input_required",
            GetTaskResult::Completed(_) => "completed",
            GetTaskResult::Failed(_) => "failed",
            GetTaskResult::Cancelled(_) => "cancelled",
        };
        if status == want {
            return got;
        }
        assert!(
            Instant::now() < deadline,
            "task {task_id} is still {status}, not {want}: {got:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn any_replica_serves_any_task_and_a_dead_replica_fails_its_tasks() {
    let (_redis, url) = redis();
    let (mut first, first_url) = replica(&url);
    let (_second, second_url) = replica(&url);
    let a = client(&first_url).await;
    let b = client(&second_url).await;

    // A handle minted on A names the same memo on B.
    let remembered = call(&a, "remember", json!({"text": "kept across replicas"})).await;
    let handle = remembered["structuredContent"]["handle"]
        .as_str()
        .expect("a handle")
        .to_owned();
    assert!(handle.starts_with("memo_"), "{handle}");
    let recalled = call(&b, "recall", json!({ "handle": handle })).await;
    assert_eq!(recalled["content"][0]["text"], "kept across replicas");
    let unknown = call(
        &b,
        "recall",
        json!({"handle": format!("memo_{}", "A".repeat(32))}),
    )
    .await;
    assert_eq!(unknown["isError"], true);

    // Made on A, followed to its end on B.
    let task = start(&a, "slow_compute", json!({"seconds": 1, "label": "shared"})).await;
    let result = b
        .wait_task(&task, &CallOptions::default())
        .await
        .expect("completed");
    assert_eq!(text(&result.accept()), "computed `shared` in 1 s");

    // Made on A, which runs the handler; its question answered on B: the
    // answer reaches A's handler, and the result is read on B.
    let task = start(&a, "confirm_delete", json!({"filename": "b.txt"})).await;
    let result = b
        .wait_task(&task, &CallOptions::default())
        .await
        .expect("completed");
    assert_eq!(text(&result.accept()), "deleted b.txt");

    // Made on A, cancelled on B, seen cancelled on A.
    let task = start(&a, "slow_compute", json!({"seconds": 600})).await;
    until(&b, &task, "working", Duration::from_secs(5)).await;
    b.cancel_task(&task).await.expect("tasks/cancel");
    until(&a, &task, "cancelled", Duration::from_secs(10)).await;

    // A dies while it runs a task: once the lease (600 ms) runs out, B
    // answers the task as failed, saying why.
    let task = start(&a, "slow_compute", json!({"seconds": 600})).await;
    until(&b, &task, "working", Duration::from_secs(5)).await;
    let _ = first.0.kill();
    let _ = first.0.wait();
    let killed = Instant::now();
    let GetTaskResult::Failed(failed) = until(&b, &task, "failed", Duration::from_secs(15)).await
    else {
        unreachable!()
    };
    assert!(
        killed.elapsed() >= Duration::from_millis(300),
        "failed before the lease ran out"
    );
    assert_eq!(failed.error.code, -32603);
    assert_eq!(
        failed.error.message,
        "the server running the task stopped before it finished"
    );
    // And a call whose task was lost that way ends with that error.
    let outcome = b.wait_task(&task, &CallOptions::default()).await;
    assert!(
        matches!(&outcome, Err(ClientError::Rpc(e)) if e.accept_ref().code == -32603),
        "{outcome:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_store_keeps_every_concurrent_update_and_carries_signals() {
    let (_redis, url) = redis();
    let a = RedisTaskStore::connect_with(&url, "t:")
        .await
        .expect("connects");
    let b = RedisTaskStore::connect_with(&url, "t:")
        .await
        .expect("connects");
    let now = 1_000;
    a.create(TaskRecord::new("one".into(), None, now, None, 100), now)
        .await
        .expect("created");
    assert!(
        a.create(TaskRecord::new("one".into(), None, now, None, 100), now)
            .await
            .is_err(),
        "an id is created once"
    );
    assert_eq!(
        b.get("one", now).await.expect("get").map(|r| r.id),
        Some("one".to_owned())
    );

    // Forty writers on two connections: every one of their keys lands.
    let stores = [Arc::new(a.clone()), Arc::new(b.clone())];
    let mut writers = Vec::new();
    for n in 0..40 {
        let store = stores[n % 2].clone();
        writers.push(tokio::spawn(async move {
            let key = format!("k{n}");
            let mut add = |r: &mut TaskRecord| {
                if !r.issued.contains(&key) {
                    r.issued.push(key.clone());
                }
            };
            store.update("one", now, &mut add).await.expect("updated")
        }));
    }
    for writer in writers {
        writer.await.expect("joined").expect("the record exists");
    }
    let record = b.get("one", now).await.expect("get").expect("exists");
    assert_eq!(record.issued.len(), 40, "{:?}", record.issued);

    // A record past its TTL is gone for both.
    a.create(
        TaskRecord::new("brief".into(), None, now, Some(50), 100),
        now,
    )
    .await
    .expect("created");
    assert!(b.get("brief", now + 50).await.expect("get").is_none());
    let mut touch = |r: &mut TaskRecord| r.renew(0);
    assert!(b
        .update("brief", now + 50, &mut touch)
        .await
        .expect("update")
        .is_none());

    // A signal sent through A reaches B's listeners.
    let mut signals = b.signals().expect("a shared store has signals");
    a.notify("one", Signal::Cancel).await.expect("published");
    let heard = tokio::time::timeout(Duration::from_secs(10), signals.recv())
        .await
        .expect("heard within 10 s")
        .expect("a signal");
    assert_eq!(heard, ("one".to_owned(), Signal::Cancel));
    assert_eq!(TaskStore::lease(&b), Some(Duration::from_secs(10)));
}

/// Opens a `subscriptions/listen` stream at `url` (an everything replica)
/// following `task`, and returns its reader once the head arrived.
async fn listen_to(url: &str, task: &str) -> tokio::io::BufReader<tokio::net::TcpStream> {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let authority = url
        .strip_prefix("http://")
        .and_then(|rest| rest.strip_suffix("/mcp"))
        .expect("an http://ADDR/mcp URL");
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen", "params": {
        "notifications": {"taskIds": [task]},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities":
                {"extensions": {"io.modelcontextprotocol/tasks": {}}},
        },
    }})
    .to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: subscriptions/listen\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut stream = tokio::net::TcpStream::connect(authority)
        .await
        .expect("connect");
    stream.write_all(request.as_bytes()).await.expect("send");
    let mut reader = tokio::io::BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).await.expect("a status line");
    assert!(line.starts_with("HTTP/1.1 200"), "{line}");
    reader
}

/// The next `notifications/tasks` on a listen stream, within 10 s.
async fn next_task_notice(reader: &mut tokio::io::BufReader<tokio::net::TcpStream>) -> Value {
    use tokio::io::AsyncBufReadExt;
    loop {
        let mut line = String::new();
        let read = tokio::time::timeout(Duration::from_secs(10), reader.read_line(&mut line))
            .await
            .expect("a notice within 10 s")
            .expect("read");
        assert!(read > 0, "the stream ended");
        let Some(data) = line.trim_end().strip_prefix("data:") else {
            continue;
        };
        let message: Value = serde_json::from_str(data.trim()).expect("JSON");
        if message["method"] == "notifications/tasks" {
            return message["params"].clone();
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subscriber_on_one_replica_hears_a_task_that_runs_on_another() {
    let (_redis, url) = redis();
    let (_first, first_url) = replica(&url);
    let (_second, second_url) = replica(&url);
    let a = client(&first_url).await;
    // Runs on A; followed on B, which never runs or polls it.
    let task = start(&a, "slow_compute", json!({"seconds": 2, "label": "seen"})).await;
    let mut stream = listen_to(&second_url, &task).await;
    let first = next_task_notice(&mut stream).await;
    assert_eq!(first["taskId"], json!(task));
    assert_eq!(
        first["status"], "working",
        "the state when it subscribed: {first}"
    );
    let done = loop {
        let notice = next_task_notice(&mut stream).await;
        assert_eq!(notice["taskId"], json!(task));
        if notice["status"] != "working" {
            break notice;
        }
    };
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(
        done["result"]["content"][0]["text"],
        "computed `seen` in 2 s"
    );
    // A late subscriber, on either replica, hears the end at once.
    for url in [&first_url, &second_url] {
        let mut late = listen_to(url, &task).await;
        let notice = next_task_notice(&mut late).await;
        assert_eq!(notice["status"], "completed", "{notice}");
    }
}

/// A GET of `url` (`http://ADDR/PATH`): the status and the body.
async fn http_get(url: &str) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let rest = url.strip_prefix("http://").expect("an http URL");
    let (authority, path) = rest.split_once('/').expect("a path");
    let mut stream = tokio::net::TcpStream::connect(authority)
        .await
        .expect("connect");
    let request = format!("GET /{path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.expect("send");
    let mut raw = String::new();
    stream.read_to_string(&mut raw).await.expect("read");
    let status = raw
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = raw
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default();
    (status, body)
}

/// Sends `signal` (`STOP`, `CONT`) to the process `pid`.
fn signal(pid: u32, signal: &str) {
    let status = Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(pid.to_string())
        .status()
        .expect("kill runs");
    assert!(status.success(), "kill -{signal} {pid}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_outlive_a_redis_stopped_for_longer_than_the_lease() {
    let (redis, url) = redis();
    let (_first, first_url) = replica(&url);
    let (_second, second_url) = replica(&url);
    let a = client(&first_url).await;
    let b = client(&second_url).await;
    // Both end after Redis is back; one is read on B throughout.
    let long = start(&a, "slow_compute", json!({"seconds": 4, "label": "long"})).await;
    let short = start(&a, "slow_compute", json!({"seconds": 1, "label": "short"})).await;
    until(&b, &long, "working", Duration::from_secs(5)).await;
    // Stopped for three leases (600 ms), every replica alive; the short
    // task's handler finishes meanwhile.
    signal(redis.pid(), "STOP");
    // Readiness says so meanwhile; liveness does not.
    let ready = format!("{}readyz", second_url.trim_end_matches("mcp"));
    let alive = format!("{}healthz", second_url.trim_end_matches("mcp"));
    let (status, body) = http_get(&ready).await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(
        serde_json::from_str::<Value>(&body).expect("JSON"),
        json!({"status": "unavailable", "failing": "task store"})
    );
    assert_eq!(http_get(&alive).await.0, 200);
    tokio::time::sleep(Duration::from_millis(800)).await;
    signal(redis.pid(), "CONT");
    // Ready again once Redis answers (its connection may be made anew).
    let back = Instant::now() + Duration::from_secs(10);
    while http_get(&ready).await.0 != 200 {
        assert!(
            Instant::now() < back,
            "not ready 10 s after Redis came back"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    for (task, text) in [
        (&long, "computed `long` in 4 s"),
        (&short, "computed `short` in 1 s"),
    ] {
        let GetTaskResult::Completed(done) =
            until(&b, task, "completed", Duration::from_secs(20)).await
        else {
            unreachable!()
        };
        let result = serde_json::to_value(&done).expect("encodes");
        assert_eq!(result["result"]["content"][0]["text"], text, "{result}");
    }
}

/// How long a `tasks/get` may take to answer while the store is cut off:
/// the Redis connection's connect and response timeouts, with room for
/// a loaded machine (see `RedisTaskStore`'s docs).
const POLL_BOUND: Duration = Duration::from_secs(4);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_poll_answers_within_its_bound_while_redis_is_cut_off() {
    let (mut redis, url) = redis();
    let (_first, first_url) = replica(&url);
    let (_second, second_url) = replica(&url);
    let a = client(&first_url).await;
    let b = client(&second_url).await;
    let long = start(&a, "slow_compute", json!({"seconds": 30, "label": "long"})).await;
    until(&b, &long, "working", Duration::from_secs(5)).await;
    // Cut: connections dropped, new ones refused, for 5 s.
    redis.cut();
    let cut = Instant::now();
    let mut polls = Vec::new();
    while cut.elapsed() < Duration::from_secs(5) {
        for client in [&a, &b] {
            let asked = Instant::now();
            let outcome = client.get_task(&long).await;
            let took = asked.elapsed();
            // The last known state, or an error the host retries.
            let answer = match outcome {
                Ok(task) => format!("{:?}", task.accept()).chars().take(40).collect(),
                Err(e) => e.to_string(),
            };
            polls.push((took, answer));
        }
    }
    redis.restart();
    let slowest = polls.iter().map(|(t, _)| *t).max().unwrap_or_default();
    assert!(
        slowest <= POLL_BOUND,
        "a poll took {slowest:?} while Redis was cut (bound {POLL_BOUND:?}): {polls:#?}"
    );
    assert!(polls.len() >= 4, "{polls:#?}");
    println!(
        "store cut for 5 s: {} polls, the slowest answered in {slowest:?} (bound {POLL_BOUND:?})",
        polls.len()
    );
}

/// `redis-cli` against `url`, answering one line.
fn redis_cli(url: &str, args: &[&str]) -> String {
    let out = Command::new("redis-cli")
        .arg("-u")
        .arg(url)
        .args(args)
        .output()
        .expect("redis-cli runs (it comes with redis-server)");
    assert!(out.status.success(), "redis-cli {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_key_expires_and_the_store_holds_its_bound_and_quotas() {
    let (_redis, url) = redis();
    let store = RedisTaskStore::connect_with(&url, "b:")
        .await
        .expect("connects")
        .with_max_ttl(Duration::from_secs(3600))
        .with_bounds(3, 1);
    let owned =
        |id: &str, owner: &str| TaskRecord::new(id.into(), Some(owner.into()), 1_000, None, 100);
    store.create(owned("a1", "alice"), 1_000).await.expect("a1");
    assert_eq!(
        store.create(owned("a2", "alice"), 1_000).await,
        Err(StoreError::Quota { max: 1 })
    );
    store.create(owned("b1", "bob"), 1_000).await.expect("b1");
    store
        .create(TaskRecord::new("n1".into(), None, 1_000, None, 100), 1_000)
        .await
        .expect("no principal: the bound alone");
    assert_eq!(
        store.create(owned("c1", "carol"), 1_000).await,
        Err(StoreError::Full { max: 3 })
    );
    // A finished task no longer counts, against the bound or its owner.
    let mut cancel = |r: &mut TaskRecord| {
        r.cancel(2_000);
    };
    store
        .update("a1", 2_000, &mut cancel)
        .await
        .expect("cancelled");
    store
        .create(owned("a2", "alice"), 2_000)
        .await
        .expect("a1 finished");
    // Every key expires: a task without a TTL after the longest one, and
    // the sets that count tasks after their last task.
    let keys = redis_cli(&url, &["--scan", "--pattern", "b:*"]);
    let mut keys: Vec<&str> = keys.lines().filter(|k| !k.is_empty()).collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "b:a1",
            "b:a2",
            "b:b1",
            "b:n1",
            "b:unfinished",
            "b:unfinished:alice",
            "b:unfinished:bob"
        ]
    );
    for key in keys {
        let ttl: i64 = redis_cli(&url, &["PTTL", key]).parse().expect("a number");
        assert!(ttl > 0 && ttl <= 3_600_000, "{key} expires in {ttl} ms");
    }
    // A record past the size writes are capped at is refused whole.
    let mut huge = |r: &mut TaskRecord| {
        let result = Encoded::new(&json!({"text": "x".repeat(17 << 20)})).expect("JSON");
        r.complete(result, 3_000);
    };
    assert_eq!(
        store.update("b1", 3_000, &mut huge).await,
        Err(StoreError::TooLarge { max: 16 << 20 })
    );
    assert_eq!(
        store.get("b1", 3_000).await.expect("get").map(|r| r.status),
        Some(mcp_server::tasks::Status::Working)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shared_store_writes_conditionally_and_a_token_is_used_once_across_replicas() {
    let (_redis, url) = redis();
    let a = RedisShared::connect(&url, "s:").await.expect("connects");
    let b = RedisShared::connect(&url, "s:").await.expect("connects");
    let hour = Duration::from_secs(3600);
    assert_eq!(a.insert_new("k", b"one", hour).await, Ok(true));
    assert_eq!(b.insert_new("k", b"two", hour).await, Ok(false));
    assert_eq!(b.get("k").await, Ok(Some(b"one".to_vec())));
    assert_eq!(b.replace("k", b"two", b"three").await, Ok(false));
    assert_eq!(b.replace("k", b"one", b"three").await, Ok(true));
    assert_eq!(a.remove("k", b"one").await, Ok(false));
    assert_eq!(a.remove("k", b"three").await, Ok(true));
    assert_eq!(b.get("k").await, Ok(None));
    // Its lifetime is the key's expiry.
    assert_eq!(
        a.insert_new("brief", b"x", Duration::from_millis(50)).await,
        Ok(true)
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    while b.get("brief").await != Ok(None) {
        assert!(Instant::now() < deadline, "the value outlived its lifetime");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    // One token id: the first replica to see it lets it through, no other.
    let first = SharedReplayGuard::new(Arc::new(a));
    let second = SharedReplayGuard::new(Arc::new(b));
    let now = SystemTime::now();
    let expires = now + Duration::from_secs(60);
    let id = [7u8; 16];
    assert!(first.first_use(&id, expires, now).await);
    assert!(!second.first_use(&id, expires, now).await);
    assert!(!first.first_use(&id, expires, now).await);
    assert!(second.first_use(&[8u8; 16], expires, now).await);
}
