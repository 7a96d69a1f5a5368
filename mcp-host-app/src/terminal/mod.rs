//! The `mcp-host` command: list servers, tools, prompts and resources,
//! call a tool with approval and elicitation answered at the terminal, get
//! a prompt and read a resource.
//!
//! ```text
//! mcp-host --config servers.json servers
//! mcp-host --config servers.json tools
//! mcp-host --config servers.json call notes__create_note --args '{"title": "milk", "body": "buy milk"}' [--yes]
//! mcp-host --config servers.json prompts
//! mcp-host --config servers.json prompt notes__summarize --args '{"handle": "note_..."}'
//! mcp-host --config servers.json resources
//! mcp-host --config servers.json read notes://note_... [--server notes]
//! mcp-host --config servers.json login notes
//! mcp-host --config servers.json logout notes
//! mcp-host --config servers.json snapshot notes --out tools.json
//! mcp-host --config servers.json trust notes [create_note] [--yes]
//! mcp-host --config servers.json add notes [--env K=V] -- notes-server --stdio
//! mcp-host --config servers.json add search --url URL [--header 'K: V'] [--transport http|sse]
//! mcp-host --config servers.json remove search
//! mcp-host completions bash|zsh|fish|elvish|powershell
//! mcp-host man [--dir DIR]
//! ```
//!
//! `add` and `remove` change only the entry they name (see
//! [`config::edit`](mcp_host::config::edit)); every command's `--help` ends
//! with examples.
//!
//! Every tool, prompt and resource template, and each server's
//! instructions, are pinned the first time they are seen, in `pins.json`
//! under the state directory (or `--pins FILE`). One that differs from
//! its pin is quarantined: `tools` lists it as not callable with what
//! changed, and `call` refuses it, with `--yes` too, and shows the
//! difference. `trust SERVER [NAME]` shows the differences again and,
//! once approved (at the terminal, or by `--yes`), pins what the server
//! sends now. `tools` and the approval question also show what the
//! poisoning checks found (hidden characters, text aimed at the model,
//! mentions of other servers' tools, oversized descriptions);
//! `--quarantine-flagged` quarantines such tools too.
//!
//! Every tool call decision is appended as one JSON line to `audit.jsonl`
//! under the state directory (or `--audit-log FILE`): a digest of the
//! arguments, or with `--audit-redact KEY` (repeatable) the arguments
//! with those keys redacted.
//!
//! Everything a server wrote is shown through one renderer: control
//! characters, escape sequences, bidirectional controls, zero-width and
//! tag characters are written out as `\u{..}`, in JSON output as `\uXXXX`
//! escapes, so nothing a server sends reaches the terminal raw.
//!
//! `--config FILE` takes the `mcpServers` shape (Claude Desktop, Claude
//! Code's `.mcp.json`, Cursor) or VS Code's `servers` shape; `--from
//! claude-desktop|claude-code|vscode|cursor` finds the file that host
//! keeps, and `servers` says which file each entry came from. See
//! [`config`](mcp_host::config) for `type`, `${VAR}` expansion and the tool
//! filters.
//!
//! A name that names nothing says why: no such server in the
//! configuration, a server that is not running (with, for a stdio server,
//! its command, exit status and the last lines of its stderr), or a server
//! without that tool (with the closest names it has). The listing commands
//! warn on stderr of every server that is not running, and exit 1. A
//! call's arguments are checked against the tool's input schema before
//! anyone is asked to approve it, and the failing fields are named.
//!
//! A server over HTTP that asks for authorization gets a login in the
//! browser: the URL is printed on stderr (and opened, unless
//! `--no-browser`), and the redirect comes back to a listener on
//! `127.0.0.1`. That happens by itself when a command meets the refusal at
//! a terminal; without one, run `login` first. Tokens are kept in
//! `credentials.json` under the user's state directory
//! (`$XDG_STATE_HOME/mcp-host`, else `~/.local/state/mcp-host`), mode
//! `0600`; `logout` forgets them.
//!
//! Results go to stdout as JSON; prompts, progress and warnings go to
//! stderr. The exit status is 0 on success, 1 when anything failed, was
//! denied, or the tool reported an error.
//!
//! Questions are only put to a terminal. When stdin is not one, or ends
//! (Ctrl-D) at a question, a call that needs approval is denied (pass
//! `--yes` in scripts) and an elicitation is cancelled. Ctrl-C at the
//! approval question stops the command before the call is sent.

