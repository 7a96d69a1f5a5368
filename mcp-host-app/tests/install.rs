//! What the README's "Install" says, done: `cargo install --path
//! mcp-host-app` gives one `mcp-host` with every command, and `mcp-host
//! chat --provider openai --base-url URL/v1 --model M` talks to a local
//! OpenAI-compatible server (the scripted one of the model side's tests)
//! and uses the configured servers' tools in the same process, once the
//! person has reviewed their definitions with the same binary.
//!
//! The install is `--debug` into the workspace's target directory, so that
//! it shares the suite's build profile and cache; the code is the same as
//! a release install's.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::obedient::{Obedient, MODEL};
use common::workspace::{example, Scratch};
use serde_json::json;

/// `cargo install --path mcp-host-app` into `root`; the installed binary.
fn install(root: &Path) -> PathBuf {
    let status = mcp_tests::build::cargo()
        .args([
            "install",
            "--quiet",
            "--locked",
            "--debug",
            "--path",
            "mcp-host-app",
        ])
        .arg("--root")
        .arg(root)
        .arg("--target-dir")
        .arg(mcp_tests::build::target_dir().join("install"))
        .stdout(Stdio::null())
        .status()
        .expect("cargo runs");
    assert!(status.success(), "cargo install failed");
    let binary = root.join("bin/mcp-host");
    assert!(binary.is_file(), "{} was not installed", binary.display());
    // One binary: no `mcp-agent` (or anything else) beside it.
    let installed: Vec<_> = std::fs::read_dir(root.join("bin"))
        .expect("bin")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(installed, ["mcp-host"], "{installed:?}");
    binary
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_installed_binary_chats_with_a_local_model_that_uses_the_tools() {
    let dir = Scratch::new("mcp-host-install");
    let binary = install(&dir.0.join("root"));
    let config = dir.0.join("servers.json");
    let servers = json!({"mcpServers": {
        "everything": {"command": example("everything"), "args": ["--stdio"], "trusted": true}
    }});
    std::fs::write(&config, servers.to_string()).expect("config");
    // The person reads and accepts the server's definitions first (the
    // flow policy counts unreviewed definitions as untrusted text).
    let reviewed = Command::new(&binary)
        .arg("--config")
        .arg(&config)
        .args(["review", "everything", "--yes"])
        .env("XDG_STATE_HOME", dir.0.join("state"))
        .stdin(Stdio::null())
        .output()
        .expect("the installed mcp-host runs");
    assert!(
        reviewed.status.success(),
        "{}",
        String::from_utf8_lossy(&reviewed.stderr)
    );
    let model = Obedient::start().await;
    let base_url = model.endpoint().base_url;

    let mut child = Command::new(&binary)
        .arg("--config")
        .arg(&config)
        .args(["chat", "--provider", "openai", "--base-url", &base_url])
        .args(["--model", MODEL, "--yes"])
        .env("XDG_STATE_HOME", dir.0.join("state"))
        .env_remove("OPENAI_API_KEY")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the installed mcp-host runs");
    // One line, then the end of input, which ends the chat.
    let line = "Say hello. CALL everything__greet {\"name\": \"the installed host\"}\n";
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(line.as_bytes()).expect("written");
    drop(stdin);
    let output = tokio::task::spawn_blocking(move || child.wait_with_output())
        .await
        .expect("joined")
        .expect("waited");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");

    // What the model server received: the person's line, under the model
    // asked for, with the configured server's tools offered.
    let requests = model.requests();
    assert!(!requests.is_empty(), "the model was never asked: {stderr}");
    assert_eq!(requests[0]["model"], MODEL);
    let sent = requests[0].to_string();
    assert!(sent.contains("Say hello."), "{sent}");
    let offered: Vec<&str> = requests[0]["tools"]
        .as_array()
        .expect("tools offered")
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    assert!(offered.contains(&"everything__greet"), "{offered:?}");
    // The tool ran, in the same process, and its result went back.
    let last = requests.last().expect("a request").to_string();
    assert!(
        requests.len() >= 2 && last.contains("Hello, the installed host!"),
        "{last}\n{stderr}"
    );
    // And its answer reached the person.
    assert!(stdout.contains("DONE"), "{stdout}\n{stderr}");
}
