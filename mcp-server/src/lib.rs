//! Server runtime for the Model Context Protocol: write tools, prompts and
//! resources as plain Rust functions, and serve them over stdio or
//! Streamable HTTP to clients of both protocol eras.
//!
//! The crates of this repository are not on crates.io yet: depend on them
//! by path (or by `git`), next to the async runtime `main` uses, and
//! `serde` and `schemars` for types of your own that tools take or return
//! (they derive `Deserialize`/`Serialize` and `JsonSchema`):
//!
//! ```toml
//! [dependencies]
//! mcp-server = { package = "mcp-toolkit-server", path = "../mcp-toolkit/mcp-server" } # features = ["auth"] for OAuth
//! tokio = { version = "1", features = ["macros", "rt-multi-thread"] }
//! serde = { version = "1", features = ["derive"] }
//! schemars = "1"
//! ```
//!
//! Then:
//!
//! ```no_run
//! use mcp_server::transport::stdio;
//! use mcp_server::{tool, tools, Server};
//!
//! struct Calculator;
//!
//! #[tools]
//! impl Calculator {
//!     /// Adds two numbers.
//!     #[tool(read_only)]
//!     fn add(
//!         &self,
//!         /// The first number.
//!         a: i64,
//!         /// The second number.
//!         b: i64,
//!     ) -> i64 {
//!         a + b
//!     }
//! }
//!
//! #[tokio::main]
//! async fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     let server = Server::builder(Calculator).info("calculator", "1.0.0").tools().build()?;
//!     stdio::serve(server).await?;
//!     Ok(())
//! }
//! ```
//!
//! - [`tool`](macro@tool), [`prompt`](macro@prompt) and [`resource`](macro@resource) turn functions into handlers;
//!   [`tools`], [`prompts`] and [`resources`] group the methods of an `impl`
//!   block. Their attribute references are in the [`tool`](mod@tool),
//!   [`prompt`](mod@prompt) and [`resource`](mod@resource) modules.
//! - [`Server`] validates each request (`_meta`, HTTP headers, version,
//!   capabilities), dispatches it, and shapes the result; the
//!   [`transport`] modules only move bytes.
//! - Any one of [`ServerBuilder::tools`], [`ServerBuilder::prompts`] and
//!   [`ServerBuilder::resources`] serves every `#[tools]`, `#[prompts]`
//!   and `#[resources]` block of the state's type (a set given with
//!   `prompt_set` or `resource_set` takes the place of the type's own).
//!   `server/discover` and `initialize` advertise exactly what is served:
//!   `completions` only with [`ServerBuilder::completion`], and each
//!   answer carries only what its revision defines.
//! - [`types`] are the protocol types (`types::v2026_07_28::TextResourceContents`
//!   and the like) and [`schemars`] the crate the schemas are derived with.
//! - `state` (with the `sealed-state` feature) seals what a multi-round
//!   request carries between rounds; [`handle`] names state that spans calls; [`elicit`] asks the user for
//!   input declaratively.
//! - [`share`] says who a request counts against (its principal, or its
//!   client's address) for the per-client shares of requests in flight,
//!   handles, legacy sessions and tasks that keep one client from taking
//!   everyone's place.
//! - [`shared`] is storage every replica of a server reaches (in memory,
//!   or Redis with the `redis` feature), behind handles that resolve on
//!   any replica, and a replay guard that refuses on all of them
//!   single-use state and DPoP proofs one has seen.
//! - A request that carries the modern `_meta` is served statelessly; a
//!   client that opens with `initialize` gets a legacy session, and the
//!   `input_required` answers of the handlers become real requests to it.
//!
//! With the `auth` feature, `auth` is the resource-server half of OAuth
//! 2.1 for Streamable HTTP. A server built with
//! `ServerBuilder::authorization` publishes its Protected Resource
//! Metadata, refuses requests without a good bearer token (JWT access
//! tokens are checked against the authorization server's keys, other
//! tokens by a verifier of your own) or, when enabled, a DPoP-bound token
//! with a good proof (RFC 9449), and calls a tool only with the
//! scopes its `#[tool(scopes = [...])]` declares. Without the feature,
//! and over stdio in any case, declared scopes are not enforced.
//!
//! With the `tasks` feature (on by default), `tasks` is the official tasks
//! extension: a tool marked `#[tool(task = "optional")]` (or `"required"`)
//! answers a client that declared `io.modelcontextprotocol/tasks` with a
//! task that runs in the background, polled with `tasks/get`, fed with
//! `tasks/update` and stopped with `tasks/cancel`, its state kept in a
//! `TaskStore` (in memory by default; in Redis, shared by every replica,
//! with the `redis` feature).
//!
//! With the `apps` feature (on by default), `apps` is the server side of
//! MCP Apps, `io.modelcontextprotocol/ui`: `apps::View` declares an
//! interactive HTML view (its CSP origins, permissions, sandbox domain and
//! border), `ServerBuilder::view` serves it as a `ui://` resource, and a
//! tool names the view that renders its results with
//! `#[tool(ui = "ui://...")]` and who may call it with
//! `#[tool(visibility = ["app"])]`. The builder refuses a tool whose view
//! is not served.
//!
#![doc = include_str!("../features.md")]
// On docs.rs, each item gated by a feature shows which one.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]
#![forbid(unsafe_code)]

