//! The model side of a Model Context Protocol host.
//!
//! [`mcp-host`](https://docs.rs) speaks MCP to servers; this crate speaks to
//! the model. It lowers tool schemas into the form each provider accepts,
//! names tools within each provider's rules, talks to the providers, runs
//! the loop between model and tools, and decides which tool calls a person
//! must endorse because untrusted text reached the context first.
//!
//! # Layers
//!
//! - [`schema`]: MCP `inputSchema` in, the provider's accepted form out,
//!   with a loss report of every keyword dropped, rewritten or moved;
//!   sans-IO.
//! - [`names`]: provider tool names within each provider's pattern and
//!   length, mapped back exactly, and the tool budget; sans-IO.
//! - [`provider`]: the wire formats of OpenAI Chat Completions, Anthropic
//!   Messages and Gemini `generateContent`, streaming included.
//! - [`flow`]: labels on every context item and the policy that decides
//!   when a call needs a person's endorsement; sans-IO.
//! - [`conversation`]: the loop between the model and the host's tools:
//!   the offer, the books of a conversation and their saved form
//!   sans-IO; [`Agent::turn`](conversation::Agent::turn) and the files of
//!   saved conversations ([`Conversations`](conversation::Conversations))
//!   with I/O.
//!
//! `mcp-host chat`, `run`, `review` and `flow` (the `mcp-toolkit-host-app`
//! package) are this crate at the terminal.

// On docs.rs, each item gated by a feature shows which one.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]

pub mod conversation;
pub mod flow;
pub mod names;
pub mod provider;
mod random;
pub mod schema;
