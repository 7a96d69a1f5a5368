//! Server runtime for the Model Context Protocol.
//!
//! This crate holds what the `mcp-derive` macros expand to (tool, prompt and
//! resource definitions, elicitation forms, sealed request state and
//! handles) and, later, the router and transports that serve them.

#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod context;
pub mod elicit;
pub mod handle;
pub mod notify;
pub mod prompt;
pub mod resource;
pub mod server;
pub mod state;
pub mod tool;
pub mod transport;
pub mod uri_template;

pub use context::Context;
pub use elicit::ElicitForm;
pub use mcp_derive::{prompt, prompts, resource, resources, tool, tools, ElicitForm, RequestState};
pub use mcp_types::jsonrpc::ErrorObject;
pub use server::{BuildError, Limits, Outcome, RequestHeaders, Server, ServerBuilder};
pub use state::RequestState;

/// A boxed future that handlers return, so sets of handlers can be stored
/// and called through one signature.
pub type BoxFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;

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
