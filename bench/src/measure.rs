//! Measuring helpers the scaling benchmarks share.

use std::path::PathBuf;

/// Resident memory of this process in bytes, from `/proc/self/statm`; 0
/// where that cannot be read.
pub fn resident() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| pages * 4096)
}

/// Resident memory of process `pid` in bytes; 0 where that cannot be read.
pub fn resident_of(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/statm"))
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| pages * 4096)
}

/// The processes whose parent is this one (the servers a host started).
pub fn children() -> Vec<u32> {
    let me = std::process::id();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            // `pid (comm) state ppid ...`; comm may hold spaces, so read
            // after its closing parenthesis.
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|s| {
                    let rest = &s[s.rfind(')')? + 1..];
                    rest.split_whitespace().nth(1)?.parse::<u32>().ok()
                })
                == Some(me)
        })
        .collect()
}

/// A number this benchmark prints when run again, in a fresh process, with
/// `args`: how each memory figure is taken, so that no freed memory of an
/// earlier measurement can hide what is held.
///
/// # Panics
///
/// When the run fails or prints something else.
pub fn in_fresh_process(args: &[&str]) -> u64 {
    let output = std::process::Command::new(std::env::current_exe().expect("this bench"))
        .args(args)
        .output()
        .expect("the bench runs itself");
    assert!(output.status.success(), "{args:?}: {output:?}");
    String::from_utf8_lossy(&output.stdout)
        .trim()
        .parse()
        .expect("a number")
}

/// Where the charts go: the first argument, or `bench/figures`; created.
///
/// # Errors
///
/// When the directory cannot be made.
pub fn figures(args: &[String]) -> std::io::Result<PathBuf> {
    let dir = args.first().map_or_else(
        || PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/figures")),
        PathBuf::from,
    );
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}
