//! Generates the typed client of the notes server into `OUT_DIR` from
//! `tools/notes.json`, a tool list taken with
//! `mcp-host --config servers.json snapshot notes --out tools/notes.json`.

use std::path::PathBuf;

fn main() -> Result<(), mcp_gen::Error> {
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    mcp_gen::ClientSettings::new().compile("tools/notes.json", out_dir.join("notes.rs"))?;
    Ok(())
}
