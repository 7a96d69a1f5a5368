//! Lazy stdio servers: a server configured `"lazy": true` whose
//! definitions are pinned is not started with the host, its catalogue
//! comes from the pins, a request starts it, and it is stopped again once
//! it has sat unused for its `idleTimeout`. A definition that changed
//! while it slept is caught when it starts, before the call reaches it.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{config_file, scripted_entry, CallLog, TestDir};
use mcp_host::approval::ApproveAll;
use mcp_host::client::CallOptions;
use mcp_host::trust::{PinFile, Quarantine};
use mcp_host::{ClientError, Host, HostConfig, ServerId};
use serde_json::{json, Map, Value};

/// The pids of the server processes started so far, as `dir`'s start
/// log has them.
fn started(dir: &TestDir) -> Vec<i32> {
    std::fs::read_to_string(dir.path("starts"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

/// The scripted `rugpull` server as `weather`, lazy with `idle` seconds,
/// its stage file and start log in `dir`.
fn config(dir: &TestDir, log: &CallLog, idle: f64) -> HostConfig {
    let mut entry = log.entry();
    entry["args"] = scripted_entry("rugpull", json!({}))["args"].clone();
    entry["env"]["TOOL_STAGE_FILE"] = json!(dir.path("stage").display().to_string());
    entry["env"]["START_LOG"] = json!(dir.path("starts").display().to_string());
    entry["lazy"] = json!(true);
    entry["idleTimeout"] = json!(idle);
    let file = config_file(&format!("lazy-{}", dir.name()), json!({ "weather": entry }));
    HostConfig::load(&file).expect("config")
}

fn alive(pid: i32) -> bool {
    // A zombie has no status line of its own once reaped; a running or
    // sleeping process does.
    std::fs::read_to_string(format!("/proc/{pid}/status")).is_ok_and(|s| {
        !s.lines()
            .any(|l| l.starts_with("State:") && l.contains("Z"))
    })
}

/// Waits until `pid` is gone, up to `limit`.
async fn gone(pid: i32, limit: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if !alive(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

fn args() -> Map<String, Value> {
    match json!({"city": "Oslo"}) {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

async fn asleep(host: &Host, id: &ServerId) -> bool {
    host.servers()
        .await
        .into_iter()
        .any(|s| &s.id == id && s.asleep && s.error.is_none())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_lazy_server_sleeps_until_needed_and_after_its_idle_time() {
    let dir = TestDir::new("lazy", "cycle");
    let log = CallLog::new("lazy-cycle");
    let id = ServerId::new("weather").expect("id");
    dir.stage(1);
    let start = |idle: f64| {
        Host::builder(config(&dir, &log, idle))
            .options(common::options(false))
            .approver(Arc::new(ApproveAll))
            .pin_file(PinFile::new(dir.path("pins.json")))
            .start()
    };

    // Never seen: started with the host, listed and pinned, then stopped
    // once unused for its idle time; its tool stays in the catalogue.
    let host = start(0.5).await;
    let first = started(&dir);
    assert_eq!(first.len(), 1, "started once to be listed");
    assert_eq!(host.tools().len(), 1);
    assert!(
        gone(first[0], Duration::from_secs(10)).await,
        "stopped when idle"
    );
    assert!(asleep(&host, &id).await);
    assert!(host.client(&id).await.is_none());
    assert_eq!(host.tools().len(), 1, "still offered while asleep");
    host.shutdown().await;

    // Pinned: a new host does not start it, and serves its catalogue from
    // the pins, refresh after refresh.
    let host = start(1.5).await;
    assert_eq!(started(&dir).len(), 1, "not started with the host");
    assert!(asleep(&host, &id).await);
    host.refresh().await;
    let tools = host.tools();
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0].qualified, "weather__forecast");
    assert!(tools[0].quarantine.is_none());
    assert_eq!(started(&dir).len(), 1, "a refresh does not start it");

    // A call starts it; it runs the call, and stops again when idle.
    host.call("weather__forecast", args(), &CallOptions::default())
        .await
        .expect("the call starts the server");
    let starts = started(&dir);
    assert_eq!(starts.len(), 2);
    assert_eq!(log.calls().len(), 1);
    assert!(!asleep(&host, &id).await);
    // Calls in a row keep it up: each one pushes its idle time back (six
    // calls 400 ms apart span more than the 1.5 s idle time).
    for _ in 0..6 {
        tokio::time::sleep(Duration::from_millis(400)).await;
        host.call("weather__forecast", args(), &CallOptions::default())
            .await
            .expect("still up");
    }
    assert_eq!(started(&dir).len(), 2, "kept up while used");
    assert!(alive(starts[1]));
    assert!(
        gone(starts[1], Duration::from_secs(10)).await,
        "stopped when idle"
    );
    assert!(asleep(&host, &id).await);

    // Changed while asleep: caught when it starts, before the call
    // reaches it.
    dir.stage(2);
    let refused = host
        .call("weather__forecast", args(), &CallOptions::default())
        .await;
    assert!(
        matches!(&refused, Err(ClientError::Quarantined { reason, .. })
            if matches!(**reason, Quarantine::Changed(_))),
        "{refused:?}"
    );
    assert_eq!(started(&dir).len(), 3);
    assert_eq!(log.calls().len(), 7, "the changed tool never ran");
    assert!(host.tools().is_empty());
    assert_eq!(host.quarantined_tools().len(), 1);
    host.shutdown().await;
    assert!(started(&dir).iter().all(|&pid| !alive(pid)));
}

#[tokio::test(flavor = "multi_thread")]
async fn requests_at_once_start_a_sleeping_server_once() {
    let dir = TestDir::new("lazy", "once");
    let log = CallLog::new("lazy-once");
    dir.stage(1);
    let start = || {
        Host::builder(config(&dir, &log, 60.0))
            .options(common::options(false))
            .approver(Arc::new(ApproveAll))
            .pin_file(PinFile::new(dir.path("pins.json")))
            .start()
    };
    // Pin it, then start a host that lets it sleep.
    start().await.shutdown().await;
    let host = start().await;
    assert_eq!(started(&dir).len(), 1);
    let options = CallOptions::default();
    let calls = (0..4).map(|_| host.call("weather__forecast", args(), &options));
    for outcome in futures_util::future::join_all(calls).await {
        outcome.expect("each call runs");
    }
    assert_eq!(started(&dir).len(), 2, "one start for four calls");
    assert_eq!(log.calls().len(), 4);
    host.shutdown().await;
}
