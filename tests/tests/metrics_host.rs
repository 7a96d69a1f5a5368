//! The `everything` example's Prometheus endpoint checks `Host` as its MCP
//! endpoint does: binding loopback does not stop a page the browser loaded
//! from a rebinding name (a name of the attacker's that resolves to
//! 127.0.0.1) from reading the metrics; the `Host` it sends gives it away.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A child process killed (by its own pid) when dropped.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// `GET /metrics` with `host`, as sent; the status and the body.
fn get(port: u16, host: &str) -> Option<(u16, String)> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .expect("timeout");
    let request = format!("GET /metrics HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).ok()?;
    let mut raw = String::new();
    stream.read_to_string(&mut raw).ok()?;
    let (head, body) = raw.split_once("\r\n\r\n")?;
    let status = head.split(' ').nth(1)?.parse().ok()?;
    Some((status, body.to_owned()))
}

#[test]
fn the_metrics_endpoint_refuses_a_foreign_host() {
    let everything = mcp_tests::build::example("everything");
    let port = free_port();
    let _server = Running(
        Command::new(everything)
            .args(["--http", "127.0.0.1:0"])
            .env("MCP_METRICS_ADDR", format!("127.0.0.1:{port}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the example starts"),
    );
    let ours = format!("127.0.0.1:{port}");
    let deadline = Instant::now() + Duration::from_secs(30);
    let served = loop {
        if let Some(answer) = get(port, &ours) {
            break answer;
        }
        assert!(
            Instant::now() < deadline,
            "the metrics endpoint never answered"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    // The control: its own name gets the metrics.
    assert_eq!(served.0, 200, "{}", served.1);
    for host in [
        format!("attacker.example:{port}"),
        format!("[::1].attacker.example:{port}"),
    ] {
        let (status, body) = get(port, &host).expect("an answer");
        assert_eq!(status, 403, "{host}: {body}");
        assert!(!body.contains("# TYPE"), "{host} read the metrics: {body}");
    }
}
