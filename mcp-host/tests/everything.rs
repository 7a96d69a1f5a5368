//! The client and the host against the `everything` example, over stdio and
//! HTTP, in both eras.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::{everything_http, everything_stdio, first_text as text, options, Answers};
use mcp_host::approval::{ApproveAll, Gate, Policy};
use mcp_host::client::{CallOptions, Client, ClientError, InputHandler, Shutdown, Target};
use mcp_host::{Host, HostConfig, ServerId};
use mcp_types::v2026_07_28::{CallToolResult, ListToolsRequest};
use mcp_types::version::{Era, ProtocolVersion};
use serde_json::{json, Map, Value};

async fn connect(target: Target, legacy: bool, input: Arc<dyn InputHandler>) -> Client {
    let id = ServerId::new("ev").expect("id");
    Client::connect(id, target, input, options(legacy), None)
        .await
        .expect("connects")
}

fn arguments(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// Prepares, approves (the test's approver says yes) and runs a tool.
async fn run(
    client: &Client,
    tool: &str,
    args: Value,
    options: &CallOptions,
) -> Result<CallToolResult, ClientError> {
    let call = client.prepare_call(tool, arguments(args)).await?;
    let approval = Gate::new(Policy::default(), Arc::new(ApproveAll))
        .authorize(&call)
        .await?;
    Ok(client.call_tool(call, approval, options).await?.accept())
}

/// A progress callback and the count of its reports.
fn counting() -> (CallOptions, Arc<AtomicUsize>) {
    let count = Arc::new(AtomicUsize::new(0));
    let seen = count.clone();
    let options = CallOptions {
        timeout: None,
        progress: Some(Arc::new(move |p| {
            assert!(p.progress >= 0.0);
            seen.fetch_add(1, Ordering::SeqCst);
        })),
        ..CallOptions::default()
    };
    (options, count)
}

/// What every era and transport must do: the typed API, a plain call and
/// progress.
async fn basics(client: &Client) {
    let params = client
        .params::<ListToolsRequest>(json!({}))
        .expect("params");
    let tools = client
        .call::<ListToolsRequest>(params)
        .await
        .expect("tools/list");
    assert_eq!(tools.origin().as_str(), "ev");
    assert!(tools
        .accept()
        .tools
        .iter()
        .any(|t| t.name == "test_simple_text"));
    let result = run(
        client,
        "test_simple_text",
        json!({}),
        &CallOptions::default(),
    )
    .await
    .expect("simple text");
    assert_eq!(text(&result), "This is a simple text response for testing.");
    let (with_progress, reports) = counting();
    let result = run(client, "test_tool_with_progress", json!({}), &with_progress)
        .await
        .expect("progress tool");
    assert_eq!(text(&result), "Progress complete");
    assert_eq!(reports.load(Ordering::SeqCst), 3);
}

/// An MRTR round (modern) or the same tool answered through a real request
/// (legacy): either way the host's handler answers once.
async fn elicitation_round(client: &Client, answers: &Answers) {
    let before = answers.asked();
    let result = run(
        client,
        "test_input_required_result_elicitation",
        json!({}),
        &CallOptions::default(),
    )
    .await
    .expect("elicitation tool");
    assert_eq!(text(&result), "Hello, Ada!");
    assert_eq!(answers.asked(), before + 1);
    let result = run(
        client,
        "test_input_required_result_multi_round",
        json!({}),
        &CallOptions::default(),
    )
    .await
    .expect("two rounds");
    assert_eq!(text(&result), "Favorite color: \"green\"");
    assert_eq!(answers.asked(), before + 3);
}

/// All three kinds of input in one round: elicitation, sampling and roots.
async fn every_kind_of_input(client: &Client) {
    let result = run(
        client,
        "test_input_required_result_multiple_inputs",
        json!({}),
        &CallOptions::default(),
    )
    .await
    .expect("three inputs");
    assert_eq!(
        text(&result),
        "Received the name, the greeting and the roots."
    );
    let result = run(
        client,
        "test_input_required_result_list_roots",
        json!({}),
        &CallOptions::default(),
    )
    .await
    .expect("roots");
    assert!(text(&result).contains("file:///work"), "{}", text(&result));
    let result = run(
        client,
        "test_input_required_result_sampling",
        json!({}),
        &CallOptions::default(),
    )
    .await
    .expect("sampling");
    assert!(text(&result).contains("Hello there"), "{}", text(&result));
}

/// The legacy elicitation tool: a real `elicitation/create` request from the
/// server, answered through the same handler.
async fn legacy_elicitation(client: &Client, answers: &Answers) {
    let before = answers.asked();
    let result = run(
        client,
        "test_elicitation",
        json!({"message": "Who are you?"}),
        &CallOptions::default(),
    )
    .await
    .expect("legacy elicitation");
    let text = text(&result);
    assert!(
        text.contains("action=\"accept\"") && text.contains("ada@example.com"),
        "{text}"
    );
    assert_eq!(answers.asked(), before + 1);
}

#[tokio::test]
async fn stdio_modern() {
    let answers = Answers::new();
    let client = connect(everything_stdio(), false, answers.clone()).await;
    let session = client.session().expect("session");
    assert_eq!(
        (session.era, session.version),
        (Era::Modern, ProtocolVersion::V2026_07_28)
    );
    basics(&client).await;
    elicitation_round(&client, &answers).await;
    every_kind_of_input(&client).await;
    assert_eq!(client.shutdown().await, Some(Shutdown::Exited));
}

#[tokio::test]
async fn stdio_legacy() {
    let answers = Answers::new();
    let client = connect(everything_stdio(), true, answers.clone()).await;
    let session = client.session().expect("session");
    assert_eq!(
        (session.era, session.version),
        (Era::Legacy, ProtocolVersion::V2025_11_25)
    );
    assert!(matches!(
        client
            .call::<mcp_types::v2026_07_28::DiscoverRequest>(
                client
                    .params::<mcp_types::v2026_07_28::DiscoverRequest>(json!({}))
                    .expect("params")
            )
            .await,
        Err(ClientError::WrongEra(_))
    ));
    basics(&client).await;
    legacy_elicitation(&client, &answers).await;
    elicitation_round(&client, &answers).await;
    every_kind_of_input(&client).await;
    assert_eq!(client.shutdown().await, Some(Shutdown::Exited));
}

#[tokio::test]
async fn http_modern() {
    let (_server, url) = everything_http();
    let answers = Answers::new();
    let target = Target::Http {
        url,
        headers: vec![("X-Test".into(), "1".into())],
    };
    let client = connect(target, false, answers.clone()).await;
    assert_eq!(client.session().expect("session").era, Era::Modern);
    basics(&client).await;
    elicitation_round(&client, &answers).await;
    // `Mcp-Param-Region` carries a value that needs the base64 form; the
    // server checks it against the body.
    let result = run(
        &client,
        "test_custom_header_tool",
        json!({"region": " Zürich\n"}),
        &CallOptions::default(),
    )
    .await
    .expect("header tool");
    assert_eq!(text(&result), "region:  Zürich\n");
    assert_eq!(client.shutdown().await, None);
}

#[tokio::test]
async fn http_legacy() {
    let (_server, url) = everything_http();
    let answers = Answers::new();
    let client = connect(
        Target::Http {
            url,
            headers: Vec::new(),
        },
        true,
        answers.clone(),
    )
    .await;
    assert_eq!(client.session().expect("session").era, Era::Legacy);
    basics(&client).await;
    legacy_elicitation(&client, &answers).await;
    every_kind_of_input(&client).await;
    client.shutdown().await;
}

#[tokio::test]
async fn timeouts_cancel_and_the_client_goes_on() {
    let client = connect(everything_stdio(), false, Answers::new()).await;
    let hurried = CallOptions {
        timeout: Some(Duration::from_millis(20)),
        progress: None,
        ..CallOptions::default()
    };
    let outcome = run(&client, "test_tool_with_progress", json!({}), &hurried).await;
    assert!(
        matches!(outcome, Err(ClientError::Timeout(_))),
        "{outcome:?}"
    );
    // Dropping a call's future cancels it as well.
    let dropped = tokio::time::timeout(
        Duration::from_millis(20),
        run(
            &client,
            "test_tool_with_progress",
            json!({}),
            &CallOptions::default(),
        ),
    )
    .await;
    assert!(dropped.is_err());
    let result = run(
        &client,
        "test_simple_text",
        json!({}),
        &CallOptions::default(),
    )
    .await
    .expect("still usable");
    assert!(!text(&result).is_empty());
}

#[tokio::test]
async fn approval_must_match_the_call() {
    let client = connect(everything_stdio(), false, Answers::new()).await;
    let gate = Gate::new(Policy::default(), Arc::new(ApproveAll));
    let approved = client
        .prepare_call(
            "test_custom_header_tool",
            arguments(json!({"region": "eu"})),
        )
        .await
        .expect("prepared");
    let approval = gate.authorize(&approved).await.expect("approved");
    let other = client
        .prepare_call(
            "test_custom_header_tool",
            arguments(json!({"region": "us"})),
        )
        .await
        .expect("prepared");
    let outcome = client
        .call_tool(other, approval, &CallOptions::default())
        .await;
    assert!(matches!(outcome, Err(ClientError::ApprovalMismatch)));
}

#[tokio::test]
async fn host_namespaces_servers_and_asks_before_writing() {
    let (_server, url) = everything_http();
    let command = common::everything().display().to_string();
    let config = HostConfig::from_json(
        &json!({"mcpServers": {
            "local": {"command": command, "args": ["--stdio"]},
            "remote": {"url": url},
            "old": {"command": command, "args": ["--stdio"], "legacy": true},
        }})
        .to_string(),
    )
    .expect("config");
    // No approver: everything that needs asking is denied.
    let host = Host::builder(config.clone())
        .options(options(false))
        .start()
        .await;
    let servers = host.servers().await;
    assert!(servers.iter().all(|s| s.error.is_none()), "{servers:?}");
    let eras: Vec<_> = servers
        .iter()
        .map(|s| s.session.as_ref().map(|s| s.era))
        .collect();
    assert_eq!(
        eras,
        [Some(Era::Modern), Some(Era::Legacy), Some(Era::Modern)]
    );
    let names: Vec<String> = host.tools().into_iter().map(|t| t.qualified).collect();
    for name in [
        "local__test_simple_text",
        "remote__test_simple_text",
        "old__test_simple_text",
    ] {
        assert!(names.contains(&name.to_owned()), "{name} missing");
    }
    let (server, tool) = host
        .resolve_tool("remote__test_simple_text")
        .expect("resolves");
    assert_eq!(
        (server.as_str(), tool.as_str()),
        ("remote", "test_simple_text")
    );
    let call = host
        .prepare("remote__test_simple_text", Map::new())
        .await
        .expect("prepared");
    // Untrusted servers are asked; nobody is there to say yes.
    let denied = host.authorize(&call).await.expect_err("denied");
    assert_eq!(
        (denied.tool.as_str(), denied.reason.as_str(), denied.by),
        (
            "remote__test_simple_text",
            "no approver is configured",
            "deny-all"
        )
    );
    assert!(!host.prompts().is_empty() && !host.resources().is_empty());
    let prompt = host
        .get_prompt("old__test_simple_prompt", Default::default())
        .await
        .expect("prompt");
    assert_eq!(prompt.origin().as_str(), "old");
    host.shutdown().await;

    let host = Host::builder(config)
        .approver(Arc::new(ApproveAll))
        .options(options(false))
        .start()
        .await;
    for name in [
        "local__test_simple_text",
        "remote__test_simple_text",
        "old__test_simple_text",
    ] {
        let call = host.prepare(name, Map::new()).await.expect("prepared");
        let approval = host.authorize(&call).await.expect("approved");
        let result = host
            .call_tool(call, approval, &CallOptions::default())
            .await
            .expect("runs");
        assert_eq!(
            result.origin(),
            &ServerId::new(name.split("__").next().unwrap_or("")).expect("id")
        );
    }
    let shut = host.shutdown().await;
    assert_eq!(shut.len(), 3);
}

#[test]
fn an_address_the_example_cannot_listen_on_is_named_with_the_reason() {
    // Held here, so the example's bind fails.
    let held = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = held.local_addr().expect("address");
    let out = std::process::Command::new(common::everything())
        .args(["--http", &addr.to_string()])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("the example runs");
    assert!(!out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("cannot listen on {addr}: ")),
        "{stderr}"
    );
    assert!(!stderr.contains("serving MCP at"), "{stderr}");
}
