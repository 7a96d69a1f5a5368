//! Canonical digests of tool definitions: RFC 8785 JSON canonicalisation
//! and SHA-256, sans-IO.
//!
//! The code lives in the `mcp-digest` crate so that `mcp-gen` computes
//! exactly the digests the host does without depending on the host; this
//! module is where host code (typed clients, pinning of tool definitions)
//! finds it.
//!
//! ```
//! let tool = serde_json::json!({"name": "add", "inputSchema": {"type": "object"}});
//! let digests = mcp_host::digest::tool(&tool);
//! assert_eq!(digests.definition.len(), 64);
//! assert_eq!(mcp_host::digest::canonical(&tool), r#"{"inputSchema":{"type":"object"},"name":"add"}"#);
//! ```

pub use mcp_digest::jcs::{canonical, digest};
pub use mcp_digest::tool::{strip_prose, tool, ToolDigests};
