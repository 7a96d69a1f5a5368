//! `mcp-host call` of a tool the server runs as a task, and `task get`,
//! `task cancel` and `task wait` by id, against the `everything` example
//! over HTTP.

mod common;

use common::{everything_http, host_command, start_over_http};
use serde_json::json;

#[test]
fn the_command_shows_a_task_and_gets_waits_and_cancels_by_id() {
    let (_server, url) = everything_http();
    let config = common::config_file("tasks", json!({ "ev": { "url": url } }));
    let runtime = tokio::runtime::Runtime::new().expect("runtime");

    // A call that becomes a task shows its status line and prints the result.
    let output = host_command(
        &config,
        &[
            "call",
            "ev__slow_compute",
            "--args",
            r#"{"seconds": 1, "label": "cli"}"#,
            "--yes",
        ],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("task ") && stderr.contains("working"),
        "{stderr}"
    );
    let printed = common::printed(&output);
    assert_eq!(printed["content"][0]["text"], "computed `cli` in 1 s");

    // A task started elsewhere: looked at, then cancelled, by id.
    let task_id = runtime.block_on(start_over_http(&url, json!({"seconds": 600})));
    let got = host_command(&config, &["task", "get", "ev", &task_id]);
    assert!(
        got.status.success(),
        "{}",
        String::from_utf8_lossy(&got.stderr)
    );
    let got = common::printed(&got);
    assert_eq!(got["taskId"], task_id.as_str());
    assert_eq!(got["status"], "working");
    let cancelled = host_command(&config, &["task", "cancel", "ev", &task_id]);
    assert!(
        cancelled.status.success(),
        "{}",
        String::from_utf8_lossy(&cancelled.stderr)
    );
    assert_eq!(common::printed(&cancelled)["cancelRequested"], true);
    let got = common::printed(&host_command(&config, &["task", "get", "ev", &task_id]));
    assert_eq!(got["status"], "cancelled");

    // `task wait` follows a task to its result.
    let task_id = runtime.block_on(start_over_http(
        &url,
        json!({"seconds": 1, "label": "waited"}),
    ));
    let waited = host_command(&config, &["task", "wait", "ev", &task_id]);
    assert!(
        waited.status.success(),
        "{}",
        String::from_utf8_lossy(&waited.stderr)
    );
    assert_eq!(
        common::printed(&waited)["content"][0]["text"],
        "computed `waited` in 1 s"
    );
}
