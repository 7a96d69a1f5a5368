//! `mcp-host` at a pseudo-terminal: typing at it and reading what it
//! shows, the way a person drives it.
//!
//! Each command runs in a session of its own whose controlling terminal is
//! the pseudo-terminal, as a shell would start it, so Ctrl-C and Ctrl-D
//! typed on it mean what they mean to a person.

use super::PROBE_TIMEOUT;
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::OwnedFd;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::Value;

/// How long to wait for anything the command should show: generous, for a
/// loaded machine. Passing tests take a fraction of it.
pub const PATIENCE: Duration = Duration::from_secs(30);

/// Runs its arguments as a program in a new session whose controlling
/// terminal is the one on its stderr, as a shell does for a foreground job.
const SESSION: &str = "import fcntl, os, sys, termios
os.setsid()
fcntl.ioctl(2, termios.TIOCSCTTY, 0)
os.execv(sys.argv[1], sys.argv[1:])";

/// Enter, as a terminal sends it.
pub const ENTER: &str = "\r";
/// Ctrl-C: the terminal interrupts the command.
pub const CTRL_C: &str = "\u{3}";
/// Ctrl-D at the start of a line: the end of input.
pub const CTRL_D: &str = "\u{4}";

/// `mcp-host` running at a pseudo-terminal.
pub struct Pty {
    /// The command: the session leader, which becomes `mcp-host`.
    pub child: Child,
    /// The master side: what is typed goes in, what is shown comes out.
    keyboard: File,
    output: Receiver<Vec<u8>>,
    /// Every byte shown so far.
    pub raw: Vec<u8>,
    /// How far into the screen text [`Pty::expect`] has read.
    read: usize,
}

impl Pty {
    /// Starts `mcp-host --config CONFIG ARGS..` with stdout and stderr on
    /// a new pseudo-terminal, and stdin too unless `stdin` is given.
    pub fn spawn(config: &Path, args: &[&str], stdin: Option<Stdio>) -> Self {
        let pty = nix::pty::openpty(None, None).expect("a pseudo-terminal");
        let slave = |fd: &OwnedFd| Stdio::from(fd.try_clone().expect("a terminal descriptor"));
        let child = Command::new("python3")
            .args(["-c", SESSION, env!("CARGO_BIN_EXE_mcp-host"), "--config"])
            .env("XDG_STATE_HOME", super::state_home())
            .arg(config)
            // Room for slow-starting servers on a loaded machine.
            .args(["--probe-timeout", PROBE_TIMEOUT])
            .args(args)
            .stdin(stdin.unwrap_or_else(|| slave(&pty.slave)))
            .stdout(slave(&pty.slave))
            .stderr(slave(&pty.slave))
            .spawn()
            .expect("mcp-host starts");
        // Only the command holds the terminal now: when it ends, reading
        // the master fails and the reader stops.
        drop(pty.slave);
        let keyboard = File::from(pty.master);
        let mut screen = keyboard.try_clone().expect("a terminal descriptor");
        let (sender, output) = mpsc::channel();
        std::thread::spawn(move || {
            let mut buffer = [0; 4096];
            while let Ok(n @ 1..) = screen.read(&mut buffer) {
                if sender.send(buffer[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        Self {
            child,
            keyboard,
            output,
            raw: Vec::new(),
            read: 0,
        }
    }

    /// The text shown so far, without escape sequences and carriage
    /// returns.
    pub fn screen(&self) -> String {
        plain(&String::from_utf8_lossy(&self.raw))
    }

    /// Takes in the next output the terminal shows within `wait`.
    fn pump(&mut self, wait: Duration) -> Result<(), RecvTimeoutError> {
        let bytes = self.output.recv_timeout(wait)?;
        self.raw.extend(bytes);
        Ok(())
    }

    /// Waits until one of `texts` is shown past what was read before;
    /// the index of the one shown first. Reading moves past it.
    pub fn expect_first(&mut self, texts: &[&str]) -> usize {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let screen = self.screen();
            let unread = &screen[self.read..];
            let found = texts
                .iter()
                .enumerate()
                .filter_map(|(i, text)| Some((unread.find(text)? + text.len(), i)))
                .min();
            if let Some((end, i)) = found {
                self.read += end;
                return i;
            }
            let wait = deadline.saturating_duration_since(Instant::now());
            if let Err(e) = self.pump(wait) {
                panic!("none of {texts:?} was shown ({e}); the terminal shows:\n{screen}");
            }
        }
    }

    /// Waits until `text` is shown past what was read before; what was
    /// shown from there up to and including it.
    pub fn expect(&mut self, text: &str) -> String {
        let from = self.read;
        self.expect_first(&[text]);
        self.screen()[from..self.read].to_owned()
    }

    /// Types `keys`.
    pub fn type_keys(&mut self, keys: &str) {
        self.keyboard
            .write_all(keys.as_bytes())
            .and_then(|()| self.keyboard.flush())
            .expect("typed");
    }

    /// Waits for the command to end; its exit status and everything the
    /// terminal showed.
    pub fn finish(&mut self) -> (ExitStatus, String) {
        let deadline = Instant::now() + PATIENCE;
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("the command's status") {
                break status;
            }
            assert!(
                Instant::now() < deadline,
                "mcp-host did not end; the terminal shows:\n{}",
                self.screen()
            );
            if let Err(RecvTimeoutError::Disconnected) = self.pump(Duration::from_millis(20)) {
                std::thread::sleep(Duration::from_millis(20));
            }
        };
        // What it wrote last is already in the terminal; take it in until
        // the terminal closes (or, should a server outlive it, goes quiet).
        while self.pump(Duration::from_millis(500)).is_ok() {}
        (status, self.screen())
    }
}

impl Drop for Pty {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `text` without ANSI escape sequences and carriage returns.
fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {}
            '\u{1b}' => match chars.next() {
                // CSI: parameters and intermediates up to a final byte.
                Some('[') => {
                    for c in chars.by_ref() {
                        if ('\u{40}'..='\u{7e}').contains(&c) {
                            break;
                        }
                    }
                }
                // OSC: up to BEL or ST.
                Some(']') => {
                    while let Some(c) = chars.next() {
                        if c == '\u{7}' || (c == '\u{1b}' && chars.next_if_eq(&'\\').is_some()) {
                            break;
                        }
                    }
                }
                _ => {}
            },
            c => out.push(c),
        }
    }
    out
}

/// The first JSON value in `text`.
pub fn first_json(text: &str) -> Value {
    let start = text.find(['{', '[']).unwrap_or(text.len());
    serde_json::Deserializer::from_str(&text[start..])
        .into_iter::<Value>()
        .next()
        .and_then(Result::ok)
        .unwrap_or_else(|| panic!("no JSON in:\n{text}"))
}

/// The result the command printed last: the JSON object that opens at the
/// start of a line.
pub fn printed_result(screen: &str) -> Value {
    let start = screen
        .rfind("\n{\n")
        .unwrap_or_else(|| panic!("no result printed; the terminal shows:\n{screen}"));
    first_json(&screen[start..])
}

/// The text of a result's first content block.
pub fn result_text(screen: &str) -> String {
    let result = printed_result(screen);
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text result: {result}"))
        .to_owned()
}
