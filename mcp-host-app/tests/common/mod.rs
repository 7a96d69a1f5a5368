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
/// Scratch folders and the examples, as the model side's tests use them.
#[path = "../../../mcp-agent/tests/common/workspace.rs"]
pub mod workspace;

pub use host::*;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

/// The `--probe-timeout` the command tests pass, in seconds: generous, since
/// every server they probe answers `server/discover` one way or another.
pub const PROBE_TIMEOUT: &str = "20";

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
