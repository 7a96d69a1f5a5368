//! Server runtime for the Model Context Protocol: write tools, prompts and
//! resources as plain Rust functions, and serve them over stdio or
//! Streamable HTTP to clients of both protocol eras.
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
//! - `state` (with the `sealed-state` feature) seals what a multi-round
//!   request carries between rounds; [`handle`] names state that spans calls; [`elicit`] asks the user for
//!   input declaratively.
//! - A request that carries the modern `_meta` is served statelessly; a
//!   client that opens with `initialize` gets a legacy session, and the
//!   `input_required` answers of the handlers become real requests to it.
//!
//! With the `auth` feature, `auth` is the resource-server half of OAuth
//! 2.1 for Streamable HTTP. A server built with
//! `ServerBuilder::authorization` publishes its Protected Resource
//! Metadata, refuses requests without a good bearer token (JWT access
//! tokens are checked against the authorization server's keys, other
//! tokens by a verifier of your own), and calls a tool only with the
//! scopes its `#[tool(scopes = [...])]` declares. Without the feature,
//! and over stdio in any case, declared scopes are not enforced.
//!
#![doc = include_str!("../features.md")]
#![deny(missing_docs)]
#![forbid(unsafe_code)]

#[cfg(feature = "auth")]
pub mod auth;
pub mod completion;
pub mod context;
mod ct;
pub mod elicit;
pub mod handle;
pub mod notify;
pub mod prompt;
pub mod resource;
pub mod server;
#[cfg(feature = "sealed-state")]
pub mod state;
pub mod tool;
pub mod transport;
pub mod uri_template;

pub use context::Context;
pub use elicit::ElicitForm;
#[cfg(feature = "sealed-state")]
pub use mcp_derive::RequestState;
pub use mcp_derive::{prompt, prompts, resource, resources, tool, tools, ElicitForm};
pub use mcp_types::jsonrpc::ErrorObject;
pub use server::{BuildError, Limits, Outcome, Reply, RequestHeaders, Server, ServerBuilder};
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
    pub use crate::tool::__private as tool;
    pub use mcp_types;
    pub use schemars;
    pub use serde;
    pub use serde_json;
}
