//! The helpers of the host library's tests (the servers, the scripted
//! peers, a scripted input handler), shared from `mcp-host/tests/common`,
//! and what only the application's tests need: the `mcp-host` command run
//! to its end, and at a pseudo-terminal ([`pty`]). The model side's
//! scripted model ([`obedient`]) is shared from `mcp-agent/tests/common`.

#![allow(dead_code, unused_imports)]

#[path = "../../../mcp-host/tests/common/mod.rs"]
mod host;
/// The scripted model of the model side's tests, which obeys every
/// instruction it reads.
#[path = "../../../mcp-agent/tests/common/obedient.rs"]
pub mod obedient;
pub mod pty;
#[cfg(feature = "web")]
pub mod web;
/// Scratch folders and the examples, as the model side's tests use them.
#[path = "../../../mcp-agent/tests/common/workspace.rs"]
pub mod workspace;

pub use host::*;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use std::sync::Arc;

use mcp_host::approval::{ApproveAll, Gate, Policy};
#[cfg(feature = "tasks")]
use mcp_host::client::ToolStart;
use mcp_host::client::{CallOptions, Client, Target};
use mcp_host::ServerId;
use serde_json::Value;

/// The `--probe-timeout` the command tests pass, in seconds: generous, since
/// every server they probe answers `server/discover` one way or another.
pub const PROBE_TIMEOUT: &str = "20";

/// `mcp-host ARGS` with everything it keeps in `dir`: the configuration
/// (`servers.json`), pins, audit log and the state directory; stdin
/// closed and no OpenAI key, so that only the scripted model is reached.
pub fn in_scratch(dir: &workspace::Scratch, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcp-host"));
    command
        .arg("--config")
        .arg(dir.0.join("servers.json"))
        .arg("--pins")
        .arg(dir.0.join("pins.json"))
        .arg("--audit-log")
        .arg(dir.0.join("audit.jsonl"))
        .args(args)
        .env("XDG_STATE_HOME", dir.0.join("state"))
        .env_remove("OPENAI_API_KEY")
        .stdin(Stdio::null());
    command
}

/// Runs `mcp-host --config CONFIG ARGS..` to its end, with stdin closed:
/// no terminal to ask.
pub fn host_command(config: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcp-host"))
        .env("XDG_STATE_HOME", state_home())
        .arg("--config")
        .arg(config)
        // Room for slow-starting servers on a loaded machine.
        .args(["--probe-timeout", PROBE_TIMEOUT])
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("mcp-host runs")
}

/// What the command printed to stdout, as JSON.
pub fn printed(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// Starts `slow_compute` with `args` through a client of its own over
/// HTTP, as another host would; the task it became.
#[cfg(feature = "tasks")]
pub async fn start_over_http(url: &str, args: Value) -> String {
    let target = Target::Http {
        url: url.to_owned(),
        headers: Vec::new(),
    };
    let id = ServerId::new("ev").expect("id");
    let client = Client::connect(id, target, Answers::new(), options(false), None)
        .await
        .expect("connects");
    let Value::Object(args) = args else {
        panic!("arguments are an object")
    };
    let call = client
        .prepare_call("slow_compute", args)
        .await
        .expect("prepared");
    let approval = Gate::new(Policy::default(), Arc::new(ApproveAll))
        .authorize(&call)
        .await
        .expect("approved");
    let started = client
        .start_tool(call, approval, &CallOptions::default())
        .await
        .expect("started");
    let ToolStart::Task(task) = started else {
        panic!("not a task")
    };
    task.accept().task_id
}
