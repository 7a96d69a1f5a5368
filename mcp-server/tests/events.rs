//! What the server tells its operator through `tracing`: refusals at a
//! limit, and each task's life, with ids and limits but never a tool's
//! arguments. A subscriber of the test's own reads the events back.

#![cfg(all(feature = "http", feature = "legacy", feature = "tasks"))]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_server::tasks::TaskSettings;
use mcp_server::transport::http::{self, HttpConfig};
use mcp_server::transport::stdio;
use mcp_server::{tool, tools, Context, Server};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
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

struct Jobs;

#[tools]
impl Jobs {
    /// Works for `ms` milliseconds on a note.
    #[tool(task = "optional")]
    async fn work(&self, ms: u64, note: String) -> String {
        tokio::time::sleep(Duration::from_millis(ms)).await;
        format!("worked on a note of {} bytes", note.len())
    }

    /// Runs until cancelled.
    #[tool(task = "optional")]
    async fn forever(&self, cx: &Context) -> String {
        cx.cancelled().await;
        "cancelled".into()
    }
}

const SECRET: &str = "an-argument-no-log-may-show";

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities":
            {"extensions": {"io.modelcontextprotocol/tasks": {}}},
    })
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
    let (client, server_side) = tokio::io::duplex(1 << 16);
    let (r, w) = tokio::io::split(server_side);
    tokio::spawn(stdio::serve_io(server, r, w));
    let (reader, mut writer) = tokio::io::split(client);
    let mut lines = BufReader::new(reader).lines();
    let mut next_id = 0;
    let mut request = async |method: &str, mut params: Value| -> Value {
        next_id += 1;
        params["_meta"] = meta();
        let message = json!({"jsonrpc": "2.0", "id": next_id, "method": method, "params": params});
        writer
            .write_all(format!("{message}\n").as_bytes())
            .await
            .expect("write");
        loop {
            let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
                .await
                .expect("an answer in time")
                .expect("read")
                .expect("a line");
            let answer: Value = serde_json::from_str(&line).expect("JSON");
            if answer["id"] == json!(next_id) {
                return answer;
            }
        }
    };
    let started = request(
        "tools/call",
        json!({"name": "work", "arguments": {"ms": 20, "note": SECRET}}),
    )
    .await;
    let worked = started["result"]["taskId"]
        .as_str()
        .expect("a task")
        .to_owned();
    loop {
        let task = request("tasks/get", json!({"taskId": worked})).await;
        if task["result"]["status"] == "completed" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let started = request("tools/call", json!({"name": "forever", "arguments": {}})).await;
    let stopped = started["result"]["taskId"]
        .as_str()
        .expect("a task")
        .to_owned();
    let answer = request("tasks/cancel", json!({"taskId": stopped})).await;
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
    for event in &seen {
        for (name, value) in &event.fields {
            assert!(!value.contains(SECRET), "{name} of {event:?}");
        }
    }
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
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("address").port();
    let config = HttpConfig {
        max_sessions: 1,
        ..HttpConfig::default()
    };
    tokio::spawn(async move { axum::serve(listener, http::router(server, "/mcp", config)).await });
    for _ in 0..2 {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "events-test", "version": "1"}}})
        .to_string();
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\
             Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
             Content-Length: {}\r\n\r\n{body}",
            body.len()
        );
        let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .expect("connect");
        stream.write_all(request.as_bytes()).await.expect("send");
        let mut answer = String::new();
        stream.read_to_string(&mut answer).await.expect("read");
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
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
