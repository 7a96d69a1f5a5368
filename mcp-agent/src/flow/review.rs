//! Reviewed definitions, sans-IO: which tool definitions a person read
//! whole and accepted, each by the SHA-256 of its canonical JSON (RFC
//! 8785), as the host's pins compute it.
//!
//! A server's definitions are part of the model's context from the first
//! request: its tools' names, titles, descriptions, schemas with their
//! descriptions, enums and defaults, and annotations. Those of a server
//! whose output is not trusted are untrusted text, and taint the
//! conversation from the start, unless a person accepted that very
//! definition. A definition that changes loses its acceptance, since its
//! digest no longer matches.
//!
//! ```
//! use mcp_agent::flow::Reviews;
//!
//! let mut reviews = Reviews::default();
//! reviews.accept("notes", "create_note", "9f2c…");
//! assert!(reviews.accepted("notes", "create_note", "9f2c…"));
//! // A changed definition has another digest: no longer accepted.
//! assert!(!reviews.accepted("notes", "create_note", "0b1d…"));
//! assert_eq!(reviews.pinned("notes", "create_note"), Some("9f2c…"));
//! assert_eq!(reviews.forget("notes", None), 1);
//! assert!(!reviews.accepted("notes", "create_note", "9f2c…"));
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The accepted definitions, by server id and tool name.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reviews {
    #[serde(default)]
    servers: BTreeMap<String, BTreeMap<String, String>>,
}

impl Reviews {
    /// Whether a person accepted the definition of `tool` of `server`
    /// whose digest is `digest`.
    pub fn accepted(&self, server: &str, tool: &str, digest: &str) -> bool {
        self.servers
            .get(server)
            .and_then(|tools| tools.get(tool))
            .is_some_and(|accepted| accepted == digest)
    }

    /// The digest accepted for `tool` of `server`, if any: what a pin
    /// holds, to tell a definition never accepted from one that changed.
    pub fn pinned(&self, server: &str, tool: &str) -> Option<&str> {
        self.servers
            .get(server)
            .and_then(|tools| tools.get(tool))
            .map(String::as_str)
    }

    /// Records that a person accepted the definition of `tool` of
    /// `server` whose digest is `digest`.
    pub fn accept(&mut self, server: &str, tool: &str, digest: &str) {
        self.servers
            .entry(server.to_owned())
            .or_default()
            .insert(tool.to_owned(), digest.to_owned());
    }

    /// Forgets the acceptance of `tool` of `server`, or of every tool of
    /// it; how many were forgotten.
    pub fn forget(&mut self, server: &str, tool: Option<&str>) -> usize {
        let Some(tools) = self.servers.get_mut(server) else {
            return 0;
        };
        let forgotten = match tool {
            Some(tool) => usize::from(tools.remove(tool).is_some()),
            None => std::mem::take(tools).len(),
        };
        if tools.is_empty() {
            self.servers.remove(server);
        }
        forgotten
    }

    /// Merges `other` in: its acceptances win.
    pub fn merge(&mut self, other: &Self) {
        for (server, tools) in &other.servers {
            let mine = self.servers.entry(server.clone()).or_default();
            mine.extend(tools.iter().map(|(t, d)| (t.clone(), d.clone())));
        }
    }
}
