//! `chat`, `run`, `review` and `flow`: a model that uses the configured
//! servers' tools (`mcp_agent`), through the flow policy and the host's
//! approval gate.
//!
//! ```text
//! mcp-host --config servers.json chat --provider openai --model gpt-4.1-mini
//! mcp-host --config servers.json run "summarise my open tickets" --provider anthropic --model claude-sonnet-4-5
//! mcp-host --config servers.json run "..." --provider openai --model smollm2 --base-url http://127.0.0.1:8080/v1 --json
//! ```
//!
//! The options before the command are `mcp-host`'s own
//! ([`Global`]): the configuration, timeouts, pins, audit
//! log. The model is chosen by `--provider`, `--model` and `--base-url`,
//! or by a `model` object in the configuration file
//! ([`model::ModelSection`]); the flow policy is configured there too
//! ([`FlowConfig::from_host_json`]).
//!
//! `chat` reads a line at a time and streams the answer; approval and
//! endorsement questions are asked at the terminal; Ctrl-C cancels the
//! turn under way, and at the prompt ends the command. `run PROMPT` gives
//! one task and prints the final answer on stdout; `--json` prints a
//! transcript instead: every model request's size, every tool call with
//! its arguments, the decision and why, and the digest of its result.
//! Without a terminal, endorsement questions are refused and the refusal
//! goes back to the model as the tool's error.
//!
//! `--yes` approves calls at the host's gate, as `mcp-host call --yes`
//! does; it does not endorse a call the flow policy stops. Only a person,
//! a `flow.flows` rule of the configuration, or `--allow-flow` does.
//!
//! `review [SERVER [TOOL]]` shows tool definitions whole, with the
//! poisoning checks' findings, and records the person's acceptance of
//! them in the state directory (`reviews.json`), so that they no longer
//! count as untrusted text (`--yes` accepts what is shown without
//! asking; `--forget` takes it back); `/review` does the same in `chat`.
//! `flow show` lists the servers that hold data from untrusted sources
//! (`flow-holdings.json`), and `flow clear SERVER` forgets that one does.
//! Both files follow `XDG_STATE_HOME`, like the pins; a file that cannot
//! be read stops `chat` and `run` rather than counting as empty.

use std::io::{BufRead, IsTerminal, Write};
use std::process::ExitCode;
use std::sync::Arc;

use mcp_agent::conversation::{
    catalogue, Agent, Bounds, CallRecord, Conversation, Event, Offer, OfferedTool,
};
use mcp_agent::flow::{Answer, Endorser, FlowConfig, FlowPolicy, FlowStore, Question, Unattended};
use mcp_agent::names::{tool_budget, SelectionConfig, ServerRule};
use mcp_agent::provider::http::Client;
use mcp_host::approval::{ApproveAll, Approver};
use mcp_host::untrusted::visible;
use serde_json::{json, Value};

use super::{review, Command, Global, Terminal};
use crate::model;

/// The model and the bounds of the conversation.
#[derive(Debug, Clone, clap::Args)]
pub struct ModelArgs {
    /// `openai` (also any server that speaks its API), `anthropic` or
    /// `gemini`.
    #[arg(long)]
    pub provider: Option<String>,
    /// The model's name at the provider.
    #[arg(long)]
    pub model: Option<String>,
    /// The base URL as the provider's SDK takes it; for a server that
    /// speaks OpenAI's API, it ends in `/v1`.
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// The system prompt.
    #[arg(long)]
    pub system: Option<String>,
    /// Approve every tool call at the host's gate (this does not endorse
    /// a call the flow policy stops).
    #[arg(long)]
    pub yes: bool,
    /// Endorse every flow of untrusted output into a consequential call.
    #[arg(long)]
    pub allow_flow: bool,
    /// Model requests in one turn at most.
    #[arg(long, default_value_t = 16)]
    pub max_requests: usize,
    /// Tokens in the whole conversation at most.
    #[arg(long, default_value_t = 1_000_000)]
    pub max_tokens: u64,
}

