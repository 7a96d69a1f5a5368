//! The server runtime benchmark driver. `python3 bench/server_bench.py`
//! builds the programs it measures and runs it:
//!
//! ```text
//! server --ours CALCULATOR --rmcp RMCP_CALCULATOR --echo LINE_ECHO [--quick] [--rounds N]
//! ```
//!
//! Each program is started fresh for every measurement, in rounds that
//! alternate between the programs so that a change in the machine's load
//! falls on all of them alike. Samples are pooled across rounds.

mod figures;
mod http;
mod proc;
mod stdio;
mod table;

use std::path::PathBuf;
use std::time::Duration;

use figures::Figures;
use stdio::Era;

/// How much work each measurement does.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    /// Rounds over all the programs.
    pub rounds: usize,
    /// Round trips before the sequential measurement starts.
    pub warmup: usize,
    /// Timed sequential round trips per round.
    pub sequential: usize,
    /// Requests per pipelined burst.
    pub pipelined: usize,
    /// Pipelined bursts per round.
    pub bursts: usize,
    /// Concurrent HTTP connections, one measurement per entry.
    pub connections: &'static [usize],
    /// HTTP load before the timed window.
    pub http_warmup: Duration,
    /// The timed HTTP window.
    pub http_window: Duration,
}

impl Plan {
    const FULL: Plan = Plan {
        rounds: 3,
        warmup: 500,
        sequential: 2000,
        pipelined: 20_000,
        bursts: 3,
        connections: &[8, 32],
        http_warmup: Duration::from_secs(1),
        http_window: Duration::from_secs(5),
    };

    const QUICK: Plan = Plan {
        rounds: 1,
        warmup: 100,
        sequential: 300,
        pipelined: 2_000,
        bursts: 1,
        connections: &[8],
        http_warmup: Duration::from_millis(200),
        http_window: Duration::from_secs(1),
    };
}

/// One program driven over stdio in one era; `era: None` is an echo,
/// which is sent modern requests and answers each with itself.
#[derive(Clone, Debug)]
pub struct Subject {
    pub name: &'static str,
    pub path: PathBuf,
    pub args: &'static [&'static str],
    pub era: Option<Era>,
}

struct Args {
    ours: PathBuf,
    rmcp: PathBuf,
    echo: PathBuf,
    plan: Plan,
}

const USAGE: &str = "usage: server --ours PATH --rmcp PATH --echo PATH [--quick] [--rounds N]";

fn args() -> Result<Args, String> {
    let (mut ours, mut rmcp, mut echo) = (None, None, None);
    let mut plan = Plan::FULL;
    let mut rounds = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--ours" => ours = args.next().map(PathBuf::from),
            "--rmcp" => rmcp = args.next().map(PathBuf::from),
            "--echo" => echo = args.next().map(PathBuf::from),
            "--quick" => plan = Plan::QUICK,
            "--rounds" => rounds = args.next().and_then(|n| n.parse().ok()),
            _ => return Err(USAGE.to_owned()),
        }
    }
    if let Some(rounds) = rounds {
        plan.rounds = rounds;
    }
    match (ours, rmcp, echo) {
        (Some(ours), Some(rmcp), Some(echo)) => Ok(Args {
            ours,
            rmcp,
            echo,
            plan,
        }),
        _ => Err(USAGE.to_owned()),
    }
}

fn main() {
    let args = args().unwrap_or_else(|usage| {
        eprintln!("{usage}");
        std::process::exit(2);
    });
    let subjects = [
        Subject {
            name: "ours",
            path: args.ours.clone(),
            args: &["--stdio"],
            era: Some(Era::Modern),
        },
        Subject {
            name: "rmcp",
            path: args.rmcp.clone(),
            args: &["--stdio"],
            era: Some(Era::Modern),
        },
        Subject {
            name: "rmcp (handshake)",
            path: args.rmcp.clone(),
            args: &["--stdio"],
            era: Some(Era::Legacy),
        },
        Subject {
            name: "echo",
            path: args.echo.clone(),
            args: &[],
            era: None,
        },
        Subject {
            name: "JSON echo",
            path: args.echo.clone(),
            args: &["--json"],
            era: None,
        },
    ];
    let servers = [&args.ours, &args.rmcp];
    let plan = args.plan;
    let mut stdio_figures = vec![Figures::default(); subjects.len()];
    let mut http_figures = vec![vec![Figures::default(); servers.len()]; plan.connections.len()];
    for round in 1..=plan.rounds {
        eprintln!("round {round} of {}", plan.rounds);
        for (subject, figures) in subjects.iter().zip(&mut stdio_figures) {
            eprintln!("  stdio {}", subject.name);
            let measured = stdio::measure(subject, &plan)
                .unwrap_or_else(|e| panic!("stdio {}: {e}", subject.name));
            figures.merge(measured);
        }
        for (&connections, level) in plan.connections.iter().zip(&mut http_figures) {
            for (path, figures) in servers.iter().zip(level.iter_mut()) {
                eprintln!("  http {} ({connections} connections)", path.display());
                let measured = http::measure(path, &plan, connections)
                    .unwrap_or_else(|e| panic!("http {}: {e}", path.display()));
                figures.merge(measured);
            }
        }
    }
    let sizes = [&args.ours, &args.rmcp, &args.echo].map(|path| {
        std::fs::metadata(path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .len()
    });
    table::print(&plan, &subjects, &stdio_figures, &http_figures, sizes);
}
