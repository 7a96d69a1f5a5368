//! Peers from PyPI, pinned with every dependency in
//! `tests/pypi/requirements.txt`: the reference `mcp-server-time` and
//! `mcp-server-fetch`, and the official Python SDK, which serves
//! `sse_server.py` over the HTTP+SSE transport. They are installed into `tests/pypi/.venv` with
//! `python3 -m venv` and `pip` the first time a test needs them, and again
//! only when the requirements change; a failed install fails the test and
//! names what is missing.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use mcp_host::client::{StdioCommand, Target};

use super::{serving, Running};

/// `tests/pypi/.venv/bin`, with the pinned packages installed.
fn bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let dir = super::root().join("mcp-host/tests/pypi");
        let requirements = std::fs::read_to_string(dir.join("requirements.txt"))
            .expect("tests/pypi/requirements.txt is readable");
        let venv = dir.join(".venv");
        // The requirements the venv was last installed from.
        let stamp = venv.join("installed-requirements.txt");
        if std::fs::read_to_string(&stamp).ok().as_deref() != Some(requirements.as_str()) {
            run(
                Command::new("python3").args(["-m", "venv"]).arg(&venv),
                "python3 -m venv (needs Python 3 with its venv module)",
            );
            run(
                Command::new(venv.join("bin/pip"))
                    .args([
                        "install",
                        "--quiet",
                        "--disable-pip-version-check",
                        "--no-deps",
                        "-r",
                    ])
                    .arg(dir.join("requirements.txt")),
                "pip install -r tests/pypi/requirements.txt (needs the PyPI registry once)",
            );
            std::fs::write(&stamp, &requirements).expect("the install is stamped");
        }
        venv.join("bin")
    })
}

fn run(command: &mut Command, what: &str) {
    let status = command
        .status()
        .unwrap_or_else(|e| panic!("{what}: cannot run: {e}"));
    assert!(status.success(), "{what}: failed with {status}");
}

/// A console script of the venv with `args`, over stdio.
fn script(name: &str, args: &[&str]) -> Target {
    Target::Stdio(StdioCommand {
        command: bin().join(name).display().to_string(),
        args: args.iter().map(|a| (*a).to_owned()).collect(),
        ..StdioCommand::default()
    })
}

/// `mcp-server-time`, its local zone UTC.
pub fn time() -> Target {
    script("mcp-server-time", &["--local-timezone", "UTC"])
}

/// `mcp-server-fetch`.
pub fn fetch() -> Target {
    script("mcp-server-fetch", &[])
}

/// `sse_server.py` on the Python SDK over the HTTP+SSE transport, on
/// `port` (0 for any free one); the URL of its event stream.
pub fn sse_server(port: u16) -> (Running, String) {
    python_server("sse_server.py", &["--port", &port.to_string()])
}

/// `mounted_server.py`: the Python SDK's Streamable HTTP app mounted under
/// `/api/mcp` in Starlette, which answers that URL with `307` to
/// `/api/mcp/`; the URL without the slash, as people configure it.
pub fn mounted_server() -> (Running, String) {
    python_server("mounted_server.py", &[])
}

/// A script of `tests/pypi` on the venv's Python with `args`, once it
/// says where it serves; that URL.
fn python_server(script: &str, args: &[&str]) -> (Running, String) {
    let script = super::root().join("mcp-host/tests/pypi").join(script);
    let child = Command::new(bin().join("python"))
        .arg(script)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python starts");
    serving(child)
}
