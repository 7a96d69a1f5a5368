//! The `mcp-host` command against the `everything` example.

mod common;

use common::{config_file, host_command, printed};
use serde_json::json;

#[test]
fn servers_tools_and_calls() {
    let (_server, url) = common::everything_http();
    let command = common::everything().display().to_string();
    let config = config_file(
        "main",
        json!({
            "local": {"command": command, "args": ["--stdio"]},
            "remote": {"url": url, "legacy": true},
        }),
    );

    let servers = host_command(&config, &["servers"]);
    assert!(servers.status.success());
    let servers = printed(&servers);
    assert_eq!(servers[0]["id"], "local");
    assert_eq!(servers[0]["era"], "modern");
    assert_eq!(servers[1]["era"], "legacy");
    assert_eq!(servers[1]["version"], "2025-11-25");

    let tools = printed(&host_command(&config, &["tools"]));
    let names: Vec<&str> = tools
        .as_array()
        .map(|t| t.iter().filter_map(|t| t["name"].as_str()).collect())
        .unwrap_or_default();
    assert!(
        names.contains(&"local__test_simple_text") && names.contains(&"remote__test_simple_text")
    );

    // No terminal to ask: the call is denied, and the refusal says why.
    let denied = host_command(&config, &["call", "local__test_simple_text"]);
    assert!(!denied.status.success());
    assert!(String::from_utf8_lossy(&denied.stderr).contains("denied: no terminal to ask at"));

    let approved = host_command(
        &config,
        &["call", "remote__test_tool_with_progress", "--yes"],
    );
    assert!(
        approved.status.success(),
        "{}",
        String::from_utf8_lossy(&approved.stderr)
    );
    assert_eq!(
        printed(&approved)["content"][0]["text"],
        "Progress complete"
    );
    assert!(String::from_utf8_lossy(&approved.stderr).contains("100%"));

    let args = r#"{"region": "eu"}"#;
    let header = host_command(
        &config,
        &[
            "call",
            "local__test_custom_header_tool",
            "--args",
            args,
            "--yes",
        ],
    );
    assert_eq!(printed(&header)["content"][0]["text"], "region: eu");

    // The tool's own error makes the exit status 1, with the result printed.
    let failing = host_command(&config, &["call", "local__test_error_handling", "--yes"]);
    assert!(!failing.status.success());
    assert_eq!(printed(&failing)["isError"], true);

    let unknown = host_command(&config, &["call", "nope__nothing", "--yes"]);
    assert!(!unknown.status.success());
    let _ = std::fs::remove_file(&config);
}

#[test]
fn timeouts_must_be_positive_seconds() {
    let config = config_file("timeouts", json!({}));
    for bad in ["0", "-1", "soon", "inf"] {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_mcp-host"))
            .args(["--config"])
            .arg(&config)
            .arg(format!("--probe-timeout={bad}"))
            .arg("servers")
            .output()
            .expect("mcp-host runs");
        assert!(!output.status.success(), "{bad}");
        assert!(
            String::from_utf8_lossy(&output.stderr).contains("is not a positive number of seconds"),
            "{bad}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let fine = host_command(&config, &["--timeout", "2.5", "servers"]);
    assert!(fine.status.success());
    assert_eq!(printed(&fine), json!([]));
    let _ = std::fs::remove_file(&config);
}
