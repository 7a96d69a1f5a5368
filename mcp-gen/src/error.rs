//! The generator's errors: each names the place in the schema that failed.

use std::path::PathBuf;

/// Why generation failed.
///
/// Schema errors carry the JSON pointer (RFC 6901) of the schema node that
/// could not be turned into Rust, so a message points straight at the input.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A node that should be a schema is neither an object nor a boolean.
    #[error("{pointer}: expected a schema (an object or a boolean)")]
    NotASchema {
        /// Where the node is.
        pointer: String,
    },
    /// A `$ref` that does not name a definition of the same document.
    #[error("{pointer}: cannot resolve $ref `{reference}` (only references within the document are supported)")]
    UnresolvedRef {
        /// Where the `$ref` is.
        pointer: String,
        /// The reference as written.
        reference: String,
    },
    /// A keyword value of the wrong JSON type, such as `"required": 3`.
    #[error("{pointer}: `{keyword}` {expected}")]
    InvalidKeyword {
        /// Where the keyword is.
        pointer: String,
        /// The keyword.
        keyword: &'static str,
        /// What the keyword must hold.
        expected: &'static str,
    },
    /// A construct the generator does not turn into Rust.
    #[error("{pointer}: unsupported: {what}")]
    Unsupported {
        /// Where the construct is.
        pointer: String,
        /// What it is.
        what: String,
    },
    /// A replacement type given in the settings is not a Rust type.
    #[error("replacement for `{name}` is not a Rust type: `{path}`")]
    InvalidReplacement {
        /// The definition being replaced.
        name: String,
        /// The text that failed to parse.
        path: String,
    },
    /// The schema file could not be read or the output could not be written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The schema file is not JSON.
    #[error("{}: invalid JSON: {source}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: serde_json::Error,
    },
    /// The input of [`ClientSettings`](crate::ClientSettings) is not a tool
    /// list.
    #[error("not a tool list: {0}")]
    NotAToolList(String),
    /// The generator produced code that does not parse: a bug in mcp-gen.
    #[error(
        "internal error: generated code does not parse ({0}); please report it with the schema"
    )]
    Internal(String),
}

impl Error {
    /// The JSON pointer of the schema node that failed, when the error is
    /// about one.
    pub fn pointer(&self) -> Option<&str> {
        match self {
            Error::NotASchema { pointer }
            | Error::UnresolvedRef { pointer, .. }
            | Error::InvalidKeyword { pointer, .. }
            | Error::Unsupported { pointer, .. } => Some(pointer),
            _ => None,
        }
    }
}

/// Appends one reference token to a JSON pointer, escaping `~` and `/`.
pub(crate) fn child(pointer: &str, token: &str) -> String {
    format!("{pointer}/{}", token.replace('~', "~0").replace('/', "~1"))
}
