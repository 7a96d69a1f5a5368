//! Canonical JSON and digests of tool definitions: the one place that says
//! when two definitions are the same.
//!
//! ```
//! use serde_json::json;
//!
//! let served = json!({"name": "add", "description": "Adds.",
//!     "inputSchema": {"type": "object", "properties": {"a": {"type": "integer"}}}});
//! let reworded = json!({"inputSchema": {"properties": {"a": {"type": "integer"}}, "type": "object"},
//!     "description": "Adds two numbers.", "name": "add"});
//!
//! let (a, b) = (mcp_digest::tool(&served), mcp_digest::tool(&reworded));
//! assert_ne!(a.definition, b.definition); // the description changed
//! assert_eq!(a.shape, b.shape); // nothing a call depends on did
//! assert_eq!(mcp_digest::canonical(&json!({"b": 1.0, "a": "€"})), r#"{"a":"€","b":1}"#);
//! ```
//!
//! # Layout
//! - [`jcs`]: RFC 8785 canonicalisation ([`canonical`]) and the SHA-256 of
//!   it ([`digest`]).
//! - [`tool`](mod@tool): what of a tool definition is hashed, twice: as
//!   served ([`ToolDigests::definition`]) and with the prose a person reads
//!   stripped ([`ToolDigests::shape`]).
//!
//! No I/O: the generator embeds these digests in the code it writes, and the
//! host computes them again from what a server lists.

#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod jcs;
pub mod tool;

pub use jcs::{canonical, digest};
pub use tool::{tool, ToolDigests};
