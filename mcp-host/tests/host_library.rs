//! The host library over the three primitives, against the real example
//! servers (`everything`, `notes`) and the scripted one: resources and
//! templates in the catalogue and read through the host, prompts by
//! qualified name, the one-step call through the gate, policy rules,
//! arguments checked before anyone is asked, ready-made input handlers,
//! and errors that say what went wrong.

mod common;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use common::{
    everything, example_entry, first_text, host_config, notes, options, scripted_entry, CallLog,
};
use mcp_host::approval::{ApprovalRequest, Approver, Decision, Policy};
use mcp_host::client::input::{accepted, declined, ElicitWith};
use mcp_host::client::{
    CallOptions, Client, ClientError, InputHandler, NameKind, NoInput, StartFailure, StartReason,
};
use mcp_host::types::v2026_07_28::ElicitRequestParams;
use mcp_host::{BoxFuture, Host, ServerId};
use serde_json::{json, Map, Value};

fn id(name: &str) -> ServerId {
    ServerId::new(name).expect("id")
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

/// Counts the questions it is asked and gives one answer to all.
struct Counting {
    asked: AtomicUsize,
    answer: Decision,
}

impl Counting {
    fn new(answer: Decision) -> Arc<Self> {
        Arc::new(Self {
            asked: AtomicUsize::new(0),
            answer,
        })
    }

    fn asked(&self) -> usize {
        self.asked.load(Ordering::SeqCst)
    }
}

impl Approver for Counting {
    fn decide<'a>(&'a self, _: &'a ApprovalRequest) -> BoxFuture<'a, Decision> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        let answer = self.answer.clone();
        Box::pin(async move { answer })
    }
}

async fn start(entries: Value, policy: Policy, approver: Arc<Counting>) -> Host {
    Host::builder(host_config(entries))
        .policy(policy)
        .approver(approver)
        .options(options(false))
        .start()
        .await
}

#[tokio::test]
async fn resources_templates_and_prompts_are_read_through_the_host() {
    let mut legacy = example_entry(everything());
    legacy["legacy"] = json!(true);
    let entries = json!({"local": example_entry(everything()), "old": legacy});
    let host = start(entries, Policy::new(), Counting::new(Decision::Approve)).await;

    // Templates are in the catalogue with their server, in both eras.
    let templates: Vec<(String, String)> = host
        .resource_templates()
        .into_iter()
        .map(|t| (t.server.to_string(), t.template.accept().uri_template))
        .collect();
    for server in ["local", "old"] {
        assert!(
            templates.contains(&(server.into(), "test://template/{id}/data".into())),
            "{templates:?}"
        );
    }
    assert!(host
        .resources()
        .iter()
        .any(|r| r.server == id("local") && r.resource.accept_ref().uri == "test://static-text"));

    // A listed resource and one from a template, read by server and URI.
    let read = host
        .read_resource(&id("old"), "test://static-text")
        .await
        .expect("read");
    assert_eq!(read.origin(), &id("old"));
    let contents = serde_json::to_value(read.accept()).expect("encodes");
    assert_eq!(
        contents["contents"][0]["text"],
        "This is the content of the static text resource."
    );
    let uri = "test://template/42/data";
    assert_eq!(host.resource_servers(uri), [id("local"), id("old")]);
    assert!(host.resource_servers("test://template/42/other").is_empty());
    let templated = host.read_resource(&id("local"), uri).await.expect("read");
    let contents = serde_json::to_value(templated.accept()).expect("encodes");
    let body: Value = serde_json::from_str(contents["contents"][0]["text"].as_str().expect("text"))
        .expect("json");
    assert_eq!(body["data"], "Data for ID: 42");

    // Prompts by qualified name, with arguments.
    assert!(host
        .prompts()
        .iter()
        .any(|p| p.qualified == "old__test_prompt_with_arguments"));
    let arguments = BTreeMap::from([("arg1".into(), "a".into()), ("arg2".into(), "b".into())]);
    let prompt = host
        .get_prompt("local__test_prompt_with_arguments", arguments)
        .await
        .expect("prompt");
    let prompt = serde_json::to_value(prompt.accept()).expect("encodes");
    assert_eq!(
        prompt["messages"][0]["content"]["text"],
        "Prompt with arguments: arg1='a', arg2='b'"
    );
    let missing = host
        .get_prompt("local__test_prompt_with_argument", BTreeMap::new())
        .await
        .expect_err("no such prompt");
    assert!(
        matches!(&missing, ClientError::Unknown { kind: NameKind::Prompt, closest, .. }
            if closest[0].accept_ref() == "test_prompt_with_arguments"),
        "{missing}"
    );
    host.shutdown().await;
}

