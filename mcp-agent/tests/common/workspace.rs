//! The workspace around the tests: its root, its target directory, the
//! `mcp-host` command and the example servers built once per test
//! process, and scratch folders.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// The workspace's root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The workspace's `target/debug`, as cargo places it.
fn debug_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map(|t| if t.is_absolute() { t } else { root().join(t) })
        .unwrap_or_else(|| root().join("target"))
        .join("debug")
}

/// `target/debug`, once the `mcp-host` command and the `notes` and
/// `everything` examples of `mcp-server` are built.
pub fn built() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let builds: [&[&str]; 2] = [
            &[
                "build",
                "--quiet",
                "-p",
                "mcp-toolkit-host",
                "--bin",
                "mcp-host",
            ],
            &[
                "build",
                "--quiet",
                "-p",
                "mcp-toolkit-server",
                "--features",
                "sealed-state,validation",
                "--example",
                "everything",
                "--example",
                "notes",
            ],
        ];
        for args in builds {
            let status = Command::new(&cargo)
                .current_dir(root())
                .args(args)
                .stdout(Stdio::null())
                .status()
                .expect("cargo runs");
            assert!(status.success(), "cargo {args:?} failed");
        }
        debug_dir()
    })
}

/// The example server `name`, built.
pub fn example(name: &str) -> PathBuf {
    built().join("examples").join(name)
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
