//! Host runtime for the Model Context Protocol: one client per server, the
//! era probe and its fallback, host-controlled names, approval by
//! construction, and an untrusted boundary around everything servers say.
//!
//! ```no_run
//! use std::sync::Arc;
//!
//! use mcp_host::approval::ApproveAll;
//! use mcp_host::client::CallOptions;
//! use mcp_host::{Host, HostConfig};
//!
//! # #[tokio::main]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let config = HostConfig::from_json(r#"{"mcpServers": {
//!     "notes": {"command": "notes-server", "args": ["--stdio"]},
//!     "search": {"url": "http://127.0.0.1:3000/mcp"}
//! }}"#)?;
//! // The approver decides on every call the policy will not let through by
//! // itself; `ApproveAll` is what `--yes` uses.
//! let host = Host::builder(config).approver(Arc::new(ApproveAll)).start().await;
//!
//! // Tools are named by the host: `{server id}__{tool}` when that is
//! // unambiguous and valid, a hashed form otherwise.
//! for tool in host.tools() {
//!     println!("{}: {}", tool.qualified, tool.tool.render());
//! }
//!
//! let mut arguments = serde_json::Map::new();
//! arguments.insert("text".into(), "buy milk".into());
//! let call = host.prepare("notes__add_note", arguments).await?;
//! let approval = host.authorize(&call).await?; // the only way to get one
//! let result = host.call_tool(call, approval, &CallOptions::default()).await?;
//! println!("{}", result.render()); // server output stays marked untrusted
//! host.shutdown().await;
//! # Ok(())
//! # }
//! ```
//!
//! # Layers
//!
//! - Sans-IO cores, deterministic and tested without processes:
//!   [`probe`] (which era a server speaks, from its answer to
//!   `server/discover`), [`mrtr`] (the books of a multi-round-trip call),
//!   [`names`] (qualified names), [`headers`] (the HTTP header rules),
//!   [`listen`] (the books of a `subscriptions/listen` stream) and [`sse`]
//!   (event streams).
//! - [`auth`] (with the `oauth` feature): OAuth 2.1 for HTTP servers
//!   that ask for authorization, its protocol rules sans-IO and its
//!   driver called by the HTTP transport.
//! - [`approval`] and [`untrusted`]: the types that make the security rules
//!   hold at compile time. A tool call needs an [`Approval`], which only a
//!   [`Gate`] issues; server data arrives as [`Untrusted`] and has no
//!   `Deref`.
//! - [`digest`]: canonical digests of tool definitions (RFC 8785 JSON,
//!   SHA-256), sans-IO.
//! - [`client`]: one server over stdio or Streamable HTTP, in either era.
//! - [`typed`]: the runtime of typed clients that `mcp-gen client`
//!   generates from a tool list: a drift check against the live
//!   definition, the same approval gate, and output validated against the
//!   tool's schema.
//! - [`Host`]: every configured server ([`config`]), restarted when a
//!   stdio server crashes, and one catalogue of their tools, prompts and
//!   resources.
//! - [`cli`]: the `mcp-host` command (`snapshot` writes a server's tool
//!   list for `mcp-gen client`).
//!
//! Servers are named by the key of their configuration entry
//! ([`ServerId`]), never by what they call themselves.

#![deny(missing_docs)]

use std::future::Future;
use std::pin::Pin;

pub mod approval;
#[cfg(feature = "oauth")]
pub mod auth;
pub mod cli;
pub mod client;
pub mod config;
pub mod digest;
pub mod headers;
mod host;
pub mod listen;
pub mod mrtr;
pub mod names;
pub mod probe;
pub mod sse;
pub mod typed;
pub mod untrusted;

/// A boxed future, for the host's callbacks ([`approval::Approver`],
/// [`client::InputHandler`]).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

pub use approval::{Approval, Approver, Gate, Policy, ToolCall, Trust};
pub use client::{Client, ClientError, ClientOptions};
pub use config::HostConfig;
pub use host::{Host, HostBuilder, HostPrompt, HostResource, HostTool, ServerStatus};
pub use names::ServerId;
pub use untrusted::Untrusted;
