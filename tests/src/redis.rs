//! A Redis of a test's own: the Debian `redis-server` package, pinned as
//! `.ci/run` pins it (installed first if missing), on a free loopback
//! port, saving nothing; killed and reaped when the [`Redis`] is dropped.
//!
//! ```no_run
//! let redis = mcp_tests::redis::Redis::start();
//! assert!(redis.url().starts_with("redis://127.0.0.1:"));
//! ```

use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The package and its exact version.
const PACKAGE: (&str, &str) = ("redis-server", "5:7.0.15-1~deb12u10");

/// A running `redis-server`.
#[derive(Debug)]
pub struct Redis {
    child: Child,
    url: String,
    server: std::path::PathBuf,
    addr: std::net::SocketAddr,
}

impl Redis {
    /// Starts one and waits up to 30 s for it to listen.
    ///
    /// # Panics
    ///
    /// When the package cannot be had, or the server exits or stays
    /// silent: a test cannot go on without it.
    pub fn start() -> Redis {
        let (package, version) = PACKAGE;
        let server = crate::debian::ensure(package, version, "redis-server")
            .unwrap_or_else(|why| panic!("{why}"));
        let addr = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port");
        let child = spawn(&server, addr);
        let mut redis = Redis {
            child,
            url: format!("redis://{addr}/"),
            server,
            addr,
        };
        redis.wait_listening();
        redis
    }

    fn wait_listening(&mut self) {
        let addr = self.addr;
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect(addr).is_err() {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("redis-server exited with {status} before it listened on {addr}");
            }
            assert!(
                Instant::now() < deadline,
                "redis-server does not listen on {addr}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Cuts it off: the process is killed, so every connection drops and
    /// new ones are refused (nothing listens), until [`Redis::restart`].
    pub fn cut(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Starts it again on the same port, empty, after a [`Redis::cut`].
    pub fn restart(&mut self) {
        self.cut();
        self.child = spawn(&self.server, self.addr);
        self.wait_listening();
    }

    /// Its process id, for a test that stops and resumes it.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Where it listens, as `redis://127.0.0.1:<port>/`.
    pub fn url(&self) -> &str {
        &self.url
    }
}

fn spawn(server: &std::path::Path, addr: std::net::SocketAddr) -> Child {
    Command::new(server)
        .args(["--bind", "127.0.0.1", "--port", &addr.port().to_string()])
        .args(["--save", "", "--appendonly", "no"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("redis-server starts")
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
