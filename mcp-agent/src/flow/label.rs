//! Labels: where a context item came from and whether it may steer.
//!
//! ```
//! use mcp_agent::flow::{Integrity, Label, Origin};
//!
//! assert_eq!(Label::user().integrity, Integrity::Trusted);
//! let mail = Label::server("mail", Integrity::Untrusted);
//! assert_eq!(mail.origin.server(), Some("mail"));
//! assert_eq!(mail.origin.to_string(), "server `mail`");
//! assert_eq!(Origin::Host.to_string(), "the host");
//! ```

use std::fmt;

use serde::{Deserialize, Serialize};

/// Who wrote a context item.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind", content = "id")]
pub enum Origin {
    /// The person at the host: their own messages.
    User,
    /// The host itself: its system prompt, its own notes.
    Host,
    /// A server, by the host's id for it: the key of its entry in the
    /// host configuration, never the name the server gives itself.
    Server(String),
}

impl Origin {
    /// The server's id, for [`Origin::Server`].
    pub fn server(&self) -> Option<&str> {
        match self {
            Self::Server(id) => Some(id),
            Self::User | Self::Host => None,
        }
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::User => f.write_str("the user"),
            Self::Host => f.write_str("the host"),
            Self::Server(id) => write!(f, "server `{id}`"),
        }
    }
}

/// Whether an item may shape what the model does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Integrity {
    /// Written by the user or the host, or by a server whose output the
    /// configuration trusts.
    Trusted,
    /// Anything else a server wrote.
    Untrusted,
}

/// An item's origin and integrity.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Label {
    /// Who wrote it.
    pub origin: Origin,
    /// Whether it may steer.
    pub integrity: Integrity,
}

impl Label {
    /// The user's own words: trusted.
    pub fn user() -> Self {
        Self {
            origin: Origin::User,
            integrity: Integrity::Trusted,
        }
    }

    /// The host's own words: trusted.
    pub fn host() -> Self {
        Self {
            origin: Origin::Host,
            integrity: Integrity::Trusted,
        }
    }

    /// What the server `id` wrote, with the integrity the configuration
    /// gives its output (see [`FlowConfig::label`](super::FlowConfig::label)).
    pub fn server(id: impl Into<String>, integrity: Integrity) -> Self {
        Self {
            origin: Origin::Server(id.into()),
            integrity,
        }
    }
}
