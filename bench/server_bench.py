#!/usr/bin/env python3
"""Runtime cost of a served tool: the `calculator` example of mcp-server
beside the same calculator written for rmcp 3.11 and a line echo (raw, and
parsing each line as JSON), all
built --release and measured in one run of `mcp-bench --bin server`.

The calculator is built twice: as it is, and with mcp-server's `auth`
feature, for the rows with bearer tokens (the same program without
protection, then protected, with a cached token and with a token it has
not seen on each request), which are measured in the same rounds.

usage: python3 bench/server_bench.py [--auth-only | --baseline REV] [DRIVER ARGS...]
       (e.g. --quick for a short smoke run; --auth-only for the rows with
       bearer tokens alone; --help lists the driver's options)

The rmcp calculator and the echo are not workspace members: rmcp's
dependencies would slow every workspace build. They are written here into
target/server-bench/<name>/, each its own workspace with its own target
directory, and built there.
"""
import os
import pathlib
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
# The workspace's target directory, as cargo finds it.
TARGET = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
OUT = TARGET / "server-bench"

RMCP_DEPS = """\
rmcp = { version = "=3.11.0", features = ["server", "macros", "transport-io", "transport-streamable-http-server"] }
tokio = { version = "1", features = ["rt-multi-thread", "macros", "net", "signal"] }
axum = { version = "0.8", default-features = false, features = ["http1", "tokio"] }
serde = { version = "1", features = ["derive"] }
schemars = "1"
"""

# The same program as mcp-server/examples/served_calculator.rs, written for rmcp:
# stdio, or stateless Streamable HTTP answering with plain JSON (rmcp's
# closest match to ours; sessions and SSE would only add work).
RMCP_MAIN = """\
use rmcp::handler::server::wrapper::Parameters;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{tool, tool_router, ServiceExt};

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct AddArgs {
    /// The first number.
    pub a: i64,
    /// The second number.
    pub b: i64,
}

#[derive(Clone)]
pub struct Calc;

#[tool_router(server_handler)]
impl Calc {
    #[tool(description = "Adds `a` and `b`.")]
    async fn add(&self, Parameters(args): Parameters<AddArgs>) -> String {
        (i128::from(args.a) + i128::from(args.b)).to_string()
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["--stdio"] => {
            Calc.serve(rmcp::transport::stdio()).await?.waiting().await?;
        }
        ["--http", addr] => {
            let config = StreamableHttpServerConfig::default()
                .with_legacy_session_mode(false)
                .with_json_response(true)
                .with_sse_keep_alive(None);
            let service = StreamableHttpService::new(
                || Ok(Calc),
                std::sync::Arc::new(NeverSessionManager::default()),
                config,
            );
            let router = axum::Router::new().nest_service("/mcp", service);
            let listener = tokio::net::TcpListener::bind(addr).await?;
            axum::serve(listener, router)
                .with_graceful_shutdown(async {
                    let _ = tokio::signal::ctrl_c().await;
                })
                .await?;
        }
        _ => {
            eprintln!("usage: rmcp-calculator --stdio | --http ADDR:PORT");
            std::process::exit(2);
        }
    }
    Ok(())
}
"""

# The floor: what one line in, one line out costs through two pipes.
ECHO_MAIN = """\
use std::io::{BufRead, Write};

// `line-echo` copies each line of stdin to stdout; `line-echo --json` also
// parses each line as JSON and writes the value back encoded, the least a
// JSON-RPC peer must do with a message.
fn main() -> std::io::Result<()> {
    let json = std::env::args().any(|arg| arg == "--json");
    let mut output = std::io::stdout().lock();
    for line in std::io::stdin().lock().split(b'\\n') {
        let mut line = line?;
        if json {
            let value: serde_json::Value = serde_json::from_slice(&line)?;
            line = serde_json::to_vec(&value)?;
        }
        line.push(b'\\n');
        output.write_all(&line)?;
        output.flush()?;
    }
    Ok(())
}
"""

