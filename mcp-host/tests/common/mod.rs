//! Helpers shared by the integration tests: the peers, a scripted input
//! handler, and approved tool calls.

#![allow(dead_code)]

pub mod interop;
pub mod pypi;

use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use mcp_host::approval::{ApproveAll, Gate, Policy};
use mcp_host::client::{
    CallOptions, Client, ClientError, ClientOptions, InputHandler, StdioCommand, Target,
};
use mcp_host::untrusted::Untrusted;
use mcp_host::BoxFuture;
use mcp_host::{HostConfig, ServerId};
use mcp_types::v2026_07_28::{
    ClientCapabilities, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams,
    ElicitResult, ListRootsResult,
};
use serde_json::{json, Value};

/// The workspace's root (the `mcp-host` application's tests share these
/// helpers, so paths are taken from here, not from the crate).
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("mcp-host sits in the workspace root")
}

/// The example server `name` of `mcp-server`, built as the suite builds
/// it.
fn example(name: &str) -> PathBuf {
    mcp_tests::build::example(name)
}

/// The `everything` example, built once per test process; its path.
pub fn everything() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| example("everything"))
}

/// The `notes` example, built once per test process; its path.
pub fn notes() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| example("notes"))
}

/// The configuration entry of an example server over stdio.
pub fn example_entry(path: &Path) -> Value {
    json!({"command": path.display().to_string(), "args": ["--stdio"]})
}

/// The `notes` example over stdio.
pub fn notes_stdio() -> Target {
    Target::Stdio(StdioCommand {
        command: notes().display().to_string(),
        args: vec!["--stdio".into()],
        ..StdioCommand::default()
    })
}

/// The `notes` example over HTTP on a free port, once it accepts
/// connections; the endpoint URL.
pub fn notes_http() -> (Running, String) {
    http_example(notes())
}

/// The `everything` example over stdio.
pub fn everything_stdio() -> Target {
    Target::Stdio(StdioCommand {
        command: everything().display().to_string(),
        args: vec!["--stdio".into()],
        ..StdioCommand::default()
    })
}

/// A scripted python server in `mode`, with `env` added.
pub fn scripted(mode: &str, env: Vec<(String, String)>) -> Target {
    let script = root().join("mcp-host/tests/scripted/server.py");
    Target::Stdio(StdioCommand {
        command: "python3".into(),
        args: vec![script.display().to_string(), mode.into()],
        env,
        ..StdioCommand::default()
    })
}

/// The configuration entry of the scripted python server in `mode`, with
/// the fields of `extra` (`env`, `trusted`, ...) added.
pub fn scripted_entry(mode: &str, extra: Value) -> Value {
    stdio_entry(scripted(mode, Vec::new()), extra)
}

/// The configuration entry of the stdio `target`, with the fields of
/// `extra` (`legacy`, `env`, ...) added.
pub fn stdio_entry(target: Target, extra: Value) -> Value {
    let Target::Stdio(command) = target else {
        panic!("not a stdio target: {target:?}")
    };
    let mut entry = json!({"command": command.command, "args": command.args});
    if !command.env.is_empty() {
        let env: serde_json::Map<String, Value> = command
            .env
            .into_iter()
            .map(|(k, v)| (k, json!(v)))
            .collect();
        entry["env"] = Value::Object(env);
    }
    if let (Some(entry), Some(extra)) = (entry.as_object_mut(), extra.as_object()) {
        entry.extend(extra.clone());
    }
    entry
}

/// A host configuration of `entries`, keyed by server id.
pub fn host_config(entries: Value) -> HostConfig {
    HostConfig::from_json(&json!({ "mcpServers": entries }).to_string()).expect("config")
}

/// A host configuration file of `entries` in the temporary directory,
/// named after `name` and this test process; its path.
pub fn config_file(name: &str, entries: Value) -> PathBuf {
    let path = std::env::temp_dir().join(format!(
        "mcp-host-config-{}-{name}.json",
        std::process::id()
    ));
    std::fs::write(&path, json!({ "mcpServers": entries }).to_string()).expect("config written");
    path
}

/// The state directory the commands of this test process use, in place
/// of the user's: pins, the audit log and credentials stay out of it.
pub fn state_home() -> PathBuf {
    std::env::temp_dir().join(format!("mcp-host-test-state-{}", std::process::id()))
}

/// A file the scripted server logs its tool calls to, removed on drop.
pub struct CallLog(Scratch);

