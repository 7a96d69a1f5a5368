//! The example against the real `notes` server.

use std::process::Command;

#[test]
fn creates_and_reads_a_note() {
    let notes = mcp_tests::build::example("notes");
    let output = Command::new(env!("CARGO_BIN_EXE_typed-notes-example"))
        .arg(notes)
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
