//! The server runtime benchmark driver. `python3 bench/server_bench.py`
//! builds the programs it measures and runs it:
//!
//! ```text
//! server --ours CALCULATOR --rmcp RMCP_CALCULATOR --echo LINE_ECHO
//!        [--ours-auth CALCULATOR_WITH_AUTH [--auth-only]] [--quick] [--rounds N]
//! ```
//!
//! Each program is started fresh for every measurement, in rounds that
//! alternate between the programs so that a change in the machine's load
//! falls on all of them alike. Samples are pooled across rounds.
//!
//! With `--ours-auth` (the calculator built with the `auth` feature), the
//! run also measures HTTP with bearer tokens: that calculator without
//! protection, then protected with one token sent over and over (cached
//! after its first verification), and with a token it has not cached on
//! every request (ES256, then RS256), all in the same rounds. `--auth-only`
//! measures those rows alone.

mod figures;
mod http;
mod proc;
mod stdio;
mod table;
mod tokens;

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
    /// Another build of ours, measured beside it instead of rmcp and the
    /// echoes: the same code before a change.
    baseline: Option<PathBuf>,
    ours: PathBuf,
    rmcp: PathBuf,
    echo: PathBuf,
    ours_auth: Option<PathBuf>,
    auth_only: bool,
    plan: Plan,
}

const USAGE: &str = "usage: server --ours PATH (--rmcp PATH --echo PATH [--ours-auth PATH [--auth-only]] | --baseline PATH) [--quick] [--rounds N]";

