//! The flow section of the host configuration, and its checked form.
//!
//! ```json
//! {
//!   "mcpServers": {
//!     "notes": { "command": "notes-server", "trustOutput": true },
//!     "mail": { "url": "https://mail.example/mcp" }
//!   },
//!   "flow": {
//!     "egress": ["web/*", "mail/send*"],
//!     "flows": [{ "from": "mail", "to": "notes/append" }]
//!   }
//! }
//! ```
//!
//! `trustOutput` sits in a server's own entry (default `false`); it is
//! not the entry's `trusted`, which trusts the server's annotations.
//! `egress` and `flows` sit in the top-level `flow` object, whose unknown
//! keys are errors so that a misspelt rule never silently does nothing.
//!
//! ```
//! use mcp_agent::flow::{FlowConfig, Integrity};
//! use serde_json::json;
//!
//! let config = FlowConfig::from_host_json(&json!({
//!     "mcpServers": { "notes": { "command": "notes", "trustOutput": true } },
//!     "flow": { "egress": ["web/*"], "flows": [{ "from": "mail", "to": "notes/append" }] }
//! }))?;
//! assert_eq!(config.label("notes").integrity, Integrity::Trusted);
//! assert_eq!(config.label("mail").integrity, Integrity::Untrusted);
//! assert_eq!(config.egress("web", "fetch"), Some(0));
//!
//! let error = FlowConfig::from_host_json(&json!({"flow": {"flows": [{"from": "mail", "to": "notes"}]}}))
//!     .unwrap_err();
//! assert!(error.to_string().starts_with("flow rule 0: `to` pattern \"notes\""));
//! # Ok::<(), mcp_agent::flow::ConfigError>(())
//! ```

use std::collections::BTreeSet;

use serde::Deserialize;
use serde_json::Value;

use super::glob::{server_glob, Glob, GlobError, ToolGlob};
use super::label::{Integrity, Label};

/// The top-level `flow` object as written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FlowSection {
    /// `server/tool` patterns of tools that can send data out.
    #[serde(default)]
    pub egress: Vec<String>,
    /// Flows the person allows ahead of time.
    #[serde(default)]
    pub flows: Vec<FlowRuleSection>,
}

/// One entry of `flows` as written.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FlowRuleSection {
    /// A server pattern: whose output may flow.
    pub from: String,
    /// A `server/tool` pattern: into which tools.
    pub to: String,
}

/// The flow keys of one server entry; the entry's other keys are left to
/// the host.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerFlowEntry {
    /// Whether the server's output is trusted.
    #[serde(default)]
    pub trust_output: bool,
}

/// A flow rule: data from servers matching `from` may flow into tools
/// matching `to`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlowRule {
    /// Whose output.
    pub from: Glob,
    /// Into which tools.
    pub to: ToolGlob,
}

/// What is wrong with a flow section.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// A pattern of `flow.flows[index]`.
    #[error("flow rule {index}: `{field}` pattern {pattern:?}: {source}")]
    Flow {
        /// The rule's index in `flows`.
        index: usize,
        /// `from` or `to`.
        field: &'static str,
        /// The pattern as written.
        pattern: String,
        /// What is wrong with it.
        source: GlobError,
    },
    /// A pattern of `flow.egress[index]`.
    #[error("egress pattern {index} {pattern:?}: {source}")]
    Egress {
        /// The pattern's index in `egress`.
        index: usize,
        /// The pattern as written.
        pattern: String,
        /// What is wrong with it.
        source: GlobError,
    },
    /// A key of the wrong shape.
    #[error("{place}: {message}")]
    Shape {
        /// Where: `flow` or a path in it (`flow.flows[1]`), or
        /// `server "id"`.
        place: String,
        /// What the parser said.
        message: String,
    },
}

/// The checked flow configuration.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FlowConfig {
    trusted_output: BTreeSet<String>,
    egress: Vec<ToolGlob>,
    flows: Vec<FlowRule>,
}

