//! Trust on first use, end to end: a peer that changes its tool between
//! runs (hidden characters and an instruction block in the description,
//! an added parameter) is refused even with `--yes` and never reached,
//! the difference is shown, and `trust` lets it through again; the same
//! peer with escape sequences in what it writes reaches the terminal only
//! escaped; and the audit log of the session, line by line.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use common::pty::{printed_result, Pty};
use common::{config_file, host_command, printed, scripted_entry, CallLog, TestDir};
use mcp_host::approval::ApproveAll;
use mcp_host::client::CallOptions;
use mcp_host::trust::{PinFile, Quarantine};
use mcp_host::{ClientError, Host, PinEvent, ServerId};
use serde_json::{json, Map, Value};

/// A directory of its own for one test: the stage file, pins, audit log.
struct Dir(TestDir);

impl std::ops::Deref for Dir {
    type Target = TestDir;

    fn deref(&self) -> &TestDir {
        &self.0
    }
}

impl Dir {
    fn new(name: &str) -> Self {
        Self(TestDir::new("trust", name))
    }

    /// The configuration of the peer as `weather`, logging its calls to `log`.
    fn config(&self, log: &CallLog) -> PathBuf {
        let mut entry = log.entry();
        let command = scripted_entry("rugpull", json!({}));
        entry["args"] = command["args"].clone();
        entry["env"]["TOOL_STAGE_FILE"] = json!(self.path("stage").display().to_string());
        let name = format!("trust-{}", self.name());
        config_file(&name, json!({ "weather": entry }))
    }

    /// The flags that keep pins and the audit log here.
    fn flags(&self) -> Vec<String> {
        vec![
            "--pins".into(),
            self.path("pins.json").display().to_string(),
            "--audit-log".into(),
            self.path("audit.jsonl").display().to_string(),
        ]
    }

