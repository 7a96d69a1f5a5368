//! The server of the README's first steps: one read-only tool over
//! stdio. `mcp-host-app/tests/docs.rs` checks that the README shows this
//! file's code, and runs the README's commands against it.
//!
//! ```text
//! cargo run -p mcp-toolkit-server --example calculator
//! ```

use mcp_server::transport::stdio;
use mcp_server::{tool, tools, Server};

struct Calculator;

#[tools]
impl Calculator {
    /// Adds two numbers.
    #[tool(read_only)]
    fn add(
        &self,
        /// The first number.
        a: i64,
        /// The second number.
        b: i64,
    ) -> i64 {
        a + b
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder(Calculator)
        .info("calculator", "1.0.0")
        .tools()
        .build()?;
    stdio::serve(server).await?; // or transport::http::serve(server, addr, shutdown)
    Ok(())
}
