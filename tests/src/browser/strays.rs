//! The stray listener: a plain TCP listener on loopback that Chromium's
//! proxy setting sends every request not meant for loopback to. It
//! forwards nothing; it records each connection and the first line of
//! its request (`GET http://example.com/x HTTP/1.1`, `CONNECT
//! example.org:443 HTTP/1.1`), answers 403 and hangs up, so a test can
//! assert that nothing tried to leave, and see what did.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

/// One connection the stray listener took.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stray {
    /// The first line of its request, without the line end; `None` while
    /// nothing has arrived (a preconnect sends nothing for a while), or
    /// when nothing did before the listener gave up on it.
    pub first_line: Option<String>,
}

/// What the listener's connections have recorded so far.
type Record = Arc<Mutex<Vec<Stray>>>;

/// The listener and its accepting thread, stopped when dropped.
#[derive(Debug)]
pub(super) struct StrayListener {
    addr: SocketAddr,
    seen: Record,
    stopping: Arc<AtomicBool>,
    accepting: Option<JoinHandle<()>>,
}

impl StrayListener {
    /// Listens on a free loopback port.
    pub(super) fn start() -> Result<StrayListener, String> {
        let listener = TcpListener::bind("127.0.0.1:0")
            .map_err(|e| format!("the stray listener cannot bind to loopback: {e}"))?;
        let addr = listener
            .local_addr()
            .map_err(|e| format!("the stray listener has no address: {e}"))?;
        let seen = Record::default();
        let stopping = Arc::new(AtomicBool::new(false));
        let accepting = {
            let (seen, stopping) = (seen.clone(), stopping.clone());
            std::thread::spawn(move || accept(&listener, &seen, &stopping))
        };
        Ok(StrayListener {
            addr,
            seen,
            stopping,
            accepting: Some(accepting),
        })
    }

    pub(super) fn port(&self) -> u16 {
        self.addr.port()
    }

    /// Every connection so far, in the order they came.
    pub(super) fn seen(&self) -> Vec<Stray> {
        self.seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

fn accept(listener: &TcpListener, seen: &Record, stopping: &AtomicBool) {
    for stream in listener.incoming() {
        if stopping.load(Ordering::SeqCst) {
            return;
        }
        let Ok(stream) = stream else { continue };
        let index = {
            let mut seen = seen.lock().unwrap_or_else(PoisonError::into_inner);
            seen.push(Stray { first_line: None });
            seen.len() - 1
        };
        let seen = seen.clone();
        std::thread::spawn(move || {
            if let Some(line) = first_line(&stream) {
                seen.lock().unwrap_or_else(PoisonError::into_inner)[index].first_line = Some(line);
            }
            // Refused, not forwarded: the browser sees an error at once.
            let _ = (&stream).write_all(
                b"HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
            );
        });
    }
}

/// The request's first line, if one arrives within a few seconds.
fn first_line(stream: &TcpStream) -> Option<String> {
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    let mut line = String::new();
    BufReader::new(stream).read_line(&mut line).ok()?;
    let line = line.trim_end();
    (!line.is_empty()).then(|| line.to_owned())
}

impl Drop for StrayListener {
    fn drop(&mut self) {
        // The accepting thread wakes for one more connection, sees the
        // flag and returns without recording it.
        self.stopping.store(true, Ordering::SeqCst);
        if TcpStream::connect(self.addr).is_ok() {
            if let Some(accepting) = self.accepting.take() {
                let _ = accepting.join();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn records_the_first_line_and_refuses() {
        let strays = StrayListener::start().expect("a loopback listener");
        let mut stream = TcpStream::connect(("127.0.0.1", strays.port())).expect("connects");
        stream
            .write_all(b"CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n\r\n")
            .expect("writes");
        let mut answer = String::new();
        stream.read_to_string(&mut answer).expect("reads");
        assert!(answer.starts_with("HTTP/1.1 403 "), "{answer}");
        assert_eq!(
            strays.seen(),
            [Stray {
                first_line: Some("CONNECT example.org:443 HTTP/1.1".to_owned())
            }]
        );
    }
}
