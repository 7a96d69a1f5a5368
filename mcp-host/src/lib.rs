//! Host runtime for the Model Context Protocol: one client per server, the
//! era probe and its fallback, host-controlled names, approval by
//! construction, and an untrusted boundary around everything servers say.
//!
//! The crates of this repository are not on crates.io yet: depend on them
//! by path (or by `git`), next to the async runtime the example uses.
//!
//! ```toml
//! [dependencies]
//! mcp-host = { package = "mcp-toolkit-host", path = "../mcp-toolkit/mcp-host" }
//! serde_json = "1"
//! tokio = { version = "1", features = ["macros", "rt-multi-thread"] }
//! ```
//!
//! Then, against the `notes` example server (`cargo build -p mcp-toolkit-server
//! --example notes` in this repository):
//!
//! ```no_run
//! use std::sync::Arc;
//!
//! use mcp_host::approval::{ApproveAll, Policy};
//! use mcp_host::client::CallOptions;
//! use mcp_host::{Host, HostConfig};
//!
//! #[tokio::main]
//! async fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     let config = HostConfig::from_json(r#"{"mcpServers": {
//!         "notes": {"command": "target/debug/examples/notes", "args": ["--stdio"]}
//!     }}"#)?;
//!     // Rules by `server/tool`; the approver decides the calls no rule
//!     // lets through (`ApproveAll` is what `--yes` uses).
//!     let policy = Policy::new().allow("notes/read_*")?.deny("notes/delete_*")?;
//!     let host = Host::builder(config)
//!         .policy(policy)
//!         .approver(Arc::new(ApproveAll))
//!         .start()
//!         .await;
//!     for status in host.servers().await {
//!         if let Some(error) = status.error {
//!             eprintln!("server `{}` is not running: {error}", status.id);
//!         }
//!     }
//!
//!     // Tools are named by the host: `{server id}__{tool}` when that is
//!     // unambiguous and valid, a hashed form otherwise.
//!     for tool in host.tools() {
//!         println!("{}: {}", tool.qualified, tool.tool.render());
//!     }
//!
//!     // One step: checked against the tool's schema, through the gate, sent.
//!     let mut arguments = serde_json::Map::new();
//!     arguments.insert("title".into(), "milk".into());
//!     arguments.insert("body".into(), "buy milk".into());
//!     let result = host
//!         .call("notes__create_note", arguments, &CallOptions::default())
//!         .await?;
//!     println!("{}", result.render()); // server output stays marked untrusted
//!     host.shutdown().await;
//!     Ok(())
//! }
//! ```
//!
//! The same call in three steps is [`Host::prepare`], [`Host::authorize`]
//! (the only way to get an [`Approval`]) and [`Host::call_tool`]. Prompts
//! are [`Host::prompts`] and [`Host::get_prompt`], resources
//! [`Host::resources`], [`Host::resource_templates`] and
//! [`Host::read_resource`]. Servers that ask for input are answered by the
//! host's [`InputHandler`](client::InputHandler): [`NoInput`](client::NoInput)
//! declines everything, [`ElicitWith`](client::ElicitWith) answers with a
//! closure, and [`types`] has the protocol types to build the answers with.
//!
//! When something goes wrong the error says what: a server not in the
//! configuration ([`ClientError::UnknownServer`]), one that is not running
//! ([`ClientError::ServerDown`], with the command, exit status and stderr
//! of a stdio server that failed to start), a name the server does not
//! have ([`ClientError::Unknown`], with the closest ones it has), or
//! arguments that do not fit the tool's schema
//! ([`ClientError::InvalidArguments`], before anyone is asked).
//!
//! # Layers
//!
//! - Sans-IO cores, deterministic and tested without processes:
//!   [`probe`] (which era a server speaks, from its answer to
//!   `server/discover`), [`mrtr`] (the books of a multi-round-trip call),
//!   [`names`] (qualified names), [`headers`] (the HTTP header rules),
//!   [`listen`] (the books of a `subscriptions/listen` stream) and [`sse`]
//!   (event streams).
//! - [`apps`] (with the `apps` feature, on by default): MCP Apps, the
//!   policy a server's view runs under, sans-IO.
//! - [`auth`] (with the `oauth` feature): OAuth 2.1 for HTTP servers
//!   that ask for authorization, its protocol rules sans-IO and its
//!   driver called by the HTTP transport.
//! - [`approval`] and [`untrusted`]: the types that make the security rules
//!   hold at compile time. A tool call needs an [`Approval`], which only a
//!   [`Gate`] issues, by the [`Policy`] and its rules; server data arrives
//!   as [`Untrusted`] and has no `Deref`. [`schema`] checks a call's
//!   arguments against the tool's input schema, bounded against hostile
//!   schemas.
//! - [`digest`]: canonical digests of tool definitions (RFC 8785 JSON,
//!   SHA-256), sans-IO.
//! - [`trust`]: definitions pinned on first use and quarantined when they
//!   change, a readable diff, and poisoning checks, sans-IO; the pin
//!   file. [`audit`]: one JSON line per tool call decision. [`state`]:
//!   the state directory and the private, atomic writes both use.
//! - [`client`]: one server over stdio or Streamable HTTP, in either era,
//!   or over the deprecated HTTP+SSE transport
//!   ([`client::legacy_sse`]); stdio and HTTP+SSE share one message
//!   router, since each carries every message on one connection.
//! - [`tasks`] (with the `tasks` feature): tool calls that the server runs
//!   as tasks; the books of a task sans-IO, followed by the client.
//! - [`typed`]: the runtime of typed clients that `mcp-gen client`
//!   generates from a tool list: a drift check against the live
//!   definition, the same approval gate, and output validated against the
//!   tool's schema.
//! - [`Host`]: every configured server ([`config`]), restarted when a
//!   stdio server crashes, and one catalogue of their tools, prompts,
//!   resources and resource templates.
//!
//! The `mcp-host` command is an application on top of this library and
//! `mcp-agent` (the `mcp-toolkit-host-app` package, `mcp-host-app/` in the
//! repository): a client needs none of its command-line and terminal
//! dependencies.
//!
//! Servers are named by the key of their configuration entry
//! ([`ServerId`]), never by what they call themselves.

// On docs.rs, each item gated by a feature shows which one.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]

use std::future::Future;
use std::pin::Pin;

pub mod approval;
#[cfg(feature = "apps")]
pub mod apps;
pub mod audit;
#[cfg(feature = "oauth")]
pub mod auth;
pub mod client;
pub mod config;
pub mod digest;
pub mod headers;
mod host;
pub mod listen;
pub mod mrtr;
pub mod names;
pub mod probe;
pub mod schema;
pub mod sse;
pub mod state;
#[cfg(feature = "tasks")]
pub mod tasks;
pub mod trust;
pub mod typed;
pub mod untrusted;
mod uri_template;

/// A boxed future, for the host's callbacks ([`approval::Approver`],
/// [`client::InputHandler`]).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The protocol types of every revision the host speaks, from `mcp-types`:
/// what a host needs to build requests and answers (an elicitation answer,
/// the params of a request sent with [`Client::call`]) without depending
/// on `mcp-types` itself. The host's own API speaks
/// [`types::v2026_07_28`].
pub use mcp_types as types;

pub use approval::{Approval, Approver, Gate, Policy, ToolCall, Trust};
pub use client::{Client, ClientError, ClientOptions};
pub use config::HostConfig;
pub use host::{
    Host, HostBuilder, HostPrompt, HostResource, HostResourceTemplate, HostTool, PinEvent,
    ServerStatus,
};
pub use names::ServerId;
pub use untrusted::Untrusted;
