//! What can go wrong talking to a server.

use std::time::Duration;

use mcp_types::jsonrpc::ErrorObject;

use crate::approval::Denied;
use crate::headers::ParamValueError;
use crate::mrtr::MrtrError;
use crate::probe::ProbeError;
use crate::untrusted::Untrusted;

/// An error of a client or of the host.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The server process could not be started.
    #[error("could not start the server: {0}")]
    Spawn(std::io::Error),
    /// Reading or writing the transport failed.
    #[error("transport failure: {0}")]
    Io(#[from] std::io::Error),
    /// The HTTP request failed before a status came back.
    #[error("HTTP request failed: {0}")]
    Http(String),
    /// The HTTP reply had a status other than 2xx.
    #[error("HTTP status {status}")]
    HttpStatus {
        /// The status.
        status: u16,
        /// The body, as received.
        body: Vec<u8>,
    },
    /// The connection or process ended before the answer came.
    #[error("the server closed the connection")]
    Closed,
    /// The server's HTTP reply to a request ended without the response:
    /// its event stream closed, broke off mid-event or lost its connection
    /// first, or its body was empty.
    ///
    /// A modern request whose event stream breaks is lost, and the client
    /// sends it again with a new id, up to
    /// [`ClientOptions::max_reissues`](super::ClientOptions::max_reissues)
    /// times; this error means every one of those streams broke too. A
    /// legacy request resumes its stream instead and is sent once.
    #[error("the server's reply ended before the response to the request{}", sent_times(*.attempts))]
    Truncated {
        /// How many times the request was sent, each with its own id: 1
        /// unless it was reissued.
        attempts: usize,
    },
    /// A message from the server is larger than
    /// [`ClientOptions::max_message_size`](super::ClientOptions::max_message_size):
    /// one line over stdio, one body or event over HTTP. Over stdio the
    /// connection is failed as well, since its framing is lost.
    #[error("the server sent a message larger than {limit} bytes")]
    MessageTooLarge {
        /// The limit, in bytes.
        limit: usize,
    },
    /// A successful HTTP reply to a request that is neither
    /// `application/json` nor `text/event-stream`. Carries the media type
    /// (lowercase, without parameters), or `None` when there was no
    /// `Content-Type`.
    #[error("the server answered with {}, not `application/json` or `text/event-stream`", describe_media(.0))]
    ContentType(Option<String>),
    /// No answer within the request's timeout; the request was cancelled.
    #[error("no answer within {0:?}")]
    Timeout(Duration),
    /// The server answered with a JSON-RPC error; its message is the
    /// server's text, so it stays untrusted (and renders as such).
    #[error("the server answered with error {}: {}", .0.accept_ref().code, .0.as_ref().map(|e| &e.message).render())]
    Rpc(Untrusted<ErrorObject>),
    /// The server sent something that breaks the protocol.
    #[error("the server broke the protocol: {0}")]
    Protocol(String),
    /// The era probe failed.
    #[error(transparent)]
    Probe(#[from] ProbeError),
    /// The multi-round-trip driver stopped.
    #[error(transparent)]
    Mrtr(#[from] MrtrError),
    /// The host's input handler could not answer an input request.
    #[error("the host could not answer the server's `{method}` request: {reason}")]
    Input {
        /// The input request's method.
        method: String,
        /// Why.
        reason: String,
    },
    /// The gate did not let the call through.
    #[error(transparent)]
    Denied(#[from] Denied),
    /// The approval given was issued for another call.
    #[error("the approval was issued for a different call")]
    ApprovalMismatch,
    /// No such tool, or it was dropped for breaking the header rules.
    #[error("unknown tool `{0}`")]
    UnknownTool(String),
    /// No server with that id.
    #[error("unknown server `{0}`")]
    UnknownServer(String),
    /// An argument cannot be carried in its `Mcp-Param-*` header.
    #[error(transparent)]
    Header(#[from] ParamValueError),
    /// The configuration is not usable.
    #[error("bad configuration: {0}")]
    Config(String),
    /// The server refused the request's credentials (`401`, or `403` with
    /// `insufficient_scope`). A client with an
    /// [`OAuthClient`](crate::auth::OAuthClient) authorizes and sends the
    /// request again before it returns anything, so this reaches the caller
    /// only from a client without one.
    #[cfg(feature = "oauth")]
    #[error("the server refused the request ({0}); configure OAuth for it")]
    Unauthorized(Box<crate::auth::Refusal>),
    /// Authorizing with the server failed.
    #[cfg(feature = "oauth")]
    #[error("authorization failed: {0}")]
    Auth(#[from] crate::auth::AuthError),
    /// The method does not exist in the era the server speaks.
    #[error("`{0}` is not available in the era this server speaks")]
    WrongEra(&'static str),
}

fn describe_media(media: &Option<String>) -> String {
    match media {
        Some(media) => format!("content type `{media}`"),
        None => "no content type".to_owned(),
    }
}

fn sent_times(attempts: usize) -> String {
    if attempts > 1 {
        format!(" (sent {attempts} times)")
    } else {
        String::new()
    }
}

impl From<crate::sse::EventTooLarge> for ClientError {
    fn from(e: crate::sse::EventTooLarge) -> Self {
        Self::MessageTooLarge { limit: e.0 }
    }
}

impl ClientError {
    pub(crate) fn protocol(what: impl std::fmt::Display) -> Self {
        Self::Protocol(what.to_string())
    }
}
