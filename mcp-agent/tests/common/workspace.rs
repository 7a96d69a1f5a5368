//! The workspace around the tests: its root, the example servers built
//! once per test process, and scratch folders.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The workspace's root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The example server `name` of the workspace, built as the suite builds
/// it (once per test process and name).
pub fn example(name: &str) -> PathBuf {
    static BUILT: Mutex<Vec<(String, PathBuf)>> = Mutex::new(Vec::new());
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, path)) = built.iter().find(|(n, _)| n == name) {
        return path.clone();
    }
    let path = mcp_tests::build::example(name);
    built.push((name.to_owned(), path.clone()));
    path
}

/// A scratch folder of its own, removed when dropped.
pub struct Scratch(pub PathBuf);

impl Scratch {
    /// A new empty folder under the system's temporary directory, its
    /// name starting with `prefix`.
    pub fn new(prefix: &str) -> Self {
        let mut bytes = [0u8; 8];
        getrandom::fill(&mut bytes).expect("random");
        let name: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let dir = std::env::temp_dir().join(format!("{prefix}-{name}"));
        std::fs::create_dir_all(&dir).expect("scratch");
        Self(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
