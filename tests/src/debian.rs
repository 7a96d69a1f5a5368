//! Debian packages a test runs, installed pinned when missing: the test
//! calls [`ensure`] with the package, its exact version and the program it
//! needs, and gets the program's path or a message naming what to install.
//!
//! The install needs `apt-get` and root (as on CI); anywhere else the
//! message says which package and version to install by hand.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Mutex;

/// Installs go one at a time, whatever the tests that ask.
static INSTALLING: Mutex<()> = Mutex::new(());

/// `program` on the `PATH` or in `/usr/sbin` and `/usr/bin`.
fn find(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/usr/bin")])
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "0")
}

fn apt_get(args: &[&str]) -> Result<(), String> {
    let status = Command::new("apt-get")
        .args(args)
        .env("DEBIAN_FRONTEND", "noninteractive")
        .stdout(Stdio::null())
        .status()
        .map_err(|e| format!("apt-get: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("apt-get {} failed ({status})", args.join(" ")))
    }
}

/// The path of `program`, from the Debian package `package` at `version`,
/// which is installed first if the program is missing.
///
/// # Errors
///
/// A message naming the package and version to install, when it is
/// missing and cannot be installed here.
pub fn ensure(package: &str, version: &str, program: &str) -> Result<PathBuf, String> {
    let _one_at_a_time = INSTALLING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(found) = find(program) {
        return Ok(found);
    }
    let by_hand = format!(
        "`{program}` is missing: install the Debian package {package} (version {version}), \
         e.g. `apt-get install {package}={version}`"
    );
    if !is_root() || find("apt-get").is_none() {
        return Err(by_hand);
    }
    let pinned = format!("{package}={version}");
    let install = [
        "install",
        "-y",
        "-qq",
        "--no-install-recommends",
        pinned.as_str(),
    ];
    // The package lists may be missing or old: refresh once and retry.
    if apt_get(&install).is_err() {
        apt_get(&["update", "-qq"]).map_err(|e| format!("{by_hand} ({e})"))?;
        apt_get(&install).map_err(|e| format!("{by_hand} ({e})"))?;
    }
    find(program).ok_or(by_hand)
}
