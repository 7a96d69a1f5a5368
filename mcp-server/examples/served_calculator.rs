//! The calculator of `calculator.rs`, served over stdio or HTTP, with an
//! optional OAuth resource server: the program the server benchmark
//! (`bench/server_bench.py`) measures.
//!
//! ```text
//! cargo run -p mcp-toolkit-server --example served_calculator -- --stdio
//! cargo run -p mcp-toolkit-server --example served_calculator -- --http 127.0.0.1:3000   # endpoint /mcp
//! cargo run -p mcp-toolkit-server --features auth --example served_calculator -- --http 127.0.0.1:3000 \
//!     --auth-issuer https://auth.example.com --resource http://127.0.0.1:3000/mcp
//! ```
//!
//! Built without the `http` feature (`--no-default-features`), it serves
//! stdio only.
//!
//! With `--auth-issuer` and `--resource`, every request needs an access
//! token of that issuer for that resource (see the `notes` example for
//! scopes and a public host name).

use mcp_server::transport::stdio;
use mcp_server::{tool, tools, Server};

struct Calculator;

#[tools]
impl Calculator {
    /// Adds `a` and `b`.
    #[tool]
    fn add(
        &self,
        /// The first number.
        a: i64,
        /// The second number.
        b: i64,
    ) -> String {
        // Widened, so the sum of any two i64 is exact.
        (i128::from(a) + i128::from(b)).to_string()
    }
}

/// The server, protected by the OAuth resource server `--auth-issuer
/// ISSUER --resource URL` describes when those options are given.
fn server(options: &[&str]) -> Result<Server, Box<dyn std::error::Error>> {
    let builder = Server::builder(Calculator)
        .info("calculator", env!("CARGO_PKG_VERSION"))
        .tools();
    let builder = match options {
        [] => builder,
        #[cfg(feature = "auth")]
        ["--auth-issuer", issuer, "--resource", resource] => {
            builder.authorization(mcp_server::auth::ResourceServer::new(*resource, [*issuer])?)
        }
        _ => {
            return Err(
                "options: --auth-issuer URL --resource URL (with the `auth` feature)".into(),
            )
        }
    };
    Ok(builder.build()?)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["--stdio"] => stdio::serve(server(&[])?).await?,
        #[cfg(feature = "http")]
        ["--http", addr, ref options @ ..] => {
            use mcp_server::transport::http;
            let server = server(options)?;
            // Port 0 takes a free port: the line says which, once bound.
            let addr: std::net::SocketAddr = addr.parse()?;
            let listener = tokio::net::TcpListener::bind(addr)
                .await
                .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
            eprintln!("serving MCP at http://{}/mcp", listener.local_addr()?);
            let shutdown = async {
                let _ = tokio::signal::ctrl_c().await;
            };
            http::serve_with(server, listener, http::HttpConfig::default(), shutdown).await?;
        }
        _ => {
            eprintln!(
                "usage: calculator --stdio | --http ADDR:PORT [--auth-issuer URL --resource URL]"
            );
            std::process::exit(2);
        }
    }
    Ok(())
}
