//! The `mcp-host` application: the host of this toolkit. It runs the MCP
//! servers of a configuration file, lists and calls their tools, prompts
//! and resources with approval and elicitation answered by a person, and
//! lets a model use them (`chat`, `run`) under the flow policy.
//!
//! ```text
//! cargo install --path mcp-host-app
//! mcp-host --config servers.json tools
//! mcp-host --config servers.json chat --provider openai --base-url http://127.0.0.1:8080/v1 --model local
//! ```
//!
//! The application holds no protocol or policy of its own: those are the
//! libraries' (`mcp_host` for the servers, the approval gate, pins and
//! audit; `mcp_agent` for the model, the conversation and the flow
//! policy). Its folders are its front ends, each a way for a person to
//! drive the same libraries:
//!
//! - [`terminal`]: the command line and the terminal: the commands, the
//!   questions put to the person at the terminal ([`terminal::Terminal`]),
//!   and the conversation at the terminal (`chat`, `run`, `review`,
//!   `flow`).
//! - [`web`] (feature `web`): the browser front end, `mcp-host web`: the
//!   conversation, the questions as dialogs, the servers and the audit
//!   log in a local web app guarded by a launch secret.
//! - [`model`]: which model to talk to, from the command line or the
//!   configuration file; shared by every front end.
//!
//! Features: `oauth` (servers behind a login), `tasks` (tool calls
//! servers run as tasks) and `web` (the browser front end), all on by
//! default.

// On docs.rs, each item gated by a feature shows which one.
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod model;
pub mod terminal;
#[cfg(feature = "web")]
pub mod web;