impl CallLog {
    /// A fresh log named after `name` and this test process.
    pub fn new(name: &str) -> Self {
        let path =
            std::env::temp_dir().join(format!("mcp-host-calls-{}-{name}.log", std::process::id()));
        let _ = std::fs::remove_file(&path);
        Self(Scratch(path))
    }

    /// The configuration entry of the scripted server in `versions` mode,
    /// logging here.
    pub fn entry(&self) -> Value {
        scripted_entry(
            "versions",
            json!({"env": {"CALL_LOG": self.0 .0.display().to_string()}}),
        )
    }

    /// The tool calls the server received, in order.
    pub fn calls(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.0 .0)
            .unwrap_or_default()
            .lines()
            .map(|line| serde_json::from_str(line).expect("a logged call"))
            .collect()
    }
}

/// The text of a tool result's first content block, or "".
pub fn first_text(result: &mcp_types::v2026_07_28::CallToolResult) -> String {
    let value = serde_json::to_value(result).expect("encodes");
    value["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// A directory of its own for one test, in the temporary directory,
/// named after `kind`, this test process and `name`; removed on drop.
pub struct TestDir(pub PathBuf);

impl TestDir {
    /// A fresh, empty directory.
    pub fn new(kind: &str, name: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("mcp-host-{kind}-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a directory");
        Self(dir)
    }

    /// The file `name` in it.
    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    /// Sets the definition the scripted `rugpull` server lists from now on
    /// (its `TOOL_STAGE_FILE` is `stage` here).
    pub fn stage(&self, stage: u8) {
        std::fs::write(self.path("stage"), stage.to_string()).expect("stage written");
    }

    /// The last part of its name.
    pub fn name(&self) -> String {
        self.0
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned()
    }
}

impl Drop for TestDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A file in the temporary directory, removed on drop.
pub struct Scratch(pub PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Serves `router` on a free local port; the endpoint URL.
pub async fn serve(router: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("address");
    tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    format!("http://{addr}/mcp")
}

/// A JSON reply of an HTTP peer.
pub fn reply(status: StatusCode, body: Value) -> Response {
    (
        status,
        [("content-type", "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// A JSON reply of an HTTP peer carrying `result` as the JSON-RPC result
/// for `id`.
pub fn answer(id: &Value, result: Value) -> Response {
    reply(
        StatusCode::OK,
        json!({"jsonrpc": "2.0", "id": id, "result": result}),
    )
}

/// The `server/discover` result of a modern HTTP peer with tools.
pub fn discovered() -> Value {
    json!({"resultType": "complete", "supportedVersions": ["2026-07-28"],
        "capabilities": {"tools": {}}, "ttlMs": 0, "cacheScope": "public"})
}

/// Calls `tool` with `arguments` on `client`, approved by a gate that
/// approves everything; the text of the result's first content block.
pub async fn call_text(
    client: &Client,
    tool: &str,
    arguments: Value,
    options: &CallOptions,
) -> Result<String, ClientError> {
    let Value::Object(arguments) = arguments else {
        panic!("arguments are an object");
    };
    let call = client.prepare_call(tool, arguments).await?;
    let approval = Gate::new(Policy::default(), Arc::new(ApproveAll))
        .authorize(&call)
        .await
        .expect("approved");
    let result = client.call_tool(call, approval, options).await?;
    let result = serde_json::to_value(result.accept()).expect("encodes");
    Ok(result["content"][0]["text"]
        .as_str()
        .expect("a text block")
        .to_owned())
}

/// A child process killed when dropped.
pub struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A loopback address with a port free at the time of asking, for the
/// third-party servers that take a port but cannot bind port 0 and say
/// which they got; another process may take it in between. Our own
/// examples bind port 0 instead (see [`serving`]).
pub fn free_addr() -> SocketAddr {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
}

/// `child`, a server, once it accepts connections at `addr`: within 20 s,
/// or the test fails, as it does when the server ends first.
pub fn listening(child: Child, addr: SocketAddr) -> Running {
    let mut running = Running(child);
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(addr).is_err() {
        if let Ok(Some(status)) = running.0.try_wait() {
            panic!("the server meant for {addr} ended: {status}");
        }
        assert!(Instant::now() < deadline, "nothing listened at {addr}");
        std::thread::sleep(Duration::from_millis(20));
    }
    running
}

/// The `everything` example over HTTP on a free port, once it accepts
/// connections; the endpoint URL.
pub fn everything_http() -> (Running, String) {
    http_example(everything())
}

/// The example at `path` over HTTP on a port of its own choosing (it binds
/// port 0 and says which port it got), once it accepts connections; the
/// endpoint URL.
fn http_example(path: &Path) -> (Running, String) {
    let child = Command::new(path)
        .args(["--http", "127.0.0.1:0"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the example starts");
    serving(child)
}

/// `child`, a server started on port 0, and its endpoint URL, read from
/// the `serving MCP at URL` line it writes to its piped stderr once bound
/// (within 20 s, or the test fails). The rest of stderr is passed on to
/// the test's own.
pub fn serving(mut child: Child) -> (Running, String) {
    use std::io::BufRead;
    let stderr = child.stderr.take().expect("stderr is piped");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut lines = std::io::BufReader::new(stderr).lines();
        for line in lines.by_ref().map_while(Result::ok) {
            if let Some(url) = line.strip_prefix("serving MCP at ") {
                let _ = tx.send(url.trim().to_owned());
                break;
            }
            eprintln!("{line}");
        }
        for line in lines.map_while(Result::ok) {
            eprintln!("{line}");
        }
    });
    let mut running = Running(child);
    match rx.recv_timeout(Duration::from_secs(20)) {
        Ok(url) => (running, url),
        Err(_) => {
            let status = running.0.try_wait();
            panic!("the server never said where it serves (exit: {status:?})")
        }
    }
}

/// Client options for tests: the era forced when asked, and room for a
/// slow start on a loaded machine. Every server these options are for
/// answers `server/discover` one way or another, so the probe never waits
/// this long for nothing; the tests of a silent server set a timeout of
/// their own (`probe.rs`).
pub fn options(legacy: bool) -> ClientOptions {
    ClientOptions {
        force_legacy: legacy,
        probe_timeout: Duration::from_secs(20),
        request_timeout: Duration::from_secs(20),
        ..ClientOptions::default()
    }
}

/// Answers every form elicitation by accepting with `name`, `username`,
/// `email` and `color` filled in, and counts the questions.
#[derive(Default)]
pub struct Answers {
    pub asked: AtomicUsize,
}

impl Answers {
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    pub fn asked(&self) -> usize {
        self.asked.load(Ordering::SeqCst)
    }
}

impl InputHandler for Answers {
    fn capabilities(&self) -> ClientCapabilities {
        serde_json::from_value(json!({"elicitation": {"form": {}}, "sampling": {}, "roots": {}}))
            .expect("capabilities")
    }

    fn sample<'a>(
        &'a self,
        request: Untrusted<CreateMessageRequestParams>,
    ) -> BoxFuture<'a, Result<CreateMessageResult, String>> {
        let asked = request.accept().messages.len();
        Box::pin(async move {
            assert!(asked > 0, "a sampling request carries messages");
            serde_json::from_value(json!({"role": "assistant", "model": "test-model",
                "content": {"type": "text", "text": "Hello there"}}))
            .map_err(|e| e.to_string())
        })
    }

    fn roots<'a>(&'a self, _server: &'a ServerId) -> BoxFuture<'a, ListRootsResult> {
        Box::pin(async {
            serde_json::from_value(json!({"roots": [{"uri": "file:///work", "name": "work"}]}))
                .expect("roots")
        })
    }

    fn elicit<'a>(
        &'a self,
        request: Untrusted<ElicitRequestParams>,
    ) -> BoxFuture<'a, ElicitResult> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        // The request stays untrusted: the test only checks where it came from.
        assert!(!request.origin().as_str().is_empty());
        Box::pin(async {
            serde_json::from_value(json!({"action": "accept", "content": {
                "name": "Ada", "username": "ada", "email": "ada@example.com", "color": "green"}}))
            .expect("an elicit result")
        })
    }
}

/// Connects to the HTTP server at `url` as `id`, authorizing with `oauth`.
#[cfg(feature = "oauth")]
pub async fn connect_with_oauth(
    id: &str,
    url: &str,
    oauth: std::sync::Arc<mcp_host::auth::OAuthClient>,
) -> Result<mcp_host::client::Client, mcp_host::client::ClientError> {
    use mcp_host::client::{Client, ClientOptions, NoInput, Target};
    let options = ClientOptions {
        oauth: Some(oauth),
        ..ClientOptions::default()
    };
    let target = Target::Http {
        url: url.to_owned(),
        headers: Vec::new(),
    };
    let id = mcp_host::ServerId::new(id).expect("id");
    Client::connect(id, target, std::sync::Arc::new(NoInput), options, None).await
}
