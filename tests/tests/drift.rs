//! The checked-in generated modules of `mcp-types` are exactly what
//! `mcp-gen` makes from the spec schemas today.
//!
//! To accept a change, regenerate with the command the failure prints, or
//! run this test with `MCP_UPDATE_GENERATED=1`.

use std::path::Path;

use mcp_tests::spec;

fn check(revision: &str) {
    let module = format!("v{}", revision.replace('-', "_"));
    let schema = spec::spec_dir().join(format!("schema/{revision}/schema.json"));
    let checked_in = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../mcp-types/src/generated")
        .join(format!("{module}.rs"));
    let fresh = mcp_gen::Settings::mcp(revision)
        .generate_file(&schema)
        .unwrap_or_else(|e| panic!("generating {revision}: {e}"));
    let command = format!(
        "cargo run -p mcp-gen -- --mcp-revision {revision} --schema $MCP_SPEC_DIR/schema/{revision}/schema.json \
         --out mcp-types/src/generated/{module}.rs"
    );
    compare(&checked_in, &fresh, &command);
}

/// Fails with the regenerating `command` unless `checked_in` holds `fresh`;
/// with `MCP_UPDATE_GENERATED` set, writes it instead.
fn compare(checked_in: &Path, fresh: &str, command: &str) {
    if std::env::var_os("MCP_UPDATE_GENERATED").is_some() {
        mcp_gen::write_if_changed(checked_in, fresh).expect("write the generated module");
        return;
    }
    let current = std::fs::read_to_string(checked_in).unwrap_or_default();
    if current != fresh {
        let line = current
            .lines()
            .zip(fresh.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| current.lines().count().min(fresh.lines().count()))
            + 1;
        panic!(
            "{} is stale (first difference at line {line}); regenerate with\n  {command}\n\
             or run this test with MCP_UPDATE_GENERATED=1",
            checked_in.display()
        );
    }
}

#[test]
fn v2026_07_28_is_current() {
    check("2026-07-28");
}

#[test]
fn v2025_11_25_is_current() {
    check("2025-11-25");
}

/// The tasks extension's module: its schema repeats the core definitions it
/// uses, which become aliases of the 2026-07-28 types.
#[test]
fn ext_tasks_is_current() {
    let dir = spec::spec_dir();
    let core_text = std::fs::read_to_string(dir.join("schema/2026-07-28/schema.json"))
        .expect("read the core schema");
    let core: serde_json::Value = serde_json::from_str(&core_text).expect("core schema is JSON");
    let checked_in =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../mcp-types/src/generated/ext_tasks.rs");
    let fresh = mcp_gen::Settings::mcp("2026-07-28")
        .doc_link(TASKS_DOC)
        .source_name("the MCP tasks extension schema")
        .reuse(&core, "crate::v2026_07_28")
        .generate_file(dir.join("ext/tasks/schema.json"))
        .unwrap_or_else(|e| panic!("generating the tasks extension: {e}"));
    compare(
        &checked_in,
        &fresh,
        "cargo run -p mcp-gen -- --mcp-revision 2026-07-28 --doc-link \
         https://modelcontextprotocol.io/extensions/tasks/overview \
         --reuse $MCP_SPEC_DIR/schema/2026-07-28/schema.json=crate::v2026_07_28 \
         --schema $MCP_SPEC_DIR/ext/tasks/schema.json --out mcp-types/src/generated/ext_tasks.rs",
    );
}

const TASKS_DOC: &str = "https://modelcontextprotocol.io/extensions/tasks/overview";

/// The MCP Apps extension's module. Its schema is bundled from one
/// standalone schema per definition and shares no definition with the core;
/// the helper `__schema0` that three definitions embed is any JSON value.
#[test]
fn ext_apps_is_current() {
    let checked_in =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../mcp-types/src/generated/ext_apps.rs");
    let fresh = mcp_gen::Settings::mcp("2026-07-28")
        .doc_link(APPS_DOC)
        .source_name("the MCP Apps extension schema")
        .replace("__schema0", "::serde_json::Value")
        .generate_file(spec::spec_dir().join("ext/apps/schema.json"))
        .unwrap_or_else(|e| panic!("generating the apps extension: {e}"));
    compare(
        &checked_in,
        &fresh,
        &format!(
            "cargo run -p mcp-gen -- --mcp-revision 2026-07-28 --doc-link {APPS_DOC} \
             --source-name \"the MCP Apps extension schema\" --replace __schema0=::serde_json::Value \
             --schema $MCP_SPEC_DIR/ext/apps/schema.json --out mcp-types/src/generated/ext_apps.rs"
        ),
    );
}

const APPS_DOC: &str =
    "https://github.com/modelcontextprotocol/ext-apps/blob/main/specification/2026-01-26/apps.mdx";