/// Runs `chat`, `run`, `review` or `flow`.
///
/// # Errors
///
/// A message for the user when the configuration, the model or a server
/// cannot be used.
pub async fn run(global: &Global, command: Command) -> Result<ExitCode, String> {
    let store = FlowStore::in_state_dir().ok_or(
        "no state directory for the flow policy's files: set XDG_STATE_HOME or HOME to an \
         absolute path",
    )?;
    if let Command::Flow { command } = &command {
        return review::flow(&store, command);
    }
    let (source, config) = super::load(global).await?;
    let document: Value = std::fs::read_to_string(&source)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null);
    let flow_config = FlowConfig::from_host_json(&document).map_err(|e| e.to_string())?;
    if let Command::Review(review) = &command {
        let someone = std::io::stdin().is_terminal();
        let host = super::start_host(
            global,
            config,
            Arc::new(Terminal),
            Arc::new(Terminal),
            someone,
        )
        .await?;
        let outcome = review::review(&host, &flow_config, &store, review).await;
        host.shutdown().await;
        return outcome;
    }
    let (Command::Chat { model } | Command::Run { model, .. }) = &command else {
        return Err(String::from("no model to talk to for this command"));
    };
    let model_args = model.clone();
    let chosen = model::choose(
        model_args.provider.as_deref(),
        model_args.model.as_deref(),
        model_args.base_url.as_deref(),
        &document,
        &|name| std::env::var(name).ok(),
    )?;
    let provider = chosen.endpoint.provider;
    let client = Client::new(chosen.endpoint).map_err(|e| e.to_string())?;
    // Files that cannot be read stop the command: an empty book would
    // let a server that holds untrusted data pass for trusted.
    let mut policy = FlowPolicy::new(flow_config)
        .with_reviews(store.reviews().map_err(|e| e.to_string())?)
        .with_holdings(store.holdings().map_err(|e| e.to_string())?);
    if model_args.allow_flow {
        policy = policy.allow_flow_flag();
    }
    let approver: Arc<dyn Approver> = if model_args.yes {
        Arc::new(ApproveAll)
    } else {
        Arc::new(Terminal)
    };
    let someone = std::io::stdin().is_terminal();
    let host = super::start_host(global, config, approver, Arc::new(Terminal), someone).await?;
    for status in host.servers().await {
        if let Some(error) = status.error {
            eprintln!(
                "mcp-host: server `{}` is not running: {}",
                status.id,
                visible(&error)
            );
        }
    }
    let selection = selection(
        &document,
        tool_budget(mcp_agent::conversation::offer::target(provider)),
    );
    let offer = Offer::build(provider, &catalogue(&host), &selection);
    for refused in offer.refused() {
        eprintln!(
            "mcp-host: `{}` is not offered to the model: {}",
            refused.qualified, refused.error
        );
    }
    let bounds = Bounds {
        max_requests_per_turn: model_args.max_requests,
        max_tokens: model_args.max_tokens,
        ..Bounds::default()
    };
    let mut conversation =
        Conversation::new(model_args.system.clone(), bounds).map_err(|e| e.to_string())?;
    let mut agent =
        Agent::new(&host, &client, chosen.name, policy, offer).with_store(store.clone());
    let outcome = match command {
        Command::Chat { .. } => chat(&mut agent, &mut conversation, &store).await,
        Command::Run { prompt, json, .. } => {
            once(&mut agent, &mut conversation, &prompt, json).await
        }
        // Answered before any model was chosen; the other commands are
        // not the model's.
        _ => Ok(ExitCode::SUCCESS),
    };
    host.shutdown().await;
    outcome
}

