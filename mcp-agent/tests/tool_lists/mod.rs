//! The tool lists of `mcp-gen/tests/tools`, read by several tests of this
//! crate (see that folder's `PROVENANCE.md` for where each comes from).

#![allow(dead_code)] // each test uses part of it

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The lists taken from running servers; the others are written by hand.
pub const REAL_SERVERS: &[&str] = &[
    "notes",
    "server-everything",
    "server-filesystem",
    "server-memory",
    "mcp-server-time",
    "mcp-server-fetch",
];

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../mcp-gen/tests/tools")
}

/// The name of every list, sorted.
pub fn lists() -> Vec<String> {
    let dir = dir();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{} is missing: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .filter_map(|p| p.file_stem().and_then(|s| s.to_str()).map(str::to_owned))
        .collect();
    names.sort();
    names
}

/// Every tool of `list`: its name and its `inputSchema`.
pub fn tools(list: &str) -> Vec<(String, Value)> {
    let path = dir().join(format!("{list}.json"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{} is missing: {e}", path.display()));
    let list: Value = serde_json::from_str(&text).expect("a tool list is JSON");
    list["tools"]
        .as_array()
        .expect("a tools array")
        .iter()
        .map(|t| {
            let name = t["name"].as_str().unwrap_or_default().to_owned();
            (name, t["inputSchema"].clone())
        })
        .collect()
}