#[cfg(feature = "oauth")]
use std::io::IsTerminal;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::{Parser, Subcommand};
use serde_json::{json, Map, Value};

use mcp_host::approval::{ApproveAll, Approver};
use mcp_host::audit::{Arguments, AuditLog};
use mcp_host::client::{CallOptions, ClientOptions, Progress};
use mcp_host::trust::PinFile;
use mcp_host::untrusted::Untrusted;
use mcp_host::Host;

mod ask;
mod catalogue;
pub(crate) mod chat;

/// The text each command's `--help` ends with: examples of its use.
macro_rules! example {
    ($($line:literal),+ $(,)?) => {
        concat!("Examples:", $("\n  ", $line),+)
    };
}
#[cfg(feature = "tasks")]
pub(crate) use example;

mod content;
mod edit;
pub(crate) mod review;
#[cfg(feature = "tasks")]
mod task;
mod trust;
mod verbose;

pub use ask::Terminal;
#[cfg(feature = "web")]
pub(crate) use ask::{elicitation_capabilities, field_value};
pub use chat::ModelArgs;
#[cfg(feature = "web")]
pub(crate) use trust::difference_lines;

/// Command-line arguments.
#[derive(Debug, Parser)]
#[command(
    name = "mcp-host",
    version,
    about = "Run MCP servers and call their tools."
)]
pub struct Args {
    /// The options every command takes.
    #[command(flatten)]
    pub global: Global,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The options every command takes: where the configuration is, the
/// timeouts, the pin file and the audit log. Other commands built on the
/// host (the model side's `chat` and `run`) take the same.
#[derive(Debug, Clone, clap::Args)]
pub struct Global {
    /// The configuration file: `mcpServers` JSON, or VS Code's `servers`.
    #[arg(long, value_name = "FILE", conflicts_with = "from")]
    pub config: Option<PathBuf>,
    /// Read the configuration another host keeps, where it keeps it:
    /// Claude Desktop's, or the project's `.mcp.json` (Claude Code),
    /// `.vscode/mcp.json` (VS Code) or `.cursor/mcp.json` (Cursor, else
    /// `~/.cursor/mcp.json`).
    #[arg(long, value_name = "HOST")]
    pub from: Option<OtherHost>,
    /// How long to wait for a server's answer to `server/discover` before
    /// taking it for a legacy server.
    #[arg(long, value_name = "SECONDS", default_value = "3", value_parser = seconds, global = true)]
    pub probe_timeout: Duration,
    /// How long to wait for the answer to any other request.
    #[arg(long, value_name = "SECONDS", default_value = "60", value_parser = seconds, global = true)]
    pub timeout: Duration,
    /// How long a tool call the server runs as a task may take in all,
    /// before it is cancelled.
    #[arg(long, value_name = "SECONDS", default_value = "3600", value_parser = seconds, global = true)]
    pub task_timeout: Duration,
    /// Print the login URL without opening a browser.
    #[arg(long, global = true)]
    pub no_browser: bool,
    /// The pin file; by default `pins.json` in the state directory.
    #[arg(long, value_name = "FILE", global = true)]
    pub pins: Option<PathBuf>,
    /// The audit log; by default `audit.jsonl` in the state directory.
    #[arg(long, value_name = "FILE", global = true)]
    pub audit_log: Option<PathBuf>,
    /// Keep the arguments of each call in the audit log, with the values
    /// of this key redacted (repeatable); without it only their digest.
    #[arg(long, value_name = "KEY", global = true)]
    pub audit_redact: Vec<String>,
    /// Quarantine the tools and prompts the poisoning checks flag.
    #[arg(long, global = true)]
    pub quarantine_flagged: bool,
    /// Show each request (method, server, id; never the arguments) and
    /// the servers' log messages on stderr.
    #[arg(short, long, global = true)]
    pub verbose: bool,
}

/// The hosts whose configuration files `--from` finds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OtherHost {
    /// `claude_desktop_config.json` in Claude's application folder.
    ClaudeDesktop,
    /// `.mcp.json` in the current directory.
    ClaudeCode,
    /// `.vscode/mcp.json` in the current directory.
    Vscode,
    /// `.cursor/mcp.json` in the current directory, else in the home.
    Cursor,
}

