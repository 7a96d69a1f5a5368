//! Generates `todo.rs` in `OUT_DIR` from the crate's own schema.

use std::path::PathBuf;

fn main() -> Result<(), mcp_gen::Error> {
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    mcp_gen::Settings::new().compile("schema/todo.json", out_dir.join("todo.rs"))?;
    Ok(())
}
