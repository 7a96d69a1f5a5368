//! The audit log: one JSON line per tool call decision, appended to a
//! file (`audit.jsonl` in the user's state directory by default, mode
//! `0600`).
//!
//! Each line ([`AuditRecord`]) has the time, the server id, the tool's
//! own and qualified names, the SHA-256 of the arguments' canonical JSON
//! (or, when the log is set to keep them, the arguments with the
//! configured keys redacted), the decision (`allowed`, `denied` or
//! `refused`) and how it was made (`policy`, `prompt`, `yes`, `schema`,
//! `quarantine`), the outcome and how long the call took. The model side
//! of a host adds a line per call for its flow policy
//! ([`Host::audit_flow`](crate::Host::audit_flow)): `how` is `flow`, the
//! decision `free`, `endorsed` or `refused`, and its `flow` object names
//! the untrusted sources and who endorsed the call.
//!
//! ```
//! use mcp_host::audit::{AuditLog, Arguments};
//!
//! let log = AuditLog::new("/tmp/audit.jsonl").arguments(Arguments::Redacted(vec!["token".into()]));
//! # let _ = log;
//! ```
//!
//! [`record`] is sans-IO: it builds the line; [`AuditLog`] appends it.

pub mod record;

use std::path::{Path, PathBuf};

pub use record::{redact, rfc3339, Arguments, AuditRecord};

/// Where the audit log is appended, and what of the arguments it keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditLog {
    path: PathBuf,
    arguments: Arguments,
}

impl AuditLog {
    /// A log appended to the file at `path`, keeping a digest of the
    /// arguments.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self {
            path: path.into(),
            arguments: Arguments::Digest,
        }
    }

    /// The log `audit.jsonl` in the user's state directory, if there is
    /// one.
    pub fn in_state_dir() -> Option<Self> {
        crate::state::state_dir().map(|dir| Self::new(dir.join("audit.jsonl")))
    }

    /// Sets what of the arguments is kept.
    pub fn arguments(mut self, arguments: Arguments) -> Self {
        self.arguments = arguments;
        self
    }

    /// What of the arguments is kept.
    pub fn kept(&self) -> &Arguments {
        &self.arguments
    }

    /// Where the file is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `record` as one line.
    ///
    /// # Errors
    ///
    /// When the file cannot be written.
    pub fn append(&self, record: &AuditRecord) -> std::io::Result<()> {
        let line = serde_json::to_string(record).map_err(std::io::Error::other)?;
        crate::state::append_line(&self.path, &line)
    }
}
