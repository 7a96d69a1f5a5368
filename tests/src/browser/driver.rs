//! The `chromedriver` process: on a free loopback port, in a process
//! group of its own so that the Chromium it starts goes with it, and
//! stopped by that id when dropped.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;

/// A running `chromedriver`.
#[derive(Debug)]
pub(super) struct Driver {
    child: Child,
    port: u16,
    log: PathBuf,
}

impl Driver {
    /// Starts `chromedriver`, logging to `scratch`, a directory of the
    /// browser's own, and waits up to 20 s for it to listen.
    ///
    /// chromedriver cannot be told to take port 0 and say which it got,
    /// so the port is one that was free a moment before; a start that
    /// loses it to another process is tried again.
    pub(super) fn start(chromedriver: &Path, scratch: &Path) -> Result<Driver, String> {
        let log = scratch.join("chromedriver.log");
        let mut last = String::new();
        for _ in 0..3 {
            let port = TcpListener::bind("127.0.0.1:0")
                .and_then(|listener| listener.local_addr())
                .map_err(|e| format!("no free loopback port for chromedriver: {e}"))?
                .port();
            let child = Command::new(chromedriver)
                .arg(format!("--port={port}"))
                // Only this machine may connect (the default, said
                // explicitly), and only a client that sends no Origin or
                // a loopback one: no web page can drive the browser.
                .arg("--allowed-ips=")
                .arg(format!("--allowed-origins=http://127.0.0.1:{port}"))
                .arg(format!("--log-path={}", log.display()))
                // Chromium's crash handler keeps its database under the
                // configuration directory: the scratch one, not the home.
                .env("XDG_CONFIG_HOME", scratch)
                .env("XDG_CACHE_HOME", scratch)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                // Its own group, whose id is its pid: the Chromium it
                // starts joins it, and Drop stops the group.
                .process_group(0)
                .spawn()
                .map_err(|e| format!("{} does not start: {e}", chromedriver.display()))?;
            let mut driver = Driver {
                child,
                port,
                log: log.clone(),
            };
            match driver.wait_listening() {
                Ok(()) => return Ok(driver),
                Err(why) => last = why,
            }
        }
        Err(last)
    }

    fn wait_listening(&mut self) -> Result<(), String> {
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(format!(
                    "chromedriver exited with {status} before it listened on port {}: {}",
                    self.port,
                    self.log_tail()
                ));
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "chromedriver does not listen on port {} after 20 s: {}",
                    self.port,
                    self.log_tail()
                ));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(())
    }

    /// Where a WebDriver client reaches it.
    pub(super) fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The last lines of its log, for a message saying why it failed.
    pub(super) fn log_tail(&self) -> String {
        let log = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        let tail = lines[lines.len().saturating_sub(15)..].join("\n");
        format!("the end of {}:\n{tail}", self.log.display())
    }

    /// Ends the WebDriver session `id`, which has chromedriver quit its
    /// Chromium: a blocking request, as it is made from `Drop`, where no
    /// runtime can be relied on. Best effort; the process group is
    /// stopped after it whatever it answers.
    pub(super) fn end_session(&self, id: &str) {
        let Ok(mut stream) = TcpStream::connect(("127.0.0.1", self.port)) else {
            return;
        };
        let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
        let request = format!(
            "DELETE /session/{id} HTTP/1.1\r\nhost: 127.0.0.1:{}\r\nconnection: close\r\n\r\n",
            self.port
        );
        if stream.write_all(request.as_bytes()).is_ok() {
            let _ = stream.read_to_end(&mut Vec::new());
        }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        // The group's id is chromedriver's own pid (see `start`): this
        // reaches it and whatever Chromium processes are left, nothing
        // else. The pid is still ours until `wait` reaps it.
        if let Ok(pid) = i32::try_from(self.child.id()) {
            let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
