//! Server runtime for the Model Context Protocol: it will route requests
//! decoded with `mcp-types` to handlers, keep multi-round-trip request state
//! sealed, and drive the stdio and Streamable HTTP transports.
//!
//! The runtime is not written yet: the crate exists so the workspace has its
//! final shape, and it exports nothing.

#![deny(missing_docs)]
