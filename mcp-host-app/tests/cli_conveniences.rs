//! `mcp-host add`, `remove`, `completions` and `man`, and the examples at
//! the end of every command's `--help`.

mod common;

use std::process::{Command, Output, Stdio};

use common::{host_command, printed};
use serde_json::Value;

fn host(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcp-host"))
        .env("XDG_STATE_HOME", common::state_home())
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("mcp-host runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn add_then_use_then_remove() {
    let dir = std::env::temp_dir().join(format!("mcp-host-add-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let config = dir.join("nested").join("servers.json");
    let path = config.to_str().expect("a UTF-8 path");
    let everything = common::everything().display().to_string();

    // A new file, in a directory that does not exist yet.
    let added = host(&[
        "--config",
        path,
        "add",
        "local",
        "--env",
        "GREETING=hi there",
        "--",
        &everything,
        "--stdio",
    ]);
    assert!(added.status.success(), "{}", stderr(&added));
    assert_eq!(printed(&added)["added"], "local");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&config).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "the entry's env may hold secrets");
    }
    let written: Value = serde_json::from_slice(&std::fs::read(&config).unwrap()).unwrap();
    assert_eq!(
        written,
        serde_json::json!({"mcpServers": {"local": {
            "command": everything, "args": ["--stdio"], "env": {"GREETING": "hi there"}
        }}})
    );

    // The entry works: the server starts and lists its tools.
    let tools = printed(&host_command(&config, &["tools"]));
    let names: Vec<&str> = tools
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(names.contains(&"local__test_simple_text"), "{names:?}");

    // A second entry goes after the first; the first stays as it was.
    let before = std::fs::read_to_string(&config).unwrap();
    let remote = host(&[
        "--config",
        path,
        "add",
        "remote",
        "--url",
        "https://search.example/mcp",
        "-H",
        "Authorization: Bearer ${TOKEN}",
    ]);
    assert!(remote.status.success(), "{}", stderr(&remote));
    let after = std::fs::read_to_string(&config).unwrap();
    let local = before.find("\"local\"").unwrap();
    assert_eq!(after[..local], before[..local]);
    let written: Value = serde_json::from_str(&after).unwrap();
    assert_eq!(
        written["mcpServers"]["remote"],
        serde_json::json!({
            "type": "http", "url": "https://search.example/mcp",
            "headers": {"Authorization": "Bearer ${TOKEN}"}
        })
    );

    // A taken name, a missing one and a bad header are refused, the file
    // untouched.
    let taken = host(&["--config", path, "add", "local", "--", "other"]);
    assert!(!taken.status.success());
    assert!(
        stderr(&taken).contains("already configured"),
        "{}",
        stderr(&taken)
    );
    let bad_header = host(&[
        "--config",
        path,
        "add",
        "x",
        "--url",
        "https://x/mcp",
        "-H",
        "nope",
    ]);
    assert!(!bad_header.status.success());
    let nothing = host(&["--config", path, "add", "x"]);
    assert!(!nothing.status.success());
    assert!(
        stderr(&nothing).contains("after `--`"),
        "{}",
        stderr(&nothing)
    );
    let missing = host(&["--config", path, "remove", "nope"]);
    assert!(!missing.status.success());
    assert!(stderr(&missing).contains("no server `nope`"));
    assert_eq!(std::fs::read_to_string(&config).unwrap(), after);

    // Removing the second gives back the file as it was before it.
    let removed = host(&["--config", path, "remove", "remote"]);
    assert!(removed.status.success(), "{}", stderr(&removed));
    assert_eq!(std::fs::read_to_string(&config).unwrap(), before);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn completions_for_each_shell() {
    for (shell, mark) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef mcp-host"),
        ("fish", "complete -c mcp-host"),
    ] {
        let output = host(&["completions", shell]);
        assert!(output.status.success(), "{shell}: {}", stderr(&output));
        let script = String::from_utf8_lossy(&output.stdout);
        assert!(script.contains(mark), "{shell}: {script}");
        for command in [
            "add", "remove", "tools", "call", "chat", "run", "review", "flow",
        ] {
            assert!(script.contains(command), "{shell} lacks {command}");
        }
        // The model side's options are the command's own, not passed
        // through to another program.
        for option in ["provider", "base-url", "allow-flow"] {
            assert!(script.contains(option), "{shell} lacks {option}");
        }
    }
}

#[test]
fn a_manual_page() {
    let output = host(&["man"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let page = String::from_utf8_lossy(&output.stdout);
    assert!(
        page.starts_with(".ie") || page.contains(".TH mcp-host 1"),
        "{page}"
    );
    assert!(page.contains("completions"));

    let dir = std::env::temp_dir().join(format!("mcp-host-man-{}", std::process::id()));
    let output = host(&["man", "--dir", dir.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    for page in [
        "mcp-host.1",
        "mcp-host-add.1",
        "mcp-host-call.1",
        "mcp-host-review.1",
    ] {
        assert!(dir.join(page).is_file(), "{page} missing");
    }
    for page in ["mcp-host-chat.1", "mcp-host-run.1"] {
        let text = std::fs::read_to_string(dir.join(page)).unwrap_or_default();
        assert!(
            text.contains("provider") && text.contains("base\\-url"),
            "{page}: {text}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every subcommand's `--help` (and each `task` subcommand's) ends with
/// an example of its use.
#[test]
fn every_help_ends_with_an_example() {
    let help = String::from_utf8_lossy(&host(&["--help"]).stdout).into_owned();
    let commands: Vec<String> = help
        .split("Commands:")
        .nth(1)
        .expect("a list of commands")
        .lines()
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| line.split_whitespace().next().map(str::to_owned))
        .filter(|name| name != "help")
        .collect();
    assert!(commands.len() >= 15, "{commands:?}");
    let mut paths: Vec<Vec<String>> = commands.iter().map(|c| vec![c.clone()]).collect();
    if commands.iter().any(|c| c == "task") {
        for sub in ["get", "wait", "cancel"] {
            paths.push(vec!["task".into(), sub.into()]);
        }
    }
    for path in paths {
        let mut args: Vec<&str> = vec!["help"];
        args.extend(path.iter().map(String::as_str));
        let output = host(&args);
        let text = String::from_utf8_lossy(&output.stdout);
        let last = text.trim_end().lines().last().unwrap_or_default();
        assert!(
            text.contains("Examples:\n  mcp-host") && last.trim_start().starts_with("mcp-host"),
            "`{}` --help ends with: {last}",
            path.join(" ")
        );
    }
}
