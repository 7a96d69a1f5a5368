//! The workspace's own programs, for tests that run them as processes,
//! built the way `./test` builds them: when the suite has built them, a
//! test asks cargo for nothing new.
//!
//! Two things would make a build started from a test differ from the
//! suite's:
//! - **Features.** `cargo build -p CRATE --features ..` unifies the
//!   features of one package's dependencies, the suite those of the whole
//!   workspace: each distinct set is another build of the crate and of
//!   every dependency whose features it changes. [`workspace`] builds with
//!   the workspace's set (the `everything` example carries every feature
//!   any test of it needs).
//! - **The environment.** A test process carries its crate's
//!   `CARGO_MANIFEST_*` and `CARGO_PKG_*` variables (and `OUT_DIR`, when
//!   it has a build script), and build scripts
//!   that track them (ring's does) run again when they change: ring, and
//!   everything above it up to every crate that speaks HTTPS, is rebuilt,
//!   and again by the next build without them (about 2.5 minutes of a
//!   two-core machine each time). [`cargo`] leaves them out.
//!
//! ```no_run
//! let everything = mcp_tests::build::example("everything");
//! assert!(everything.is_file());
//! ```

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The workspace's root.
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate sits in the workspace root")
}

/// The target directory cargo builds into: `CARGO_TARGET_DIR` (a relative
/// one is taken from the root, where cargo runs), else `target`.
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from) {
        Some(dir) if dir.is_absolute() => dir,
        Some(dir) => root().join(dir),
        None => root().join("target"),
    }
}

/// Whether cargo sets `name` for the crate a test belongs to, as opposed
/// to a setting of the person running it (`CARGO_HOME`,
/// `CARGO_TARGET_DIR`, `CARGO_TERM_COLOR`, ...).
fn set_for_the_crate(name: &str) -> bool {
    name.starts_with("CARGO_PKG_")
        || name.starts_with("CARGO_MANIFEST_")
        || matches!(
            name,
            "CARGO_CRATE_NAME"
                | "CARGO_PRIMARY_PACKAGE"
                | "CARGO_TARGET_TMPDIR"
                | "CARGO_BIN_NAME"
                | "OUT_DIR"
        )
}

/// `cargo` (the one running the tests, else the one on `PATH`) in the
/// workspace's root, without the variables cargo set for the test's own
/// crate.
///
/// Found with `CARGO_LOG=cargo::core::compiler::fingerprint=info`, which
/// says why a unit is rebuilt: `EnvVarChanged { name: "CARGO_MANIFEST_DIR"
/// .. }` and `{ name: "OUT_DIR" .. }` for ring's build script after a
/// build started from a test.
pub fn cargo() -> Command {
    let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    command.current_dir(root());
    for (name, _) in std::env::vars_os() {
        if name.to_str().is_some_and(set_for_the_crate) {
            command.env_remove(name);
        }
    }
    command
}

/// `cargo build --workspace --locked TARGETS`, quietly; panics when the
/// build fails.
pub fn workspace(targets: &[&str]) {
    let status = cargo()
        .args(["build", "--quiet", "--locked", "--workspace"])
        .args(targets)
        .stdout(Stdio::null())
        .status()
        .expect("cargo runs");
    assert!(
        status.success(),
        "cargo build --workspace {targets:?} failed"
    );
}

/// The example `name` of whichever workspace crate has it, built.
pub fn example(name: &str) -> PathBuf {
    workspace(&["--example", name]);
    let path = target_dir().join("debug/examples").join(name);
    assert!(path.is_file(), "{} was not built", path.display());
    path
}

/// The binary `name` of whichever workspace crate has it, built.
pub fn binary(name: &str) -> PathBuf {
    workspace(&["--bin", name]);
    let path = target_dir().join("debug").join(name);
    assert!(path.is_file(), "{} was not built", path.display());
    path
}

#[cfg(test)]
mod tests {
    use super::set_for_the_crate;

    #[test]
    fn only_the_crates_own_variables_are_left_out() {
        for name in [
            "CARGO_MANIFEST_DIR",
            "CARGO_PKG_NAME",
            "CARGO_PKG_VERSION_MAJOR",
            "OUT_DIR",
        ] {
            assert!(set_for_the_crate(name), "{name}");
        }
        for name in [
            "CARGO_HOME",
            "CARGO_TARGET_DIR",
            "CARGO_TERM_COLOR",
            "CARGO",
        ] {
            assert!(!set_for_the_crate(name), "{name}");
        }
    }
}