fn args() -> Result<Args, String> {
    let (mut ours, mut rmcp, mut echo, mut ours_auth) = (None, None, None, None);
    let mut baseline = None;
    let mut auth_only = false;
    let mut plan = Plan::FULL;
    let mut rounds = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--ours" => ours = args.next().map(PathBuf::from),
            "--rmcp" => rmcp = args.next().map(PathBuf::from),
            "--echo" => echo = args.next().map(PathBuf::from),
            "--ours-auth" => ours_auth = args.next().map(PathBuf::from),
            "--baseline" => baseline = args.next().map(PathBuf::from),
            "--auth-only" => auth_only = true,
            "--quick" => plan = Plan::QUICK,
            "--rounds" => rounds = args.next().and_then(|n| n.parse().ok()),
            _ => return Err(USAGE.to_owned()),
        }
    }
    if let Some(rounds) = rounds {
        plan.rounds = rounds;
    }
    match (ours, rmcp, echo) {
        (Some(ours), _, _) if baseline.is_some() => Ok(Args {
            baseline,
            ours,
            rmcp: PathBuf::new(),
            echo: PathBuf::new(),
            ours_auth: None,
            auth_only: false,
            plan,
        }),
        _ if auth_only && ours_auth.is_none() => Err(USAGE.to_owned()),
        // The protected rows alone need no other program.
        (ours, rmcp, echo) if auth_only => Ok(Args {
            baseline: None,
            ours: ours.unwrap_or_default(),
            rmcp: rmcp.unwrap_or_default(),
            echo: echo.unwrap_or_default(),
            ours_auth,
            auth_only,
            plan,
        }),
        (Some(ours), Some(rmcp), Some(echo)) => Ok(Args {
            baseline: None,
            ours,
            rmcp,
            echo,
            ours_auth,
            auth_only,
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
    if let Some(baseline) = &args.baseline {
        return before_and_after(&args.ours, baseline, &args.plan);
    }
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
    let protected = args
        .ours_auth
        .as_deref()
        .map(Protected::prepare)
        .transpose()
        .unwrap_or_else(|e| panic!("protected rows: {e}"));
    let mut stdio_figures = vec![Figures::default(); subjects.len()];
    let mut http_figures = vec![vec![Figures::default(); servers.len()]; plan.connections.len()];
    let mut auth_figures =
        vec![vec![Figures::default(); Protected::NAMES.len()]; plan.connections.len()];
    for round in 1..=plan.rounds {
        eprintln!("round {round} of {}", plan.rounds);
        if !args.auth_only {
            for (subject, figures) in subjects.iter().zip(&mut stdio_figures) {
                eprintln!("  stdio {}", subject.name);
                let measured = stdio::measure(subject, &plan)
                    .unwrap_or_else(|e| panic!("stdio {}: {e}", subject.name));
                figures.merge(measured);
            }
        }
        for (index, &connections) in plan.connections.iter().enumerate() {
            if !args.auth_only {
                for (path, figures) in servers.iter().zip(http_figures[index].iter_mut()) {
                    eprintln!("  http {} ({connections} connections)", path.display());
                    let measured = http::measure(&http::Load::plain(path), &plan, connections)
                        .unwrap_or_else(|e| panic!("http {}: {e}", path.display()));
                    figures.merge(measured);
                }
            }
            let Some(protected) = &protected else {
                continue;
            };
            for (name, (load, figures)) in Protected::NAMES
                .iter()
                .zip(protected.loads().iter().zip(auth_figures[index].iter_mut()))
            {
                eprintln!("  http, {name} ({connections} connections)");
                let measured = http::measure(load, &plan, connections)
                    .unwrap_or_else(|e| panic!("http, {name}: {e}"));
                figures.merge(measured);
            }
        }
    }
    let auth = protected.is_some().then_some(auth_figures.as_slice());
    if args.auth_only {
        table::print_auth(&plan, Protected::NAMES, auth.unwrap_or_default());
        return;
    }
    let sizes = [&args.ours, &args.rmcp, &args.echo].map(|path| {
        std::fs::metadata(path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .len()
    });
    table::print(&plan, &subjects, &stdio_figures, &http_figures, sizes);
    if let Some(auth) = auth {
        table::print_auth(&plan, Protected::NAMES, auth);
    }
}

/// The protected rows: the calculator built with the `auth` feature, and
/// what each row sends it.
struct Protected {
    path: PathBuf,
    options: Vec<String>,
    cached: Vec<String>,
    es256: Vec<String>,
    rs256: Vec<String>,
    /// Keeps the authorization server's keys alive for the run.
    _issuer: tokens::Issuer,
}

impl Protected {
    const NAMES: &'static [&'static str] = &[
        "no auth",
        "cached token",
        "ES256, new token each request",
        "RS256, new token each request",
    ];

    fn prepare(path: &std::path::Path) -> std::io::Result<Protected> {
        let issuer = tokens::Issuer::start()?;
        eprintln!(
            "minting {} ES256 and {} RS256 tokens",
            tokens::POOL,
            tokens::POOL
        );
        let es256 = issuer.tokens(tokens::Alg::Es256, tokens::POOL);
        let rs256 = issuer.tokens(tokens::Alg::Rs256, tokens::POOL);
        let cached = vec![issuer.token(tokens::Alg::Es256, tokens::POOL)];
        let options = ["--auth-issuer", &issuer.url, "--resource", tokens::RESOURCE]
            .map(str::to_owned)
            .to_vec();
        Ok(Protected {
            path: path.to_owned(),
            options,
            cached,
            es256,
            rs256,
            _issuer: issuer,
        })
    }

    /// One load per name, in the order of [`Protected::NAMES`].
    fn loads(&self) -> [http::Load<'_>; 4] {
        let protected = |tokens| http::Load {
            path: &self.path,
            options: &self.options,
            tokens,
        };
        [
            http::Load::plain(&self.path),
            protected(&self.cached),
            protected(&self.es256),
            protected(&self.rs256),
        ]
    }
}

/// Ours beside a baseline build of ours, taking turns in every round: the
/// stdio and HTTP `tools/call` figures before and after a change, and
/// their ratio.
fn before_and_after(ours: &std::path::Path, baseline: &std::path::Path, plan: &Plan) {
    let subjects = [ours, baseline].map(|path| Subject {
        name: "",
        path: path.to_owned(),
        args: &["--stdio"],
        era: Some(Era::Modern),
    });
    let mut stdio_figures = vec![Figures::default(); 2];
    let mut http_figures = vec![vec![Figures::default(); 2]; plan.connections.len()];
    for round in 1..=plan.rounds {
        eprintln!("round {round} of {}", plan.rounds);
        for (subject, figures) in subjects.iter().zip(&mut stdio_figures) {
            eprintln!("  stdio {}", subject.path.display());
            let measured = stdio::measure(subject, plan)
                .unwrap_or_else(|e| panic!("stdio {}: {e}", subject.path.display()));
            figures.merge(measured);
        }
        for (index, &connections) in plan.connections.iter().enumerate() {
            for (subject, figures) in subjects.iter().zip(http_figures[index].iter_mut()) {
                eprintln!(
                    "  http {} ({connections} connections)",
                    subject.path.display()
                );
                let measured = http::measure(&http::Load::plain(&subject.path), plan, connections)
                    .unwrap_or_else(|e| panic!("http {}: {e}", subject.path.display()));
                figures.merge(measured);
            }
        }
    }
    table::print_before_after(plan, &stdio_figures, &http_figures);
}
