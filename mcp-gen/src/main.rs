//! `mcp-gen --schema FILE [--out FILE] [--module NAME] [--mcp-revision REV] [--doc-link URL] [--reuse FILE=MODULE] [--replace NAME=TYPE]`
//! `mcp-gen client --tools FILE [--out FILE] [--module NAME] [--client-name NAME]`

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Generate Rust types from a JSON Schema file, or a typed client from a
/// server's tool list.
#[derive(Debug, Parser)]
#[command(
    version,
    args_conflicts_with_subcommands = true,
    after_help = "Examples:\n  mcp-gen --schema schema.json --out src/generated.rs --module generated\n  mcp-gen --schema schema.json --mcp-revision 2026-07-28 --out src/mcp.rs"
)]
struct Args {
    /// The JSON Schema file to read.
    #[arg(long)]
    schema: Option<PathBuf>,
    /// Where to write the Rust source (written only if it changed); standard
    /// output when absent.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Wrap the output in `pub mod NAME { ... }`.
    #[arg(long)]
    module: Option<String>,
    /// Use the settings for the published MCP schema of this revision
    /// (for example 2026-07-28).
    #[arg(long)]
    mcp_revision: Option<String>,
    /// How the `@generated` header names the input.
    #[arg(long)]
    source_name: Option<String>,
    /// Link each type's docs to this page instead (with `#name` appended).
    #[arg(long)]
    doc_link: Option<String>,
    /// `FILE=MODULE`: definitions that the schema FILE defines identically
    /// become aliases of the types in the Rust module MODULE.
    #[arg(long, value_name = "FILE=MODULE")]
    reuse: Vec<String>,
    /// `NAME=TYPE`: the definition NAME becomes an alias of the Rust type
    /// TYPE instead of a type of its own.
    #[arg(long, value_name = "NAME=TYPE")]
    replace: Vec<String>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// A typed client from a tool list: a `tools/list` result or an array of
    /// tools (as `mcp-host snapshot` writes it).
    #[command(
        after_help = "Examples:\n  mcp-host --config servers.json snapshot notes --out tools.json\n  mcp-gen client --tools tools.json --out src/notes_client.rs --client-name Notes"
    )]
    Client {
        /// The tool list file to read.
        #[arg(long)]
        tools: PathBuf,
        /// Where to write the Rust source (written only if it changed);
        /// standard output when absent.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Wrap the output in `pub mod NAME { ... }`.
        #[arg(long)]
        module: Option<String>,
        /// The name of the client type (default `Tools`).
        #[arg(long)]
        client_name: Option<String>,
    },
}

fn main() -> ExitCode {
    let args = Args::parse();
    let result = match args.command {
        Some(Command::Client {
            tools,
            out,
            module,
            client_name,
        }) => {
            let mut settings = mcp_gen::ClientSettings::new();
            if let Some(module) = &module {
                settings.module(module);
            }
            if let Some(name) = &client_name {
                settings.client_name(name);
            }
            emit(
                out.as_deref(),
                |out| settings.compile(&tools, out),
                || settings.generate_file(&tools),
            )
        }
        None => schema(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("mcp-gen: {error}");
            ExitCode::FAILURE
        }
    }
}

fn schema(args: &Args) -> Result<(), String> {
    let Some(schema) = &args.schema else {
        return Err("give `--schema FILE`, or `client --tools FILE` (see --help)".to_owned());
    };
    let mut settings = match &args.mcp_revision {
        Some(revision) => mcp_gen::Settings::mcp(revision),
        None => mcp_gen::Settings::new(),
    };
    if let Some(module) = &args.module {
        settings.module(module);
    }
    if let Some(name) = &args.source_name {
        settings.source_name(name);
    }
    if let Some(link) = &args.doc_link {
        settings.doc_link(link);
    }
    for reuse in &args.reuse {
        let Some((file, module)) = reuse.split_once('=') else {
            return Err(format!("`--reuse {reuse}`: give FILE=MODULE"));
        };
        let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
        let other = serde_json::from_str(&text).map_err(|e| format!("{file}: {e}"))?;
        settings.reuse(&other, module);
    }
    for replace in &args.replace {
        let Some((name, path)) = replace.split_once('=') else {
            return Err(format!("`--replace {replace}`: give NAME=TYPE"));
        };
        settings.replace(name, path);
    }
    emit(
        args.out.as_deref(),
        |out| settings.compile(schema, out),
        || settings.generate_file(schema),
    )
}

/// Writes through `compile` when there is an `out` file, else prints what
/// `generate` returns.
fn emit(
    out: Option<&Path>,
    compile: impl FnOnce(&Path) -> Result<bool, mcp_gen::Error>,
    generate: impl FnOnce() -> Result<String, mcp_gen::Error>,
) -> Result<(), String> {
    match out {
        Some(out) => {
            let written = compile(out).map_err(|e| e.to_string())?;
            let state = if written { "wrote" } else { "unchanged" };
            eprintln!("{state} {}", out.display());
        }
        None => print!("{}", generate().map_err(|e| e.to_string())?),
    }
    Ok(())
}
