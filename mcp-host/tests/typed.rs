//! Typed clients end to end: the clients `mcp-gen client` generated from
//! real servers' tool lists (the goldens under `mcp-gen/tests/tools/`),
//! against those servers running for real.
//!
//! - Our own `notes` example over stdio and HTTP: its tool list as the
//!   macros produce it, typed calls through the approval gate, the tool's
//!   own errors, and drift, from a client generated for a changed list.
//! - Servers no one here wrote: `mcp-server-time` (PyPI) over stdio,
//!   `server-everything` (npm) over HTTP, `server-memory` (npm) through a
//!   `Host` (that every snapshot is what its server serves now is the
//!   application's `mcp-host snapshot` test).

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::{interop, pypi};
use mcp_host::approval::{ApproveAll, DenyAll, Gate, Policy, Trust};
use mcp_host::client::{CallOptions, Client, ClientOptions, InputHandler, Target};
use mcp_host::typed::{Definition, Drift, Tool, TypedClient, TypedError};
use mcp_host::untrusted::Untrusted;
use mcp_host::BoxFuture;
use mcp_host::{Host, ServerId};
use mcp_types::v2026_07_28::{ClientCapabilities, ContentBlock, ElicitRequestParams, ElicitResult};
use serde_json::{json, Value};

#[allow(dead_code, clippy::all)]
mod notes {
    include!("../../mcp-gen/tests/tools/notes.rs");
}

#[allow(dead_code, clippy::all)]
mod notes_drifted {
    include!("../../mcp-gen/tests/tools/notes-drifted.rs");
}

#[allow(dead_code, clippy::all)]
mod time {
    include!("../../mcp-gen/tests/tools/mcp-server-time.rs");
}

#[allow(dead_code, clippy::all)]
mod everything {
    include!("../../mcp-gen/tests/tools/server-everything.rs");
}

#[allow(dead_code, clippy::all)]
mod memory {
    include!("../../mcp-gen/tests/tools/server-memory.rs");
}

fn id(name: &str) -> ServerId {
    ServerId::new(name).expect("a server id")
}

/// A client of `target` declaring what the `mcp-host` command declares
/// (some servers list tools only to clients that can answer elicitations,
/// and the snapshots were taken with the command), with room for
/// slow-starting servers to answer the probe.
async fn connect(name: &str, target: Target, trust: Trust) -> Arc<Client> {
    let options = ClientOptions {
        trust,
        probe_timeout: Duration::from_secs(20),
        ..common::options(false)
    };
    let input = Arc::new(LikeTheCommand);
    let client = Client::connect(id(name), target, input, options, None)
        .await
        .unwrap_or_else(|e| panic!("{name} connects: {e}"));
    Arc::new(client)
}

/// Declares what the `mcp-host` command declares (elicitation, form and
/// URL) and declines what it is asked: no test here answers a question.
struct LikeTheCommand;

impl InputHandler for LikeTheCommand {
    fn capabilities(&self) -> ClientCapabilities {
        serde_json::from_value(json!({ "elicitation": { "form": {}, "url": {} } }))
            .expect("capabilities")
    }

    fn elicit<'a>(&'a self, _: Untrusted<ElicitRequestParams>) -> BoxFuture<'a, ElicitResult> {
        Box::pin(async { mcp_host::client::input::declined() })
    }
}

fn approve_all() -> Gate {
    Gate::new(Policy::default(), Arc::new(ApproveAll))
}

/// The text of the first text block.
fn first_text(content: &[ContentBlock]) -> &str {
    content
        .iter()
        .find_map(|block| match block {
            ContentBlock::TextContent(text) => Some(text.text.as_str()),
            _ => None,
        })
        .expect("a text block")
}

