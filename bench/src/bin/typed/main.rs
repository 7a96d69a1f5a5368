//! Typed clients, measured in one run:
//!
//! ```text
//! cargo build --release -p mcp-toolkit-server --example notes
//! cargo run --release -p mcp-bench --bin typed
//! ```
//!
//! 1. Generation time of `mcp-gen client` for the largest real tool list,
//!    beside typify 0.8 on the same schemas.
//! 2. mcp-gen beside typify 0.8 on the spec's schema (its 129 examples) and
//!    on the real tool lists: what each generates, what compiles, what
//!    round-trips exactly. Both outputs are built in crates of their own
//!    under `target/typed-compare` (this takes minutes the first time).
//! 3. The overhead of a typed call over an untyped one through the same
//!    client, against the real `notes` server over stdio
//!    (`$NOTES`, default `target/release/examples/notes`).

mod compare;
mod overhead;
#[path = "../../timing.rs"]
mod timing;

use std::path::{Path, PathBuf};

pub use timing::{ms, sample};

pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

pub fn spec_dir() -> PathBuf {
    std::env::var_os("MCP_SPEC_DIR")
        .map_or_else(|| workspace().join("../shared/spec"), PathBuf::from)
}

/// The real tool lists (the goldens' inputs), largest first.
pub fn tool_lists() -> Vec<(String, serde_json::Value)> {
    let dir = workspace().join("mcp-gen/tests/tools");
    let mut lists: Vec<(String, serde_json::Value, u64)> = [
        "notes.json",
        "server-everything.json",
        "server-filesystem.json",
        "server-memory.json",
        "mcp-server-time.json",
        "mcp-server-fetch.json",
    ]
    .iter()
    .map(|name| {
        let path = dir.join(name);
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let value = serde_json::from_str(&text).expect("a tool list");
        ((*name).to_owned(), value, text.len() as u64)
    })
    .collect();
    lists.sort_by_key(|(_, _, len)| std::cmp::Reverse(*len));
    lists.into_iter().map(|(n, v, _)| (n, v)).collect()
}

fn main() {
    compare::generation_time();
    compare::compare();
    overhead::run();
}
