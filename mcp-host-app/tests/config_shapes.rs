//! The configuration files other hosts write, end to end against the
//! `notes` and `everything` examples: a Claude Code `.mcp.json` (`type`,
//! `${VAR:-default}`, `disabledTools`) and a VS Code `mcp.json`
//! (`servers`, `inputs`, `${env:VAR}`, `allowedTools`, `envFile`).

mod common;

use common::{everything, host_command, notes, printed};
use serde_json::{json, Value};

/// Writes `contents` as `name` in a directory of this test; its path.
fn file(name: &str, contents: &Value) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("mcp-host-shapes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a directory");
    let path = dir.join(name);
    std::fs::write(&path, contents.to_string()).expect("written");
    path
}

fn tool_names(listed: &Value) -> Vec<String> {
    listed
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_owned))
        .collect()
}

#[test]
fn a_claude_code_mcp_json_runs_as_it_is() {
    let config = file(
        ".mcp.json",
        &json!({"mcpServers": {"notes": {
            "type": "stdio",
            "command": notes().display().to_string(),
            "args": ["${MCP_HOST_TEST_NOTES_FLAG:---stdio}"],
            "env": {"NOTES_LOG": "${MCP_HOST_TEST_UNSET_LEVEL:-info}"},
            "disabledTools": ["delete_note"]
        }}}),
    );
    let output = host_command(&config, &["tools"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let names = tool_names(&printed(&output));
    assert!(
        names.contains(&"notes__create_note".to_owned()),
        "{names:?}"
    );
    assert!(
        !names.contains(&"notes__delete_note".to_owned()),
        "{names:?}"
    );
    // A tool left out is not callable either.
    let output = host_command(&config, &["call", "notes__delete_note", "--yes"]);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("has no tool `delete_note`"));
}

#[test]
fn a_vs_code_mcp_json_runs_as_it_is() {
    let config = file(
        "mcp.json",
        &json!({
            "inputs": [{"type": "promptString", "id": "unused", "password": true}],
            "servers": {"notes": {
                "type": "stdio",
                "command": "${env:MCP_HOST_TEST_NOTES_BIN:-".to_owned() + &notes().display().to_string() + "}",
                "args": ["--stdio"],
                "allowedTools": ["create_note", "read_note"]
            }}
        }),
    );
    let output = host_command(&config, &["tools"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut names = tool_names(&printed(&output));
    names.sort();
    assert!(
        names
            .iter()
            .all(|n| n == "notes__create_note" || n == "notes__read_note"),
        "{names:?}"
    );
    assert!(
        names.contains(&"notes__create_note".to_owned()),
        "{names:?}"
    );
}

/// The `everything` example refuses to start when `MCP_STATE_KEYS` is
/// not a key: with a bad key in an `envFile`, the server's own complaint
/// proves the file's variable reached it, and with a good key in `env`
/// beside the file, it starts, as `env` wins.
#[test]
fn a_vs_code_env_file_reaches_the_server_under_env() {
    let dir = std::env::temp_dir().join(format!("mcp-host-env-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a directory");
    std::fs::write(
        dir.join("keys.env"),
        "# sealing keys for the server\nexport MCP_STATE_KEYS=\"1:not-hex\"\n",
    )
    .expect("written");
    let entry = |env: Value| {
        json!({"servers": {"local": {
            "type": "stdio",
            "command": everything().display().to_string(),
            "args": ["--stdio"],
            "cwd": dir.display().to_string(),
            "envFile": "keys.env",
            "env": env
        }}})
    };

    let config = file("env-file.json", &entry(json!({})));
    let output = host_command(&config, &["tools"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(
        stderr.contains("MCP_STATE_KEYS: key 1 is not 64 hex digits"),
        "{stderr}"
    );

    let key = format!("2:{}", "0f".repeat(32));
    let config = file(
        "env-file-overridden.json",
        &entry(json!({"MCP_STATE_KEYS": key})),
    );
    let output = host_command(&config, &["tools"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(tool_names(&printed(&output)).contains(&"local__test_simple_text".to_owned()));

    // A line that cannot be read is named by its number, not its text.
    std::fs::write(dir.join("keys.env"), "MCP_STATE_KEYS='1:unclosed\n").expect("written");
    let output = host_command(&config, &["tools"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "server `local`: `envFile`: {}: line 1: a quoted value without its closing quote",
            dir.join("keys.env").display()
        )),
        "{stderr}"
    );
    assert!(!stderr.contains("unclosed"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_unset_variable_is_an_error_naming_the_server_and_field() {
    let config = file(
        "unset.json",
        &json!({"mcpServers": {"notes": {"command": "${MCP_HOST_TEST_SURELY_UNSET}"}}}),
    );
    let output = host_command(&config, &["tools"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(
            "server `notes`: `command`: the variable `MCP_HOST_TEST_SURELY_UNSET` is not set and has no default"
        ),
        "{stderr}"
    );
    let sse = file(
        "sse.json",
        &json!({"servers": {"old": {"type": "sse", "url": "http://127.0.0.1:1/sse"}}}),
    );
    // The entry is read, and the server it names is tried (here, nobody
    // listens).
    let output = host_command(&sse, &["servers"]);
    let servers = printed(&output);
    assert_eq!(servers[0]["id"], "old");
    let error = servers[0]["error"].as_str().expect("an error");
    assert!(error.contains("http://127.0.0.1:1/sse"), "{error}");
}

#[test]
fn from_finds_the_file_another_host_keeps_and_servers_says_so() {
    let project = std::env::temp_dir().join(format!("mcp-host-from-{}", std::process::id()));
    std::fs::create_dir_all(project.join(".vscode")).expect("a directory");
    let entry =
        json!({"type": "stdio", "command": notes().display().to_string(), "args": ["--stdio"]});
    std::fs::write(
        project.join(".vscode/mcp.json"),
        json!({"servers": {"notes": entry}}).to_string(),
    )
    .expect("written");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_mcp-host"))
        .current_dir(&project)
        .env("XDG_STATE_HOME", common::state_home())
        .args([
            "--from",
            "vscode",
            "--probe-timeout",
            common::PROBE_TIMEOUT,
            "servers",
        ])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("mcp-host runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let listed = printed(&output);
    assert_eq!(listed[0]["id"], "notes");
    assert_eq!(listed[0]["source"], ".vscode/mcp.json");
    // Nothing there: the error names the file looked for.
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_mcp-host"))
        .current_dir(&project)
        .args(["--from", "cursor", "servers"])
        .output()
        .expect("mcp-host runs");
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains(".cursor/mcp.json"));
    let _ = std::fs::remove_dir_all(&project);
}
