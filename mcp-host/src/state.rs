//! The host's state directory and the two ways files are written there:
//! replaced whole and atomically (the pin file), or appended to a line at
//! a time (the audit log). Both are created readable by the user alone.
//! A file that several host processes change (the pins, the credentials)
//! is changed under `locked`, read again and merged there, so that no
//! process's change is lost to another's.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The user's state directory for the host: `$XDG_STATE_HOME/mcp-host`,
/// else `~/.local/state/mcp-host`.
pub fn state_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .map(|home| home.join(".local").join("state"))
        })?;
    Some(base.join("mcp-host"))
}

/// The directory `path` is in, `.` for a bare name.
fn parent(path: &Path) -> &Path {
    path.parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Replaces the file at `path` with `contents`: written to a new file
/// beside it (mode `0600`), flushed, then renamed over it, so a crash
/// leaves the old file or the new, never half of one. The directory is
/// created with mode `0700` when missing.
pub fn replace(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let dir = parent(path);
    create_private_dir(dir)?;
    let name = format!(
        ".{}.{}.{}.tmp",
        path.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed),
    );
    let temporary = dir.join(name);
    let written = (|| {
        let mut file = private_file(&temporary, false)?;
        file.write_all(contents)?;
        file.sync_all()?;
        std::fs::rename(&temporary, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written
}

/// Runs `change` holding an exclusive lock on `path`'s lock file (`.NAME.lock`
/// beside it, mode `0600`), which every host process takes before it
/// reads, merges and replaces the file: changes from several processes
/// are applied one after the other, never over each other. The lock is
/// advisory and released when `change` returns, or when the process
/// ends.
pub fn locked<T>(path: &Path, change: impl FnOnce() -> std::io::Result<T>) -> std::io::Result<T> {
    let dir = parent(path);
    create_private_dir(dir)?;
    let name = format!(
        ".{}.lock",
        path.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    );
    let mut options = std::fs::OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let file = options.open(dir.join(name))?;
    file.lock()?;
    let outcome = change();
    let _ = file.unlock();
    outcome
}

/// Appends `line` and a newline to the file at `path` in one write,
/// creating it (mode `0600`, in a directory of mode `0700`) when missing.
pub(crate) fn append_line(path: &Path, line: &str) -> std::io::Result<()> {
    create_private_dir(parent(path))?;
    let mut file = private_file(path, true)?;
    file.write_all(format!("{line}\n").as_bytes())
}

#[cfg(unix)]
pub(crate) fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    if dir.is_dir() {
        return Ok(());
    }
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

#[cfg(not(unix))]
pub(crate) fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)
}

/// A new file (or, to `append`, a file opened at its end), mode `0600`
/// when it is created.
fn private_file(path: &Path, append: bool) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    if append {
        options.append(true).create(true);
    } else {
        options.write(true).create_new(true);
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_replaced_whole_and_appended_by_line() {
        let dir = std::env::temp_dir().join(format!("mcp-host-state-{}", std::process::id()));
        let file = dir.join("sub").join("f.json");
        replace(&file, b"one").expect("written");
        replace(&file, b"two").expect("replaced");
        assert_eq!(std::fs::read(&file).expect("read"), b"two");
        let log = dir.join("sub").join("log");
        append_line(&log, "a").expect("appended");
        append_line(&log, "b").expect("appended");
        assert_eq!(std::fs::read_to_string(&log).expect("read"), "a\nb\n");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            for path in [&file, &log] {
                let mode = std::fs::metadata(path).expect("meta").permissions().mode();
                assert_eq!(mode & 0o777, 0o600);
            }
        }
        // No temporary file is left behind.
        let left = std::fs::read_dir(dir.join("sub")).expect("dir").count();
        assert_eq!(left, 2);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
