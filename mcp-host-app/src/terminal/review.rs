//! `review` and `flow`: the person's side of the flow policy's files.
//!
//! `review` shows each tool definition of a server whole, through the
//! terminal-safe renderer, with what the poisoning checks found, and
//! records the person's acceptance of the definitions shown (all of a
//! server's at once, or one tool's) by their digests. `flow` shows which
//! servers hold data from untrusted sources, and clears that record for
//! one.

use std::io::{BufRead, IsTerminal, Write};
use std::process::ExitCode;

use mcp_host::untrusted::{safe_json, visible};
use mcp_host::Host;

use mcp_agent::flow::{FlowConfig, FlowStore, Integrity, Reviews};

/// What `review` does.
#[derive(Debug, Clone, clap::Args)]
pub struct ReviewArgs {
    /// The server's id, as configured; without it, every server's
    /// definitions are listed with whether they were reviewed.
    pub server: Option<String>,
    /// One tool of the server (its own name); all of its tools when
    /// absent.
    pub tool: Option<String>,
    /// Accept what is shown without asking (for scripts; the definitions
    /// are still printed).
    #[arg(long)]
    pub yes: bool,
    /// Forget the acceptances of the server (or of the tool) instead.
    #[arg(long, conflicts_with = "yes")]
    pub forget: bool,
}

/// What `flow` does.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum FlowCommand {
    /// Lists the servers that were given data from untrusted sources,
    /// with those sources.
    Show,
    /// Forgets that a server holds untrusted data: its output is labelled
    /// by its `trustOutput` alone again. Do it only once the data is gone
    /// or checked.
    Clear {
        /// The server's id, as configured.
        server: String,
    },
}

/// One definition as the review shows it.
pub(crate) struct Shown {
    pub server: String,
    pub tool: String,
    pub digest: String,
    pub text: String,
    pub status: &'static str,
}

/// The definitions of `server` (or of its `tool`), with their status
/// under `config` and `reviews`.
pub(crate) fn definitions(
    host: &Host,
    config: &FlowConfig,
    reviews: &Reviews,
    server: Option<&str>,
    tool: Option<&str>,
) -> Vec<Shown> {
    host.tools()
        .into_iter()
        .filter(|t| server.is_none_or(|s| s == t.server.as_str()))
        .filter(|t| tool.is_none_or(|n| n == t.tool.accept_ref().name))
        .map(|t| {
            let server = t.server.as_str().to_owned();
            let findings: Vec<String> = t.findings.iter().map(ToString::to_string).collect();
            let definition = t.tool.accept();
            let name = definition.name.clone();
            // The digest as `catalogue` computes it for the flow policy.
            let value = serde_json::to_value(&definition).unwrap_or_default();
            let digest = mcp_digest::digest(&value);
            let status = if config.label(&server).integrity == Integrity::Trusted {
                "trusted output"
            } else if reviews.accepted(&server, &name, &digest) {
                "accepted"
            } else {
                "not reviewed"
            };
            let mut text = safe_json(&value);
            for finding in &findings {
                text.push_str(&format!("\n  poisoning check: {}", visible(finding)));
            }
            Shown {
                server,
                tool: name,
                digest,
                text,
                status,
            }
        })
        .collect()
}

/// Shows `shown` and asks the person (or, with `yes`, does not) whether
/// to accept them all; records the acceptance in `store`. Returns the
/// reviews as written, if any were.
pub(crate) fn accept(
    store: &FlowStore,
    shown: &[Shown],
    yes: bool,
) -> Result<Option<Reviews>, String> {
    let mut err = std::io::stderr();
    for s in shown {
        let _ = writeln!(
            err,
            "\n== {} / {} ({}), digest {}\n{}",
            s.server,
            visible(&s.tool),
            s.status,
            s.digest,
            s.text
        );
    }
    if shown.is_empty() {
        let _ = writeln!(err, "no tool definition to review");
        return Ok(None);
    }
    let accepted = yes || {
        if !std::io::stdin().is_terminal() {
            return Err(String::from(
                "nobody to ask: run `review` at a terminal, or pass --yes to accept what is shown",
            ));
        }
        let _ = write!(
            err,
            "\nAccept these {} definitions as they are? They will not count as untrusted \
             text until they change. [y/N] ",
            shown.len()
        );
        let _ = err.flush();
        let mut line = String::new();
        std::io::stdin().lock().read_line(&mut line).is_ok()
            && matches!(line.trim(), "y" | "Y" | "yes")
    };
    if !accepted {
        let _ = writeln!(err, "nothing accepted");
        return Ok(None);
    }
    let ((), reviews) = store
        .update_reviews(|r| {
            for s in shown {
                r.accept(&s.server, &s.tool, &s.digest);
            }
        })
        .map_err(|e| e.to_string())?;
    let _ = writeln!(err, "accepted {} definitions", shown.len());
    Ok(Some(reviews))
}

/// `review`.
pub(crate) async fn review(
    host: &Host,
    config: &FlowConfig,
    store: &FlowStore,
    args: &ReviewArgs,
) -> Result<ExitCode, String> {
    let reviews = store.reviews().map_err(|e| e.to_string())?;
    let Some(server) = &args.server else {
        for s in definitions(host, config, &reviews, None, None) {
            println!("{}/{}: {}", s.server, visible(&s.tool), s.status);
        }
        return Ok(ExitCode::SUCCESS);
    };
    if args.forget {
        let (n, _) = store
            .update_reviews(|r| r.forget(server, args.tool.as_deref()))
            .map_err(|e| e.to_string())?;
        println!("forgot {n} acceptances");
        return Ok(ExitCode::SUCCESS);
    }
    let shown = definitions(host, config, &reviews, Some(server), args.tool.as_deref());
    if shown.is_empty() {
        return Err(format!(
            "server `{}` has no tool{} to review (is it configured and running?)",
            visible(server),
            args.tool
                .as_deref()
                .map(|t| format!(" `{}`", visible(t)))
                .unwrap_or_default()
        ));
    }
    match accept(store, &shown, args.yes)? {
        Some(_) => Ok(ExitCode::SUCCESS),
        None => Ok(ExitCode::FAILURE),
    }
}

/// `flow`.
pub(crate) fn flow(store: &FlowStore, command: &FlowCommand) -> Result<ExitCode, String> {
    match command {
        FlowCommand::Show => {
            let holdings = store.holdings().map_err(|e| e.to_string())?;
            let mut any = false;
            for (server, sources) in holdings.servers() {
                any = true;
                let sources: Vec<&str> = sources.iter().map(String::as_str).collect();
                println!("{server}: holds data from {}", sources.join(", "));
            }
            if !any {
                println!("no server holds data from untrusted sources");
            }
        }
        FlowCommand::Clear { server } => {
            let (held, _) = store
                .update_holdings(|h| h.clear(server))
                .map_err(|e| e.to_string())?;
            if held {
                println!(
                    "`{}` no longer counts as holding untrusted data",
                    visible(server)
                );
            } else {
                println!("`{}` held no untrusted data", visible(server));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