impl OtherHost {
    /// Where that host keeps its configuration: the first of its places
    /// that exists, else the first.
    pub fn path(self) -> Result<PathBuf, String> {
        let home = std::env::var_os("HOME")
            .map(PathBuf::from)
            .ok_or_else(|| String::from("--from: HOME is not set"))?;
        let places = match self {
            Self::ClaudeDesktop => vec![
                home.join("Library/Application Support/Claude/claude_desktop_config.json"),
                std::env::var_os("XDG_CONFIG_HOME")
                    .map(PathBuf::from)
                    .unwrap_or_else(|| home.join(".config"))
                    .join("Claude/claude_desktop_config.json"),
            ],
            Self::ClaudeCode => vec![PathBuf::from(".mcp.json")],
            Self::Vscode => vec![PathBuf::from(".vscode/mcp.json")],
            Self::Cursor => vec![
                PathBuf::from(".cursor/mcp.json"),
                home.join(".cursor/mcp.json"),
            ],
        };
        let found = places.iter().find(|p| p.is_file()).cloned();
        found
            .or_else(|| places.first().cloned())
            .ok_or_else(String::new)
    }
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Each server's era, version and capabilities.
    #[command(after_help = example!("mcp-host --config servers.json servers"))]
    Servers,
    /// Every tool under its qualified name.
    #[command(after_help = example!("mcp-host --config servers.json tools"))]
    Tools,
    /// Every prompt under its qualified name, with its arguments.
    #[command(after_help = example!("mcp-host --config servers.json prompts"))]
    Prompts,
    /// Every resource and resource template, with its server.
    #[command(after_help = example!("mcp-host --config servers.json resources"))]
    Resources,
    /// Calls a tool.
    #[command(after_help = example!("mcp-host --config servers.json call notes__create_note --args '{\"title\": \"milk\"}'"))]
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
    /// Gets a prompt.
    #[command(after_help = example!("mcp-host --config servers.json prompt notes__summarize --args '{\"handle\": \"note_1\"}'"))]
    Prompt {
        /// The prompt's qualified name, as `prompts` lists it.
        name: String,
        /// The arguments, a JSON object of strings.
        #[arg(long, default_value = "{}")]
        args: String,
    },
    /// Reads a resource.
    #[command(after_help = example!("mcp-host --config servers.json read notes://note_1 --server notes"))]
    Read {
        /// The resource's URI.
        uri: String,
        /// The server to read it from; by default the one server that
        /// lists the URI or has a resource template it matches.
        #[arg(long, value_name = "ID")]
        server: Option<String>,
    },
    /// Logs in to a server over HTTP, replacing the tokens kept for it.
    #[command(after_help = example!("mcp-host --config servers.json login notes"))]
    Login {
        /// The server's id in the configuration.
        server: String,
    },
    /// Forgets the tokens kept for a server.
    #[command(after_help = example!("mcp-host --config servers.json logout notes"))]
    Logout {
        /// The server's id in the configuration.
        server: String,
    },
    /// Shows what changed in a server's quarantined definitions and pins
    /// them as the server sends them now.
    #[command(after_help = example!("mcp-host --config servers.json trust notes create_note"))]
    Trust {
        /// The server's id, as configured.
        server: String,
        /// One tool, prompt or resource template (its own or qualified
        /// name); all of the server's changed definitions when absent.
        name: Option<String>,
        /// Pin without asking.
        #[arg(long)]
        yes: bool,
    },
    /// Looks at, follows or cancels a task that a tool call became.
    #[cfg(feature = "tasks")]
    #[command(after_help = example!("mcp-host --config servers.json task wait notes 3f2a..."))]
    Task {
        /// What to do with it.
        #[command(subcommand)]
        command: task::TaskCommand,
    },
    /// Talks with a model that uses the servers' tools, at the terminal,
    /// a line at a time.
    #[command(after_help = example!(
        "mcp-host --config servers.json chat --provider openai --model gpt-4.1-mini",
        "mcp-host --config servers.json chat --provider openai --base-url http://127.0.0.1:8080/v1 --model local",
    ))]
    Chat {
        /// The model and the bounds.
        #[command(flatten)]
        model: ModelArgs,
    },
    /// Talks with a model that uses the servers' tools, in the browser:
    /// serves the app on loopback and opens the browser at it.
    #[cfg(feature = "web")]
    #[command(after_help = example!(
        "mcp-host --config servers.json web --provider openai --base-url http://127.0.0.1:8080/v1 --model local",
        "mcp-host --config servers.json web --no-browser --provider openai --model gpt-4.1-mini",
    ))]
    Web(crate::web::WebArgs),
    /// Gives a model one task that may use the servers' tools and prints
    /// its answer.
    #[command(after_help = example!(
        "mcp-host --config servers.json run \"list my notes\" --provider openai --model gpt-4.1-mini --json"
    ))]
    Run {
        /// The task.
        prompt: String,
        /// Print a JSON transcript instead of the answer.
        #[arg(long)]
        json: bool,
        /// The model and the bounds.
        #[command(flatten)]
        model: ModelArgs,
    },
    /// Shows servers' tool definitions whole, with the poisoning checks'
    /// findings, and records a person's acceptance of them, so that the
    /// flow policy does not count them as untrusted text until they
    /// change.
    #[command(after_help = example!(
        "mcp-host --config servers.json review",
        "mcp-host --config servers.json review notes",
        "mcp-host --config servers.json review notes create_note --yes",
    ))]
    Review(review::ReviewArgs),
    /// Shows which servers hold data from untrusted sources, and clears
    /// that record for one.
    #[command(after_help = example!(
        "mcp-host --config servers.json flow show",
        "mcp-host --config servers.json flow clear notes",
    ))]
    Flow {
        /// What to do.
        #[command(subcommand)]
        command: review::FlowCommand,
    },
    /// Writes a server's tool list as `mcp-gen client --tools` reads it.
    #[command(after_help = example!("mcp-host --config servers.json snapshot notes --out tools.json"))]
    Snapshot {
        /// The server's id, as configured.
        server: String,
        /// The file to write (only if it changed); standard output when
        /// absent.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Adds a server to the configuration file (creating the file when
    /// missing), keeping the rest of the file as it was.
    #[command(after_help = example!(
        "mcp-host --config .mcp.json add notes --env NOTES_DIR=/srv/notes -- notes-server --stdio",
        "mcp-host --config .mcp.json add search --url https://search.example/mcp --header 'Authorization: Bearer ${SEARCH_TOKEN}'",
    ))]
    Add(edit::Add),
    /// Removes a server from the configuration file.
    #[command(after_help = example!("mcp-host --config .mcp.json remove notes"))]
    Remove {
        /// The server's id, as configured.
        name: String,
    },
    /// Prints a completion script for a shell.
    #[command(after_help = example!(
        "mcp-host completions bash > ~/.local/share/bash-completion/completions/mcp-host"
    ))]
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Prints the manual page (roff), or writes one page per command into
    /// a directory.
    #[command(after_help = example!("mcp-host man | man -l -"))]
    Man {
        /// Write `mcp-host.1` and a page per subcommand here instead.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

/// Runs the command line of this process.
pub fn main() -> ExitCode {
    block_on("mcp-host", run(Args::parse()))
}

/// Runs a command's `future` on the runtime the commands use, and turns
/// its error into a message on stderr, through the terminal-safe
/// renderer (it may quote what a server wrote), prefixed with `name`.
pub fn block_on(
    name: &str,
    future: impl std::future::Future<Output = Result<ExitCode, String>>,
) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("{name}: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(future) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("{name}: {}", mcp_host::untrusted::visible(&e));
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
#[cfg_attr(not(feature = "oauth"), allow(unused_mut))]
pub async fn run(args: Args) -> Result<ExitCode, String> {
    match args.command {
        Command::Chat { .. }
        | Command::Run { .. }
        | Command::Review { .. }
        | Command::Flow { .. } => {
            if args.global.verbose {
                verbose::install();
            }
            return chat::run(&args.global, args.command).await;
        }
        #[cfg(feature = "web")]
        Command::Web(web) => {
            if args.global.verbose {
                verbose::install();
            }
            return crate::web::run(&args.global, web).await;
        }
        Command::Add(add) => return edit::add(&config_path(&args.global)?, add),
        Command::Remove { name } => return edit::remove(&config_path(&args.global)?, &name),
        Command::Completions { shell } => {
            let mut command = <Args as clap::CommandFactory>::command();
            clap_complete::generate(shell, &mut command, "mcp-host", &mut std::io::stdout());
            return Ok(ExitCode::SUCCESS);
        }
        Command::Man { dir } => return man(dir.as_deref()),
        _ => {}
    }
    if args.global.verbose {
        verbose::install();
    }
    let (source, mut config) = load(&args.global).await?;
    #[cfg(feature = "oauth")]
    let store = credential_store();
    #[cfg(feature = "oauth")]
    match &args.command {
        Command::Login { server } | Command::Logout { server } => {
            let store = store.clone()?;
            let id = mcp_host::ServerId::new(server.clone()).map_err(|e| e.to_string())?;
            let entry = config
                .servers
                .remove(&id)
                .ok_or_else(|| format!("no server `{id}` in {}", source.display()))?;
            if !matches!(entry.target, mcp_host::client::Target::Http { .. }) {
                return Err(format!(
                    "server `{id}` runs over stdio, which takes its credentials from `env`, not a login"
                ));
            }
            let forget = forget_tokens(&store, &entry)?;
            if matches!(args.command, Command::Logout { .. }) {
                print(&json!({ "server": id.as_str(), "loggedOut": forget }));
                return Ok(ExitCode::SUCCESS);
            }
            config.servers = std::iter::once((id, entry)).collect();
        }
        _ => {}
    }
    #[cfg(not(feature = "oauth"))]
    if let Command::Login { .. } | Command::Logout { .. } = &args.command {
        return Err(String::from(
            "this mcp-host was built without the `oauth` feature",
        ));
    }
    let approver: Arc<dyn Approver> = match &args.command {
        Command::Call { yes: true, .. } => Arc::new(ApproveAll),
        _ => Arc::new(Terminal),
    };
    // A login needs someone to do it: at a terminal, or when asked for.
    #[cfg(feature = "oauth")]
    let someone = matches!(args.command, Command::Login { .. }) || std::io::stdin().is_terminal();
    #[cfg(not(feature = "oauth"))]
    let someone = false;
    let host = start_host(&args.global, config, approver, Arc::new(Terminal), someone).await?;
    if !matches!(args.command, Command::Trust { .. }) {
        trust::report(&host);
    }
    let outcome = match args.command {
        Command::Servers => servers(&host, &source).await,
        Command::Tools => Ok(catalogue::tools(&host).await),
        Command::Prompts => Ok(catalogue::prompts(&host).await),
        Command::Resources => Ok(catalogue::resources(&host).await),
        Command::Call { name, args, .. } => call(&host, &name, &args).await,
        Command::Prompt { name, args } => content::prompt(&host, &name, &args).await,
        Command::Read { uri, server } => content::read(&host, &uri, server.as_deref()).await,
        Command::Login { server } => login(&host, &server).await,
        Command::Logout { .. } => Ok(ExitCode::SUCCESS),
        Command::Chat { .. }
        | Command::Run { .. }
        | Command::Review { .. }
        | Command::Flow { .. }
        | Command::Add(_)
        | Command::Remove { .. }
        | Command::Completions { .. }
        | Command::Man { .. } => unreachable!("answered before any server starts"),
        #[cfg(feature = "web")]
        Command::Web(_) => unreachable!("answered before any server starts"),
        Command::Snapshot { server, out } => snapshot(&host, &server, out.as_deref()).await,
        #[cfg(feature = "tasks")]
        Command::Task { command } => task::run(&host, command).await,
        Command::Trust { server, name, yes } => {
            trust::trust(&host, &server, name.as_deref(), yes).await
        }
    };
    host.shutdown().await;
    outcome
}

/// The configuration the options name, and where it was read from.
///
/// # Errors
///
/// A message when neither `--config` nor `--from` is usable, or the file
/// cannot be read or is not a valid configuration.
pub async fn load(global: &Global) -> Result<(PathBuf, mcp_host::HostConfig), String> {
    let source = config_path(global)?;
    let config = ask::load_config(source.clone()).await?;
    Ok((source, config))
}

/// The configuration file `--config` or `--from` names.
fn config_path(global: &Global) -> Result<PathBuf, String> {
    match (&global.config, global.from) {
        (Some(path), _) => Ok(path.clone()),
        (None, Some(from)) => from.path(),
        (None, None) => Err(String::from("give --config FILE or --from HOST")),
    }
}

/// `man`: the page of `mcp-host` on stdout, or every page into `dir`.
fn man(dir: Option<&std::path::Path>) -> Result<ExitCode, String> {
    let command = <Args as clap::CommandFactory>::command();
    match dir {
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            clap_mangen::generate_to(command, dir).map_err(|e| format!("{}: {e}", dir.display()))?
        }
        None => clap_mangen::Man::new(command)
            .render(&mut std::io::stdout())
            .map_err(|e| e.to_string())?,
    }
    Ok(ExitCode::SUCCESS)
}

/// Starts the host of `config` as the options say: its pin file, audit
/// log, timeouts and credential store, with `approver` deciding the calls
/// no rule lets through, and a browser login when `login` (someone is
/// there to do it).
///
/// # Errors
///
/// A message when the pin file cannot be used (nothing could be checked
/// against it) or the state directory cannot be found.
#[cfg_attr(not(feature = "oauth"), allow(unused_variables, unused_mut))]
pub async fn start_host(
    global: &Global,
    config: mcp_host::HostConfig,
    approver: Arc<dyn Approver>,
    input: Arc<dyn mcp_host::client::InputHandler>,
    login: bool,
) -> Result<Host, String> {
    let pins = match &global.pins {
        Some(path) => PinFile::new(path),
        None => PinFile::in_state_dir().map_err(|e| e.to_string())?,
    };
    // A pin file that cannot be used stops every command but the one
    // that says so: nothing could be checked against it.
    pins.load().map_err(|e| e.to_string())?;
    let audit = match &global.audit_log {
        Some(path) => Some(AuditLog::new(path)),
        None => AuditLog::in_state_dir(),
    };
    let options = ClientOptions {
        probe_timeout: global.probe_timeout,
        request_timeout: global.timeout,
        task_timeout: global.task_timeout,
        ..ClientOptions::default()
    };
    let mut builder = Host::builder(config)
        .options(options)
        .approver(approver)
        .input(input)
        .pin_file(pins)
        .quarantine_flagged(global.quarantine_flagged);
    if let Some(audit) = audit {
        let kept = if global.audit_redact.is_empty() {
            Arguments::Digest
        } else {
            Arguments::Redacted(global.audit_redact.clone())
        };
        builder = builder.audit(audit.arguments(kept));
    }
    #[cfg(feature = "oauth")]
    let builder = {
        // Without a state directory, tokens last as long as the command.
        let store =
            credential_store().unwrap_or_else(|_| Arc::new(mcp_host::auth::MemoryStore::new()));
        let builder = builder.credentials(store);
        if login {
            builder.login(Arc::new(mcp_host::auth::LoopbackLogin {
                open_browser: !global.no_browser,
                ..mcp_host::auth::LoopbackLogin::default()
            }))
        } else {
            builder
        }
    };
    Ok(builder.start().await)
}

/// The credential store of the command: the file in the state directory.
#[cfg(feature = "oauth")]
fn credential_store() -> Result<Arc<dyn mcp_host::auth::CredentialStore>, String> {
    mcp_host::auth::FileStore::in_state_dir()
        .map(|s| Arc::new(s) as Arc<dyn mcp_host::auth::CredentialStore>)
        .map_err(|e| e.to_string())
}

/// Forgets the tokens kept for the HTTP server of `entry`; whether there
/// were any.
#[cfg(feature = "oauth")]
fn forget_tokens(
    store: &Arc<dyn mcp_host::auth::CredentialStore>,
    entry: &mcp_host::config::ServerConfig,
) -> Result<bool, String> {
    let mcp_host::client::Target::Http { url, .. } = &entry.target else {
        return Ok(false);
    };
    let url = reqwest::Url::parse(url).map_err(|e| format!("url: {e}"))?;
    let key = mcp_host::auth::discovery::canonical_resource(&url);
    let had = store.tokens(&key).map_err(|e| e.to_string())?.is_some();
    store.set_tokens(&key, None).map_err(|e| e.to_string())?;
    Ok(had)
}

/// Reports how the login of `login` went: the host has connected, which
/// logged in when the server asked for it.
#[cfg(feature = "oauth")]
async fn login(host: &Host, server: &str) -> Result<ExitCode, String> {
    let status = host.servers().await.into_iter().next();
    if let Some(error) = status.as_ref().and_then(|s| s.error.clone()) {
        return Err(error);
    }
    let oauth = mcp_host::ServerId::new(server)
        .ok()
        .and_then(|id| host.oauth(&id));
    match oauth {
        Some(oauth) if oauth.has_token() => {
            print(&json!({ "server": server, "loggedIn": true, "scopes": oauth.granted_scopes() }));
            Ok(ExitCode::SUCCESS)
        }
        Some(_) => {
            eprintln!("server `{server}` did not ask for authorization; nothing to log in to");
            print(&json!({ "server": server, "loggedIn": false }));
            Ok(ExitCode::SUCCESS)
        }
        None => Err(format!(
            "server `{server}` has authorization turned off (`\"oauth\": false`)"
        )),
    }
}

#[cfg(not(feature = "oauth"))]
async fn login(_: &Host, _: &str) -> Result<ExitCode, String> {
    Err(String::from(
        "this mcp-host was built without the `oauth` feature",
    ))
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

/// Prints `value` as JSON, every hidden character escaped.
fn print(value: &Value) {
    println!("{}", mcp_host::untrusted::safe_json(value));
}

async fn servers(host: &Host, source: &std::path::Path) -> Result<ExitCode, String> {
    let mut list = Vec::new();
    let mut failed = false;
    for status in host.servers().await {
        let mut entry = json!({ "id": status.id.as_str(), "source": source.display().to_string() });
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
        if status.asleep {
            entry["asleep"] = json!(true);
        }
        if let Some(url) = status.redirected {
            // Requests go there now; the configuration keeps its URL.
            entry["redirectedTo"] = json!(url);
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

/// The `--args` JSON object.
fn object(args: &str) -> Result<Map<String, Value>, String> {
    serde_json::from_str(args).map_err(|e| format!("--args must be a JSON object: {e}"))
}

async fn call(host: &Host, name: &str, args: &str) -> Result<ExitCode, String> {
    #[cfg(feature = "tasks")]
    let running = task::Running::default();
    #[cfg(feature = "tasks")]
    let progress = running.watch();
    #[cfg(not(feature = "tasks"))]
    let progress: mcp_host::client::ProgressFn = Arc::new(progress_bar);
    let options = CallOptions {
        progress: Some(progress),
        ..CallOptions::default()
    };
    let called = tokio::select! {
        called = host.call(name, object(args)?, &options) => called,
        // Interrupted: a task the call became is cancelled, not left to
        // run for nobody; then the command ends as SIGINT would end it.
        _ = tokio::signal::ctrl_c() => {
            #[cfg(feature = "tasks")]
            running.cancel(host).await;
            std::process::exit(130);
        }
    };
    let result = match called {
        Ok(result) => result,
        Err(e) => {
            if let mcp_host::ClientError::Quarantined { reason, .. } = &e {
                trust::show_quarantine(reason);
            }
            return Err(e.to_string());
        }
    };
    Ok(print_result(result))
}

/// Ends the progress line and prints a tool's result, this command's
/// output, as the server wrote it; fails when the tool reported an error.
fn print_result(result: Untrusted<mcp_host::types::v2026_07_28::CallToolResult>) -> ExitCode {
    eprintln!();
    let result = result.accept();
    print(&json!(result));
    if result.is_error == Some(true) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// The tool list of `server`, written to `out` (only if it changed) or
/// printed.
async fn snapshot(
    host: &Host,
    server: &str,
    out: Option<&std::path::Path>,
) -> Result<ExitCode, String> {
    let id = mcp_host::ServerId::new(server).map_err(|e| e.to_string())?;
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
    let text = mcp_host::untrusted::safe_json(&mcp_host::typed::snapshot(&list)) + "\n";
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
    #[cfg(feature = "tasks")]
    if let Some(task) = &report.task {
        // One status line per poll; the id is the server's text.
        let shown = task.as_ref().map(|t| t.task_id.clone()).render();
        let status = task.accept_ref().status;
        let message = report
            .message
            .map(|m| format!(" {}", m.render()))
            .unwrap_or_default();
        // Padded, so that a shorter line covers the one before it.
        let line = format!("task {} {status}{message}", shown.text());
        eprint!("\r{line:<60}");
        let _ = std::io::stderr().flush();
        return;
    }
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
