//! What the server tells its operator through `tracing`: refusals at a
//! limit, each task's life and handlers that panicked, with ids and limits
//! but never a tool's arguments. A subscriber of the test's own reads the
//! events back.

#![cfg(all(feature = "http", feature = "legacy", feature = "tasks"))]

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::http::{call_headers, initialize, listen, post};
use common::jobs::{tasks_meta, Jobs};
use common::stdio::Client;
use common::{meta, Tools};
use mcp_server::tasks::TaskSettings;
use mcp_server::transport::http::HttpConfig;
use mcp_server::Server;
use serde_json::{json, Value};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

/// One event: its target, level and every field as text.
#[derive(Clone, Debug)]
struct Seen {
    target: String,
    level: tracing::Level,
    fields: Vec<(String, String)>,
}

impl Seen {
    fn field(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Keeps every event; spans are not looked at.
#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<Seen>>>);

impl Capture {
    fn seen(&self) -> Vec<Seen> {
        self.0.lock().expect("lock").clone()
    }
}

struct Fields(Vec<(String, String)>);

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.push((field.name().to_owned(), format!("{value:?}")));
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.push((field.name().to_owned(), value.to_owned()));
    }
}

impl Subscriber for Capture {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }

    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }

    fn record(&self, _: &Id, _: &Record<'_>) {}

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let mut fields = Fields(Vec::new());
        event.record(&mut fields);
        let seen = Seen {
            target: event.metadata().target().to_owned(),
            level: *event.metadata().level(),
            fields: fields.0,
        };
        self.0.lock().expect("lock").push(seen);
    }

    fn enter(&self, _: &Id) {}

    fn exit(&self, _: &Id) {}
}

const SECRET: &str = "an-argument-no-log-may-show";

fn tools() -> Server {
    Server::builder(Tools)
        .info("tools", "1.0.0")
        .tools()
        .build()
        .expect("server builds")
}

fn call(id: i64, name: &str) -> Value {
    common::call(id, name, json!({"text": SECRET}))
}

/// Asserts that no field of `seen` shows `secret`.
fn never_shows(seen: &[Seen], secret: &str) {
    for event in seen {
        for (name, value) in &event.fields {
            assert!(!value.contains(secret), "{name} of {event:?}");
        }
    }
}

#[tokio::test]
async fn a_panicking_handler_is_an_error_and_the_connection_goes_on() {
    let capture = Capture::default();
    let _guard = tracing::subscriber::set_default(capture.clone());
    let mut client = Client::serve(tools(), meta());
    let answer = client.call("boom", json!({"text": SECRET})).await;
    assert_eq!(answer["error"]["code"], -32603, "{answer}");
    let text = answer.to_string();
    assert!(!text.contains("boom:") && !text.contains(SECRET), "{text}");
    let next = client.call("note", json!({"text": "x"})).await;
    assert_eq!(next["result"]["content"][0]["text"], "a note of 1 bytes");

    let seen = capture.seen();
    let panicked: Vec<&Seen> = seen
        .iter()
        .filter(|e| e.target == "mcp_server::handlers")
        .collect();
    assert_eq!(panicked.len(), 1, "{seen:#?}");
    assert_eq!(panicked[0].level, tracing::Level::ERROR);
    assert_eq!(panicked[0].field("method"), Some("tools/call"));
    never_shows(&seen, SECRET);
}

#[tokio::test]
async fn a_panicking_handler_over_http_is_an_error_and_the_server_goes_on() {
    let port = listen(tools(), HttpConfig::default()).await;
    let answer = post(port, &call_headers("boom"), &call(1, "boom")).await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    let error = answer.json();
    assert_eq!(error["error"]["code"], -32603, "{error}");
    assert!(!answer.text.contains(SECRET), "{}", answer.text);
    let answer = post(port, &call_headers("note"), &call(2, "note")).await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    assert_eq!(
        answer.json()["result"]["content"][0]["text"],
        "a note of 27 bytes"
    );
}

#[tokio::test]
async fn a_tasks_life_is_told_without_its_arguments() {
    let capture = Capture::default();
    let _guard = tracing::subscriber::set_default(capture.clone());
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
    let started = client.call("work", json!({"ms": 20, "note": SECRET})).await;
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
    let started = client.call("forever", json!({})).await;
    let stopped = started["result"]["taskId"]
        .as_str()
        .expect("a task")
        .to_owned();
    let answer = client
        .request("tasks/cancel", json!({"taskId": stopped}))
        .await;
    assert!(answer.get("result").is_some(), "{answer}");

    let seen = capture.seen();
    let told = |message: &str, task: &str| {
        seen.iter().any(|e| {
            e.target == "mcp_server::tasks"
                && e.field("message") == Some(message)
                && e.field("task") == Some(task)
        })
    };
    assert!(told("task created", &worked), "{seen:#?}");
    assert!(told("task completed", &worked), "{seen:#?}");
    assert!(told("task created", &stopped), "{seen:#?}");
    assert!(told("task cancelled", &stopped), "{seen:#?}");
    never_shows(&seen, SECRET);
}

#[tokio::test]
async fn a_full_session_table_is_told_with_its_limit() {
    let capture = Capture::default();
    let _guard = tracing::subscriber::set_default(capture.clone());
    let server = Server::builder(Jobs)
        .info("jobs", "1.0.0")
        .tools()
        .build()
        .expect("server builds");
    let config = HttpConfig {
        max_sessions: 1,
        ..HttpConfig::default()
    };
    let port = listen(server, config).await;
    for _ in 0..2 {
        let answer = initialize(port).await;
        assert_eq!(answer.status, 200, "{}", answer.text);
    }
    let seen = capture.seen();
    let dropped: Vec<&Seen> = seen
        .iter()
        .filter(|e| e.target == "mcp_server::limits" && e.field("limit") == Some("max_sessions"))
        .collect();
    assert_eq!(dropped.len(), 1, "{seen:#?}");
    assert_eq!(dropped[0].level, tracing::Level::WARN);
    assert_eq!(dropped[0].field("max"), Some("1"));
}
