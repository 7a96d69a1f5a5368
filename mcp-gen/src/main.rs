//! `mcp-gen --schema FILE [--out FILE] [--module NAME] [--mcp-revision REV]`

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

/// Generate Rust types from a JSON Schema file.
#[derive(Debug, Parser)]
#[command(version)]
struct Args {
    /// The JSON Schema file to read.
    #[arg(long)]
    schema: PathBuf,
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
}

fn main() -> ExitCode {
    let args = Args::parse();
    let mut settings = match &args.mcp_revision {
        Some(revision) => mcp_gen::Settings::mcp(revision),
        None => mcp_gen::Settings::new(),
    };
    if let Some(module) = &args.module {
        settings.module(module);
    }
    let result = match &args.out {
        Some(out) => settings.compile(&args.schema, out).map(|written| {
            let state = if written { "wrote" } else { "unchanged" };
            eprintln!("{state} {}", out.display());
        }),
        None => generate_to_stdout(&settings, &args.schema),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("mcp-gen: {error}");
            ExitCode::FAILURE
        }
    }
}

fn generate_to_stdout(
    settings: &mcp_gen::Settings,
    schema: &std::path::Path,
) -> Result<(), mcp_gen::Error> {
    print!("{}", settings.generate_file(schema)?);
    Ok(())
}
