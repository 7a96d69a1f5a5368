//! `mcp-agent`: a model that uses the tools of MCP servers, at the
//! terminal (`chat`) or for one task (`run`); `mcp-host chat` and
//! `mcp-host run` run it. See `mcp_agent::cli`.

fn main() -> std::process::ExitCode {
    mcp_agent::cli::main()
}