CRATES = {
    "rmcp": ("rmcp-calculator", RMCP_DEPS, RMCP_MAIN),
    "echo": ("line-echo", 'serde_json = "1"\n', ECHO_MAIN),
}


def cargo(cwd: pathlib.Path, *args: str) -> None:
    print(f"==> cargo {' '.join(args)}  ({cwd.relative_to(ROOT)})", flush=True)
    subprocess.run(["cargo", *args], cwd=cwd, check=True)


def build_outside(name: str) -> pathlib.Path:
    """Writes the crate `name` into its own workspace and builds it."""
    package, deps, source = CRATES[name]
    path = OUT / name
    (path / "src").mkdir(parents=True, exist_ok=True)
    manifest = (f'[package]\nname = "{package}"\nversion = "0.0.0"\nedition = "2021"\n'
                f"publish = false\n\n[dependencies]\n{deps}\n[workspace]\n")
    for file, text in [(path / "Cargo.toml", manifest), (path / "src" / "main.rs", source)]:
        if not file.exists() or file.read_text() != text:
            file.write_text(text)
    cargo(path, "build", "--release", "--quiet")
    return path / "target" / "release" / package


def build_calculator(features: list[str], name: str) -> pathlib.Path:
    """Builds the calculator example with `features` and copies it to
    target/server-bench/<name>, so that both builds stay side by side."""
    cargo(ROOT, "build", "--release", "--quiet", "-p", "mcp-toolkit-server", *features,
          "--example", "served_calculator")
    OUT.mkdir(parents=True, exist_ok=True)
    copy = OUT / name
    shutil.copy2(TARGET / "release" / "examples" / "served_calculator", copy)
    return copy


def build_baseline(rev: str) -> pathlib.Path:
    """Builds the calculator example as it was at the git revision `rev`,
    in a work tree and a target directory of its own under
    target/server-bench/, so that the code before a change is measured in
    the same run as the code after it."""
    tree = OUT / "baseline-src"
    if tree.exists():
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)],
                       check=True)
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), rev],
                   check=True)
    # The same program on the library as it was: the example is copied in,
    # since an older tree may not have it.
    program = "served_calculator.rs"
    shutil.copy2(ROOT / "mcp-server" / "examples" / program, tree / "mcp-server" / "examples" / program)
    target = OUT / "baseline-target"
    subprocess.run(["cargo", "build", "--release", "--quiet", "-p", "mcp-toolkit-server",
                    "--example", "served_calculator", "--target-dir", str(target)],
                   cwd=tree, check=True)
    copy = OUT / "calculator-baseline"
    shutil.copy2(target / "release" / "examples" / "served_calculator", copy)
    subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=True)
    return copy


def main() -> None:
    args = sys.argv[1:]
    if "--baseline" in args:
        at = args.index("--baseline")
        rev = args[at + 1]
        del args[at:at + 2]
        baseline = build_baseline(rev)
        ours = build_calculator([], "calculator")
        cargo(ROOT, "build", "--release", "--quiet", "-p", "mcp-bench", "--bin", "server")
        subprocess.run([str(TARGET / "release" / "server"), "--ours", str(ours),
                        "--baseline", str(baseline), *args], check=True)
        return
    auth_only = "--auth-only" in sys.argv[1:]
    ours_auth = build_calculator(["--features", "auth"], "calculator-auth")
    cargo(ROOT, "build", "--release", "--quiet", "-p", "mcp-bench", "--bin", "server")
    driver = TARGET / "release" / "server"
    if auth_only:
        subprocess.run([str(driver), "--ours-auth", str(ours_auth), *sys.argv[1:]], check=True)
        return
    ours = build_calculator([], "calculator")
    rmcp, echo = build_outside("rmcp"), build_outside("echo")
    subprocess.run([str(driver), "--ours", str(ours), "--rmcp", str(rmcp), "--echo", str(echo),
                    "--ours-auth", str(ours_auth), *sys.argv[1:]], check=True)


if __name__ == "__main__":
    main()
