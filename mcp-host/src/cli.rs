//! The `mcp-host` command: list servers and tools, and call a tool with
//! approval and elicitation answered at the terminal.
//!
//! ```text
//! mcp-host --config servers.json servers
//! mcp-host --config servers.json tools
//! mcp-host --config servers.json call notes__add_note --args '{"text": "hi"}' [--yes]
//! mcp-host --config servers.json snapshot notes --out tools.json
//! ```
//!
//! Results go to stdout as JSON; prompts, progress and warnings go to
//! stderr. The exit status is 0 on success, 1 when anything failed, was
//! denied, or the tool reported an error.
//!
//! Questions are only put to a terminal. When stdin is not one, or ends
//! (Ctrl-D) at a question, a call that needs approval is denied (pass
//! `--yes` in scripts) and an elicitation is cancelled. Ctrl-C at the
//! approval question stops the command before the call is sent.

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::{Parser, Subcommand};
use mcp_types::v2026_07_28::{
    ElicitRequestParams, ElicitResult, ElicitResultAction, ElicitResultContentValue,
};
use serde_json::{json, Map, Value};

use crate::approval::{ApprovalRequest, ApproveAll, Approver, AskReason, Decision};
use crate::client::input::declined;
use crate::client::{CallOptions, ClientOptions, InputHandler, Progress};
use crate::untrusted::Untrusted;
use crate::{BoxFuture, Host, HostConfig};

