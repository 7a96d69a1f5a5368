//! The `mcp-host` command at a terminal, driven through a pseudo-terminal
//! the way a person drives it: the approval prompt, elicitation forms,
//! the progress bar and the configuration's VS Code inputs, and the
//! refusal to approve or answer anything when stdin is not a terminal.
//!
//! Each command runs in a session of its own whose controlling terminal is
//! the pseudo-terminal, as a shell would start it (see `common::pty`).

mod common;

use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::process::Stdio;

use common::pty::{first_json, result_text, Pty, CTRL_C, CTRL_D, ENTER};
use common::{config_file, everything, CallLog, Scratch};
use serde_json::{json, Value};

/// The scripted server as `scripted`, logging its tool calls, in a
/// configuration file of its own.
struct Scripted {
    config: Scratch,
    log: CallLog,
}

impl Scripted {
    fn new(name: &str) -> Self {
        let log = CallLog::new(&format!("terminal-{name}"));
        let config = config_file(
            &format!("terminal-{name}"),
            json!({ "scripted": log.entry() }),
        );
        Self {
            config: Scratch(config),
            log,
        }
    }

    /// The tool calls the server received, in order.
    fn calls(&self) -> Vec<Value> {
        self.log.calls()
    }
}

/// The `everything` example over stdio as server `local`, in a
/// configuration file named after `name`.
fn everything_config(name: &str) -> Scratch {
    let command = everything().display().to_string();
    Scratch(config_file(
        &format!("terminal-{name}"),
        json!({"local": {"command": command, "args": ["--stdio"]}}),
    ))
}

/// Arguments that must reach the prompt and the server unchanged: quotes,
/// non-ASCII text, nesting, and an escape sequence that must be shown, not
/// obeyed.
fn tricky_arguments() -> Value {
    json!({
        "text": "tea \"now\", café ☕",
        "count": 3,
        "tags": ["a", "b"],
        "nested": {"deep": true, "none": null},
        "escape": "red \u{1b}[31m text",
    })
}

/// Starts a call of the scripted server's write tool `flaky` with
/// `arguments` and reads the approval prompt up to its question, checking
/// that it names the server and the tool and shows exactly `arguments`.
fn prompted(scripted: &Scripted, arguments: &Value) -> Pty {
    let arguments_text = arguments.to_string();
    let mut pty = Pty::spawn(
        &scripted.config.0,
        &["call", "scripted__flaky", "--args", &arguments_text],
        None,
    );
    pty.expect(
        "Tool `flaky` of server `scripted` (scripted__flaky) needs approval \
         because the tool may change things.",
    );
    pty.expect("Arguments:\n");
    let shown = pty.expect("Run it? [y/N] ");
    assert_eq!(&first_json(&shown), arguments, "the prompt shows:\n{shown}");
    // The escape sequence in the arguments is shown as text.
    assert!(!pty.raw.contains(&0x1b), "{:?}", pty.screen());
    pty
}

#[test]
fn no_at_the_approval_prompt_refuses_the_call() {
    let scripted = Scripted::new("no");
    let mut pty = prompted(&scripted, &tricky_arguments());
    pty.type_keys(&format!("n{ENTER}"));
    let (status, screen) = pty.finish();
    assert!(!status.success(), "{screen}");
    assert!(
        screen.contains(
            "mcp-host: the call of `scripted__flaky` was denied: not approved at the terminal"
        ),
        "{screen}"
    );
    assert_eq!(scripted.calls(), Vec::<Value>::new(), "the tool ran");
}

#[test]
fn yes_at_the_approval_prompt_runs_the_call_and_prints_its_result() {
    let scripted = Scripted::new("yes");
    let arguments = tricky_arguments();
    let mut pty = prompted(&scripted, &arguments);
    pty.type_keys(&format!("y{ENTER}"));
    let (status, screen) = pty.finish();
    assert!(status.success(), "{screen}");
    assert_eq!(result_text(&screen), "flaky done");
    assert_eq!(
        scripted.calls(),
        vec![json!({"name": "flaky", "arguments": arguments})]
    );
}

