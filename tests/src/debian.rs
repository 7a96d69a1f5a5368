//! Debian packages a test runs, installed pinned when missing: the test
//! calls [`ensure`] with the package, its exact version and the program it
//! needs, and gets the program's path or a message naming what to install.
//! A package whose archive moves to each new upstream release (Chromium in
//! Debian's security archive) is asked for with [`ensure_at_least`]
//! instead: the pinned version or any newer one.
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

pub(crate) fn is_root() -> bool {
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
    ensure_accepting(package, version, program, Accept::SameRelease)
}

/// The path of `program`, from the Debian package `package` at `version`
/// or newer, which is installed first if the program is missing: the
/// pinned version when the archive still has it, else its newest.
///
/// For packages the archive replaces with each upstream release rather
/// than with another build of the same one, as Debian's security archive
/// does Chromium: an install pinned to one release would fail on the day
/// the next one lands. The version a test ran with is then what the
/// program reports, not the pin.
///
/// # Errors
///
/// A message naming the package and version to install, when it is
/// missing or older and cannot be installed here.
pub fn ensure_at_least(package: &str, version: &str, program: &str) -> Result<PathBuf, String> {
    ensure_accepting(package, version, program, Accept::OrNewer)
}

/// Which installed versions a pin accepts besides its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Accept {
    /// Another build of the pinned release (see [`same_release`]).
    SameRelease,
    /// Any version dpkg orders at or after the pinned one.
    OrNewer,
}

impl Accept {
    fn accepts(self, installed: &str, version: &str) -> bool {
        match self {
            Accept::SameRelease => same_release(installed, version),
            Accept::OrNewer => installed == version || dpkg_orders(installed, "gt", version),
        }
    }

    /// How the pin reads in a message.
    fn describe(self, version: &str) -> String {
        match self {
            Accept::SameRelease => {
                format!("the pinned {version} (or a newer build of its release)")
            }
            Accept::OrNewer => format!("{version} or newer"),
        }
    }
}

/// `dpkg --compare-versions a op b`: Debian's version order, epochs and
/// tildes included, which a comparison of strings gets wrong.
fn dpkg_orders(a: &str, op: &str, b: &str) -> bool {
    Command::new("dpkg")
        .args(["--compare-versions", a, op, b])
        .status()
        .is_ok_and(|status| status.success())
}

fn ensure_accepting(
    package: &str,
    version: &str,
    program: &str,
    accept: Accept,
) -> Result<PathBuf, String> {
    let _one_at_a_time = INSTALLING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(found) = find(program) {
        // Found is not enough: it must be the pinned package's build.
        return match installed(package) {
            Some(installed) if accept.accepts(&installed, version) => Ok(found),
            Some(installed) => Err(format!(
                "`{program}` is {package} {installed}, not {}: install {package}={version}",
                accept.describe(version)
            )),
            None => Err(format!(
                "`{program}` at {} does not come from the Debian package {package}: install \
                 {package}={version}",
                found.display()
            )),
        };
    }
    let by_hand = format!(
        "`{program}` is missing: install the Debian package {package} ({}), \
         e.g. `apt-get install {package}={version}`",
        accept.describe(version)
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
        if let Err(e) = apt_get(&install) {
            // Debian's security archive keeps only the newest build of a
            // release: a pinned security build is replaced by the next.
            // Chromium's is replaced by the next release.
            let Some(newer) = newer_build(package, version, accept) else {
                return Err(format!("{by_hand} ({e})"));
            };
            eprintln!("{package}={version} is gone from the archive; installing {newer}");
            let pinned = format!("{package}={newer}");
            let install = ["install", "-y", "-qq", "--no-install-recommends", &pinned];
            apt_get(&install).map_err(|e| format!("{by_hand} ({e})"))?;
        }
    }
    let found = find(program).ok_or_else(|| by_hand.clone())?;
    match installed(package) {
        Some(installed) if accept.accepts(&installed, version) => Ok(found),
        other => Err(format!(
            "{by_hand} (after the install, dpkg reports {})",
            other.as_deref().unwrap_or("no such package")
        )),
    }
}

/// The version of `package` dpkg has installed, if any.
fn installed(package: &str) -> Option<String> {
    let out = Command::new("dpkg-query")
        .args(["-W", "-f=${Status}|${Version}", package])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let (status, version) = text.split_once('|')?;
    (out.status.success() && status.ends_with(" installed") && !version.is_empty())
        .then(|| version.to_owned())
}