#[tokio::test]
async fn a_new_project_creates_a_note_reads_it_and_gets_its_prompt() {
    // The user's own rule lets the untrusted server's tools run unasked.
    let approver = Counting::new(Decision::Deny("nobody asked".into()));
    let policy = Policy::new().allow("notes").expect("pattern");
    let host = start(
        json!({"notes": example_entry(notes())}),
        policy,
        approver.clone(),
    )
    .await;
    let created = host
        .call(
            "notes__create_note",
            object(json!({"title": "milk", "body": "buy milk"})),
            &CallOptions::default(),
        )
        .await
        .expect("created")
        .accept();
    let handle = created.structured_content.expect("structured")["handle"]
        .as_str()
        .expect("a handle")
        .to_owned();
    assert_eq!(approver.asked(), 0);

    let read = host
        .read_resource(&id("notes"), &format!("notes://{handle}"))
        .await
        .expect("read");
    let read = serde_json::to_value(read.accept()).expect("encodes");
    assert_eq!(read["contents"][0]["text"], "# milk\n\nbuy milk");
    assert_eq!(
        host.resource_servers(&format!("notes://{handle}")),
        [id("notes")]
    );

    let prompt = host
        .get_prompt(
            "notes__summarize",
            BTreeMap::from([("handle".into(), handle)]),
        )
        .await
        .expect("prompt");
    let prompt = serde_json::to_value(prompt.accept()).expect("encodes");
    let text = prompt["messages"][0]["content"]["text"]
        .as_str()
        .expect("text");
    assert!(text.contains("buy milk"), "{text}");
    host.shutdown().await;
}

