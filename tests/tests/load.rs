//! A bounded loopback load test: many HTTP clients at once, each running
//! plain calls, reads and multi-round (MRTR) flows against one in-process
//! server. Every request must be answered, every answer must carry its own
//! request's id and content, and memory must be flat after the run.
//!
//! The figures are printed (`cargo test --test load -- --nocapture`).
//!
//! Memory is the resident set of this test process (client and server
//! together) from `/proc/self/status`. It is read after a warm-up run, after
//! a first measured run and after a second one of the same size. Flat means:
//! the second run adds at most 8 MiB over the first (no growth per request),
//! and the first adds at most 32 MiB over the warm-up (allocator arenas,
//! pools and buffers settling).

mod fixture;

use std::time::{Duration, Instant};

use fixture::http1::{self, Connection};
use serde_json::{json, Value};

/// Concurrent clients, each with two keep-alive connections.
const CLIENTS: usize = 64;
/// Rounds per client in a measured run; each round is four requests.
const ROUNDS: usize = 20;
/// Rounds per client in the warm-up.
const WARM_UP_ROUNDS: usize = 3;
/// The whole test must finish within this.
const DEADLINE: Duration = Duration::from_secs(60);

const MIB: u64 = 1024 * 1024;

fn meta(elicitation: bool) -> Value {
    let capabilities = if elicitation {
        json!({"elicitation": {}})
    } else {
        json!({})
    };
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities
    })
}

/// Sends `request` on `connection` and returns its one answer, checking
/// that it is the answer to this request.
async fn ask(connection: &mut Connection, request: &Value) -> Result<Value, String> {
    let body = serde_json::to_vec(request).map_err(|e| e.to_string())?;
    let response = connection
        .post(&http1::headers_for(request), &body)
        .await
        .map_err(|e| format!("{}: {e}", request["id"]))?;
    if response.status != 200 {
        return Err(format!(
            "{}: HTTP {}: {}",
            request["id"],
            response.status,
            String::from_utf8_lossy(&response.body)
        ));
    }
    let mut messages = response.messages();
    let answer = messages.pop().ok_or("an empty answer")?;
    if answer["id"] != request["id"] {
        return Err(format!(
            "misrouted: sent {}, got the answer to {}",
            request["id"], answer["id"]
        ));
    }
    if answer.get("error").is_some() {
        return Err(format!("{}: {}", request["id"], answer["error"]));
    }
    Ok(answer)
}

fn text(answer: &Value) -> &str {
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
}

/// One client's run: `rounds` rounds of an addition, a resource read and a
/// two-request MRTR flow whose retry goes out on the other connection.
/// Returns the number of requests answered correctly.
async fn client(port: u16, client: usize, rounds: usize, run: &str) -> Result<usize, String> {
    let mut first = Connection::open(port).await.map_err(|e| e.to_string())?;
    let mut second = Connection::open(port).await.map_err(|e| e.to_string())?;
    let mut answered = 0;
    for round in 0..rounds {
        let tag = format!("{run}-{client}-{round}");
        let add = json!({"jsonrpc": "2.0", "id": format!("{tag}-add"), "method": "tools/call",
            "params": {"_meta": meta(false), "name": "add", "arguments": {"a": client, "b": round}}});
        let answer = ask(&mut first, &add).await?;
        if answer["result"]["structuredContent"]["result"] != json!(client + round) {
            return Err(format!("{tag}: wrong sum {answer}"));
        }
        answered += 1;

        let uri = format!("fixture://items/{tag}");
        let read = json!({"jsonrpc": "2.0", "id": client * 1_000_000 + round, "method": "resources/read",
            "params": {"_meta": meta(false), "uri": uri}});
        let answer = ask(&mut second, &read).await?;
        if answer["result"]["contents"][0]["text"] != format!("item {tag}") {
            return Err(format!("{tag}: wrong resource {answer}"));
        }
        answered += 1;

        let call = json!({"jsonrpc": "2.0", "id": format!("{tag}-ask"), "method": "tools/call",
            "params": {"_meta": meta(true), "name": "confirm", "arguments": {"tag": tag}}});
        let asked = ask(&mut first, &call).await?;
        let state = asked["result"]["requestState"]
            .as_str()
            .ok_or_else(|| format!("{tag}: no requestState in {asked}"))?;
        answered += 1;
        let mut retry = call.clone();
        retry["id"] = json!(format!("{tag}-retry"));
        retry["params"]["requestState"] = json!(state);
        retry["params"]["inputResponses"] =
            json!({"confirm": {"action": "accept", "content": {"ok": true}}});
        let done = ask(&mut second, &retry).await?;
        if text(&done) != format!("confirmed {tag} at step 1: \"accept\"") {
            return Err(format!("{tag}: wrong MRTR answer {done}"));
        }
        answered += 1;
    }
    Ok(answered)
}

/// Runs every client at once; returns the requests answered and the time.
async fn run(port: u16, rounds: usize, name: &str) -> (usize, Duration) {
    let started = Instant::now();
    let tasks: Vec<_> = (0..CLIENTS)
        .map(|n| {
            let name = name.to_owned();
            tokio::spawn(async move { client(port, n, rounds, &name).await })
        })
        .collect();
    let mut answered = 0;
    let mut errors = Vec::new();
    for task in tasks {
        match task.await.expect("a client task joins") {
            Ok(n) => answered += n,
            Err(e) => errors.push(e),
        }
    }
    assert!(
        errors.is_empty(),
        "{} clients failed: {errors:?}",
        errors.len()
    );
    assert_eq!(answered, CLIENTS * rounds * 4, "lost responses");
    (answered, started.elapsed())
}

/// The resident set size of this process, in bytes.
fn rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("procfs");
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .expect("a VmRSS line")
        * 1024
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_clients_with_interleaved_mrtr_flows() {
    let body = async {
        let port = fixture::serve_http(fixture::server(mcp_server::Limits::default())).await;
        let start = rss();
        run(port, WARM_UP_ROUNDS, "warm").await;
        let before = rss();
        let (first, first_time) = run(port, ROUNDS, "a").await;
        let middle = rss();
        let (second, second_time) = run(port, ROUNDS, "b").await;
        let after = rss();
        let requests = first + second;
        let seconds = (first_time + second_time).as_secs_f64();
        println!(
            "load: {CLIENTS} clients x 2 connections, {requests} requests in {seconds:.2} s \
             ({:.0} requests/s), half of them in MRTR flows or reads; RSS before warm-up {} KiB, \
             after warm-up {} KiB, after run 1 {} KiB, after run 2 {} KiB",
            requests as f64 / seconds,
            start / 1024,
            before / 1024,
            middle / 1024,
            after / 1024
        );
        assert!(
            middle <= before + 32 * MIB,
            "memory grew by {} KiB in the first run",
            (middle - before) / 1024
        );
        assert!(
            after <= middle + 8 * MIB,
            "memory grew by {} KiB in the second run",
            (after - middle) / 1024
        );
    };
    tokio::time::timeout(DEADLINE, body)
        .await
        .expect("the load test finishes within its deadline");
}