/// Creates, reads and exports a note with the typed client of `notes`.
async fn notes_round(client: Arc<Client>) {
    let tools = notes::Tools::new(TypedClient::new(client));
    assert_eq!(tools.check().await.expect("listed"), Vec::<Drift>::new());
    let gate = approve_all();
    let options = CallOptions::default();

    let prepared = tools
        .create_note(notes::create_note::Arguments::new("milk", "buy milk"))
        .await
        .expect("no drift");
    assert_eq!(
        prepared.call().arguments(),
        json!({"title": "milk", "body": "buy milk"})
            .as_object()
            .expect("object")
    );
    let approval = gate.authorize(prepared.call()).await.expect("approved");
    let created = tools
        .call(prepared, approval, &options)
        .await
        .expect("created");
    let handle = created.accept().handle;
    assert!(handle.starts_with("note_"), "{handle}");

    let prepared = tools
        .read_note(notes::read_note::Arguments::new(handle.clone()))
        .await
        .expect("no drift");
    let approval = gate.authorize(prepared.call()).await.expect("approved");
    let note = tools
        .call(prepared, approval, &options)
        .await
        .expect("read")
        .accept();
    assert_eq!(
        (note.title.as_str(), note.body.as_str()),
        ("milk", "buy milk")
    );

    let prepared = tools
        .export_notes(notes::export_notes::Arguments::new(vec![handle]))
        .await
        .expect("no drift");
    let approval = gate.authorize(prepared.call()).await.expect("approved");
    let text = tools
        .call(prepared, approval, &options)
        .await
        .expect("exported");
    assert_eq!(first_text(text.accept_ref()), "# milk\n\nbuy milk\n\n");

    // A handle the server never issued: the tool's own error, untrusted.
    let prepared = tools
        .read_note(notes::read_note::Arguments::new(format!(
            "note_{}",
            "x".repeat(32)
        )))
        .await
        .expect("no drift");
    let approval = gate.authorize(prepared.call()).await.expect("approved");
    match tools.call(prepared, approval, &options).await {
        Err(TypedError::Tool { tool, text, .. }) => {
            assert_eq!(tool, "read_note");
            assert_eq!(text.origin().as_str(), "notes");
            assert!(!text.accept_ref().is_empty());
        }
        other => panic!("expected the tool's error, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notes_typed_over_stdio() {
    notes_round(connect("notes", common::notes_stdio(), Trust::Untrusted).await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notes_typed_over_http() {
    let (_server, url) = common::notes_http();
    let target = Target::Http {
        url,
        headers: Vec::new(),
    };
    notes_round(connect("notes", target, Trust::Untrusted).await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_typed_call_still_needs_the_gate() {
    let client = connect("notes", common::notes_stdio(), Trust::Untrusted).await;
    let tools = notes::Tools::new(TypedClient::new(client));
    let deny = Gate::new(Policy::default(), Arc::new(DenyAll));
    let write = tools
        .create_note(notes::create_note::Arguments::new("a", "b"))
        .await
        .expect("no drift");
    // A write is asked, and the approver says no.
    let denied = deny.authorize(write.call()).await.expect_err("denied");
    assert_eq!(
        (denied.reason.as_str(), denied.by),
        ("no approver is configured", "deny-all")
    );
    // Read-only, but the server is not trusted: asked too.
    let read = tools
        .read_note(notes::read_note::Arguments::new(format!(
            "note_{}",
            "x".repeat(32)
        )))
        .await
        .expect("no drift");
    let denied = deny.authorize(read.call()).await.expect_err("denied");
    assert_eq!(
        (denied.reason.as_str(), denied.by),
        ("no approver is configured", "deny-all")
    );

    // A trusted server's read-only tool passes the policy unasked.
    let trusted = connect("notes", common::notes_stdio(), Trust::Trusted).await;
    let tools = notes::Tools::new(TypedClient::new(trusted));
    let read = tools
        .read_note(notes::read_note::Arguments::new(format!(
            "note_{}",
            "x".repeat(32)
        )))
        .await
        .expect("no drift");
    assert!(deny.authorize(read.call()).await.is_ok());
    // An approval covers one call only.
    let other = tools
        .read_note(notes::read_note::Arguments::new(format!(
            "note_{}",
            "y".repeat(32)
        )))
        .await
        .expect("no drift");
    let approval = deny.authorize(read.call()).await.expect("allowed");
    let wrong = tools.call(other, approval, &CallOptions::default()).await;
    assert!(
        matches!(
            wrong,
            Err(TypedError::Protocol(
                mcp_host::ClientError::ApprovalMismatch
            ))
        ),
        "{wrong:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn drift_is_reported_before_anything_is_sent() {
    // A client generated from a list that differs from what `notes` serves:
    // `create_note` reworded, `read_note` with a new required argument, and
    // `archive_note`, which the server never had.
    let client = connect("notes", common::notes_stdio(), Trust::Untrusted).await;
    let tools = notes_drifted::Tools::new(TypedClient::new(client.clone()));
    let mut drift = tools.check().await.expect("listed");
    drift.sort_by(|a, b| a.tool().cmp(b.tool()));
    assert!(
        matches!(&drift[0], Drift::Gone { tool } if tool == "archive_note"),
        "{drift:?}"
    );
    assert!(matches!(&drift[1], Drift::DescriptionsChanged { tool } if tool == "create_note"));
    assert!(matches!(&drift[2], Drift::SchemaChanged { tool, .. } if tool == "read_note"));
    assert_eq!(drift.len(), 3);

    let schema = tools
        .read_note(notes_drifted::read_note::Arguments::new("note_x", 2))
        .await;
    assert!(
        matches!(schema, Err(TypedError::Drift(Drift::SchemaChanged { .. }))),
        "{schema:?}"
    );
    let gone = tools
        .archive_note(notes_drifted::archive_note::Arguments::new("note_x"))
        .await;
    assert!(
        matches!(gone, Err(TypedError::Drift(Drift::Gone { .. }))),
        "{gone:?}"
    );
    let reworded = tools
        .create_note(notes_drifted::create_note::Arguments::new("a", "b"))
        .await;
    assert!(matches!(
        reworded,
        Err(TypedError::Drift(Drift::DescriptionsChanged { .. }))
    ));

    // The caller may accept a change of prose, and the call goes ahead.
    let lenient =
        notes_drifted::Tools::new(TypedClient::new(client).accept_description_changes(true));
    let prepared = lenient
        .create_note(notes_drifted::create_note::Arguments::new("a", "b"))
        .await
        .expect("prose drift accepted");
    let approval = approve_all()
        .authorize(prepared.call())
        .await
        .expect("approved");
    let created = lenient
        .call(prepared, approval, &CallOptions::default())
        .await
        .expect("created");
    assert!(created.accept().handle.starts_with("note_"));
    // A schema change is never accepted.
    let schema = lenient
        .read_note(notes_drifted::read_note::Arguments::new("note_x", 2))
        .await;
    assert!(matches!(
        schema,
        Err(TypedError::Drift(Drift::SchemaChanged { .. }))
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn time_from_pypi_over_stdio() {
    let client = connect("time", pypi::time(), Trust::Untrusted).await;
    let tools = time::Tools::new(TypedClient::new(client));
    assert_eq!(tools.check().await.expect("listed"), Vec::<Drift>::new());
    let gate = approve_all();
    let prepared = tools
        .get_current_time(time::get_current_time::Arguments::new("UTC"))
        .await
        .expect("no drift");
    let approval = gate.authorize(prepared.call()).await.expect("approved");
    let now = tools
        .call(prepared, approval, &CallOptions::default())
        .await
        .expect("validated and decoded")
        .accept();
    assert_eq!(now.timezone, "UTC");
    assert!(!now.is_dst);

    let prepared = tools
        .convert_time(time::convert_time::Arguments::new(
            "UTC",
            "12:00",
            "Asia/Tokyo",
        ))
        .await
        .expect("no drift");
    let approval = gate.authorize(prepared.call()).await.expect("approved");
    let converted = tools
        .call(prepared, approval, &CallOptions::default())
        .await
        .expect("converted")
        .accept();
    assert_eq!(converted.time_difference, "+9.0h");

    let prepared = tools
        .get_current_time(time::get_current_time::Arguments::new("Mars/Olympus_Mons"))
        .await
        .expect("no drift");
    let approval = gate.authorize(prepared.call()).await.expect("approved");
    let error = tools
        .call(prepared, approval, &CallOptions::default())
        .await;
    assert!(matches!(error, Err(TypedError::Tool { .. })), "{error:?}");
}

/// `get-structured-content` of `server-everything`, with an output schema
/// stricter than the server's: the same digests, so no drift, but output
/// that does not match.
struct StricterWeather;

impl Tool for StricterWeather {
    type Arguments = everything::get_structured_content::Arguments;
    type Output = Value;
    const DEFINITION: Definition = Definition {
        output_schema: Some(r#"{"type": "object", "required": ["pressure"]}"#),
        ..<everything::get_structured_content::Tool as Tool>::DEFINITION
    };
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everything_from_npm_over_http() {
    let (_server, url) = interop::reference_http();
    let target = Target::Http {
        url,
        headers: Vec::new(),
    };
    let client = connect("everything", target, Trust::Untrusted).await;
    let tools = everything::Tools::new(TypedClient::new(client.clone()));
    assert_eq!(tools.check().await.expect("listed"), Vec::<Drift>::new());
    let gate = approve_all();
    let options = CallOptions::default();

    let prepared = tools
        .echo(everything::echo::Arguments::new("hi"))
        .await
        .expect("no drift");
    let approval = gate.authorize(prepared.call()).await.expect("approved");
    let echoed = tools
        .call(prepared, approval, &options)
        .await
        .expect("echoed");
    assert_eq!(first_text(echoed.accept_ref()), "Echo: hi");

    let prepared = tools
        .get_sum(everything::get_sum::Arguments::new(2, 3))
        .await
        .expect("no drift");
    let approval = gate.authorize(prepared.call()).await.expect("approved");
    let sum = tools
        .call(prepared, approval, &options)
        .await
        .expect("summed");
    assert!(first_text(sum.accept_ref()).contains('5'));

    let location = everything::get_structured_content::ArgumentsLocation::Chicago;
    let prepared = tools
        .get_structured_content(everything::get_structured_content::Arguments::new(location))
        .await
        .expect("no drift");
    let approval = gate.authorize(prepared.call()).await.expect("approved");
    let weather = tools
        .call(prepared, approval, &options)
        .await
        .expect("validated")
        .accept();
    assert!(!weather.conditions.is_empty());

    let typed = TypedClient::new(client);
    let prepared = typed
        .prepare::<StricterWeather>(everything::get_structured_content::Arguments::new(location))
        .await
        .expect("no drift");
    let approval = gate.authorize(prepared.call()).await.expect("approved");
    match typed.call(prepared, approval, &options).await {
        Err(TypedError::Output {
            tool,
            reason,
            value,
        }) => {
            assert_eq!(tool, "get-structured-content");
            assert!(reason.contains("pressure"), "{reason}");
            assert!(value.accept_ref().get("temperature").is_some());
        }
        other => panic!("expected an output error, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_from_npm_through_a_host() {
    let graph = std::env::temp_dir().join(format!("mcp-typed-memory-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&graph);
    let _cleanup = common::Scratch(graph.clone());
    let entry = common::stdio_entry(interop::memory(&graph), json!({}));
    assert_eq!(
        entry["env"]["MEMORY_FILE_PATH"],
        graph.display().to_string()
    );
    let config = common::host_config(json!({ "memory": entry }));
    let options = ClientOptions {
        probe_timeout: Duration::from_secs(20),
        ..common::options(false)
    };
    let host = Arc::new(
        Host::builder(config)
            .options(options)
            .input(Arc::new(LikeTheCommand))
            .approver(Arc::new(ApproveAll))
            .start()
            .await,
    );
    let tools = memory::Tools::new(TypedClient::on_host(host.clone(), id("memory")));
    assert_eq!(tools.check().await.expect("listed"), Vec::<Drift>::new());
    let entity = memory::create_entities::ArgumentsEntitiesItem::new(
        "Ada",
        "person",
        vec!["wrote the first program".to_owned()],
    );
    let prepared = tools
        .create_entities(memory::create_entities::Arguments::new(vec![entity]))
        .await
        .expect("no drift");
    let approval = host.authorize(prepared.call()).await.expect("approved");
    let created = tools
        .call(prepared, approval, &CallOptions::default())
        .await
        .expect("created")
        .accept();
    assert_eq!(created.entities[0].name, "Ada");

    let prepared = tools
        .read_graph(memory::read_graph::Arguments::new())
        .await
        .expect("no drift");
    let approval = host.authorize(prepared.call()).await.expect("approved");
    let graph = tools
        .call(prepared, approval, &CallOptions::default())
        .await
        .expect("read")
        .accept();
    assert_eq!(graph.entities.len(), 1);
    assert_eq!(graph.entities[0].observations, ["wrote the first program"]);
    host.shutdown().await;
}