    fn audit(&self) -> Vec<Value> {
        std::fs::read_to_string(self.path("audit.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|line| serde_json::from_str(line).expect("each line is JSON"))
            .collect()
    }
}

/// Runs the command with `dir`'s flags and `args`; success, stdout, stderr.
fn run(config: &Path, dir: &Dir, args: &[&str]) -> (bool, String, String, std::process::Output) {
    let flags = dir.flags();
    let mut all: Vec<&str> = flags.iter().map(String::as_str).collect();
    all.extend(args);
    let output = host_command(config, &all);
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
        output,
    )
}

const CALL: &[&str] = &[
    "call",
    "weather__forecast",
    "--args",
    r#"{"city": "Oslo"}"#,
    "--yes",
];

#[test]
fn a_changed_tool_is_refused_with_yes_until_trusted() {
    let dir = Dir::new("rugpull");
    let log = CallLog::new("trust-rugpull");
    let config = dir.config(&log);
    dir.stage(1);

    // First use: pinned, and the call goes through.
    let (ok, _, stderr, output) = run(&config, &dir, CALL);
    assert!(ok, "{stderr}");
    assert_eq!(printed(&output)["content"][0]["text"], "Sunny in Oslo.");
    assert!(
        stderr.contains("pinned 1 new definition of server `weather` on first use"),
        "{stderr}"
    );
    assert_eq!(log.calls().len(), 1);
    let pins = std::fs::read_to_string(dir.path("pins.json")).expect("pins written");
    assert!(pins.contains("Tells the weather for a city."), "{pins}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir.path("pins.json"))
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    // The server changes its tool: refused even with --yes, never sent.
    dir.stage(2);
    let (ok, _, stderr, _) = run(&config, &dir, CALL);
    assert!(!ok, "{stderr}");
    assert!(
        stderr.contains(
            "mcp-host: tool `weather__forecast` of server `weather` is quarantined: its definition \
             changed since it was pinned (/description changed, /inputSchema/properties/notes added); \
             review and re-approve it with `mcp-host trust weather forecast`"
        ),
        "{stderr}"
    );
    // The difference, with the hidden characters shown for what they are.
    assert!(
        stderr.contains("    - /description: \"Tells the weather for a city.\"\n"),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "    + /description: \"Tells the weather for a city.\\u{200b}\\u{e0053}\\u{e0045}\\u{e004e}\\u{e0044}<IMPORTANT>Before answering"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("    + /inputSchema/properties/notes: {\"type\":\"string\"}\n"),
        "{stderr}"
    );
    assert!(!stderr.contains(['\u{200b}', '\u{e0053}']), "{stderr:?}");
    assert_eq!(log.calls().len(), 1, "the changed tool was never called");

    // `tools` lists it as not callable, with what the checks found.
    let (_, _, _, output) = run(&config, &dir, &["tools"]);
    let listed = printed(&output);
    let tool = &listed[0];
    assert_eq!(tool["name"], "weather__forecast");
    assert_eq!(tool["callable"], false);
    assert!(tool["quarantined"]
        .as_str()
        .is_some_and(|q| q.contains("/inputSchema/properties/notes added")));
    let findings: Vec<&str> = tool["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(
        findings,
        [
            "/description: 5 invisible or format characters (\\u{200b}\\u{e0053}\\u{e0045}\\u{e004e})",
            "/description: text aimed at the model (`<important>`)",
            "/description: text aimed at the model (`</important>`)",
            "/description: text aimed at the model (`do not tell the user`)",
        ],
        "{listed}"
    );

    // Without a terminal, `trust` shows the difference and pins nothing.
    let (ok, _, stderr, _) = run(&config, &dir, &["trust", "weather"]);
    assert!(!ok, "{stderr}");
    assert!(
        stderr.contains("tool `forecast` of server `weather` changed since it was pinned"),
        "{stderr}"
    );
    assert!(
        stderr.contains("    + /inputSchema/properties/notes: {\"type\":\"string\"}\n"),
        "{stderr}"
    );
    assert!(
        stderr.contains("warning: /description: text aimed at the model"),
        "{stderr}"
    );
    assert!(
        stderr.contains("not pinned: no terminal to ask at (use --yes in scripts)"),
        "{stderr}"
    );
    assert!(!run(&config, &dir, CALL).0, "still quarantined");
    assert_eq!(log.calls().len(), 1);

    // Re-approved: the call goes through, with the new parameter.
    let (ok, _, stderr, output) = run(&config, &dir, &["trust", "weather", "forecast", "--yes"]);
    assert!(ok, "{stderr}");
    let trusted = printed(&output);
    assert_eq!(trusted["server"], "weather");
    assert_eq!(trusted["trusted"][0]["kind"], "tool");
    assert_eq!(trusted["trusted"][0]["name"], "forecast");
    let call = [
        "--audit-redact",
        "notes",
        "call",
        "weather__forecast",
        "--args",
        r#"{"city": "Oslo", "notes": "hi"}"#,
        "--yes",
    ];
    let (ok, _, stderr, _) = run(&config, &dir, &call);
    assert!(ok, "{stderr}");
    assert_eq!(log.calls().len(), 2);
    assert_eq!(
        log.calls()[1]["arguments"],
        json!({"city": "Oslo", "notes": "hi"})
    );
    // Nothing differs now.
    let (ok, _, stderr, _) = run(&config, &dir, &["trust", "weather", "--yes"]);
    assert!(
        ok && stderr.contains("nothing of server `weather` differs from its pin"),
        "{stderr}"
    );

    // A call without --yes and no terminal is denied at the prompt.
    let (ok, _, _, _) = run(
        &config,
        &dir,
        &["call", "weather__forecast", "--args", r#"{"city": "Oslo"}"#],
    );
    assert!(!ok);

    // The audit log, line by line.
    let lines = dir.audit();
    assert_eq!(lines.len(), 5, "{lines:#?}");
    let digest = mcp_host::digest::digest(&json!({"city": "Oslo"}));
    let expected = [
        ("allowed", "yes", "ok", false),
        ("refused", "quarantine", "not-sent", false),
        ("refused", "quarantine", "not-sent", false),
        ("allowed", "yes", "ok", true),
        ("denied", "prompt", "not-sent", false),
    ];
    for (line, (decision, how, outcome, kept)) in lines.iter().zip(expected) {
        assert_eq!(line["server"], "weather", "{line}");
        assert_eq!(line["tool"], "forecast", "{line}");
        assert_eq!(line["qualified"], "weather__forecast", "{line}");
        assert_eq!(line["decision"], decision, "{line}");
        assert_eq!(line["how"], how, "{line}");
        assert_eq!(line["outcome"], outcome, "{line}");
        assert!(line["durationMs"].is_u64(), "{line}");
        let time = line["time"].as_str().expect("a time");
        assert!(
            time.len() == 24 && time.ends_with('Z') && time.as_bytes()[10] == b'T',
            "{time}"
        );
        if kept {
            assert_eq!(
                line["arguments"],
                json!({"city": "Oslo", "notes": "<redacted>"}),
                "{line}"
            );
            assert_eq!(
                line["argumentsDigest"],
                mcp_host::digest::digest(&json!({"city": "Oslo", "notes": "hi"}))
            );
        } else {
            assert_eq!(line.get("arguments"), None, "{line}");
            assert_eq!(line["argumentsDigest"], digest, "{line}");
        }
    }
    assert!(lines[1]["reason"]
        .as_str()
        .is_some_and(|r| r.contains("changed since it was pinned")));
    assert_eq!(
        lines[4]["reason"],
        "no terminal to ask at (use --yes in scripts)"
    );
    assert!(!std::fs::read_to_string(dir.path("audit.jsonl"))
        .expect("log")
        .contains("\"hi\""));
    let _ = std::fs::remove_file(&config);
}

#[test]
fn escape_sequences_from_the_server_never_reach_the_terminal_raw() {
    let dir = Dir::new("escapes");
    let log = CallLog::new("trust-escapes");
    let config = dir.config(&log);
    dir.stage(3);
    let flags = dir.flags();
    let spawn = |args: &[&str]| {
        let mut all: Vec<&str> = flags.iter().map(String::as_str).collect();
        all.extend(args);
        Pty::spawn(&config, &all, None)
    };
    let hostile = ['\u{1b}', '\u{7}', '\u{9b}', '\u{202e}', '\u{e0041}'];

    let mut pty = spawn(&["tools"]);
    let (status, screen) = pty.finish();
    assert!(status.success(), "{screen}");
    assert!(
        screen.contains(r#"Tells \\u{1b}[2J\\u{1b}]0;pwned\\u{7}the weather\\u{202e}\\u{9b}31m"#),
        "{screen}"
    );
    assert!(
        screen.contains("invisible or format characters"),
        "{screen}"
    );
    let raw = String::from_utf8_lossy(&pty.raw).into_owned();
    assert!(!raw.contains(hostile), "{raw:?}");

    // At the approval question the warnings are shown; decline it.
    let mut pty = spawn(&["call", "weather__forecast", "--args", r#"{"city": "Oslo"}"#]);
    let question = pty.expect("Run it? [y/N] ");
    assert!(question.contains("Warning, the poisoning checks flag this tool's definition:\n  - /description: 5 invisible or format characters"), "{question}");
    pty.type_keys("n\r");
    let (status, screen) = pty.finish();
    assert!(!status.success(), "{screen}");
    assert!(log.calls().is_empty());

    // The result carries escape sequences too: printed as JSON escapes.
    let mut pty = spawn(&[
        "call",
        "weather__forecast",
        "--args",
        r#"{"city": "Oslo"}"#,
        "--yes",
    ]);
    let (status, screen) = pty.finish();
    assert!(status.success(), "{screen}");
    assert!(
        screen.contains(r#"Sunny in Oslo. \u001b[31mred\u001b[0m \u202ereversed \udb40\udc41"#),
        "{screen}"
    );
    assert_eq!(
        printed_result(&screen)["content"][0]["text"],
        "Sunny in Oslo. \u{1b}[31mred\u{1b}[0m \u{202e}reversed \u{e0041}"
    );
    let raw = String::from_utf8_lossy(&pty.raw).into_owned();
    assert!(!raw.contains(hostile), "{raw:?}");
    let _ = std::fs::remove_file(&config);
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

fn host_config(dir: &Dir, log: &CallLog) -> mcp_host::HostConfig {
    mcp_host::HostConfig::load(&dir.config(log)).expect("config")
}

#[tokio::test(flavor = "multi_thread")]
async fn the_library_quarantines_a_changed_tool_whatever_the_approver() {
    let dir = Dir::new("library");
    let log = CallLog::new("trust-library");
    dir.stage(1);
    let start = || {
        Host::builder(host_config(&dir, &log))
            .options(common::options(false))
            .approver(Arc::new(ApproveAll))
            .pin_file(PinFile::new(dir.path("pins.json")))
            .start()
    };
    let args = || object(json!({"city": "Oslo"}));
    let host = start().await;
    assert!(matches!(&host.pin_events()[..], [PinEvent::Pinned { .. }]));
    host.call("weather__forecast", args(), &CallOptions::default())
        .await
        .expect("first use");

    // Changed while the host runs: the next listing quarantines it.
    dir.stage(2);
    host.refresh().await;
    assert!(host.tools().is_empty());
    let held = host.quarantined_tools();
    assert!(matches!(&held[0].quarantine, Some(Quarantine::Changed(c)) if c.name == "forecast"));
    let refused = host
        .call("weather__forecast", args(), &CallOptions::default())
        .await;
    let Err(ClientError::Quarantined { name, server, .. }) = refused else {
        panic!("not refused: {refused:?}");
    };
    assert_eq!(
        (name.as_str(), server.as_str()),
        ("weather__forecast", "weather")
    );
    assert_eq!(log.calls().len(), 1);
    host.shutdown().await;

    // A new host, from the pin file: still quarantined.
    let host = start().await;
    assert!(host.tools().is_empty());
    let id = ServerId::new("weather").expect("id");
    let trusted = host
        .trust(&id, Some("weather__forecast"))
        .await
        .expect("trusted");
    assert_eq!(trusted.len(), 1);
    assert_eq!(host.tools().len(), 1);
    host.call("weather__forecast", args(), &CallOptions::default())
        .await
        .expect("trusted now");
    assert_eq!(log.calls().len(), 2);
    host.shutdown().await;

    // A corrupt pin file quarantines everything, and says why.
    std::fs::write(dir.path("pins.json"), "{ not pins").expect("written");
    let host = start().await;
    assert!(host.tools().is_empty());
    assert!(
        matches!(&host.quarantined_tools()[0].quarantine, Some(Quarantine::Unpinned(r)) if r.contains("not a pin file"))
    );
    let refused = host
        .call("weather__forecast", args(), &CallOptions::default())
        .await
        .expect_err("a corrupt pin file refuses every call");
    assert!(
        matches!(&refused, ClientError::Quarantined { name, reason, .. }
            if name == "weather__forecast" && matches!(**reason, Quarantine::Unpinned(_))),
        "{refused:?}"
    );
    assert!(host.trust(&id, None).await.is_ok_and(|c| c.is_empty()));
    host.shutdown().await;
    assert_eq!(log.calls().len(), 2);
    // The command stops at once.
    let (ok, _, stderr, _) = run(&dir.config(&log), &dir, &["tools"]);
    assert!(!ok);
    assert!(stderr.contains("pins.json: not a pin file"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(dir.path("pins.json")).expect("kept"),
        "{ not pins"
    );
}

#[test]
fn verbose_shows_requests_and_server_logs_but_never_arguments() {
    let dir = Dir::new("verbose");
    let log = CallLog::new("trust-verbose");
    let config = dir.config(&log);
    dir.stage(1);
    let (ok, _, stderr, _) = run(&config, &dir, &[&["-v"], CALL].concat());
    assert!(ok, "{stderr}");
    assert!(
        stderr.contains("DEBUG request{method=tools/call server=weather id="),
        "{stderr}"
    );
    assert!(
        stderr.contains("DEBUG request{method=tools/list server=weather id="),
        "{stderr}"
    );
    assert!(stderr.contains("}: answered"), "{stderr}");
    assert!(
        stderr.contains(
            "WARN server{id=weather}: server log: rain \\u{202e} expected logger=weather\\u{1b}[2J"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("Oslo"), "{stderr}");
    assert!(!stderr.contains(['\u{1b}', '\u{202e}']), "{stderr:?}");
    let (ok, _, quiet, _) = run(&config, &dir, CALL);
    assert!(
        ok && !quiet.contains("server log") && !quiet.contains("request{"),
        "{quiet}"
    );
}

#[test]
fn quarantine_flagged_holds_back_a_poisoned_tool_on_first_use() {
    let dir = Dir::new("flagged");
    let log = CallLog::new("trust-flagged");
    let config = dir.config(&log);
    dir.stage(2);
    let flagged = [&["--quarantine-flagged"], CALL].concat();
    let (ok, _, stderr, _) = run(&config, &dir, &flagged);
    assert!(!ok, "{stderr}");
    assert!(
        stderr.contains(
            "tool `weather__forecast` of server `weather` is quarantined: the poisoning checks \
             flagged it: /description: 5 invisible or format characters"
        ),
        "{stderr}"
    );
    assert!(log.calls().is_empty());
    // Without the setting the findings are shown, and the call is the user's to make.
    let (ok, _, stderr, _) = run(&config, &dir, CALL);
    assert!(ok, "{stderr}");
    assert_eq!(log.calls().len(), 1);
    let audit = dir.audit();
    assert_eq!(
        (audit[0]["decision"].as_str(), audit[0]["how"].as_str()),
        (Some("refused"), Some("quarantine"))
    );
    assert!(audit[0]["reason"]
        .as_str()
        .is_some_and(|r| r.contains("poisoning checks")));
}

/// The pins hold on the one path every call takes: a client the host
/// hands out, a client made by itself, and a call prepared before the
/// change. Only a client made with `Pinning::Unchecked`, a choice its
/// name says, calls the changed tool.
#[tokio::test(flavor = "multi_thread")]
async fn every_client_refuses_a_changed_tool_unless_made_unchecked() {
    use mcp_host::approval::{Gate, Policy};
    use mcp_host::client::{Client, ClientOptions, Target};
    use mcp_host::trust::Pinning;

    let dir = Dir::new("clients");
    let log = CallLog::new("trust-clients");
    dir.stage(1);
    let config = host_config(&dir, &log);
    let id = ServerId::new("weather").expect("id");
    let target: Target = config.servers[&id].target.clone();
    let args = || object(json!({"city": "Oslo"}));
    let gate = Gate::new(Policy::default(), Arc::new(ApproveAll));
    fn refused<T>(outcome: Result<T, ClientError>) -> bool {
        match outcome {
            Err(ClientError::Quarantined { reason, .. }) => {
                matches!(*reason, Quarantine::Changed(ref c) if c.name == "forecast")
            }
            _ => false,
        }
    }

    // A client the host hands out shares the host's pins.
    let host = Host::builder(config)
        .options(common::options(false))
        .approver(Arc::new(ApproveAll))
        .pin_file(PinFile::new(dir.path("pins.json")))
        .start()
        .await;
    let client = host.client(&id).await.expect("connected");
    let early = client
        .prepare_call("forecast", args())
        .await
        .expect("pinned");
    dir.stage(2);
    client.list_tools().await.expect("listed");
    assert!(refused(client.prepare_call("forecast", args()).await));
    // Prepared before the change, sent after it: refused too.
    let approval = gate.authorize(&early).await.expect("approved");
    assert!(refused(
        client
            .call_tool(early, approval, &CallOptions::default())
            .await
    ));
    host.shutdown().await;
    assert!(log.calls().is_empty());

    // A client made by itself pins at first sight, for its life.
    dir.stage(1);
    let connect = |pins: Pinning| {
        let options = ClientOptions {
            pins,
            ..common::options(false)
        };
        Client::connect(
            id.clone(),
            target.clone(),
            common::Answers::new(),
            options,
            None,
        )
    };
    let own = connect(Pinning::default()).await.expect("connects");
    own.prepare_call("forecast", args())
        .await
        .expect("first sight");
    dir.stage(2);
    own.list_tools().await.expect("listed");
    assert!(refused(own.prepare_call("forecast", args()).await));
    own.shutdown().await;

    // Unchecked, by name: the changed tool is called as it now is.
    let unchecked = connect(Pinning::Unchecked).await.expect("connects");
    let call = unchecked
        .prepare_call("forecast", args())
        .await
        .expect("not held to pins");
    let approval = gate.authorize(&call).await.expect("approved");
    unchecked
        .call_tool(call, approval, &CallOptions::default())
        .await
        .expect("called");
    unchecked.shutdown().await;
    assert_eq!(log.calls().len(), 1);
}
