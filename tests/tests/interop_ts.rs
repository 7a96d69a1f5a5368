//! The official TypeScript SDK v2 client (`@modelcontextprotocol/client`,
//! pinned in `tests/interop/package.json`) against the `everything` example,
//! in both eras over both transports, each with rounds of user input, and
//! with the client's own era probe (`auto`), which must find the modern era.
//!
//! `tests/interop/driver.mjs` does the talking and prints a JSON summary;
//! these tests start the server, run the driver on the pinned Node and check
//! the summary. The pinned packages are installed with `npm ci` when they
//! are missing; without npm the tests fail, never skip, and say what to
//! install.

use std::io::Read;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

/// Longest a driver run may take; the driver gives up on its own after 30 s.
const DRIVER_DEADLINE: Duration = Duration::from_secs(90);

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate sits in the workspace root")
}

fn interop_dir() -> PathBuf {
    root().join("tests/interop")
}

/// The pinned Node, with the pinned TypeScript SDK client installed.
fn node() -> PathBuf {
    mcp_tests::npm::node(&interop_dir()).unwrap_or_else(|e| panic!("{e}"))
}

/// Builds the example once per test process and returns its path.
fn everything() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| mcp_tests::build::example("everything"))
}

/// A child process that is killed when dropped.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts the example over HTTP on a free loopback port and waits until it
/// accepts connections.
fn serve_http() -> (Running, String) {
    let addr: SocketAddr = TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free loopback port");
    let child = Command::new(everything())
        .args(["--http", &addr.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the example starts");
    let server = Running(child);
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(addr).is_err() {
        assert!(
            Instant::now() < deadline,
            "the example never listened on {addr}"
        );
        thread::sleep(Duration::from_millis(50));
    }
    (server, format!("http://{addr}/mcp"))
}

/// Runs the driver with `args` and returns its summary.
fn drive(args: &[&str]) -> Value {
    let mut child = Command::new(node())
        .current_dir(interop_dir())
        .arg("driver.mjs")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node starts");
    let mut stdout = child.stdout.take().expect("piped stdout");
    let mut stderr = child.stderr.take().expect("piped stderr");
    let out = thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        text
    });
    let err = thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let mut child = Running(child);
    let deadline = Instant::now() + DRIVER_DEADLINE;
    let status = loop {
        if let Some(status) = child.0.try_wait().expect("waiting for node") {
            break Some(status);
        }
        if Instant::now() > deadline {
            break None;
        }
        thread::sleep(Duration::from_millis(50));
    };
    drop(child);
    let out = out.join().unwrap_or_default();
    let err = err.join().unwrap_or_default();
    let status = status.unwrap_or_else(|| panic!("the driver ran past {DRIVER_DEADLINE:?}\n{err}"));
    let summary: Value = serde_json::from_str(out.trim())
        .unwrap_or_else(|e| panic!("the driver printed no summary ({e}): {out}\n{err}"));
    assert!(
        status.success() && summary["ok"] == true,
        "the driver failed ({status}): {summary:#}\n{err}"
    );
    summary
}

/// What every run must show, whatever the era and transport.
fn check_common(summary: &Value, era: &str, version: &str) {
    assert_eq!(summary["protocolEra"], era, "{summary:#}");
    assert_eq!(summary["protocolVersion"], version, "{summary:#}");
    assert_eq!(summary["server"], "mcp-toolkit-everything", "{summary:#}");
    assert!(summary["tools"].as_u64() > Some(20), "{summary:#}");
}

/// The input call for `tool` in the summary.
fn input_call<'a>(summary: &'a Value, tool: &str) -> &'a Value {
    summary["inputCalls"]
        .as_array()
        .and_then(|calls| calls.iter().find(|call| call["tool"] == tool))
        .unwrap_or_else(|| panic!("no call of {tool} in {summary:#}"))
}

/// Modern: the client pins 2026-07-28 and fulfils `input_required`
/// results through its handler, retrying with a new id each round.
fn check_modern(summary: &Value) {
    check_common(summary, "modern", "2026-07-28");
    let one = input_call(summary, "test_input_required_result_elicitation");
    assert_eq!(one["text"], "Hello, Interop!");
    assert_eq!(one["elicitations"], 1, "{one:#}");
    assert_eq!(one["requests"], 2, "one retry: {one:#}");
    let multi = input_call(summary, "test_input_required_result_multi_round");
    assert_eq!(multi["text"], "Favorite color: \"blue\"");
    assert_eq!(multi["requests"], 3, "three rounds: {multi:#}");
    assert_eq!(multi["distinctIds"], 3, "each round is a new request");
    assert_eq!(multi["retriesWithState"], 2, "retries echo the state");
    assert_eq!(multi["responsesSent"], 0, "no server requests");
}

/// Legacy: `initialize` at 2025-11-25, and the server asks through real
/// `elicitation/create` requests that the client answers.
fn check_legacy(summary: &Value) {
    check_common(summary, "legacy", "2025-11-25");
    assert_eq!(summary["handshake"][0], "initialize", "{summary:#}");
    for tool in ["test_elicitation", "test_input_required_result_elicitation"] {
        let call = input_call(summary, tool);
        assert_eq!(call["requests"], 1, "{call:#}");
        assert_eq!(call["responsesSent"], 1, "one answered request: {call:#}");
    }
    assert_eq!(
        input_call(summary, "test_elicitation")["text"],
        "User response: action=\"accept\", content={\"email\":\"interop@example.com\",\"username\":\"interop\"}"
    );
}

fn stdio_args(era: &str) -> Vec<String> {
    let server = everything().display().to_string();
    ["--era", era, "--stdio", &server, "--stdio"]
        .map(str::to_owned)
        .to_vec()
}

fn drive_stdio(era: &str) -> Value {
    let args = stdio_args(era);
    drive(&args.iter().map(String::as_str).collect::<Vec<_>>())
}

#[test]
fn modern_over_http() {
    let (_server, url) = serve_http();
    let summary = drive(&["--era", "modern", "--http", &url]);
    assert_eq!(summary["handshake"][0], "server/discover", "{summary:#}");
    check_modern(&summary);
}

#[test]
fn legacy_over_http() {
    let (_server, url) = serve_http();
    check_legacy(&drive(&["--era", "legacy", "--http", &url]));
}

#[test]
fn modern_over_stdio() {
    check_modern(&drive_stdio("modern"));
}

#[test]
fn legacy_over_stdio() {
    check_legacy(&drive_stdio("legacy"));
}

#[test]
fn probe_finds_modern_over_http() {
    let (_server, url) = serve_http();
    let summary = drive(&["--era", "auto", "--http", &url]);
    assert_eq!(summary["handshake"][0], "server/discover", "{summary:#}");
    check_modern(&summary);
}

#[test]
fn probe_finds_modern_over_stdio() {
    check_modern(&drive_stdio("auto"));
}
