//! The `mcp-host` command end to end against every peer at once, from one
//! configuration: the server on the official TypeScript SDK v2 and the
//! reference `server-everything` (both pinned in `tests/interop`, installed
//! with `npm ci` when missing, see `common::interop`), and our own
//! `everything` example, each over stdio and Streamable HTTP, in the eras
//! they speak there. Through the command's JSON output: each server's era,
//! collision-free tool names, calls approved with `--yes` (and one denied
//! without it), and input rounds answered at a terminal: MRTR rounds in the
//! modern era, `elicitation/create` requests in the legacy one.

mod common;

use std::collections::BTreeMap;
use std::process::Output;

use common::interop::{reference_everything, reference_http, sdk_http, sdk_server};
use common::pty::{result_text, Pty, ENTER};
use common::{
    config_file, everything_http, everything_stdio, host_command, printed, stdio_entry, Running,
    Scratch,
};
use serde_json::{json, Value};

/// The configured servers by key, with the era the command must find.
const SERVERS: [(&str, Era); 9] = [
    // The SDK server over stdio, probed, and again told to initialize.
    ("sdk", Era::Modern),
    ("sdk-legacy", Era::Legacy),
    // One SDK server over HTTP: its modern handler, and its sessionful
    // legacy transport for a client that initializes.
    ("sdk-http", Era::Modern),
    ("sdk-http-legacy", Era::Legacy),
    // server-everything speaks the legacy era only: the probe finds that.
    ("reference", Era::Legacy),
    ("reference-http", Era::Legacy),
    // Our example over stdio; over HTTP probed, and told to initialize.
    ("ours", Era::Modern),
    ("ours-http", Era::Modern),
    ("ours-http-legacy", Era::Legacy),
];

/// The keys of the SDK server's entries.
const SDK: [&str; 4] = ["sdk", "sdk-legacy", "sdk-http", "sdk-http-legacy"];
/// The keys of server-everything's entries.
const REFERENCE: [&str; 2] = ["reference", "reference-http"];
/// The keys of our example's entries.
const OURS: [&str; 3] = ["ours", "ours-http", "ours-http-legacy"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Era {
    Modern,
    Legacy,
}

impl Era {
    /// As `servers` prints it.
    fn name(self) -> &'static str {
        match self {
            Era::Modern => "modern",
            Era::Legacy => "legacy",
        }
    }

    /// The protocol version the command settles on with our peers.
    fn version(self) -> &'static str {
        match self {
            Era::Modern => "2026-07-28",
            Era::Legacy => "2025-11-25",
        }
    }
}

fn era_of(key: &str) -> Era {
    SERVERS
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, era)| *era)
        .unwrap_or_else(|| panic!("`{key}` is not configured"))
}

/// The peers served over HTTP, and one configuration of all [`SERVERS`]
/// (`servers_and_tools_of_every_peer` checks that it has no other).
struct Peers {
    config: Scratch,
    _http: [Running; 3],
}

impl Peers {
    fn start(name: &str) -> Self {
        let (sdk, sdk_url) = sdk_http("sessions");
        let (reference, reference_url) = reference_http();
        let (ours, ours_url) = everything_http();
        let entries = json!({
            "sdk": stdio_entry(sdk_server(), json!({})),
            "sdk-legacy": stdio_entry(sdk_server(), json!({"legacy": true})),
            "sdk-http": {"url": sdk_url},
            "sdk-http-legacy": {"url": sdk_url, "legacy": true},
            "reference": stdio_entry(reference_everything(), json!({})),
            "reference-http": {"url": reference_url},
            "ours": stdio_entry(everything_stdio(), json!({})),
            "ours-http": {"url": ours_url},
            "ours-http-legacy": {"url": ours_url, "legacy": true},
        });
        let config = config_file(&format!("cli-interop-{name}"), entries);
        Self {
            config: Scratch(config),
            _http: [sdk, reference, ours],
        }
    }

    /// `mcp-host` with `args`, without a terminal.
    fn run(&self, args: &[&str]) -> Output {
        host_command(&self.config.0, args)
    }

