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
    if std::env::var_os("MCP_UPDATE_GENERATED").is_some() {
        mcp_gen::write_if_changed(&checked_in, &fresh).expect("write the generated module");
        return;
    }
    let current = std::fs::read_to_string(&checked_in).unwrap_or_default();
    if current != fresh {
        let line = current
            .lines()
            .zip(fresh.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| current.lines().count().min(fresh.lines().count()))
            + 1;
        panic!(
            "mcp-types/src/generated/{module}.rs is stale (first difference at line {line}); regenerate with\n  \
             cargo run -p mcp-gen -- --mcp-revision {revision} --schema $MCP_SPEC_DIR/schema/{revision}/schema.json \
             --out mcp-types/src/generated/{module}.rs\nor run this test with MCP_UPDATE_GENERATED=1"
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
