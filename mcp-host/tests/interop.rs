//! Peers no one here wrote: the reference `server-everything` (legacy, over
//! stdio) and a server on the official TypeScript SDK v2, spoken to in both
//! eras, over stdio and Streamable HTTP. The pinned packages live in
//! `tests/interop`; the test installs them with `npm ci` when they are
//! missing (see `common::interop`).

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use common::interop::{reference_everything, sdk_http, sdk_server};
use common::{host_config, options, stdio_entry, Answers};
use mcp_host::approval::{ApprovalRequest, ApproveAll, Approver, Decision, Gate, Policy};
use mcp_host::client::{CallOptions, Client};
use mcp_host::{BoxFuture, Host, ServerId};
use mcp_types::version::{Era, ProtocolVersion};
use serde_json::{json, Value};

/// Approves every call and remembers which it was asked about.
#[derive(Default)]
struct Recording {
    asked: Mutex<Vec<String>>,
    count: AtomicUsize,
}

impl Recording {
    fn asked(&self) -> Vec<String> {
        self.asked.lock().map(|a| a.clone()).unwrap_or_default()
    }
}

impl Approver for Recording {
    fn decide<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, Decision> {
        self.count.fetch_add(1, Ordering::SeqCst);
        if let Ok(mut asked) = self.asked.lock() {
            asked.push(request.call.qualified().to_owned());
        }
        Box::pin(async { Decision::Approve })
    }
}

/// A host of the SDK server at `url` as `web` (forced legacy when asked)
/// and, beside it, the same server over stdio as `local`, so that every
/// tool name exists twice and the host has to qualify them.
async fn sdk_host(url: &str, legacy: bool) -> (Host, Arc<Answers>, Arc<Recording>) {
    let config = host_config(json!({
        "web": {"url": url, "legacy": legacy},
        "local": stdio_entry(sdk_server(), json!({})),
    }));
    let answers = Answers::new();
    let approver = Arc::new(Recording::default());
    let host = Host::builder(config)
        .approver(approver.clone())
        .input(answers.clone())
        .options(options(false))
        .start()
        .await;
    let servers = host.servers().await;
    assert!(servers.iter().all(|s| s.error.is_none()), "{servers:?}");
    (host, answers, approver)
}

