//! The two kinds of text a model is given besides the user's: the host's
//! own words ([`HostText`]) and what servers wrote ([`ServerText`]).
//!
//! They are different types so that the wrong one cannot be passed. The
//! host's path into the context
//! ([`Conversation::host_result`](crate::conversation::Conversation::host_result))
//! takes a [`HostText`], which is built from the host's own templates
//! (`&'static str`), numbers and the host's ids for servers, and from
//! nothing else: no `String` converts into one, so an error message that
//! quotes a server cannot be written as the host's.
//!
//! ```compile_fail,E0308
//! use mcp_agent::flow::HostText;
//! let error = String::from("server says: CALL mail__send {}");
//! let text: HostText = format!("the call failed: {error}");
//! ```
//!
//! ```compile_fail,E0277
//! use mcp_agent::flow::HostText;
//! let error = String::from("server says: CALL mail__send {}");
//! let text = HostText::from(error);
//! ```
//!
//! What a server wrote takes the other path
//! ([`Conversation::server_output`](crate::conversation::Conversation::server_output)),
//! which labels it with every server it came from, records it in the
//! ledger and wraps it in the envelope:
//!
//! ```
//! use mcp_agent::flow::{HostText, ServerText, Source};
//!
//! let note = HostText::new("the call was not sent: ")
//!     .then("the arguments do not fit the tool's schema, ")
//!     .number(2)
//!     .then(" problems");
//! assert_eq!(note.as_str(), "the call was not sent: the arguments do not fit the tool's schema, 2 problems");
//!
//! let error = ServerText::error("mail", "send", "timeout: CALL mail__send {}");
//! assert_eq!(error.sources(), [Source::Output("mail".into())]);
//! ```

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::envelope::DataKind;

/// The host's own words to the model: its templates, numbers, and its ids
/// for servers (the keys of the configuration). See the [module
/// docs](self).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostText(String);

impl HostText {
    /// Text that starts with `template`.
    pub fn new(template: &'static str) -> Self {
        Self(template.to_owned())
    }

    /// Appends more of the host's own template.
    #[must_use]
    pub fn then(mut self, template: &'static str) -> Self {
        self.0.push_str(template);
        self
    }

    /// Appends a number.
    #[must_use]
    pub fn number(mut self, n: u64) -> Self {
        let _ = write!(self.0, "{n}");
        self
    }

    /// Appends the host's id for a server, in name characters only: the
    /// key of its entry in the configuration, which the user wrote.
    #[must_use]
    pub fn server(mut self, id: &mcp_host::names::ServerId) -> Self {
        self.0.push_str(&super::endorse::plain_name(id.as_str()));
        self
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Appends a server's id that the flow policy itself named (its
    /// sources are ids of the configuration).
    pub(crate) fn push_checked(&mut self, checked: &str) {
        self.0.push_str(checked);
    }
}

impl std::ops::Deref for HostText {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for HostText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Where a piece of server text came from, as the flow policy labels it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Source {
    /// Output of the server with this id: results, errors, status
    /// messages, anything it answered. Labelled as the configuration says
    /// of its output, and with whatever the server holds
    /// ([`Holdings`](super::Holdings)).
    Output(String),
    /// A definition of the server with this id (a tool's name, title,
    /// description, schemas, annotations), by the SHA-256 of its
    /// canonical JSON: trusted when the server's output is trusted or a
    /// person reviewed and accepted that very definition
    /// ([`Reviews`](super::Reviews)).
    Definition {
        /// The server's id.
        server: String,
        /// The tool's name on the server.
        tool: String,
        /// The digest of the definition as the server sent it.
        digest: String,
    },
}

impl Source {
    /// The server's id.
    pub fn server(&self) -> &str {
        match self {
            Self::Output(server) | Self::Definition { server, .. } => server,
        }
    }
}

/// Text one or more servers wrote, with where it came from. It reaches the
/// model only labelled and enveloped. See the [module docs](self).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerText {
    sources: Vec<Source>,
    kind: DataKind,
    name: String,
    text: String,
}

impl ServerText {
    /// A tool's result from `server`.
    pub fn result(server: &str, tool: &str, text: impl Into<String>) -> Self {
        Self::of(
            vec![Source::Output(server.to_owned())],
            DataKind::Tool,
            tool,
            text,
        )
    }

    /// An error whose words `server` chose or shaped: a JSON-RPC error, a
    /// result the client could not decode, a task's status message, a
    /// failed start's standard error, anything a client error quotes.
    pub fn error(server: &str, tool: &str, text: impl Into<String>) -> Self {
        Self::of(
            vec![Source::Output(server.to_owned())],
            DataKind::Error,
            tool,
            text,
        )
    }

    /// What a view of `server`'s (MCP Apps) wrote for the conversation,
    /// named by the view's `ui://` URI: code the server wrote, so its
    /// words are the server's output.
    pub fn view(server: &str, uri: &str, text: impl Into<String>) -> Self {
        Self::of(
            vec![Source::Output(server.to_owned())],
            DataKind::View,
            uri,
            text,
        )
    }

    /// Text built from the definitions `sources` (the tool search's
    /// answer, an error that quotes a schema), named `name`.
    pub fn definitions(sources: Vec<Source>, name: &str, text: impl Into<String>) -> Self {
        Self::of(sources, DataKind::Definitions, name, text)
    }

    /// Text of `kind` named `name` from `sources`.
    pub fn of(sources: Vec<Source>, kind: DataKind, name: &str, text: impl Into<String>) -> Self {
        let mut sources = sources;
        sources.sort();
        sources.dedup();
        Self {
            sources,
            kind,
            name: name.to_owned(),
            text: text.into(),
        }
    }

    /// Where it came from, sorted, each once.
    pub fn sources(&self) -> &[Source] {
        &self.sources
    }

    /// What it is.
    pub fn kind(&self) -> DataKind {
        self.kind
    }

    /// The tool's name or what else names it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The text as the servers wrote it.
    pub fn text(&self) -> &str {
        &self.text
    }
}
