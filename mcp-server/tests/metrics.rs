//! The counters, gauges and histograms of `mcp_server::observe`, read
//! back through a recorder of the test's own: requests by method and
//! outcome, handlers that panicked, legacy sessions, the token cache and a
//! task's life on this replica.
//!
//! The recorder is the process's: the tests take turns (see [`serial`])
//! and compare values before and after.

#![cfg(all(feature = "metrics", feature = "tasks"))]

mod common;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use common::jobs::{tasks_meta, Jobs};
use common::stdio::Client;
use common::{meta, Tools};
use mcp_server::tasks::TaskSettings;
use mcp_server::Server;
use metrics::{
    Counter, CounterFn, Gauge, GaugeFn, Histogram, HistogramFn, Key, KeyName, Metadata, Recorder,
    SharedString, Unit,
};
use serde_json::json;

/// Every value recorded, by `name{label=value,...}`.
#[derive(Clone, Default)]
struct Book(Arc<Mutex<BTreeMap<String, f64>>>);

struct Cell(Book, String);

impl CounterFn for Cell {
    fn increment(&self, value: u64) {
        *self
            .0
             .0
            .lock()
            .expect("lock")
            .entry(self.1.clone())
            .or_default() += value as f64;
    }

    fn absolute(&self, value: u64) {
        self.0
             .0
            .lock()
            .expect("lock")
            .insert(self.1.clone(), value as f64);
    }
}

impl GaugeFn for Cell {
    fn increment(&self, value: f64) {
        *self
            .0
             .0
            .lock()
            .expect("lock")
            .entry(self.1.clone())
            .or_default() += value;
    }

    fn decrement(&self, value: f64) {
        *self
            .0
             .0
            .lock()
            .expect("lock")
            .entry(self.1.clone())
            .or_default() -= value;
    }

    fn set(&self, value: f64) {
        self.0
             .0
            .lock()
            .expect("lock")
            .insert(self.1.clone(), value);
    }
}

fn name(key: &Key) -> String {
    let labels: Vec<String> = key
        .labels()
        .map(|l| format!("{}={}", l.key(), l.value()))
        .collect();
    format!("{}{{{}}}", key.name(), labels.join(","))
}

impl Recorder for Book {
    fn describe_counter(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
    fn describe_gauge(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
    fn describe_histogram(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}

    fn register_counter(&self, key: &Key, _: &Metadata<'_>) -> Counter {
        Counter::from_arc(Arc::new(Cell(self.clone(), name(key))))
    }

    fn register_gauge(&self, key: &Key, _: &Metadata<'_>) -> Gauge {
        Gauge::from_arc(Arc::new(Cell(self.clone(), name(key))))
    }

    fn register_histogram(&self, key: &Key, _: &Metadata<'_>) -> Histogram {
        Histogram::from_arc(Arc::new(Cell(self.clone(), name(key))))
    }
}

/// A histogram is kept as its count, under its name, and its sum, under
/// its name followed by ` sum`.
impl HistogramFn for Cell {
    fn record(&self, value: f64) {
        let mut book = self.0 .0.lock().expect("lock");
        *book.entry(self.1.clone()).or_default() += 1.0;
        *book.entry(format!("{} sum", self.1)).or_default() += value;
    }
}

/// The process's recorder, installed once.
fn book() -> &'static Book {
    static BOOK: OnceLock<Book> = OnceLock::new();
    BOOK.get_or_init(|| {
        let book = Book::default();
        metrics::set_global_recorder(book.clone()).expect("the only recorder");
        book
    })
}

fn value(name: &str) -> f64 {
    book()
        .0
        .lock()
        .expect("lock")
        .get(name)
        .copied()
        .unwrap_or_default()
}

/// Every value recorded so far.
fn snapshot() -> BTreeMap<String, f64> {
    book().0.lock().expect("lock").clone()
}

/// How much `name` grew since `before`.
fn grew(before: &BTreeMap<String, f64>, name: &str) -> f64 {
    value(name) - before.get(name).copied().unwrap_or_default()
}

/// The turn of one test: the recorder is shared by every test of the
/// process, and a request of one would show in the gauges of another.
async fn serial() -> tokio::sync::MutexGuard<'static, ()> {
    static TURN: OnceLock<tokio::sync::Mutex<()>> = OnceLock::new();
    TURN.get_or_init(Default::default).lock().await
}

fn tools() -> Server {
    Server::builder(Tools)
        .tools()
        .build()
        .expect("server builds")
}

const OK: &str = "mcp_requests_total{method=tools/call,outcome=ok}";
const ERROR: &str = "mcp_requests_total{method=tools/call,outcome=error}";
const IN_FLIGHT: &str = "mcp_requests_in_flight{}";