    /// `mcp-host` with `args` at a pseudo-terminal.
    fn at_terminal(&self, args: &[&str]) -> Pty {
        Pty::spawn(&self.config.0, args, None)
    }
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn servers_and_tools_of_every_peer() {
    let peers = Peers::start("list");

    let output = peers.run(&["servers"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let servers = printed(&output);
    let found: Vec<(&str, &str, &str)> = servers
        .as_array()
        .expect("a list")
        .iter()
        .map(|s| {
            assert!(s.get("error").is_none(), "{s}");
            let field = |name: &str| s[name].as_str().unwrap_or_default();
            (field("id"), field("era"), field("version"))
        })
        .collect();
    let mut expected: Vec<(&str, &str, &str)> = SERVERS
        .iter()
        .map(|(key, era)| (*key, era.name(), era.version()))
        .collect();
    // Listed in the order of their ids.
    expected.sort();
    assert_eq!(found, expected);

    let output = peers.run(&["tools"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let tools = printed(&output);
    let mut names: BTreeMap<&str, (&str, &str)> = BTreeMap::new();
    for tool in tools.as_array().expect("a list") {
        let field = |name: &str| tool[name].as_str().unwrap_or_default();
        let (name, server, original) = (field("name"), field("server"), field("tool"));
        // No server id or tool name here needs changing: each keeps the
        // plain `{server}__{tool}`, whatever the other servers call theirs.
        assert_eq!(name, format!("{server}__{original}"), "{tool}");
        assert!(
            names.insert(name, (server, original)).is_none(),
            "{name} is listed twice"
        );
    }
    for (key, _) in SERVERS {
        assert!(
            names.values().any(|(server, _)| *server == key),
            "no tools of `{key}`"
        );
    }
    // `echo` exists on six servers, `test_simple_text` on three: each under
    // a name of its own that leads back to its server.
    let echoes = SDK.iter().chain(&REFERENCE).map(|key| (*key, "echo"));
    let texts = OURS.iter().map(|key| (*key, "test_simple_text"));
    for (key, tool) in echoes.chain(texts) {
        let name = format!("{key}__{tool}");
        assert_eq!(
            names.get(name.as_str()),
            Some(&(key, tool)),
            "{name} in {names:?}"
        );
    }
}

/// Calls `tool` of server `key` with `arguments`, approved by `--yes`,
/// and checks that it succeeded in the era of `key`; its first text.
fn call(peers: &Peers, key: &str, tool: &str, arguments: Value) -> String {
    let name = format!("{key}__{tool}");
    let output = peers.run(&["call", &name, "--args", &arguments.to_string(), "--yes"]);
    assert!(output.status.success(), "{name}: {}", stderr(&output));
    let result = printed(&output);
    // Modern results say what kind of result they are; legacy ones cannot.
    let kind = match era_of(key) {
        Era::Modern => json!("complete"),
        Era::Legacy => Value::Null,
    };
    assert_eq!(result["resultType"], kind, "{name}: {result}");
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{name}: no text in {result}"))
        .to_owned()
}

#[test]
fn calls_reach_each_server_with_yes_and_are_denied_without() {
    let peers = Peers::start("calls");
    for key in SDK {
        let text = call(&peers, key, "echo", json!({"text": key}));
        assert_eq!(text, format!("echo: {key}"));
    }
    for key in REFERENCE {
        let text = call(&peers, key, "echo", json!({"message": key}));
        assert_eq!(text, format!("Echo: {key}"));
        let text = call(&peers, key, "get-sum", json!({"a": 2, "b": 3}));
        assert_eq!(text, "The sum of 2 and 3 is 5.");
    }
    for key in OURS {
        // Over modern HTTP the argument travels as a header too.
        let text = call(
            &peers,
            key,
            "test_custom_header_tool",
            json!({"region": key}),
        );
        assert_eq!(text, format!("region: {key}"));
    }
    // The SDK's legacy transport closes the tool's stream before the answer;
    // the command resumes it and gets the answer all the same.
    let text = call(&peers, "sdk-http-legacy", "interrupted", json!({}));
    assert_eq!(text, "answered after a break");

    // Without `--yes` and without a terminal to ask, nothing is approved,
    // not even a tool its (untrusted) server calls read-only.
    let denied = peers.run(&["call", "sdk-http__echo", "--args", r#"{"text": "no"}"#]);
    assert!(!denied.status.success());
    assert!(denied.stdout.is_empty(), "a result was printed");
    assert!(
        stderr(&denied).contains(
            "the call of `sdk-http__echo` was denied: no terminal to ask at (use --yes in scripts)"
        ),
        "{}",
        stderr(&denied)
    );
}

/// Calls `tool` of server `key`, approved by `--yes`, at a terminal, and
/// reads up to the question the server's input request puts, which must
/// be `message`.
fn asked(peers: &Peers, key: &str, tool: &str, message: &str) -> Pty {
    let name = format!("{key}__{tool}");
    let mut pty = peers.at_terminal(&["call", &name, "--yes"]);
    pty.expect(&format!("[untrusted, from server `{key}`] {message}\n"));
    pty.expect("Accept (y), decline (N) or cancel (c)? ");
    pty
}

#[test]
fn input_rounds_are_answered_at_the_terminal() {
    let peers = Peers::start("input");
    // The SDK server's `greet` returns `inputRequired`: to a modern client
    // as such, a round of MRTR; to a legacy one the SDK sends it as an
    // `elicitation/create` request instead (over HTTP, on the call's
    // event stream). Either way the question comes to the terminal.
    for key in SDK {
        let mut pty = asked(&peers, key, "greet", "What is your name?");
        pty.type_keys(&format!("y{ENTER}"));
        pty.expect("name (string): ");
        pty.type_keys(&format!("Ada Lovelace{ENTER}"));
        let (status, screen) = pty.finish();
        assert!(status.success(), "{key}: {screen}");
        assert!(
            !screen.contains("Run it?"),
            "{key}: --yes approves: {screen}"
        );
        assert_eq!(result_text(&screen), "Hello, Ada Lovelace!", "{key}");
    }
    // server-everything asks with `elicitation/create` of its own accord;
    // declined at the terminal, it says so.
    for key in REFERENCE {
        let mut pty = asked(
            &peers,
            key,
            "trigger-elicitation-request",
            "Please provide inputs for the following fields:",
        );
        pty.type_keys(&format!("n{ENTER}"));
        let (status, screen) = pty.finish();
        assert!(status.success(), "{key}: {screen}");
        assert_eq!(
            result_text(&screen),
            "❌ User declined to provide the requested information.",
            "{key}"
        );
    }
}
