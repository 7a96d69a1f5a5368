//! The example against the real `notes` server.

use std::path::Path;
use std::process::{Command, Stdio};

#[test]
fn creates_and_reads_a_note() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .current_dir(&root)
        .args([
            "build",
            "--quiet",
            "-p",
            "mcp-toolkit-server",
            "--example",
            "notes",
        ])
        .stdout(Stdio::null())
        .status()
        .expect("cargo runs");
    assert!(status.success(), "building the notes example failed");
    let target = root.join(std::env::var_os("CARGO_TARGET_DIR").unwrap_or("target".into()));
    let output = Command::new(env!("CARGO_BIN_EXE_typed-notes-example"))
        .arg(target.join("debug/examples/notes"))
        .output()
        .expect("the example runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.starts_with("note_"), "{stdout}");
    assert!(stdout.contains("buy milk"), "{stdout}");
    assert!(
        output.stderr.is_empty(),
        "no drift expected: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}
