//! `mcp-host`: see the `mcp_host_app` library, whose front ends this
//! binary runs.

fn main() -> std::process::ExitCode {
    mcp_host_app::terminal::main()
}