#[tokio::test]
async fn requests_are_counted_by_method_and_outcome_and_timed() {
    let _turn = serial().await;
    book();
    let before = snapshot();
    let mut client = Client::serve(tools(), meta());
    let answer = client.call("add", json!({"a": 1, "b": 2})).await;
    assert!(answer.get("result").is_some(), "{answer}");
    let answer = client.call("nothing", json!({})).await;
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    let answer = client.request("x/made-up-by-a-client", json!({})).await;
    assert_eq!(answer["error"]["code"], -32601, "{answer}");
    let answer = client.request("tools/list", json!({})).await;
    assert!(answer.get("result").is_some(), "{answer}");

    assert_eq!(grew(&before, OK), 1.0);
    assert_eq!(grew(&before, ERROR), 1.0);
    assert_eq!(
        grew(&before, "mcp_requests_total{method=other,outcome=error}"),
        1.0
    );
    assert_eq!(
        grew(&before, "mcp_requests_total{method=tools/list,outcome=ok}"),
        1.0
    );
    let duration = "mcp_request_duration_seconds{method=tools/call}";
    assert_eq!(grew(&before, duration), 2.0, "two calls timed");
    let seconds = grew(&before, &format!("{duration} sum"));
    assert!((0.0..10.0).contains(&seconds), "{seconds}");
    assert_eq!(value(IN_FLIGHT), 0.0, "{:?}", snapshot());
    let names = snapshot();
    assert!(
        !names.keys().any(|name| name.contains("made-up")),
        "a client's method is no label: {names:?}"
    );
}

#[tokio::test]
async fn a_panicking_handler_is_counted_and_the_next_request_answered() {
    let _turn = serial().await;
    book();
    let before = snapshot();
    let mut client = Client::serve(tools(), meta());
    let answer = client.call("boom", json!({"text": "x"})).await;
    assert_eq!(answer["error"]["code"], -32603, "{answer}");
    let answer = client.call("add", json!({"a": 1, "b": 2})).await;
    assert!(answer.get("result").is_some(), "{answer}");
    assert_eq!(
        grew(&before, "mcp_handler_panics_total{method=tools/call}"),
        1.0
    );
    assert_eq!(grew(&before, ERROR), 1.0);
    assert_eq!(grew(&before, OK), 1.0);
    assert_eq!(value(IN_FLIGHT), 0.0, "{:?}", snapshot());
}

#[cfg(all(feature = "http", feature = "legacy"))]
#[tokio::test]
async fn legacy_sessions_are_a_gauge() {
    use common::http::{initialize, listen, send};
    use mcp_server::transport::http::HttpConfig;

    let _turn = serial().await;
    book();
    let before = snapshot();
    let config = HttpConfig {
        max_sessions: 2,
        ..HttpConfig::default()
    };
    let port = listen(tools(), config).await;
    let mut sessions = Vec::new();
    for _ in 0..3 {
        let answer = initialize(port).await;
        assert_eq!(answer.status, 200, "{}", answer.text);
        sessions.push(
            answer
                .header("mcp-session-id")
                .expect("a session")
                .to_owned(),
        );
    }
    let live = "mcp_legacy_sessions{}";
    assert_eq!(grew(&before, live), 2.0, "the table holds two");
    assert_eq!(grew(&before, "mcp_legacy_sessions_evicted_total{}"), 1.0);
    let header = [("Mcp-Session-Id", sessions[2].as_str())];
    let ended = send(port, "DELETE", &header, String::new()).await;
    assert_eq!(ended.status, 200, "{}", ended.text);
    assert_eq!(grew(&before, live), 1.0);
}

#[cfg(feature = "auth")]
#[tokio::test]
async fn the_token_cache_counts_hits_and_misses() {
    use common::http::{call_headers, post};

    let _turn = serial().await;
    book();
    let before = snapshot();
    let port = common::auth::listen().await;
    let bearer = common::auth::bearer();
    let mut headers = call_headers("add").to_vec();
    headers.push(("Authorization", &bearer));
    for id in 1..=2 {
        let body = common::call(id, "add", json!({"a": 1, "b": 2}));
        let answer = post(port, &headers, &body).await;
        assert_eq!(answer.status, 200, "{}", answer.text);
    }
    assert_eq!(grew(&before, "mcp_token_cache_total{result=miss}"), 1.0);
    assert_eq!(grew(&before, "mcp_token_cache_total{result=hit}"), 1.0);
}

#[tokio::test]
async fn a_tasks_life_is_counted() {
    let _turn = serial().await;
    book();
    let server = Server::builder(Jobs)
        .info("jobs", "1.0.0")
        .tools()
        .tasks(
            TaskSettings::default()
                .poll_interval(Duration::from_millis(10))
                .inline_grace(Duration::ZERO),
        )
        .build()
        .expect("server builds");
    let mut client = Client::serve(server, tasks_meta());
    let started = client.call("forever", json!({})).await;
    let running = started["result"]["taskId"]
        .as_str()
        .expect("a task")
        .to_owned();
    assert_eq!(value("mcp_tasks_running{}"), 1.0);
    let started = client.call("work", json!({"ms": 10, "note": "n"})).await;
    let worked = started["result"]["taskId"]
        .as_str()
        .expect("a task")
        .to_owned();
    loop {
        let task = client.request("tasks/get", json!({"taskId": worked})).await;
        if task["result"]["status"] == "completed" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    client
        .request("tasks/cancel", json!({"taskId": running}))
        .await;
    for _ in 0..100 {
        if value("mcp_tasks_running{}") == 0.0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(value("mcp_tasks_total{event=created}"), 2.0);
    assert_eq!(value("mcp_tasks_total{event=completed}"), 1.0);
    assert_eq!(value("mcp_tasks_total{event=cancelled}"), 1.0);
    assert_eq!(value("mcp_tasks_running{}"), 0.0, "{:?}", book().0);
}
