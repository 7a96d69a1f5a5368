//! `mcp-host`: list MCP servers and their tools, and call a tool with
//! approval and elicitation at the terminal. See `mcp_host::cli`.

fn main() -> std::process::ExitCode {
    mcp_host::cli::main()
}