#[test]
fn enter_or_end_of_input_at_the_approval_prompt_refuses_the_call() {
    for (name, keys) in [("enter", ENTER), ("eof", CTRL_D)] {
        let scripted = Scripted::new(name);
        let mut pty = prompted(&scripted, &json!({"n": 1}));
        pty.type_keys(keys);
        let (status, screen) = pty.finish();
        assert!(!status.success(), "{name}: {screen}");
        assert!(screen.contains("was denied"), "{name}: {screen}");
        assert_eq!(
            scripted.calls(),
            Vec::<Value>::new(),
            "{name}: the tool ran"
        );
    }
}

#[test]
fn ctrl_c_at_the_approval_prompt_stops_without_running_the_call() {
    let scripted = Scripted::new("interrupt");
    let mut pty = prompted(&scripted, &json!({"n": 1}));
    pty.type_keys(CTRL_C);
    let (status, screen) = pty.finish();
    // Interrupted by the terminal's SIGINT, or exiting as if it had been.
    assert!(
        status.signal() == Some(nix::libc::SIGINT) || status.code() == Some(130),
        "{status}: {screen}"
    );
    assert_eq!(scripted.calls(), Vec::<Value>::new(), "the tool ran");
}

/// With stdin a pipe that says "y" and stays open, and the output at a
/// terminal (`yes | mcp-host call ...` in a shell), the call is refused at
/// once: no prompt, no approval read from the pipe, no wait for its end.
#[test]
fn answers_piped_to_stdin_never_approve() {
    let scripted = Scripted::new("piped");
    let mut pty = Pty::spawn(
        &scripted.config.0,
        &["call", "scripted__flaky"],
        Some(Stdio::piped()),
    );
    let mut stdin = pty.child.stdin.take().expect("a pipe to stdin");
    stdin.write_all(b"y\ny\ny\n").expect("written");
    let (status, screen) = pty.finish();
    drop(stdin);
    assert!(!status.success(), "{screen}");
    assert!(
        screen.contains("was denied: no terminal to ask at (use --yes in scripts)"),
        "{screen}"
    );
    assert!(!screen.contains("Run it?"), "{screen}");
    assert_eq!(scripted.calls(), Vec::<Value>::new(), "the tool ran");
}

const EMAIL: &str = "email (string) – User's email address: ";
const USERNAME: &str = "username (string) – User's response: ";

/// Starts the `everything` example's elicitation tool, approved, and
/// waits for its question (by then the configuration has been read).
fn elicitation(name: &str) -> Pty {
    let config = everything_config(name);
    let mut pty = Pty::spawn(
        &config.0,
        &[
            "call",
            "local__test_elicitation",
            "--args",
            r#"{"message": "Who are you?"}"#,
            "--yes",
        ],
        None,
    );
    pty.expect("[untrusted, from server `local`] Who are you?\n");
    pty.expect("Accept (y), decline (N) or cancel (c)? ");
    pty
}

/// The summary the elicitation tool returns, split into the action and
/// the content.
fn elicited(screen: &str) -> (String, Value) {
    let text = result_text(screen);
    let rest = text
        .strip_prefix("User response: action=")
        .unwrap_or_else(|| panic!("unexpected result {text:?}"));
    let (action, content) = rest
        .split_once(", content=")
        .unwrap_or_else(|| panic!("unexpected result {text:?}"));
    let content = serde_json::from_str(content).expect("the content as JSON");
    (action.trim_matches('"').to_owned(), content)
}