/// Command-line arguments.
#[derive(Debug, Parser)]
#[command(
    name = "mcp-host",
    version,
    about = "Run MCP servers and call their tools."
)]
pub struct Args {
    /// The `mcpServers` JSON file.
    #[arg(long, value_name = "FILE")]
    pub config: PathBuf,
    /// How long to wait for a server's answer to `server/discover` before
    /// taking it for a legacy server.
    #[arg(long, value_name = "SECONDS", default_value = "3", value_parser = seconds, global = true)]
    pub probe_timeout: Duration,
    /// How long to wait for the answer to any other request.
    #[arg(long, value_name = "SECONDS", default_value = "60", value_parser = seconds, global = true)]
    pub timeout: Duration,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Each server's era, version and capabilities.
    Servers,
    /// Every tool under its qualified name.
    Tools,
    /// Calls a tool.
    Call {
        /// The tool's qualified name, as `tools` lists it.
        name: String,
        /// The arguments, a JSON object.
        #[arg(long, default_value = "{}")]
        args: String,
        /// Approve the call without asking.
        #[arg(long)]
        yes: bool,
    },
    /// Writes a server's tool list as `mcp-gen client --tools` reads it.
    Snapshot {
        /// The server's id, as configured.
        server: String,
        /// The file to write (only if it changed); standard output when
        /// absent.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
}

/// Runs the command line of this process.
pub fn main() -> ExitCode {
    let args = Args::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("mcp-host: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(args)) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("mcp-host: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Runs one command.
///
/// # Errors
///
/// A message for the user when the configuration, a server or the call
/// fails.
pub async fn run(args: Args) -> Result<ExitCode, String> {
    let config = HostConfig::load(&args.config).map_err(|e| e.to_string())?;
    let approver: Arc<dyn Approver> = match &args.command {
        Command::Call { yes: true, .. } => Arc::new(ApproveAll),
        _ => Arc::new(Terminal),
    };
    let options = ClientOptions {
        probe_timeout: args.probe_timeout,
        request_timeout: args.timeout,
        ..ClientOptions::default()
    };
    let host = Host::builder(config)
        .options(options)
        .approver(approver)
        .input(Arc::new(Terminal))
        .start()
        .await;
    let outcome = match args.command {
        Command::Servers => servers(&host).await,
        Command::Tools => tools(&host),
        Command::Call { name, args, .. } => call(&host, &name, &args).await,
        Command::Snapshot { server, out } => snapshot(&host, &server, out.as_deref()).await,
    };
    host.shutdown().await;
    outcome
}

/// A positive number of seconds, as a duration.
fn seconds(text: &str) -> Result<Duration, String> {
    match text.parse::<f64>() {
        Ok(secs) if secs > 0.0 && secs.is_finite() => {
            Duration::try_from_secs_f64(secs).map_err(|e| e.to_string())
        }
        _ => Err(format!("`{text}` is not a positive number of seconds")),
    }
}

fn print(value: &Value) {
    println!(
        "{}",
        serde_json::to_string_pretty(value).unwrap_or_default()
    );
}

async fn servers(host: &Host) -> Result<ExitCode, String> {
    let mut list = Vec::new();
    let mut failed = false;
    for status in host.servers().await {
        let mut entry = json!({ "id": status.id.as_str() });
        if let Some(session) = status.session {
            entry["era"] = json!(format!("{:?}", session.era).to_lowercase());
            entry["version"] = json!(session.version);
            entry["capabilities"] = json!(session.capabilities);
            // Printed as the server wrote it: this is the command's output.
            entry["serverInfo"] = json!(session.server_info.map(Untrusted::accept));
        }
        if let Some(error) = status.error {
            failed = true;
            entry["error"] = json!(error);
        }
        list.push(entry);
    }
    print(&Value::Array(list));
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn tools(host: &Host) -> Result<ExitCode, String> {
    for excluded in host.excluded_tools() {
        eprintln!(
            "warning: dropped tool {} of server `{}`: {}",
            excluded.name.render().text(),
            excluded.name.origin(),
            excluded.error
        );
    }
    let list: Vec<Value> = host
        .tools()
        .into_iter()
        .map(|t| {
            let tool = t.tool.accept_ref();
            json!({
                "name": t.qualified,
                "server": t.server.as_str(),
                "tool": tool.name,
                "description": tool.description.as_ref().map(|d| Untrusted::new(t.server.clone(), d).render().text().to_owned()),
                "readOnlyHint": tool.annotations.as_ref().and_then(|a| a.read_only_hint),
            })
        })
        .collect();
    print(&Value::Array(list));
    Ok(ExitCode::SUCCESS)
}

async fn call(host: &Host, name: &str, args: &str) -> Result<ExitCode, String> {
    let arguments: Map<String, Value> =
        serde_json::from_str(args).map_err(|e| format!("--args must be a JSON object: {e}"))?;
    let call = host
        .prepare(name, arguments)
        .await
        .map_err(|e| e.to_string())?;
    let approval = host.authorize(&call).await.map_err(|e| e.to_string())?;
    let options = CallOptions {
        timeout: None,
        progress: Some(Arc::new(progress_bar)),
    };
    let result = host
        .call_tool(call, approval, &options)
        .await
        .map_err(|e| e.to_string())?;
    eprintln!();
    // The result is this command's output, printed as the server wrote it.
    let result = result.accept();
    print(&json!(result));
    Ok(if result.is_error == Some(true) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// The tool list of `server`, written to `out` (only if it changed) or
/// printed.
async fn snapshot(
    host: &Host,
    server: &str,
    out: Option<&std::path::Path>,
) -> Result<ExitCode, String> {
    let id = crate::ServerId::new(server).map_err(|e| e.to_string())?;
    let client = host
        .client(&id)
        .await
        .ok_or_else(|| format!("server `{server}` is not configured or did not connect"))?;
    let list = client.list_tools().await.map_err(|e| e.to_string())?;
    for excluded in &list.excluded {
        eprintln!(
            "warning: left out tool {}: {}",
            excluded.name.render().text(),
            excluded.error
        );
    }
    let text = serde_json::to_string_pretty(&crate::typed::snapshot(&list))
        .map_err(|e| e.to_string())?
        + "\n";
    let Some(out) = out else {
        print!("{text}");
        return Ok(ExitCode::SUCCESS);
    };
    if std::fs::read(out).is_ok_and(|old| old == text.as_bytes()) {
        eprintln!("unchanged {}", out.display());
    } else {
        std::fs::write(out, text).map_err(|e| format!("{}: {e}", out.display()))?;
        eprintln!("wrote {}", out.display());
    }
    Ok(ExitCode::SUCCESS)
}

fn progress_bar(report: Progress) {
    const WIDTH: usize = 30;
    let line = match report.total.filter(|t| *t > 0.0) {
        Some(total) => {
            let share = (report.progress / total).clamp(0.0, 1.0);
            // `share` is within 0..=1, so the product fits.
            let filled = (share * WIDTH as f64).round() as usize;
            format!(
                "[{}{}] {:>3.0}%",
                "#".repeat(filled),
                ".".repeat(WIDTH - filled),
                share * 100.0
            )
        }
        None => format!("[progress {}]", report.progress),
    };
    let message = report
        .message
        .map(|m| format!(" {}", m.render()))
        .unwrap_or_default();
    eprint!("\r{line}{message}");
    let _ = std::io::stderr().flush();
}

/// Asks at the terminal: approvals and elicitations.
#[derive(Debug, Clone, Copy)]
pub struct Terminal;

/// One line from stdin, trimmed; `None` when stdin is not a terminal or
/// has ended (Ctrl-D). `None` denies an approval and cancels an
/// elicitation: nobody made a choice.
async fn ask_line(prompt: String) -> Option<String> {
    tokio::task::spawn_blocking(move || {
        let stdin = std::io::stdin();
        if !stdin.is_terminal() {
            return None;
        }
        eprint!("{prompt}");
        let _ = std::io::stderr().flush();
        let mut line = String::new();
        match stdin.lock().read_line(&mut line) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(line.trim().to_owned()),
        }
    })
    .await
    .ok()
    .flatten()
}

fn yes(answer: Option<&str>) -> bool {
    matches!(answer, Some("y" | "Y" | "yes" | "Yes"))
}

impl Approver for Terminal {
    fn decide<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, Decision> {
        Box::pin(async move {
            let call = &request.call;
            let why = match &request.reason {
                AskReason::MayWrite => String::from("the tool may change things"),
                AskReason::Always => String::from("the policy asks for every call"),
                AskReason::CrossServer(from) => format!(
                    "the arguments carry data from {}",
                    from.iter()
                        .map(|s| format!("`{s}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            let arguments = serde_json::to_string_pretty(call.arguments()).unwrap_or_default();
            let mut text = format!(
                "\nTool `{}` of server `{}` ({}) needs approval because {why}.\nArguments:\n{arguments}\n",
                call.tool(),
                call.server(),
                call.qualified()
            );
            if let Some(annotations) = call.annotations() {
                text.push_str(&format!("Annotations: {}\n", annotations.render()));
            }
            text.push_str("Run it? [y/N] ");
            if yes(ask_line(text).await.as_deref()) {
                Decision::Approve
            } else {
                Decision::Deny(String::from(
                    "not approved at the terminal (use --yes in scripts)",
                ))
            }
        })
    }
}

impl InputHandler for Terminal {
    fn capabilities(&self) -> mcp_types::v2026_07_28::ClientCapabilities {
        serde_json::from_value(json!({ "elicitation": { "form": {}, "url": {} } }))
            .unwrap_or_default()
    }

    fn elicit<'a>(
        &'a self,
        request: Untrusted<ElicitRequestParams>,
    ) -> BoxFuture<'a, ElicitResult> {
        Box::pin(async move {
            let origin = request.origin().clone();
            match request.accept() {
                ElicitRequestParams::URL(url) => {
                    let message = Untrusted::new(origin.clone(), url.message).render();
                    let link = Untrusted::new(origin, url.url).render();
                    let answer = ask_line(format!(
                        "\n{message}\nThe server asks you to open this URL yourself:\n{link}\nGo ahead? [y/N] "
                    ))
                    .await;
                    match answer.as_deref() {
                        None => cancelled(),
                        a if yes(a) => accepted(None),
                        _ => declined(),
                    }
                }
                ElicitRequestParams::Form(form) => {
                    let message = Untrusted::new(origin.clone(), form.message).render();
                    let answer = ask_line(format!("\n{message}\nAnswer? [y/N/c] ")).await;
                    match answer.as_deref() {
                        None | Some("c" | "C") => cancelled(),
                        a if yes(a) => {
                            let schema =
                                serde_json::to_value(&form.requested_schema).unwrap_or_default();
                            match fill_form(&origin, &schema).await {
                                Some(content) => accepted(Some(content)),
                                None => cancelled(),
                            }
                        }
                        _ => declined(),
                    }
                }
            }
        })
    }
}

fn result(action: ElicitResultAction, content: Option<Map<String, Value>>) -> ElicitResult {
    let content = content.map(|c| {
        c.into_iter()
            .filter_map(|(k, v)| {
                Some((
                    k,
                    serde_json::from_value::<ElicitResultContentValue>(v).ok()?,
                ))
            })
            .collect()
    });
    ElicitResult {
        action,
        content,
        extra: Map::new(),
    }
}

fn accepted(content: Option<Map<String, Value>>) -> ElicitResult {
    result(ElicitResultAction::Accept, content)
}

fn cancelled() -> ElicitResult {
    result(ElicitResultAction::Cancel, None)
}

/// Asks each field of a flat form; `None` if the terminal goes away.
async fn fill_form(origin: &crate::ServerId, schema: &Value) -> Option<Map<String, Value>> {
    let mut content = Map::new();
    let properties = schema.get("properties").and_then(Value::as_object)?;
    for (name, field) in properties {
        let kind = field
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("string");
        let label = Untrusted::new(origin.clone(), name.clone()).render();
        let hint = field
            .get("description")
            .and_then(Value::as_str)
            .map(|d| format!(" – {}", Untrusted::new(origin.clone(), d).render().text()))
            .unwrap_or_default();
        let line = ask_line(format!("{} ({kind}){hint}: ", label.text())).await?;
        if line.is_empty() {
            continue;
        }
        let value = match kind {
            "boolean" => json!(yes(Some(&line)) || line == "true"),
            "integer" => line.parse::<i64>().map(Value::from).unwrap_or(json!(line)),
            "number" => line.parse::<f64>().map(Value::from).unwrap_or(json!(line)),
            "array" => json!(line.split(',').map(str::trim).collect::<Vec<_>>()),
            _ => json!(line),
        };
        content.insert(name.clone(), value);
    }
    Some(content)
}
