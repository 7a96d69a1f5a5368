//! Driving a server over its stdin and stdout: sequential round trips, then
//! pipelined bursts written by a second thread.

use std::io::{self, BufRead, BufReader, Write};
use std::process::{ChildStdin, ChildStdout};
use std::time::{Duration, Instant};

use crate::figures::Figures;
use crate::proc::{self, Running};
use crate::{Plan, Subject};

/// The protocol era a server is driven in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Era {
    /// 2026-07-28: each request carries its version and the client's
    /// capabilities in `_meta`; no handshake.
    Modern,
    /// 2025-11-25: `initialize` and `notifications/initialized` first, then
    /// bare requests.
    Legacy,
}

const MODERN_META: &str = r#","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcp-bench","version":"0"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// A `tools/call` of `add(id, 1)` as one JSON line; the expected answer is
/// the text `id + 1`.
pub fn call(id: u64, era: Era) -> String {
    let meta = match era {
        Era::Modern => MODERN_META,
        Era::Legacy => "",
    };
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add","arguments":{{"a":{id},"b":1}}{meta}}}}}"#
    ) + "\n"
}

pub fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

struct Session {
    process: Running,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    line: Vec<u8>,
}

impl Session {
    fn start(subject: &Subject) -> io::Result<Session> {
        let mut process = Running::spawn(&subject.path, subject.args)?;
        let input = process
            .0
            .stdin
            .take()
            .ok_or_else(|| io::Error::other("no stdin"))?;
        let output = process
            .0
            .stdout
            .take()
            .ok_or_else(|| io::Error::other("no stdout"))?;
        Ok(Session {
            process,
            input,
            output: BufReader::new(output),
            line: Vec::new(),
        })
    }

    fn round_trip(&mut self, request: &[u8]) -> io::Result<&[u8]> {
        self.input.write_all(request)?;
        self.input.flush()?;
        next_line(&mut self.output, &mut self.line)?;
        Ok(&self.line)
    }

    fn handshake(&mut self) -> io::Result<()> {
        let answer = self.round_trip(format!("{INITIALIZE}\n").as_bytes())?;
        if !contains(answer, b"\"result\"") {
            return Err(io::Error::other(format!(
                "initialize failed: {}",
                String::from_utf8_lossy(answer)
            )));
        }
        self.input
            .write_all(format!("{INITIALIZED}\n").as_bytes())?;
        self.input.flush()
    }
}

/// One round: start `subject`, read its idle RSS, time sequential round
/// trips, then pipelined bursts, then read its RSS again.
pub fn measure(subject: &Subject, plan: &Plan) -> io::Result<Figures> {
    let mut session = Session::start(subject)?;
    let pid = session.process.pid();
    let mut figures = Figures {
        idle_rss_kib: vec![session.process.idle_rss()?],
        ..Figures::default()
    };
    let era = subject.era.unwrap_or(Era::Modern);
    if era == Era::Legacy {
        session.handshake()?;
    }
    let check = subject.era.is_some();
    let mut id = 1;
    for timed in [false, true] {
        let count = if timed { plan.sequential } else { plan.warmup };
        for _ in 0..count {
            let request = call(id, era);
            // rmcp's calculator answers the sum as text; ours as
            // structured content (`{"result": N}`) with its text copy.
            let expected = format!("\"text\":\"{}\"", id + 1);
            let structured = format!("\"structuredContent\":{{\"result\":{}}}", id + 1);
            let start = Instant::now();
            let answer = session.round_trip(request.as_bytes())?;
            let elapsed = start.elapsed();
            if check
                && !contains(answer, expected.as_bytes())
                && !contains(answer, structured.as_bytes())
            {
                return Err(io::Error::other(format!(
                    "unexpected answer: {}",
                    String::from_utf8_lossy(answer)
                )));
            }
            if timed {
                figures.latencies.push(elapsed);
            }
            id += 1;
        }
    }
    for _ in 0..plan.bursts {
        let burst: String = (id..id + plan.pipelined as u64)
            .map(|i| call(i, era))
            .collect();
        id += plan.pipelined as u64;
        let cpu_before = proc::cpu_time(pid)?;
        let elapsed = pipelined(&mut session, burst.as_bytes(), plan.pipelined, check)?;
        figures.cpu += proc::cpu_time(pid)? - cpu_before;
        figures.calls += plan.pipelined as u64;
        figures
            .rates
            .push(plan.pipelined as f64 / elapsed.as_secs_f64());
    }
    figures.loaded_rss_kib.push(proc::rss_kib(pid)?);
    Ok(figures)
}

/// Writes `burst` (`count` requests) from a second thread while this one
/// reads the `count` answers; returns the time from the first write to the
/// last answer.
fn pipelined(
    session: &mut Session,
    burst: &[u8],
    count: usize,
    check: bool,
) -> io::Result<Duration> {
    let Session {
        process,
        input,
        output,
        line,
    } = session;
    let start = Instant::now();
    std::thread::scope(|scope| {
        let writer = scope.spawn(move || input.write_all(burst).and_then(|()| input.flush()));
        let read = read_answers(output, line, count, check);
        if read.is_err() {
            // The writer may be blocked on a server that stopped reading.
            let _ = process.0.kill();
        }
        let elapsed = start.elapsed();
        let written = writer
            .join()
            .map_err(|_| io::Error::other("writer panicked"))?;
        // A refused answer explains a broken pipe better than the pipe does.
        read.and(written).map(|()| elapsed)
    })
}

fn read_answers(
    output: &mut BufReader<ChildStdout>,
    line: &mut Vec<u8>,
    count: usize,
    check: bool,
) -> io::Result<()> {
    for _ in 0..count {
        next_line(output, line)?;
        if check && !contains(line, b"\"result\"") {
            return Err(io::Error::other(format!(
                "unexpected answer: {}",
                String::from_utf8_lossy(line)
            )));
        }
    }
    Ok(())
}

/// Reads the next line of `output` into `line`.
fn next_line(output: &mut BufReader<ChildStdout>, line: &mut Vec<u8>) -> io::Result<()> {
    line.clear();
    if output.read_until(b'\n', line)? == 0 {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "server closed stdout",
        ));
    }
    Ok(())
}