/// Whether `installed` is the pinned `version`, or another build of its
/// release (the same version up to its `deb12u` suffix), which is what
/// Debian's security archive replaces a pinned build with.
fn same_release(installed: &str, version: &str) -> bool {
    installed == version
        || version
            .rfind("deb12u")
            .is_some_and(|at| installed.starts_with(&version[..at + "deb12u".len()]))
}

/// The newest version in the archive that `accept` takes for `version`:
/// with [`Accept::SameRelease`], the newest build of its release, the same
/// version up to its `deb12u` suffix (`1.22.1-9+deb12u12` for
/// `1.22.1-9+deb12u11`); with [`Accept::OrNewer`], the newest at or after
/// it. `None` when the archive has none (or, for a release, the version
/// has no such suffix).
fn newer_build(package: &str, version: &str, accept: Accept) -> Option<String> {
    if accept == Accept::SameRelease {
        version.rfind("deb12u")?;
    }
    let listed = match Command::new("apt-cache")
        .args(["madison", package])
        .output()
    {
        Ok(listed) if listed.status.success() => listed,
        Ok(listed) => {
            eprintln!(
                "apt-cache madison {package} failed: {}",
                String::from_utf8_lossy(&listed.stderr)
            );
            return None;
        }
        Err(e) => {
            eprintln!("apt-cache is missing ({e}): cannot look for a newer build of {package}");
            return None;
        }
    };
    let listed = String::from_utf8_lossy(&listed.stdout);
    let mut newest: Option<String> = None;
    for candidate in listed.lines().filter_map(|line| line.split('|').nth(1)) {
        let candidate = candidate.trim();
        if !accept.accepts(candidate, version) {
            continue;
        }
        let newer = newest
            .as_deref()
            .is_none_or(|best| dpkg_orders(candidate, "gt", best));
        if newer {
            newest = Some(candidate.to_owned());
        }
    }
    newest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replaced_security_build_resolves_to_a_build_of_the_same_release() {
        let release = Accept::SameRelease;
        assert_eq!(
            newer_build("nginx", "1.22.1-9", release),
            None,
            "no deb12u suffix"
        );
        // Without apt-cache the rule below cannot be checked: that is a
        // failure naming what is missing, not a pass.
        assert!(
            find("apt-cache").is_some(),
            "apt-cache is missing: this test needs Debian's apt (the machine CI runs on)"
        );
        // An early build of the release CI pins, long replaced. Package
        // lists that are missing are fetched once (as root, as on CI).
        let mut found = newer_build("nginx", "1.22.1-9+deb12u1", release);
        if found.is_none() && is_root() {
            let _ = apt_get(&["update", "-qq"]);
            found = newer_build("nginx", "1.22.1-9+deb12u1", release);
        }
        let found = found.expect(
            "the package lists have no build of nginx 1.22.1-9 (run `apt-get update` as root)",
        );
        assert!(found.starts_with("1.22.1-9+deb12u"), "{found}");
    }
}

#[cfg(test)]
mod release_tests {
    use super::same_release;

    #[test]
    fn a_newer_build_of_the_release_counts_and_nothing_else() {
        assert!(same_release("5:7.0.15-1~deb12u10", "5:7.0.15-1~deb12u10"));
        assert!(same_release("5:7.0.15-1~deb12u11", "5:7.0.15-1~deb12u10"));
        assert!(!same_release("5:7.2.4-1", "5:7.0.15-1~deb12u10"));
        assert!(!same_release("5:7.0.16-1~deb12u1", "5:7.0.15-1~deb12u10"));
        assert!(!same_release("1.0", "1.1"));
    }
}

#[cfg(test)]
mod or_newer_tests {
    use super::{find, Accept};

    #[test]
    fn the_next_release_counts_and_an_older_one_does_not() {
        // The order is dpkg's: without it this test would pass on a
        // comparison of strings, which it is here to rule out.
        assert!(
            find("dpkg").is_some(),
            "dpkg is missing: this test needs Debian's dpkg (the machine CI runs on)"
        );
        let pin = "156.0.8078.114-1~deb12u1";
        let accepts = |installed| Accept::OrNewer.accepts(installed, pin);
        assert!(accepts(pin));
        assert!(accepts("156.0.8078.114-1~deb12u2"));
        assert!(accepts("157.0.8100.1-1~deb12u1"));
        assert!(accepts("1000.0.1.1-1~deb12u1"), "numeric, not lexical");
        assert!(!accepts("150.0.7871.100-1~deb12u1"));
        assert!(
            !accepts("156.0.8078.114-1~deb11u9"),
            "an older Debian release's build"
        );
        assert!(!accepts("99.0.1-1"));
    }
}
