//! The counters and gauges of `mcp_server::observe`, read back through a
//! recorder of the test's own: handlers that panicked, and a task's life
//! on this replica.
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
    Counter, CounterFn, Gauge, GaugeFn, Histogram, Key, KeyName, Metadata, Recorder, SharedString,
    Unit,
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

    fn register_histogram(&self, _: &Key, _: &Metadata<'_>) -> Histogram {
        Histogram::noop()
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

#[tokio::test]
async fn a_panicking_handler_is_counted_and_the_next_request_answered() {
    let _turn = serial().await;
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
