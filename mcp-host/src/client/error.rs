//! What can go wrong talking to a server.

use std::time::Duration;

use mcp_types::jsonrpc::ErrorObject;

use crate::approval::Denied;
use crate::headers::ParamValueError;
use crate::mrtr::MrtrError;
use crate::names::ServerId;
use crate::probe::ProbeError;
use crate::untrusted::Untrusted;

/// An error of a client or of the host.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// A stdio server could not be started, or ended before it answered.
    #[error("{0}")]
    Start(Box<StartFailure>),
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
    /// The HTTP server redirected the request somewhere the client does
    /// not follow (see [`redirect`](super::redirect)).
    #[error("the server redirected the request (HTTP {status}) to `{}`, which is not followed: {why}", crate::untrusted::neutralise(.location))]
    Redirect {
        /// The status.
        status: u16,
        /// Where it pointed, as sent (at most 200 characters).
        location: String,
        /// Why it is not followed.
        why: &'static str,
    },
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
    /// The server has no tool or prompt of that name (or the tool was
    /// dropped for breaking the header rules; see
    /// [`Host::excluded_tools`](crate::Host::excluded_tools)). `closest`
    /// holds the names it does have that come closest, as the server
    /// wrote them, and renders as such.
    #[error("server `{server}` has no {kind} `{name}`{}", suggest(*.kind, .closest))]
    Unknown {
        /// A tool or a prompt.
        kind: NameKind,
        /// The server asked.
        server: ServerId,
        /// The name asked for, the server's own (not qualified).
        name: String,
        /// Its closest names, closest first; see [`closest`](crate::names::closest).
        closest: Vec<Untrusted<String>>,
    },
    /// No server of that id in the configuration.
    #[error("no server `{id}` in the configuration{}", list_servers(.configured))]
    UnknownServer {
        /// The id asked for.
        id: String,
        /// The ids of the servers configured.
        configured: Vec<ServerId>,
    },
    /// A name that starts with no configured server's id: qualified names
    /// are `{server}__{name}`.
    #[error("`{name}` does not name a {kind}: {kind}s are named `{{server id}}__{{{kind}}}`{}", list_servers(.configured))]
    Unqualified {
        /// A tool or a prompt.
        kind: NameKind,
        /// The name asked for.
        name: String,
        /// The ids of the servers configured.
        configured: Vec<ServerId>,
    },
    /// The arguments of a call do not fit the tool's input schema; the
    /// call was not put to the gate.
    #[error(transparent)]
    InvalidArguments(#[from] crate::schema::InvalidArguments),
    /// The tool's input schema is one the host will not use, so its calls
    /// cannot be checked and are refused.
    #[error("tool `{tool}` cannot be called: {error}")]
    Schema {
        /// The tool, by the name the host shows.
        tool: String,
        /// What is wrong with its schema.
        error: crate::schema::SchemaError,
    },
    /// The server is configured but not connected: it failed to start or
    /// to answer. `reason` is how it failed (for a stdio server, see
    /// [`StartFailure`]).
    #[error("server `{id}` is not running: {reason}")]
    ServerDown {
        /// The server.
        id: ServerId,
        /// Why, as [`Host::servers`](crate::Host::servers) reports it.
        reason: String,
    },
    /// An argument cannot be carried in its `Mcp-Param-*` header.
    #[error(transparent)]
    Header(#[from] ParamValueError),
    /// The tool or prompt is quarantined: its definition changed since it
    /// was pinned (or the poisoning checks flagged it, or the pin file
    /// cannot be used). The call was not sent, whatever the approver.
    #[error("{kind} `{name}` of server `{server}` is quarantined: {reason}")]
    Quarantined {
        /// A tool or a prompt.
        kind: NameKind,
        /// Its server.
        server: ServerId,
        /// Its qualified name.
        name: String,
        /// Why.
        reason: Box<crate::trust::Quarantine>,
    },
    /// The pin file cannot be read or written.
    #[error(transparent)]
    PinFile(#[from] crate::trust::PinFileError),
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
    /// The server answered a task's poll in a way the client will not
    /// follow (see [`TaskError`](crate::tasks::TaskError)).
    #[cfg(feature = "tasks")]
    #[error("task `{}`: {error}", .task_id.render().text())]
    Task {
        /// The task, as the server named it.
        task_id: Untrusted<String>,
        /// What was wrong.
        error: crate::tasks::TaskError,
    },
    /// The task running the call was cancelled before it finished: by the
    /// server, or by a `tasks/cancel` from elsewhere.
    #[cfg(feature = "tasks")]
    #[error("task `{}` was cancelled{}", .task_id.render().text(), .message.as_ref().map(|m| format!(": {}", m.render())).unwrap_or_default())]
    TaskCancelled {
        /// The task, as the server named it.
        task_id: Untrusted<String>,
        /// The server's status message, if it gave one.
        message: Option<Untrusted<String>>,
    },
}

/// A stdio server that did not get as far as answering: what was run,
/// how it ended, and the last lines it wrote to its stderr.
#[derive(Debug)]
pub struct StartFailure {
    /// The program and its arguments, as configured.
    pub command: String,
    /// What went wrong.
    pub reason: StartReason,
    /// The last lines of its stderr (at most
    /// [`STDERR_LINES`](super::STDERR_LINES)), as the server wrote
    /// them; `None` when its stderr was passed through or it wrote nothing.
    pub stderr: Option<Untrusted<String>>,
}

/// Why a stdio server did not answer.
#[derive(Debug)]
pub enum StartReason {
    /// The program could not be run.
    Spawn(std::io::Error),
    /// It closed its output first: it exited with this status, or still
    /// ran (`None`) when the host stopped waiting for it.
    Exited(Option<std::process::ExitStatus>),
}

impl std::fmt::Display for StartFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.reason {
            StartReason::Spawn(error) => write!(f, "could not start `{}`: {error}", self.command)?,
            StartReason::Exited(status) => write!(
                f,
                "`{}` {} before it answered",
                self.command,
                describe_exit(status.as_ref())
            )?,
        }
        if let Some(stderr) = &self.stderr {
            let shown = stderr.render();
            write!(f, "; the last lines of its stderr {}:", shown.label())?;
            for line in shown.text().lines() {
                write!(f, "\n    {line}")?;
            }
        }
        Ok(())
    }
}

fn describe_exit(status: Option<&std::process::ExitStatus>) -> String {
    use std::os::unix::process::ExitStatusExt;
    match status {
        Some(status) => match (status.code(), status.signal()) {
            (Some(code), _) => format!("exited with status {code}"),
            (None, Some(signal)) => format!("was killed by signal {signal}"),
            (None, None) => format!("ended ({status})"),
        },
        None => String::from("closed its output"),
    }
}

/// What a name was looked up as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameKind {
    /// A tool.
    Tool,
    /// A prompt.
    Prompt,
}

impl std::fmt::Display for NameKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Tool => "tool",
            Self::Prompt => "prompt",
        })
    }
}

fn suggest(kind: NameKind, closest: &[Untrusted<String>]) -> String {
    let Some(first) = closest.first() else {
        return String::new();
    };
    let names: Vec<String> = closest
        .iter()
        .map(|name| format!("`{}`", name.render().text()))
        .collect();
    format!(
        "; the closest {kind}s it has {}: {}",
        first.render().label(),
        names.join(", ")
    )
}

fn list_servers(ids: &[ServerId]) -> String {
    if ids.is_empty() {
        return String::from("; the configuration has no servers");
    }
    let ids: Vec<String> = ids.iter().map(|id| format!("`{id}`")).collect();
    format!("; the configured servers are {}", ids.join(", "))
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