#[test]
fn an_elicitation_form_is_filled_in_at_the_terminal() {
    let mut pty = elicitation("form");
    pty.type_keys(&format!("y{ENTER}"));
    // The fields come in the order of the schema's map.
    let mut fields = vec![(EMAIL, "ada@example.com"), (USERNAME, "Ada Lovelace")];
    while !fields.is_empty() {
        let prompts: Vec<&str> = fields.iter().map(|(prompt, _)| *prompt).collect();
        let (_, typed) = fields.remove(pty.expect_first(&prompts));
        pty.type_keys(&format!("{typed}{ENTER}"));
    }
    let (status, screen) = pty.finish();
    assert!(status.success(), "{screen}");
    assert!(!screen.contains("Run it?"), "--yes approves: {screen}");
    assert_eq!(
        elicited(&screen),
        (
            String::from("accept"),
            json!({"email": "ada@example.com", "username": "Ada Lovelace"})
        )
    );
}

#[test]
fn an_elicitation_is_declined_or_cancelled_at_the_terminal() {
    let cases = [
        ("decline-n", format!("n{ENTER}"), "decline"),
        ("decline-enter", String::from(ENTER), "decline"),
        ("cancel-c", format!("c{ENTER}"), "cancel"),
        ("cancel-eof", String::from(CTRL_D), "cancel"),
    ];
    for (name, keys, action) in cases {
        let mut pty = elicitation(name);
        pty.type_keys(&keys);
        let (status, screen) = pty.finish();
        assert!(status.success(), "{name}: {screen}");
        assert_eq!(
            elicited(&screen),
            (String::from(action), Value::Null),
            "{name}"
        );
        assert!(!screen.contains(EMAIL), "{name}: {screen}");
    }
}

#[test]
fn end_of_input_in_the_middle_of_a_form_cancels_it() {
    let mut pty = elicitation("cancel-form");
    pty.type_keys(&format!("y{ENTER}"));
    pty.expect_first(&[EMAIL, USERNAME]);
    pty.type_keys(CTRL_D);
    let (status, screen) = pty.finish();
    assert!(status.success(), "{screen}");
    assert_eq!(
        elicited(&screen),
        (String::from("cancel"), Value::Null),
        "{screen}"
    );
}

#[test]
fn progress_is_drawn_in_place_before_the_result() {
    let config = everything_config("progress");
    let mut pty = Pty::spawn(
        &config.0,
        &["call", "local__test_tool_with_progress", "--yes"],
        None,
    );
    let (status, screen) = pty.finish();
    assert!(status.success(), "{screen}");
    let full = format!("[{}] 100%", "#".repeat(30));
    let raw = String::from_utf8_lossy(&pty.raw);
    for bar in [
        format!("[{}]   0%", ".".repeat(30)),
        format!("[{}{}]  50%", "#".repeat(15), ".".repeat(15)),
        full.clone(),
    ] {
        // Each bar is drawn over the last, from the start of the line.
        assert!(raw.contains(&format!("\r{bar}")), "no {bar:?} in:\n{raw:?}");
    }
    // The result follows the full bar, on lines of its own.
    let done = screen.find(&full).expect("the full bar");
    assert!(screen[done..].starts_with(&format!("{full}\n")), "{screen}");
    assert!(screen[done..].contains("\n{\n"), "{screen}");
    assert_eq!(result_text(&screen), "Progress complete");
}

/// A VS Code configuration whose `everything` server takes its transport
/// flag from a `pickString` input and its sealing keys, which it refuses
/// to start without when they are set but not keys, from a password.
fn inputs_config(name: &str) -> Scratch {
    let path = std::env::temp_dir().join(format!(
        "mcp-host-config-{}-terminal-{name}.json",
        std::process::id()
    ));
    let config = json!({
        "inputs": [
            {"type": "pickString", "id": "transport", "description": "How to reach the server",
             "options": ["--http", "--stdio"]},
            {"type": "promptString", "id": "keys", "description": "Sealing keys.", "password": true}
        ],
        "servers": {"local": {
            "command": everything().display().to_string(),
            "args": ["${input:transport}"],
            "env": {"MCP_STATE_KEYS": "${input:keys}"}
        }}
    });
    std::fs::write(&path, config.to_string()).expect("config written");
    Scratch(path)
}