/// Per-server selection from the configuration: each server entry's
/// `offer` object (`include`, `exclude`: globs over tool names; `limit`).
pub(crate) fn selection(document: &Value, budget: usize) -> SelectionConfig {
    let mut servers = std::collections::BTreeMap::new();
    let entries = document
        .get("mcpServers")
        .or_else(|| document.get("servers"))
        .and_then(Value::as_object);
    for (id, entry) in entries.into_iter().flatten() {
        let Some(offer) = entry.get("offer") else {
            continue;
        };
        let strings = |key: &str| -> Vec<String> {
            offer
                .get(key)
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default()
        };
        let rule = ServerRule {
            include: strings("include"),
            exclude: strings("exclude"),
            limit: offer
                .get("limit")
                .and_then(Value::as_u64)
                .map(|n| n as usize),
        };
        servers.insert(id.clone(), rule);
    }
    SelectionConfig { servers, budget }
}

/// Asks a person at the terminal; refuses when there is none.
#[derive(Debug, Default)]
struct TerminalEndorser;

impl Endorser for TerminalEndorser {
    fn answer(&mut self, question: &Question) -> Answer {
        if !std::io::stdin().is_terminal() {
            return Answer::NoPerson;
        }
        let mut err = std::io::stderr();
        let _ = writeln!(err, "\n{}", visible(&question.summary()));
        let _ = write!(err, "Run this call? [y/N] ");
        let _ = err.flush();
        let mut line = String::new();
        match std::io::stdin().lock().read_line(&mut line) {
            Ok(0) | Err(_) => Answer::NoPerson,
            Ok(_) if matches!(line.trim(), "y" | "Y" | "yes") => Answer::Endorse,
            Ok(_) => Answer::Decline,
        }
    }
}

fn endorser() -> Box<dyn Endorser + Send> {
    if std::io::stdin().is_terminal() {
        Box::new(TerminalEndorser)
    } else {
        Box::new(Unattended)
    }
}

/// One task: the answer on stdout, or the transcript with `json`.
async fn once(
    agent: &mut Agent<'_>,
    conversation: &mut Conversation,
    prompt: &str,
    json: bool,
) -> Result<ExitCode, String> {
    let mut events = Vec::new();
    let mut endorser = endorser();
    let cancel = interrupt();
    let outcome = agent
        .turn(
            conversation,
            prompt,
            endorser.as_mut(),
            || cancel.wait(),
            &mut |event| {
                if !json {
                    if let Event::Call(record) = &event {
                        report(record);
                    }
                }
                if !matches!(event, Event::Text { .. }) {
                    events.push(event);
                }
            },
        )
        .await;
    let usage = conversation.usage();
    let (answer, error) = match outcome {
        Ok(answer) => (Some(answer), None),
        Err(e) => (None, Some(e.to_string())),
    };
    if json {
        let transcript = json!({
            "answer": answer,
            "error": error,
            "events": events,
            "usage": {"inputTokens": usage.input_tokens, "outputTokens": usage.output_tokens},
        });
        println!("{}", mcp_host::untrusted::safe_json(&transcript));
    } else if let Some(answer) = &answer {
        println!("{}", visible(answer));
    }
    match error {
        Some(e) if !json => Err(e),
        Some(_) => Ok(ExitCode::FAILURE),
        None => Ok(ExitCode::SUCCESS),
    }
}

/// The conversation at the terminal, a line at a time. `/review
/// [SERVER]` reviews tool definitions; done before the first message, an
/// acceptance counts for this conversation too.
async fn chat(
    agent: &mut Agent<'_>,
    conversation: &mut Conversation,
    store: &FlowStore,
) -> Result<ExitCode, String> {
    let cancel = interrupt();
    let mut endorser = endorser();
    let unreviewed = unreviewed(agent);
    if !unreviewed.is_empty() {
        eprintln!(
            "mcp-host: {} tool definitions of servers whose output is not trusted were not \
             reviewed ({}): they are untrusted text in the model's context from the first \
             request, so every consequential call will ask for your endorsement. Type /review \
             to read and accept them now.",
            unreviewed.len(),
            unreviewed.join(", ")
        );
    }
    loop {
        eprint!("> ");
        let _ = std::io::stderr().flush();
        let before = cancel.count();
        let line = tokio::select! {
            line = tokio::task::spawn_blocking(|| {
                let mut line = String::new();
                std::io::stdin().lock().read_line(&mut line).map(|n| (n, line))
            }) => line,
            () = cancel.after(before) => return Ok(ExitCode::SUCCESS),
        };
        let line = match line {
            Ok(Ok((0, _))) => return Ok(ExitCode::SUCCESS),
            Ok(Ok((_, line))) => line,
            Ok(Err(e)) => return Err(e.to_string()),
            Err(e) => return Err(e.to_string()),
        };
        let text = line.trim();
        if text.is_empty() {
            continue;
        }
        if let Some(rest) = text.strip_prefix("/review") {
            let server = Some(rest.trim()).filter(|s| !s.is_empty());
            chat_review(agent, conversation, store, server);
            continue;
        }
        let outcome = agent
            .turn(
                conversation,
                text,
                endorser.as_mut(),
                || cancel.wait(),
                &mut |event| match event {
                    Event::Text { delta } => {
                        print!("{}", visible(&delta));
                        let _ = std::io::stdout().flush();
                    }
                    Event::Call(record) => report(&record),
                    _ => {}
                },
            )
            .await;
        println!();
        if let Err(e) = outcome {
            eprintln!("mcp-host: {}", visible(&e.to_string()));
        }
    }
}

