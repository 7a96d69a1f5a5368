//! What servers hold, sans-IO: labels follow data into storage.
//!
//! When data from untrusted sources flows into a server (a flow rule or a
//! person endorsed a consequential call after untrusted output), that
//! server may store it and hand it back later: a note, a file, a memory.
//! So the host remembers, per server, the untrusted sources whose data it
//! was given, and labels the server's later output with them too, whatever
//! the server's own `trustOutput`, until the person clears them
//! (`mcp-host flow clear SERVER`). The cost: a server that once received
//! untrusted data taints every conversation that reads from it, until
//! cleared; that is the price of not laundering a stored instruction into
//! a trusted one.
//!
//! ```
//! use mcp_agent::flow::Holdings;
//!
//! let mut holdings = Holdings::default();
//! assert!(holdings.hold("notes", ["web".to_owned()]));
//! assert!(!holdings.hold("notes", ["web".to_owned()]), "already held");
//! assert_eq!(holdings.held("notes").collect::<Vec<_>>(), ["web"]);
//! // A server's own data written back to it is not recorded.
//! assert!(!holdings.hold("web", ["web".to_owned()]));
//! assert!(holdings.clear("notes"));
//! assert_eq!(holdings.held("notes").count(), 0);
//! ```

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

/// The untrusted sources whose data each server was given.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Holdings {
    #[serde(default)]
    servers: BTreeMap<String, BTreeSet<String>>,
}

impl Holdings {
    /// The untrusted sources whose data `server` was given, in order.
    pub fn held(&self, server: &str) -> impl Iterator<Item = &str> {
        self.servers
            .get(server)
            .into_iter()
            .flatten()
            .map(String::as_str)
    }

    /// Every server that holds untrusted data, with its sources.
    pub fn servers(&self) -> impl Iterator<Item = (&str, &BTreeSet<String>)> {
        self.servers.iter().map(|(s, held)| (s.as_str(), held))
    }

    /// Records that `server` was given data from `sources` (its own id
    /// is skipped); whether anything new was recorded.
    pub fn hold(&mut self, server: &str, sources: impl IntoIterator<Item = String>) -> bool {
        let mut changed = false;
        for source in sources {
            if source != server {
                changed |= self
                    .servers
                    .entry(server.to_owned())
                    .or_default()
                    .insert(source);
            }
        }
        changed
    }

    /// Forgets what `server` holds; whether it held anything.
    pub fn clear(&mut self, server: &str) -> bool {
        self.servers.remove(server).is_some()
    }

    /// Merges `other` in.
    pub fn merge(&mut self, other: &Self) {
        for (server, held) in &other.servers {
            self.hold(server, held.iter().cloned());
        }
    }
}