const TRANSPORT: &str =
    "Input `transport` – How to reach the server:\n  1) --http\n  2) --stdio\nNumber or text: ";
const KEYS: &str = "Input `keys` – Sealing keys (hidden): ";

/// Starts a call of the server of [`inputs_config`] and answers the
/// `pickString` (a wrong answer first, which is asked again), up to the
/// password's question.
fn at_the_password(name: &str) -> (Scratch, Pty) {
    let config = inputs_config(name);
    let mut pty = Pty::spawn(&config.0, &["call", "local__test_simple_text"], None);
    pty.expect(TRANSPORT);
    pty.type_keys(&format!("3{ENTER}"));
    pty.expect("that is not one of the options; type its number or its text.\n");
    pty.expect(TRANSPORT);
    pty.type_keys(&format!("2{ENTER}"));
    pty.expect(KEYS);
    (config, pty)
}

/// The password is typed without being shown and reaches the server: a
/// key lets the call run, and the terminal shows what is typed again.
#[test]
fn a_password_input_is_asked_without_echo_and_used() {
    let key = format!("7:{}", "c0ffee".repeat(10) + "c0ff");
    let (_config, mut pty) = at_the_password("key");
    pty.type_keys(&format!("{key}{ENTER}"));
    pty.expect("Run it? [y/N] ");
    pty.type_keys(&format!("y{ENTER}"));
    let (status, screen) = pty.finish();
    assert!(status.success(), "{screen}");
    assert!(!screen.contains("c0ffee"), "echoed:\n{screen}");
    assert!(screen.contains("Run it? [y/N] y\n"), "no echo:\n{screen}");
    assert_eq!(
        result_text(&screen),
        "This is a simple text response for testing."
    );
}

/// A value the server refuses as a key stops it: the value reached it.
/// Ctrl-C at the question stops the command, as at any other.
#[test]
fn a_password_input_the_server_refuses_or_ctrl_c_stops_the_command() {
    let (_config, mut pty) = at_the_password("bad-key");
    pty.type_keys(&format!("not-a-key{ENTER}"));
    let (status, screen) = pty.finish();
    assert!(!status.success(), "{screen}");
    assert!(!screen.contains("not-a-key"), "echoed:\n{screen}");
    assert!(
        screen.contains("MCP_STATE_KEYS: key 1 is not 64 hex digits"),
        "{screen}"
    );

    let (_config, mut pty) = at_the_password("interrupt");
    pty.type_keys("half");
    pty.type_keys(CTRL_C);
    let (status, screen) = pty.finish();
    assert!(
        status.signal() == Some(nix::libc::SIGINT) || status.code() == Some(130),
        "{status}: {screen}"
    );
    assert!(!screen.contains("half"), "echoed:\n{screen}");
}

/// With stdin a pipe that holds answers and the output at a terminal,
/// nothing is asked or read: the error names the input.
#[test]
fn without_a_terminal_an_input_is_an_error_naming_it() {
    let config = inputs_config("piped");
    let mut pty = Pty::spawn(
        &config.0,
        &["call", "local__test_simple_text", "--yes"],
        Some(Stdio::piped()),
    );
    let mut stdin = pty.child.stdin.take().expect("a pipe to stdin");
    stdin.write_all(b"2\nsecret\n").expect("written");
    let (status, screen) = pty.finish();
    drop(stdin);
    assert!(!status.success(), "{screen}");
    assert!(
        screen.contains(
            "server `local`: `args[0]`: `${input:transport}`: it needs an answer typed at a \
             terminal, and there is none to ask at"
        ),
        "{screen}"
    );
    assert!(!screen.contains("Input `"), "{screen}");
}