/// A tool call's decision, on stderr.
fn report(record: &CallRecord) {
    let name = record.qualified.as_deref().unwrap_or(&record.name);
    eprintln!("[{}] {name}: {}", record.decision, visible(&record.reason));
}

/// Ctrl-C, counted: a turn under way is cancelled by the next one.
#[derive(Debug, Clone)]
struct Interrupt(tokio::sync::watch::Receiver<u64>);

fn interrupt() -> Interrupt {
    let (tx, rx) = tokio::sync::watch::channel(0u64);
    tokio::spawn(async move {
        while tokio::signal::ctrl_c().await.is_ok() {
            tx.send_modify(|n| *n += 1);
        }
    });
    Interrupt(rx)
}

impl Interrupt {
    fn count(&self) -> u64 {
        *self.0.borrow()
    }

    /// Resolves at the next Ctrl-C after `before`.
    async fn after(&self, before: u64) {
        let mut rx = self.0.clone();
        if rx.wait_for(|n| *n != before).await.is_err() {
            std::future::pending::<()>().await;
        }
    }

    /// Resolves at the next Ctrl-C.
    fn wait(&self) -> impl std::future::Future<Output = ()> + use<> {
        let this = self.clone();
        let before = this.count();
        async move { this.after(before).await }
    }
}

/// The `server/tool` names of the definitions offered that are neither
/// trusted by their server's `trustOutput` nor accepted.
fn unreviewed(agent: &Agent<'_>) -> Vec<String> {
    let policy = agent.policy();
    let mut out = Vec::new();
    for source in agent.offer().offered_tools().map(OfferedTool::source) {
        let labels = policy.labels(std::slice::from_ref(&source));
        if labels
            .iter()
            .any(|l| l.integrity == mcp_agent::flow::Integrity::Untrusted)
        {
            if let mcp_agent::flow::Source::Definition { server, tool, .. } = source {
                out.push(format!("{server}/{}", visible(&tool)));
            }
        }
    }
    out
}

/// `/review [SERVER]` in `chat`.
fn chat_review(
    agent: &mut Agent<'_>,
    conversation: &Conversation,
    store: &FlowStore,
    server: Option<&str>,
) {
    let reviews = agent.policy().reviews().clone();
    let config = agent.policy().config().clone();
    let shown: Vec<review::Shown> =
        review::definitions(agent.host(), &config, &reviews, server, None)
            .into_iter()
            .filter(|s| s.status == "not reviewed")
            .collect();
    match review::accept(store, &shown, false) {
        Ok(Some(reviews)) => {
            agent.policy_mut().set_reviews(reviews);
            if conversation.ledger().tainted() {
                eprintln!(
                    "mcp-host: accepted; this conversation already read them as untrusted and \
                     stays so; the next one starts clean of them"
                );
            }
        }
        Ok(None) => {}
        Err(e) => eprintln!("mcp-host: {}", visible(&e)),
    }
}
