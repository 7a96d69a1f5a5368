//! The documentation, run: every `mcp-host` command line shown in
//! `README.md` and `docs/*.md` runs, as written, against the example
//! servers on loopback, and succeeds; the README's server is the
//! `calculator` example, so that the commands that call it call that code.
//!
//! A command line is a line of a `sh` block that starts with `mcp-host `
//! (with its `\` continuations). One marked `needs a real service` (a
//! hosted model, an OAuth login) is only counted. Two things are put in
//! place before a line runs, each the way a reader would: a local
//! OpenAI-compatible model where the line says `http://127.0.0.1:8080/v1`
//! (the scripted one of the model side's tests, on a port of its own), and
//! a task of the `everything` server where it says `TASK_ID`.
//!
//! The Rust blocks of the same files are compiled (and the ones that can,
//! run) as doctests of the `mcp-tests` crate.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::obedient::Obedient;
use common::workspace::Scratch;
use serde_json::json;

/// What the documents promise to run: README.md and every `docs/*.md`.
fn documents() -> Vec<PathBuf> {
    let root = common::root();
    let mut found = vec![root.join("README.md")];
    let mut guides: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    guides.sort();
    found.extend(guides);
    found
}

/// The `mcp-host` command lines of the `sh` blocks of `text`, each with
/// its continuation lines joined.
fn command_lines(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut in_sh = false;
    let mut pending: Option<String> = None;
    for line in text.lines() {
        if let Some(info) = line.trim_start().strip_prefix("```") {
            in_sh = !in_sh && matches!(info.trim(), "sh" | "bash" | "shell");
            continue;
        }
        if !in_sh {
            continue;
        }
        let joined = match pending.take() {
            Some(start) => format!("{start} {}", line.trim()),
            None if line.starts_with("mcp-host ") => line.to_owned(),
            None => continue,
        };
        match joined.strip_suffix('\\') {
            Some(start) => pending = Some(start.trim_end().to_owned()),
            None => lines.push(joined),
        }
    }
    lines
}

#[test]
fn command_lines_are_found_whole() {
    let text = "```sh\nmcp-host a \\\n    b   # c\ncargo x\n```\nmcp-host outside\n```rust\nmcp-host no\n```\n";
    assert_eq!(command_lines(text), ["mcp-host a b   # c"]);
}

/// The README's server is the `calculator` example, character for
/// character.
#[test]
fn the_readme_server_is_the_calculator_example() {
    let root = common::root();
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let start = readme.find("```rust,no_run\n").expect("the server's block") + 15;
    let block = &readme[start..start + readme[start..].find("```").expect("its end")];
    let example = std::fs::read_to_string(root.join("mcp-server/examples/calculator.rs"))
        .expect("the calculator example");
    assert!(
        example.contains(block),
        "README.md's server and mcp-server/examples/calculator.rs differ"
    );
}

/// A directory laid out as a reader's would be, with `servers.json`
/// naming the servers the documents' commands use.
fn workspace(everything_url: &str) -> Scratch {
    let dir = Scratch::new("mcp-host-docs");
    let calculator = mcp_tests::build::example("calculator");
    let servers = json!({"mcpServers": {
        "calculator": {"command": calculator, "trusted": true},
        "notes": common::example_entry(common::notes()),
        "everything": {"url": everything_url}
    }});
    std::fs::write(dir.0.join("servers.json"), servers.to_string()).expect("servers.json");
    for folder in [
        "tools",
        "home/.local/share/bash-completion/completions",
        "state",
    ] {
        std::fs::create_dir_all(dir.0.join(folder)).expect("a folder");
    }
    dir
}

/// Runs a `web` line: the app prints its address, the address opens it
/// (303 to the app with a cookie), and the app is stopped.
async fn web(command: &str, dir: &common::workspace::Scratch, path: &std::ffi::OsStr) {
    let mut child = Command::new("sh")
        .args(["-c", &format!("exec {command}")])
        .current_dir(&dir.0)
        .env("PATH", path)
        .env("HOME", dir.0.join("home"))
        .env("XDG_STATE_HOME", dir.0.join("state"))
        .env_remove("OPENAI_API_KEY")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .expect("sh runs");
    let stdout = child.stdout.take().expect("stdout");
    let line = tokio::task::spawn_blocking(move || {
        let mut line = String::new();
        std::io::BufRead::read_line(&mut std::io::BufReader::new(stdout), &mut line).map(|_| line)
    })
    .await
    .expect("joined")
    .expect("the address line");
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://127.0.0.1:"))
        .unwrap_or_else(|| panic!("`{command}` printed no address: {line:?}"));
    let opened = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client")
        .get(url)
        .send()
        .await
        .expect("the app answers");
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(opened.status(), 303, "`{command}`");
    assert!(
        opened.headers().contains_key("set-cookie"),
        "`{command}`: no cookie"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_command_line_of_the_documentation_runs() {
    let (_everything, everything_url) = common::everything_http();
    let dir = workspace(&everything_url);
    let model = Obedient::start().await;
    let model_url = model.endpoint().base_url;
    let binaries = Path::new(env!("CARGO_BIN_EXE_mcp-host"))
        .parent()
        .expect("the binary's folder")
        .to_path_buf();
    let path = std::env::join_paths(std::iter::once(binaries).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .expect("PATH");

    let (mut ran, mut marked) = (Vec::new(), 0);
    for document in documents() {
        let text = std::fs::read_to_string(&document).expect("readable");
        let name = document.strip_prefix(common::root()).unwrap_or(&document);
        for line in command_lines(&text) {
            if line.contains("needs a real service") {
                marked += 1;
                continue;
            }
            let mut command = line.replace("http://127.0.0.1:8080/v1", &model_url);
            if command.contains("TASK_ID") {
                let task = common::start_over_http(&everything_url, json!({"seconds": 2})).await;
                command = command.replace("TASK_ID", &task);
            }
            if command.contains(" web ") {
                // The app serves until stopped: it must print its address
                // and open with it.
                web(&command, &dir, &path).await;
                ran.push(line);
                continue;
            }
            let shell = dir.0.clone();
            let home = dir.0.join("home");
            let state = dir.0.join("state");
            let path = path.clone();
            let output = tokio::task::spawn_blocking(move || {
                Command::new("sh")
                    .args(["-c", &command])
                    .current_dir(shell)
                    .env("PATH", path)
                    .env("HOME", home)
                    .env("XDG_STATE_HOME", state)
                    .env_remove("OPENAI_API_KEY")
                    .stdin(Stdio::null())
                    .output()
                    .expect("sh runs")
            })
            .await
            .expect("joined");
            assert!(
                output.status.success(),
                "{}: `{line}` failed:\n{}{}",
                name.display(),
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
            ran.push(line);
        }
    }
    // The model was asked, as the `chat` and `run` lines say.
    assert!(!model.requests().is_empty(), "no line reached the model");
    // Not vacuous: the documents show this many runnable lines today.
    assert!(ran.len() >= 20, "only {} lines ran: {ran:#?}", ran.len());
    assert!(
        marked >= 3,
        "{marked} lines marked as needing a real service"
    );
}