/// Runs the host's tool `qualified` through the gate; its first text.
async fn host_run(host: &Host, qualified: &str, args: Value) -> String {
    let Value::Object(args) = args else {
        panic!("arguments must be an object")
    };
    let call = host.prepare(qualified, args).await.expect("prepared");
    let approval = host.authorize(&call).await.expect("approved");
    let result = host
        .call_tool(call, approval, &CallOptions::default())
        .await
        .unwrap_or_else(|e| panic!("{qualified}: {e}"));
    let origin = qualified.split("__").next().unwrap_or_default();
    assert_eq!(result.origin().as_str(), origin);
    let value = serde_json::to_value(result.accept()).expect("encodes");
    value["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// The era the host settled for the server `id`.
async fn era_of(host: &Host, id: &str) -> Era {
    let id = ServerId::new(id).expect("id");
    let servers = host.servers().await;
    let status = servers.iter().find(|s| s.id == id).expect("configured");
    status.session.as_ref().expect("connected").era
}

async fn run(client: &Client, tool: &str, args: Value) -> String {
    let Value::Object(args) = args else {
        panic!("arguments must be an object")
    };
    let call = client.prepare_call(tool, args).await.expect("prepared");
    let approval = Gate::new(Policy::default(), Arc::new(ApproveAll))
        .authorize(&call)
        .await
        .expect("approved");
    let result = client
        .call_tool(call, approval, &CallOptions::default())
        .await
        .unwrap_or_else(|e| panic!("{tool}: {e}"));
    let value = serde_json::to_value(result.accept()).expect("encodes");
    value["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn reference_server_everything_is_probed_as_legacy() {
    let answers = Answers::new();
    let id = ServerId::new("reference").expect("id");
    let client = Client::connect(
        id,
        reference_everything(),
        answers.clone(),
        options(false),
        None,
    )
    .await
    .expect("connects");
    let session = client.session().expect("session");
    assert_eq!(
        session.era,
        Era::Legacy,
        "the probe fell back to initialize"
    );
    assert_eq!(session.version, ProtocolVersion::V2025_11_25);
    assert_eq!(
        run(&client, "echo", json!({"message": "hi"})).await,
        "Echo: hi"
    );
    assert_eq!(
        run(&client, "get-sum", json!({"a": 2, "b": 3})).await,
        "The sum of 2 and 3 is 5."
    );
    // A real `elicitation/create` from the server, answered by the host.
    let text = run(&client, "trigger-elicitation-request", json!({})).await;
    assert!(
        text.contains("provided the requested information"),
        "{text}"
    );
    assert_eq!(answers.asked(), 1);
    client.shutdown().await;
}

#[tokio::test]
async fn typescript_sdk_v2_server_modern() {
    let answers = Answers::new();
    let id = ServerId::new("sdk").expect("id");
    let client = Client::connect(id, sdk_server(), answers.clone(), options(false), None)
        .await
        .expect("connects");
    let session = client.session().expect("session");
    assert_eq!(
        (session.era, session.version),
        (Era::Modern, ProtocolVersion::V2026_07_28)
    );
    assert_eq!(
        run(&client, "echo", json!({"text": "hi"})).await,
        "echo: hi"
    );
    // One MRTR round: the SDK's `inputRequired`, answered by the host.
    assert_eq!(run(&client, "greet", json!({})).await, "Hello, Ada!");
    assert_eq!(answers.asked(), 1);
    client.shutdown().await;
}

#[tokio::test]
async fn typescript_sdk_v2_server_legacy() {
    let answers = Answers::new();
    let id = ServerId::new("sdk").expect("id");
    let client = Client::connect(id, sdk_server(), answers.clone(), options(true), None)
        .await
        .expect("connects");
    assert_eq!(client.session().expect("session").era, Era::Legacy);
    assert_eq!(
        run(&client, "echo", json!({"text": "hi"})).await,
        "echo: hi"
    );
    // The SDK turns its `inputRequired` into a real elicitation request.
    assert_eq!(run(&client, "greet", json!({})).await, "Hello, Ada!");
    assert_eq!(answers.asked(), 1);
    client.shutdown().await;
}

#[tokio::test]
async fn typescript_sdk_v2_server_modern_over_http() {
    let (_server, url) = sdk_http("sessions");
    let (host, answers, approver) = sdk_host(&url, false).await;
    assert_eq!(era_of(&host, "web").await, Era::Modern);
    let names: Vec<String> = host.tools().into_iter().map(|t| t.qualified).collect();
    for name in ["web__echo", "web__greet", "local__echo", "local__greet"] {
        assert!(
            names.contains(&name.to_owned()),
            "{name} missing from {names:?}"
        );
    }
    assert_eq!(
        host.resolve_tool("web__echo")
            .map(|(s, t)| (s.to_string(), t)),
        Some(("web".to_owned(), "echo".to_owned()))
    );
    assert_eq!(
        host_run(&host, "web__echo", json!({"text": "hi"})).await,
        "echo: hi"
    );
    // One MRTR round over HTTP: `input_required`, answered, retried.
    assert_eq!(
        host_run(&host, "web__greet", json!({})).await,
        "Hello, Ada!"
    );
    assert_eq!(answers.asked(), 1);
    // The server is untrusted: its read-only hint does not skip the gate.
    assert_eq!(approver.asked(), ["web__echo", "web__greet"]);
    host.shutdown().await;
}

#[tokio::test]
async fn typescript_sdk_v2_server_legacy_sessions_over_http() {
    let (_server, url) = sdk_http("sessions");
    let (host, answers, approver) = sdk_host(&url, true).await;
    assert_eq!(era_of(&host, "web").await, Era::Legacy);
    assert_eq!(era_of(&host, "local").await, Era::Modern);
    assert_eq!(
        host_run(&host, "web__echo", json!({"text": "hi"})).await,
        "echo: hi"
    );
    // The SDK turns `inputRequired` into an `elicitation/create` request on
    // the POST's event stream; the host answers it with a POST.
    assert_eq!(
        host_run(&host, "web__greet", json!({})).await,
        "Hello, Ada!"
    );
    assert_eq!(answers.asked(), 1);
    // The tool closes its own stream before answering; the client resumes
    // it with `Last-Event-ID` and the SDK replays the answer.
    assert_eq!(
        host_run(&host, "web__interrupted", json!({})).await,
        "answered after a break"
    );
    assert_eq!(
        approver.asked(),
        ["web__echo", "web__greet", "web__interrupted"]
    );
    host.shutdown().await;
}

#[tokio::test]
async fn typescript_sdk_v2_server_legacy_stateless_over_http() {
    let (_server, url) = sdk_http("stateless");
    let (host, answers, approver) = sdk_host(&url, true).await;
    assert_eq!(era_of(&host, "web").await, Era::Legacy);
    assert_eq!(
        host_run(&host, "web__echo", json!({"text": "hi"})).await,
        "echo: hi"
    );
    assert_eq!(approver.asked(), ["web__echo"]);
    // Stateless legacy serving has no way to ask the client anything: the
    // SDK says so in an error result, and the host's handler is never asked.
    let text = host_run(&host, "web__greet", json!({})).await;
    assert!(
        text.contains("cannot receive server-to-client requests"),
        "{text}"
    );
    assert_eq!(answers.asked(), 0);
    host.shutdown().await;
}

#[tokio::test]
async fn typescript_sdk_v2_server_listen_over_http() {
    let (_server, url) = sdk_http("sessions");
    let (host, _answers, _approver) = sdk_host(&url, false).await;
    let web = ServerId::new("web").expect("id");
    let filter =
        serde_json::from_value(json!({"toolsListChanged": true, "promptsListChanged": true}))
            .expect("a filter");
    let mut subscription = host.listen(&web, filter).await.expect("acknowledged");
    // The server has no prompts: it honours the tools part only.
    let honoured = subscription.acknowledged();
    assert_eq!(
        (honoured.tools_list_changed, honoured.prompts_list_changed),
        (Some(true), None)
    );
    assert_eq!(host_run(&host, "web__touch", json!({})).await, "announced");
    let change = tokio::time::timeout(std::time::Duration::from_secs(5), subscription.next())
        .await
        .expect("a change within 5 s")
        .expect("the stream is open")
        .expect("a change");
    assert_eq!(change, mcp_host::listen::Change::ToolsListChanged);
    drop(subscription);
    host.shutdown().await;
}