#[cfg(feature = "apps")]
pub mod apps;
#[cfg(feature = "auth")]
pub mod auth;
pub mod completion;
pub mod context;
mod ct;
pub mod elicit;
pub mod handle;
pub mod notify;
pub mod observe;
pub mod prompt;
pub mod resource;
pub mod server;
pub mod share;
pub mod shared;
#[cfg(feature = "sealed-state")]
pub mod state;
#[cfg(feature = "tasks")]
pub mod tasks;
pub mod tool;
pub mod transport;
pub use mcp_uri_template as uri_template;

/// The protocol types, one module per revision (`types::v2026_07_28`,
/// `types::v2025_11_25`), with the JSON-RPC framing, the `_meta` keys and
/// the method table: everything of the `mcp-types` crate, so a server
/// needs no other crate of this repository. Handlers return some of them
/// (`TextResourceContents`, `PromptMessage`), and the builder takes some
/// (`CacheScope`).
pub mod types {
    // A module rather than `pub use mcp_types as types`: compiler messages
    // then name the types by a path that exists (`mcp_server::types::..`).
    #[doc(inline)]
    pub use mcp_types::*;
}

/// The `schemars` the tool macros derive schemas with: a type that a tool
/// takes or returns derives `schemars::JsonSchema`. Depend on `schemars`
/// version 1 yourself to write the derive, or name it through this path.
pub use schemars;

pub use context::Context;
pub use elicit::ElicitForm;
#[cfg(feature = "sealed-state")]
pub use mcp_derive::RequestState;
pub use mcp_derive::{prompt, prompts, resource, resources, tool, tools, ElicitForm};
pub use mcp_types::jsonrpc::ErrorObject;
pub use server::{
    BuildError, Limits, NotReady, Outcome, Reply, RequestHeaders, Server, ServerBuilder,
};
#[cfg(feature = "sealed-state")]
pub use state::RequestState;

/// A boxed future that handlers return, so sets of handlers can be stored
/// and called through one signature.
pub type BoxFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;

/// Entry points for the fuzz targets; not a stable API.
#[doc(hidden)]
#[path = "fuzz.rs"]
pub mod __fuzz;

/// Items the macros refer to; not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use crate::elicit::__private as elicit;
    pub use crate::prompt::__macro_support as prompt;
    pub use crate::resource::__macro_support as resource;
    /// The probes that find the sets of a server type.
    pub mod sets {
        pub use crate::server::{
            FoundPrompts, FoundResources, FoundTools, Missing, OwnSets, Probe,
        };
    }
    pub use crate::tool::__private as tool;
    pub use mcp_types;
    pub use schemars;
    pub use serde;
    pub use serde_json;
}
