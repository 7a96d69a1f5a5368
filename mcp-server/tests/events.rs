//! What the server tells its operator through `tracing`: one span per
//! request, refusals at a limit, each task's life and handlers that
//! panicked, with ids, names and limits but never a tool's arguments or a
//! token. A subscriber of the test's own reads the spans and events back.
//!
//! It is the binary's global subscriber, installed before any test emits,
//! and each test reads what happened on its own thread (every test runs
//! its server on its thread's runtime). A subscriber per thread
//! (`set_default`) lost events when another test's thread registered a
//! callsite at the same moment, as tracing caches each callsite's interest
//! across threads.

#![cfg(all(feature = "http", feature = "legacy", feature = "tasks"))]

mod common;

use std::sync::{Arc, Mutex, OnceLock};
use std::thread::ThreadId;
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

/// One event or span: its target, level and every field as text
/// (a span's as recorded over its life).
#[derive(Clone, Debug)]
struct Seen {
    /// The thread it happened on: which test's.
    thread: ThreadId,
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

/// Keeps every event and every span; a span's id is its place in `spans`,
/// plus one.
#[derive(Clone, Default)]
struct Capture {
    events: Arc<Mutex<Vec<Seen>>>,
    spans: Arc<Mutex<Vec<Seen>>>,
}

/// What one test's thread emitted.
struct View {
    capture: Capture,
    thread: ThreadId,
}

impl Capture {
    /// The binary's capture, installed as the global subscriber the first
    /// time, and the view of the calling test's thread.
    fn install() -> (View, ()) {
        static GLOBAL: OnceLock<Capture> = OnceLock::new();
        let capture = GLOBAL
            .get_or_init(|| {
                let capture = Capture::default();
                tracing::subscriber::set_global_default(capture.clone())
                    .expect("the only subscriber of this binary");
                capture
            })
            .clone();
        let view = View {
            capture,
            thread: std::thread::current().id(),
        };
        (view, ())
    }
}

impl View {
    fn seen(&self) -> Vec<Seen> {
        let events = self.capture.events.lock().expect("lock");
        events
            .iter()
            .filter(|e| e.thread == self.thread)
            .cloned()
            .collect()
    }

    fn spans(&self) -> Vec<Seen> {
        let spans = self.capture.spans.lock().expect("lock");
        spans
            .iter()
            .filter(|s| s.thread == self.thread)
            .cloned()
            .collect()
    }

    /// The spans of requests.
    fn requests(&self) -> Vec<Seen> {
        let mut spans = self.spans();
        spans.retain(|s| s.target == "mcp_server::request");
        spans
    }

    /// Asserts that no field of any span or event shows `secret`.
    fn never_shows(&self, secret: &str) {
        let spans = self.spans();
        for seen in spans.iter().chain(&self.seen()) {
            for (name, value) in &seen.fields {
                assert!(!value.contains(secret), "{name} of {seen:?}");
            }
        }
    }
}

struct Fields<'a>(&'a mut Vec<(String, String)>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.push((field.name().to_owned(), format!("{value:?}")));
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.push((field.name().to_owned(), value.to_owned()));
    }
}

fn seen(metadata: &Metadata<'_>) -> Seen {
    Seen {
        thread: std::thread::current().id(),
        target: metadata.target().to_owned(),
        level: *metadata.level(),
        fields: Vec::new(),
    }
}

impl Subscriber for Capture {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }

    fn new_span(&self, attributes: &Attributes<'_>) -> Id {
        let mut span = seen(attributes.metadata());
        attributes.record(&mut Fields(&mut span.fields));
        let mut spans = self.spans.lock().expect("lock");
        spans.push(span);
        Id::from_u64(spans.len() as u64)
    }

    fn record(&self, id: &Id, values: &Record<'_>) {
        let mut spans = self.spans.lock().expect("lock");
        if let Some(span) = usize::try_from(id.into_u64() - 1)
            .ok()
            .and_then(|i| spans.get_mut(i))
        {
            values.record(&mut Fields(&mut span.fields));
        }
    }

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let mut seen = seen(event.metadata());
        event.record(&mut Fields(&mut seen.fields));
        self.events.lock().expect("lock").push(seen);
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

/// Only the tools the server names have their arguments and result
/// recorded; the others' never are.
#[tokio::test]
async fn a_traced_tool_records_its_arguments_and_result_and_only_it() {
    let (capture, _guard) = Capture::install();
    let server = Server::builder(Tools)
        .info("tools", "1.0.0")
        .tools()
        .trace_tool_io(["add"])
        .build()
        .expect("server builds");
    let mut client = Client::serve(server, meta());
    let sum = client.call("add", json!({"a": 40, "b": 2})).await;
    assert!(sum["result"].to_string().contains("42"), "{sum}");
    client.call("note", json!({"text": SECRET})).await;
    let requests = capture.requests();
    assert_eq!(requests.len(), 2, "{requests:#?}");
    let arguments = requests[0].field("arguments").expect("add's arguments");
    assert_eq!(
        serde_json::from_str::<Value>(arguments).expect("JSON"),
        json!({"a": 40, "b": 2})
    );
    let result = requests[0].field("result").expect("add's result");
    assert!(result.contains("42"), "{result}");
    assert_eq!(requests[1].field("about"), Some("note"));
    assert_eq!(requests[1].field("arguments"), None);
    assert_eq!(requests[1].field("result"), None);
    capture.never_shows(SECRET);
}