#[tokio::test]
async fn the_one_step_call_passes_the_gate() {
    let log = CallLog::new("library-gate");
    let approver = Counting::new(Decision::Deny("said no".into()));
    let host = start(
        json!({"scripted": log.entry()}),
        Policy::new(),
        approver.clone(),
    )
    .await;
    let no_args = || Map::new();
    let denied = host
        .call("scripted__flaky", no_args(), &CallOptions::default())
        .await
        .expect_err("the approver says no");
    assert!(
        matches!(&denied, ClientError::Denied(d) if d.reason == "said no"),
        "{denied}"
    );
    assert_eq!(approver.asked(), 1);
    assert_eq!(log.calls(), Vec::<Value>::new(), "a denied call ran");
    host.shutdown().await;

    // Rules: deny refuses unasked, allow runs unasked, and a read-only
    // tool of an untrusted server is still asked about without one.
    let approver = Counting::new(Decision::Approve);
    let policy = Policy::new()
        .deny("scripted/flaky")
        .and_then(|p| p.allow("scripted/slo*"))
        .and_then(|p| p.allow("*/big"))
        .expect("patterns");
    let log = CallLog::new("library-rules");
    let host = start(json!({"scripted": log.entry()}), policy, approver.clone()).await;
    let denied = host
        .call("scripted__flaky", no_args(), &CallOptions::default())
        .await
        .expect_err("denied by rule");
    assert!(
        denied.to_string().contains("rule `scripted/flaky`"),
        "{denied}"
    );
    let result = host
        .call(
            "scripted__big",
            object(json!({"bytes": 3})),
            &CallOptions::default(),
        )
        .await
        .expect("allowed by rule");
    assert_eq!(first_text(&result.accept()), "bbb");
    assert_eq!(approver.asked(), 0);
    let echoed = host
        .call("scripted__echo", no_args(), &CallOptions::default())
        .await
        .expect("approved");
    assert_eq!(first_text(&echoed.accept()), "echo done");
    assert_eq!(
        approver.asked(),
        1,
        "untrusted annotations relaxed the policy"
    );
    let names: Vec<String> = log
        .calls()
        .iter()
        .map(|c| c["name"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(names, ["big", "echo"]);
    host.shutdown().await;
}

#[tokio::test]
async fn a_trusted_servers_read_only_tool_runs_unless_a_rule_asks() {
    let mut entry = example_entry(notes());
    entry["trusted"] = json!(true);
    let handle = json!({"handles": []});
    let approver = Counting::new(Decision::Approve);
    let host = start(
        json!({"notes": entry.clone()}),
        Policy::new(),
        approver.clone(),
    )
    .await;
    host.call(
        "notes__export_notes",
        object(handle.clone()),
        &CallOptions::default(),
    )
    .await
    .expect("read-only and trusted");
    assert_eq!(approver.asked(), 0);
    host.shutdown().await;
    let policy = Policy::new().ask("notes/export_*").expect("pattern");
    let host = start(json!({"notes": entry}), policy, approver.clone()).await;
    host.call(
        "notes__export_notes",
        object(handle),
        &CallOptions::default(),
    )
    .await
    .expect("approved when asked");
    assert_eq!(approver.asked(), 1);
    host.shutdown().await;
}

#[tokio::test]
async fn arguments_are_checked_before_anyone_is_asked() {
    let approver = Counting::new(Decision::Approve);
    let host = start(
        json!({"notes": example_entry(notes())}),
        Policy::new(),
        approver.clone(),
    )
    .await;
    let outcome = host
        .call(
            "notes__create_note",
            object(json!({"title": 3})),
            &CallOptions::default(),
        )
        .await;
    let Err(ClientError::InvalidArguments(invalid)) = outcome else {
        panic!("not refused for its arguments: {outcome:?}");
    };
    let fields: Vec<Option<String>> = invalid
        .problems
        .iter()
        .map(|p| p.accept_ref().field.clone())
        .collect();
    assert_eq!(fields, [Some("body".into()), Some("title".into())]);
    assert_eq!(invalid.tool, "notes__create_note");
    let prepared = host
        .prepare("notes__delete_note", object(json!({"handle": "note_abc"})))
        .await
        .expect_err("the handle does not match the pattern");
    assert!(prepared.to_string().contains("`handle`: "), "{prepared}");
    assert_eq!(
        approver.asked(),
        0,
        "someone was asked about a refused call"
    );
    host.shutdown().await;
}

#[tokio::test]
async fn names_that_name_nothing_say_why() {
    let entries = json!({
        "local": example_entry(everything()),
        "bad": scripted_entry("exits", json!({})),
        "missing": {"command": "mcp-host-test-no-such-program", "args": ["--stdio"]},
    });
    let host = start(entries, Policy::new(), Counting::new(Decision::Approve)).await;
    let error = |name: &'static str| {
        let host = &host;
        async move {
            host.prepare(name, Map::new())
                .await
                .expect_err("names nothing")
        }
    };
    let configured = vec![id("bad"), id("local"), id("missing")];
    match error("nope__x").await {
        ClientError::UnknownServer {
            id: wanted,
            configured: listed,
        } => {
            assert_eq!((wanted.as_str(), &listed), ("nope", &configured));
        }
        other => panic!("{other}"),
    }
    assert!(matches!(
        error("test_simple_text").await,
        ClientError::Unqualified {
            kind: NameKind::Tool,
            ..
        }
    ));
    let down = error("bad__anything").await.to_string();
    assert!(
        down.starts_with("server `bad` is not running: `python3 ")
            && down.contains("server.py exits` exited with status 3 before it answered")
            && down.ends_with("starting step 30\n    fatal: no database"),
        "{down}"
    );
    let missing = error("missing__x").await.to_string();
    assert!(
        missing.contains("could not start `mcp-host-test-no-such-program --stdio`: "),
        "{missing}"
    );
    match error("local__test_simple_txt").await {
        ClientError::Unknown {
            kind: NameKind::Tool,
            server,
            name,
            closest,
        } => {
            assert_eq!(
                (server.as_str(), name.as_str()),
                ("local", "test_simple_txt")
            );
            assert_eq!(closest[0].accept_ref(), "test_simple_text");
        }
        other => panic!("{other}"),
    }
    let statuses = host.servers().await;
    assert!(statuses[1].error.is_none(), "{statuses:?}");
    host.shutdown().await;
}

#[tokio::test]
async fn a_server_that_exits_at_once_reports_its_status_and_stderr() {
    let target = common::scripted("exits", Vec::new());
    let outcome = Client::connect(id("bad"), target, Arc::new(NoInput), options(false), None).await;
    let Err(ClientError::Start(failure)) = outcome else {
        panic!("not a start failure: {outcome:?}");
    };
    let StartFailure {
        command,
        reason: StartReason::Exited(Some(status)),
        stderr: Some(stderr),
    } = *failure
    else {
        panic!("not an exit with stderr");
    };
    assert!(command.starts_with("python3 ") && command.ends_with("server.py exits"));
    assert_eq!(status.code(), Some(3));
    let lines: Vec<&str> = stderr.accept_ref().lines().collect();
    assert_eq!(lines.len(), mcp_host::client::STDERR_LINES);
    assert_eq!(lines.last(), Some(&"fatal: no database"));
    assert_eq!(stderr.origin(), &id("bad"));
}

#[tokio::test]
async fn the_closest_names_of_a_hostile_server_are_rendered() {
    let host = start(
        json!({"scripted": scripted_entry("hostile", json!({}))}),
        Policy::new(),
        Counting::new(Decision::Approve),
    )
    .await;
    let error = host
        .prepare("scripted__flak", Map::new())
        .await
        .expect_err("no such tool")
        .to_string();
    assert!(error.contains("`flaky`"), "{error}");
    assert!(
        error.contains("flaky\\u{1b}]0;owned\\u{7}\\u{202e}"),
        "{error}"
    );
    assert!(
        !error.contains(['\u{1b}', '\u{7}', '\u{202e}']),
        "{error:?}"
    );
    host.shutdown().await;
}

/// Answers every form with `name`, `username` and `email`, and counts.
fn form_answers(count: Arc<AtomicUsize>) -> impl InputHandler {
    ElicitWith::new(move |request| {
        count.fetch_add(1, Ordering::SeqCst);
        async move {
            match request.accept() {
                ElicitRequestParams::Form(_) => accepted(object(json!({
                    "name": "Ada", "username": "ada", "email": "ada@example.com"
                }))),
                ElicitRequestParams::URL(_) => declined(),
            }
        }
    })
}

#[tokio::test]
async fn ready_made_input_handlers_answer_or_decline() {
    for legacy in [false, true] {
        let count = Arc::new(AtomicUsize::new(0));
        let mut entry = example_entry(everything());
        entry["legacy"] = json!(legacy);
        let host = Host::builder(host_config(json!({"local": entry})))
            .approver(Counting::new(Decision::Approve))
            .input(Arc::new(form_answers(count.clone())))
            .options(options(false))
            .start()
            .await;
        let greeted = host
            .call(
                "local__test_input_required_result_elicitation",
                Map::new(),
                &CallOptions::default(),
            )
            .await
            .expect("answered");
        assert_eq!(
            first_text(&greeted.accept()),
            "Hello, Ada!",
            "legacy: {legacy}"
        );
        let asked = host
            .call(
                "local__test_elicitation",
                object(json!({"message": "Who are you?"})),
                &CallOptions::default(),
            )
            .await
            .expect("answered");
        let text = first_text(&asked.accept());
        assert!(text.contains("ada@example.com"), "legacy {legacy}: {text}");
        assert_eq!(count.load(Ordering::SeqCst), 2, "legacy: {legacy}");
        host.shutdown().await;
    }
    // The default handler declares nothing and declines: the server says
    // what it is missing, and no answer is made up.
    let host = Host::builder(host_config(json!({"local": example_entry(everything())})))
        .approver(Counting::new(Decision::Approve))
        .options(options(false))
        .start()
        .await;
    let outcome = host
        .call(
            "local__test_elicitation",
            object(json!({"message": "Who are you?"})),
            &CallOptions::default(),
        )
        .await;
    let text = match outcome {
        Ok(result) => first_text(&result.accept()),
        Err(error) => error.to_string(),
    };
    assert!(!text.contains("ada@example.com"), "{text}");
    assert!(text.contains("client capability"), "{text}");
    host.shutdown().await;
}