impl FlowConfig {
    /// Checks a section; no server's output is trusted yet (see
    /// [`trust_output`](Self::trust_output)).
    ///
    /// # Errors
    ///
    /// [`ConfigError::Egress`] or [`ConfigError::Flow`] for the first bad
    /// pattern, naming its index.
    pub fn new(section: &FlowSection) -> Result<Self, ConfigError> {
        let egress = section
            .egress
            .iter()
            .enumerate()
            .map(|(index, pattern)| {
                ToolGlob::new(pattern).map_err(|source| ConfigError::Egress {
                    index,
                    pattern: pattern.clone(),
                    source,
                })
            })
            .collect::<Result<_, _>>()?;
        let flows = section
            .flows
            .iter()
            .enumerate()
            .map(|(index, rule)| {
                let bad = |field: &'static str, pattern: &String| {
                    let pattern = pattern.clone();
                    move |source| ConfigError::Flow {
                        index,
                        field,
                        pattern,
                        source,
                    }
                };
                Ok(FlowRule {
                    from: server_glob(&rule.from).map_err(bad("from", &rule.from))?,
                    to: ToolGlob::new(&rule.to).map_err(bad("to", &rule.to))?,
                })
            })
            .collect::<Result<_, ConfigError>>()?;
        Ok(Self {
            trusted_output: BTreeSet::new(),
            egress,
            flows,
        })
    }

    /// Reads the flow keys of a whole host configuration document: the
    /// `flow` object and each entry's `trustOutput`, in `mcpServers` or
    /// in VS Code's `servers`.
    ///
    /// # Errors
    ///
    /// [`ConfigError::Shape`] for a key of the wrong type (a `trustOutput`
    /// that is not a boolean, an unknown key in `flow`), and the errors of
    /// [`new`](Self::new).
    pub fn from_host_json(document: &Value) -> Result<Self, ConfigError> {
        let section = match document.get("flow") {
            None => FlowSection::default(),
            Some(value) => {
                serde_path_to_error::deserialize(value).map_err(|e| ConfigError::Shape {
                    place: match e.path().to_string().as_str() {
                        "." => "flow".to_owned(),
                        path => format!("flow.{path}"),
                    },
                    message: e.into_inner().to_string(),
                })?
            }
        };
        let mut config = Self::new(&section)?;
        let entries = ["mcpServers", "servers"]
            .into_iter()
            .filter_map(|key| document.get(key)?.as_object())
            .flatten();
        for (id, entry) in entries {
            let flow = ServerFlowEntry::deserialize(entry).map_err(|e| ConfigError::Shape {
                place: format!("server {id:?}"),
                message: e.to_string(),
            })?;
            if flow.trust_output {
                config = config.trust_output(id);
            }
        }
        Ok(config)
    }

    /// Trusts the output of the server `id`.
    #[must_use]
    pub fn trust_output(mut self, id: impl Into<String>) -> Self {
        self.trusted_output.insert(id.into());
        self
    }

    /// The label of what the server `id` writes: trusted only when its
    /// output is.
    pub fn label(&self, id: &str) -> Label {
        let integrity = if self.trusted_output.contains(id) {
            Integrity::Trusted
        } else {
            Integrity::Untrusted
        };
        Label::server(id, integrity)
    }

    /// The index of the first egress pattern matching `server/tool`.
    pub fn egress(&self, server: &str, tool: &str) -> Option<usize> {
        self.egress.iter().position(|g| g.matches(server, tool))
    }

    /// The egress pattern at `index`, as written; empty past the end.
    pub fn egress_glob(&self, index: usize) -> &str {
        self.egress.get(index).map_or("", ToolGlob::as_str)
    }

    /// The flow rules, in the order written; their indexes are the ones
    /// [`EndorsementKind::Rule`](super::EndorsementKind::Rule) records.
    pub fn flows(&self) -> &[FlowRule] {
        &self.flows
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn reads_the_host_document() {
        let config = FlowConfig::from_host_json(&json!({
            "mcpServers": {
                "notes": {"command": "n", "trusted": true, "trustOutput": true},
                "mail": {"url": "https://m", "trusted": true},
            },
            "servers": {"vs": {"trustOutput": true}},
            "flow": {"egress": ["web/*"], "flows": [{"from": "mail", "to": "notes/append"}]},
        }))
        .expect("config");
        assert_eq!(config.label("notes").integrity, Integrity::Trusted);
        assert_eq!(config.label("vs").integrity, Integrity::Trusted);
        // Trusted annotations are not trusted output.
        assert_eq!(config.label("mail").integrity, Integrity::Untrusted);
        assert_eq!(config.label("unknown").integrity, Integrity::Untrusted);
        assert_eq!(config.egress("web", "fetch"), Some(0));
        assert_eq!(config.egress("webby", "fetch"), None);
        assert_eq!(config.flows().len(), 1);
        assert!(config.flows()[0].to.matches("notes", "append"));
    }

    #[test]
    fn an_empty_document_trusts_nothing() {
        let config = FlowConfig::from_host_json(&json!({})).expect("config");
        assert_eq!(config, FlowConfig::default());
        assert_eq!(config.label("x").integrity, Integrity::Untrusted);
    }

    #[test]
    fn errors_name_the_rule_and_the_fault() {
        let rows = [
            (
                json!({"flow": {"flows": [{"from": "a", "to": "b/c"}, {"from": "a", "to": "mail"}]}}),
                "flow rule 1: `to` pattern \"mail\": the pattern has no `/` between server and tool (write `server/tool`, `server/*`)",
            ),
            (
                json!({"flow": {"flows": [{"from": "a/b", "to": "b/c"}]}}),
                "flow rule 0: `from` pattern \"a/b\": a server pattern has no `/` (it names servers, not tools)",
            ),
            (
                json!({"flow": {"flows": [{"from": "", "to": "b/c"}]}}),
                "flow rule 0: `from` pattern \"\": the pattern is empty",
            ),
            (
                json!({"flow": {"egress": ["web/*", "web/"]}}),
                "egress pattern 1 \"web/\": the pattern is empty",
            ),
            (
                json!({"flow": {"egres": ["web/*"]}}),
                "flow.egres: unknown field `egres`, expected `egress` or `flows`",
            ),
            (
                json!({"flow": {"flows": [{"from": "a", "to": "b/c"}, {"form": "a", "to": "b/c"}]}}),
                "flow.flows[1].form: unknown field `form`, expected `from` or `to`",
            ),
            (
                json!({"flow": {"egress": "web/*"}}),
                "flow.egress: invalid type: string \"web/*\", expected a sequence",
            ),
            (
                json!({"mcpServers": {"m": {"trustOutput": "yes"}}}),
                "server \"m\": invalid type: string \"yes\", expected a boolean",
            ),
        ];
        for (document, expected) in rows {
            let error = FlowConfig::from_host_json(&document).expect_err("refused");
            assert_eq!(error.to_string(), expected);
        }
    }
}
