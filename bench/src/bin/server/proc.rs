//! What Linux's `/proc` says about a child process, and starting one so
//! that it is always stopped again.

use std::io;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// The kernel reports `utime` and `stime` in units of `USER_HZ`, which is
/// 100 on every Linux architecture.
const TICKS_PER_SECOND: u64 = 100;

/// User plus system CPU time of process `pid`, its finished threads
/// included.
pub fn cpu_time(pid: u32) -> io::Result<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    // The command name may hold spaces; the fields after it do not.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or("", |(_, rest)| rest)
        .split_whitespace()
        .collect();
    // Fields 14 and 15 of stat(5), counted from the state (field 3).
    let ticks = |index: usize| -> io::Result<u64> {
        fields
            .get(index)
            .and_then(|f| f.parse().ok())
            .ok_or_else(|| io::Error::other(format!("unreadable /proc/{pid}/stat")))
    };
    let total = ticks(11)? + ticks(12)?;
    Ok(Duration::from_millis(total * 1000 / TICKS_PER_SECOND))
}

/// The resident set size of process `pid`, in KiB.
pub fn rss_kib(pid: u32) -> io::Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| io::Error::other(format!("no VmRSS in /proc/{pid}/status")))
}

/// A child process that is killed when dropped.
#[derive(Debug)]
pub struct Running(pub Child);

impl Running {
    /// Starts `path` with `args`, stdin and stdout piped, stderr discarded.
    pub fn spawn(path: &Path, args: &[&str]) -> io::Result<Running> {
        Command::new(path)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map(Running)
    }

    pub fn pid(&self) -> u32 {
        self.0.id()
    }

    /// Lets the process settle after start, then reads its RSS.
    pub fn idle_rss(&self) -> io::Result<u64> {
        std::thread::sleep(Duration::from_millis(300));
        rss_kib(self.pid())
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
