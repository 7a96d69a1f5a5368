//! Host trust: definitions pinned on first use, and poisoning checks on
//! what servers write.
//!
//! - [`pins`] (sans-IO): the canonical digest (RFC 8785 JSON, SHA-256) of
//!   every tool, prompt and resource template and of the server's
//!   instructions, whole and as sent, keyed by the server's id and its
//!   identity (command line or URL). A definition seen for the first time
//!   is pinned; one that differs from its pin is quarantined: the host
//!   does not offer it as callable, and refuses a call of it with
//!   [`ClientError::Quarantined`](crate::ClientError::Quarantined),
//!   whatever the approver, until [`Host::trust`](crate::Host::trust)
//!   (`mcp-host trust SERVER [NAME]`) pins it again.
//! - [`diff`] (sans-IO): what changed, by JSON pointer, shown neutralised.
//! - [`poison`] (sans-IO): invisible characters, text aimed at the model,
//!   shadowing of other servers' tools and oversized descriptions.
//! - [`PinFile`]: the pins between runs, in the user's state directory.
//! - [`guard`]: the book of pins a host shares with its clients, and
//!   [`Pinning`], how a client holds its tools to pins on the one path
//!   every call takes, whether it was handed out by a host, made by
//!   itself, or wrapped by a typed client.

pub mod diff;
mod file;
pub mod guard;
pub mod pins;
pub mod poison;

pub use file::{PinFile, PinFileError};
pub use guard::{PinGuard, Pinning};
pub use pins::{Change, Definition, Kind, Pin, Pins, Verdict};
pub use poison::{Checks, Finding, FindingKind};

use crate::client::Target;

/// Why a definition is not callable.
#[derive(Debug, Clone, PartialEq)]
pub enum Quarantine {
    /// It differs from its pin.
    Changed(Box<Change>),
    /// The poisoning checks flagged it, and the host quarantines flagged
    /// definitions.
    Flagged(Vec<Finding>),
    /// The pin file cannot be used, so nothing can be checked.
    Unpinned(String),
}

impl std::fmt::Display for Quarantine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Changed(change) => write!(
                f,
                "its definition changed since it was pinned ({}); review and re-approve it \
                 with `mcp-host trust {} {}`",
                change.summary(),
                change.server,
                crate::untrusted::neutralise(&change.name)
            ),
            Self::Flagged(findings) => {
                let shown: Vec<String> = findings.iter().take(3).map(ToString::to_string).collect();
                write!(f, "the poisoning checks flagged it: {}", shown.join("; "))
            }
            Self::Unpinned(reason) => f.write_str(reason),
        }
    }
}

/// The identity of a server's target: its command line, or its URL.
pub fn identity(target: &Target) -> String {
    match target {
        Target::Stdio(command) => {
            let mut line = vec![command.command.clone()];
            line.extend(command.args.iter().cloned());
            format!("stdio:{}", serde_json::Value::from(line))
        }
        // The same URL is the same server, over either HTTP transport.
        Target::Http { url, .. } | Target::Sse { url, .. } => format!("http:{url}"),
    }
}