#[tokio::test]
async fn a_call_is_one_span_with_its_fields_and_never_its_arguments() {
    let (capture, _guard) = Capture::install();
    let mut client = Client::serve(tools(), meta());
    let answer = client.call("note", json!({"text": SECRET})).await;
    assert_eq!(answer["result"]["content"][0]["text"], "a note of 27 bytes");

    let requests = capture.requests();
    assert_eq!(requests.len(), 1, "{requests:#?}");
    let span = &requests[0];
    assert_eq!(span.level, tracing::Level::DEBUG);
    assert_eq!(span.field("era"), Some("modern"));
    assert_eq!(span.field("method"), Some("tools/call"));
    assert_eq!(span.field("about"), Some("note"));
    assert_eq!(span.field("id"), Some("1"));
    assert_eq!(span.field("outcome"), Some("ok"));
    assert_eq!(span.field("code"), None);
    assert_eq!(span.field("principal"), None, "no auth, no principal");
    let ms: f64 = span
        .field("duration_ms")
        .and_then(|ms| ms.parse().ok())
        .expect("a duration");
    assert!((0.0..10_000.0).contains(&ms), "{ms}");
    capture.never_shows(SECRET);
}

#[tokio::test]
async fn a_legacy_call_is_a_span_of_its_era() {
    let (capture, _guard) = Capture::install();
    let mut client = Client::serve(tools(), meta());
    let initialized = client
        .exchange(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "events-test", "version": "1"}}),
        )
        .await;
    assert!(initialized.get("result").is_some(), "{initialized}");
    let answer = client
        .exchange(
            "tools/call",
            json!({"name": "note", "arguments": {"text": SECRET}}),
        )
        .await;
    assert!(answer.get("result").is_some(), "{answer}");
    let unknown = client.exchange("tools/nothing", json!({})).await;
    assert_eq!(unknown["error"]["code"], -32601);

    let requests = capture.requests();
    let methods: Vec<_> = requests.iter().map(|s| s.field("method")).collect();
    assert_eq!(
        methods,
        [
            Some("initialize"),
            Some("tools/call"),
            Some("tools/nothing")
        ]
    );
    for span in &requests {
        assert_eq!(span.field("era"), Some("legacy"), "{span:?}");
    }
    assert_eq!(requests[1].field("about"), Some("note"));
    assert_eq!(requests[1].field("id"), Some("2"));
    assert_eq!(requests[1].field("outcome"), Some("ok"));
    assert_eq!(requests[2].field("outcome"), Some("error"));
    assert_eq!(requests[2].field("code"), Some("-32601"));
    capture.never_shows(SECRET);
}

#[tokio::test]
async fn a_panicking_handler_is_an_error_and_the_connection_goes_on() {
    let (capture, _guard) = Capture::install();
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
    let requests = capture.requests();
    assert_eq!(requests[0].field("about"), Some("boom"));
    assert_eq!(requests[0].field("outcome"), Some("error"));
    assert_eq!(requests[0].field("code"), Some("-32603"));
    assert_eq!(requests[1].field("outcome"), Some("ok"));
    capture.never_shows(SECRET);
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

#[cfg(feature = "auth")]
#[tokio::test]
async fn a_protected_call_names_its_principal_by_a_digest_alone() {
    use common::auth::{bearer, ISSUER, SUBJECT, TOKEN};
    use sha2::{Digest, Sha256};

    let (capture, _guard) = Capture::install();
    let port = common::auth::listen().await;
    let bearer = bearer();
    let mut headers = call_headers("note").to_vec();
    headers.push(("Authorization", &bearer));
    let answer = post(port, &headers, &call(1, "note")).await;
    assert_eq!(answer.status, 200, "{}", answer.text);

    let requests = capture.requests();
    assert_eq!(requests.len(), 1, "{requests:#?}");
    let principal = mcp_server::auth::Grant::new(ISSUER, SUBJECT)
        .principal()
        .to_owned();
    let digest: String = Sha256::digest(principal.as_bytes())[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(requests[0].field("principal"), Some(digest.as_str()));
    for secret in [TOKEN, SUBJECT, SECRET] {
        capture.never_shows(secret);
    }
}

#[tokio::test]
async fn a_tasks_life_is_told_without_its_arguments_or_its_id() {
    let (capture, _guard) = Capture::install();
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
    // A task id is a bearer secret: logs name it by a digest alone.
    let named = |task: &str| {
        use sha2::{Digest as _, Sha256};
        let digest = Sha256::digest(task.as_bytes());
        let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
        format!("sha256:{hex}")
    };
    let told = |message: &str, task: &str| {
        seen.iter().any(|e| {
            e.target == "mcp_server::tasks"
                && e.field("message") == Some(message)
                && e.field("task") == Some(named(task).as_str())
        })
    };
    assert!(told("task created", &worked), "{seen:#?}");
    assert!(told("task completed", &worked), "{seen:#?}");
    assert!(told("task created", &stopped), "{seen:#?}");
    assert!(told("task cancelled", &stopped), "{seen:#?}");
    let polled = capture.requests();
    let get = polled
        .iter()
        .find(|span| span.field("method") == Some("tasks/get"))
        .expect("a tasks/get span");
    assert_eq!(get.field("about"), Some(named(&worked).as_str()));
    capture.never_shows(SECRET);
    capture.never_shows(&worked);
    capture.never_shows(&stopped);
}

#[tokio::test]
async fn a_full_session_table_is_told_with_its_limit() {
    let (capture, _guard) = Capture::install();
    let config = HttpConfig {
        max_sessions: 1,
        ..HttpConfig::default()
    };
    let port = listen(tools(), config).await;
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
