//! The server's per-request work without any I/O: one `tools/call` of
//! `add(a, b)` (the calculator of the server benchmark) taken from bytes to
//! the encoded answer through `Server::handle_bytes`, beside the floor of
//! parsing the same bytes into a `serde_json::Value` and encoding it again.
//!
//! ```text
//! cargo run --release -p mcp-bench --bin pipeline
//! ```

use std::hint::black_box;
use std::time::{Duration, Instant};

use mcp_server::{tool, tools, Outcome, Server};

struct Calculator;

#[tools]
impl Calculator {
    /// Adds `a` and `b`.
    #[tool]
    fn add(
        &self,
        /// The first number.
        a: i64,
        /// The second number.
        b: i64,
    ) -> String {
        (i128::from(a) + i128::from(b)).to_string()
    }
}

const CALLS: usize = 100_000;
const RUNS: usize = 7;

/// Calls per run: `CALLS`, or the number in `PIPELINE_CALLS` (a short run
/// under a profiler or valgrind).
fn calls() -> usize {
    std::env::var("PIPELINE_CALLS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(CALLS)
}

fn request(id: usize) -> Vec<u8> {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add","arguments":{{"a":{id},"b":1}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
    )
    .into_bytes()
}

/// The median over runs of the time per call of `work`.
fn per_call(requests: &[Vec<u8>], mut work: impl FnMut(&[u8]) -> usize) -> Duration {
    let mut runs: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            let mut bytes = 0;
            for request in requests {
                bytes += work(request);
            }
            black_box(bytes);
            start.elapsed() / requests.len() as u32
        })
        .collect();
    runs.sort();
    runs[RUNS / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let _entered = runtime.enter();
    let server = Server::builder(Calculator)
        .info("calculator", "0")
        .tools()
        .build()?;
    let requests: Vec<Vec<u8>> = (1..=calls()).map(request).collect();
    let mut out = Vec::with_capacity(1024);
    let served = per_call(&requests, |bytes| {
        let outcome = runtime.block_on(server.handle_bytes(bytes, None));
        let Outcome::Reply { message, .. } = outcome else {
            panic!("not a reply: {outcome:?}");
        };
        let bytes = message.as_bytes();
        // A benchmark of error replies would flatter the server.
        let has = |needle: &[u8]| bytes.windows(needle.len()).any(|w| w == needle);
        assert!(
            has(br#""result":"#) && has(br#""text":""#),
            "not a result: {message}"
        );
        bytes.len()
    });
    let floor = per_call(&requests, |bytes| {
        let value: serde_json::Value = serde_json::from_slice(bytes).expect("parses");
        out.clear();
        serde_json::to_writer(&mut out, &value).expect("encodes");
        out.len()
    });
    println!("| work per call | ns |");
    println!("| --- | --- |");
    println!(
        "| tools/call through Server::handle_bytes, encoded | {} |",
        served.as_nanos()
    );
    println!(
        "| parse into serde_json::Value and encode (floor) | {} |",
        floor.as_nanos()
    );
    println!(
        "| ratio | {:.2}x |",
        served.as_secs_f64() / floor.as_secs_f64()
    );
    Ok(())
}
