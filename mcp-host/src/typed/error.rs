//! What can go wrong with a typed call, kept apart by kind.

use mcp_types::v2026_07_28::CallToolResult;
use serde_json::Value;

use crate::client::ClientError;
use crate::untrusted::Untrusted;

/// How a tool the client was generated for differs from what the server
/// serves now.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Drift {
    /// The server no longer lists the tool.
    #[error("the server no longer lists the tool `{tool}`")]
    Gone {
        /// The tool's name.
        tool: String,
    },
    /// The tool's schemas or annotations changed: a call as generated may
    /// no longer be what the server understands.
    #[error("the tool `{tool}` changed its schema since the client was generated (digest {expected}, now {found})")]
    SchemaChanged {
        /// The tool's name.
        tool: String,
        /// The digest of the shape the client was generated from.
        expected: String,
        /// The digest of the shape the server serves.
        found: String,
    },
    /// Only titles, descriptions or icons changed. Calls go ahead when the
    /// client accepts such changes
    /// ([`TypedClient::accept_description_changes`](super::TypedClient::accept_description_changes)).
    #[error("the description of the tool `{tool}` changed since the client was generated")]
    DescriptionsChanged {
        /// The tool's name.
        tool: String,
    },
}

impl Drift {
    /// The tool it is about.
    pub fn tool(&self) -> &str {
        match self {
            Drift::Gone { tool }
            | Drift::SchemaChanged { tool, .. }
            | Drift::DescriptionsChanged { tool } => tool,
        }
    }
}

/// Why a typed call failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TypedError {
    /// The tool drifted from its generated definition; nothing was sent.
    #[error(transparent)]
    Drift(#[from] Drift),
    /// The protocol or transport failed: the server could not be reached,
    /// answered with a JSON-RPC error, or the approval did not cover the
    /// call.
    #[error(transparent)]
    Protocol(#[from] ClientError),
    /// The tool ran and reported an error (`isError`). `text` joins its text
    /// blocks; both stay untrusted.
    #[error("the tool `{tool}` reported an error: {}", text.render())]
    Tool {
        /// The tool's name.
        tool: String,
        /// The text of the result's text blocks.
        text: Untrusted<String>,
        /// The whole result.
        result: Box<Untrusted<CallToolResult>>,
    },
    /// The result does not match the tool's output schema or its Rust type.
    #[error("the output of `{tool}` does not match its schema: {reason}")]
    Output {
        /// The tool's name.
        tool: String,
        /// What did not match.
        reason: String,
        /// What the server sent (`structuredContent`, or the content blocks).
        value: Box<Untrusted<Value>>,
    },
    /// The arguments did not encode as a JSON object (a hand-written
    /// `Serialize` of the arguments type, or a non-object argument schema).
    #[error("the arguments of `{tool}` do not encode as a JSON object: {reason}")]
    Arguments {
        /// The tool's name.
        tool: String,
        /// Why.
        reason: String,
    },
}
