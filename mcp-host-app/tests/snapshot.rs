//! The tool lists checked in under `mcp-gen/tests/tools/` (the inputs of
//! the typed clients' goldens) are what their servers serve today, taken
//! with `mcp-host snapshot` from the real processes: our `notes` example,
//! and servers no one here wrote (`server-everything`, `server-filesystem`
//! and `server-memory` from npm, `mcp-server-time` and `mcp-server-fetch`
//! from PyPI).

mod common;

use std::path::PathBuf;

use common::{interop, pypi};
use serde_json::{json, Value};

fn tools_dir() -> PathBuf {
    common::root().join("mcp-gen/tests/tools")
}

/// Each checked-in tool list is what its server serves today, taken with
/// `mcp-host snapshot` from the real process.
#[test]
fn snapshots_are_what_the_servers_serve() {
    let fsroot = std::env::temp_dir().join(format!("mcp-typed-fs-{}", std::process::id()));
    std::fs::create_dir_all(&fsroot).expect("a directory to serve");
    let graph = std::env::temp_dir().join(format!("mcp-typed-snap-{}.jsonl", std::process::id()));
    let example = common::root().join("examples/typed-notes/tools/notes.json");
    let example = example.display().to_string();
    let servers = [
        ("notes.json", common::notes_stdio()),
        (example.as_str(), common::notes_stdio()),
        ("server-everything.json", interop::reference_everything()),
        ("server-filesystem.json", interop::filesystem(&fsroot)),
        ("server-memory.json", interop::memory(&graph)),
        ("mcp-server-time.json", pypi::time()),
        ("mcp-server-fetch.json", pypi::fetch()),
    ];
    for (n, (file, target)) in servers.into_iter().enumerate() {
        let config = common::config_file(
            &format!("snapshot-{n}"),
            json!({ "server": common::stdio_entry(target, json!({})) }),
        );
        let _config = common::Scratch(config.clone());
        let output = common::host_command(&config, &["snapshot", "server"]);
        assert!(
            output.status.success(),
            "{file}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let served = common::printed(&output);
        let checked_in: Value = serde_json::from_str(
            &std::fs::read_to_string(tools_dir().join(file)).expect("the snapshot"),
        )
        .expect("json");
        assert_eq!(
            served, checked_in,
            "{file} is not what the server serves: take it again with `mcp-host snapshot` \
             (see mcp-gen/tests/tools/PROVENANCE.md)"
        );
    }
    let _ = std::fs::remove_dir_all(fsroot);
    let _ = std::fs::remove_file(graph);
}
