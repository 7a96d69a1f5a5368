//! Why sealing or opening request state failed.

use std::fmt;

/// Why request state could not be sealed or opened.
///
/// Most variants mean "refuse this token": the client sent state that is
/// not (or no longer) valid for this request, and the server should start
/// the multi-round-trip exchange again rather than fail the call. A few mean
/// the server itself is misconfigured; [`StateError::is_server_fault`] tells
/// the two apart.
///
/// No variant carries the contents of the state, so an error can be logged
/// without leaking what the state held.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum StateError {
    /// The token is not one this server could have issued: empty, too long,
    /// not base64url, or too short to hold a header and a tag.
    Malformed,
    /// The token starts with a format version this server does not read.
    UnsupportedVersion,
    /// The token was sealed with a key the key ring does not hold (never
    /// did, or the key was retired).
    UnknownKey,
    /// The token failed its integrity check: some byte was changed.
    Tampered,
    /// The state's lifetime is over.
    Expired,
    /// The state was issued to another principal (or to none).
    WrongPrincipal,
    /// The state was issued for a different request: another method,
    /// other values in the fields marked `#[state(bind)]`, or another state
    /// type.
    WrongRequest,
    /// The state was already used once, and the server asked for
    /// single use ([`RequestState::open_once`](super::RequestState::open_once)).
    Replayed,
    /// The [`Binding`](super::Binding) does not supply exactly the fields
    /// the state type marks with `#[state(bind)]` (listed here). This is a
    /// bug in the server, not in the token.
    BindingMismatch {
        /// The names of the fields the state type binds, in declaration
        /// order.
        expected: &'static [&'static str],
    },
    /// The state or a bound value could not be serialized, or the sealed
    /// token would be longer than [`MAX_TOKEN_LEN`](super::MAX_TOKEN_LEN).
    Encode(String),
    /// The token is authentic but its contents do not decode into this
    /// type, for example because the type changed between releases. The
    /// message names the position, not the data.
    Decode(String),
    /// The operating system's random number generator failed.
    Random,
}

impl StateError {
    /// Whether the failure lies with the server (its code, configuration or
    /// host) rather than with the token the client sent.
    ///
    /// A client fault means "start the exchange again"; a server fault
    /// usually deserves an internal error and a log line.
    pub fn is_server_fault(&self) -> bool {
        matches!(
            self,
            StateError::BindingMismatch { .. } | StateError::Encode(_) | StateError::Random
        )
    }
}

impl fmt::Display for StateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StateError::Malformed => f.write_str("request state is malformed"),
            StateError::UnsupportedVersion => {
                f.write_str("request state uses a format version this server does not read")
            }
            StateError::UnknownKey => {
                f.write_str("request state was sealed with a key this server does not hold")
            }
            StateError::Tampered => f.write_str("request state failed its integrity check"),
            StateError::Expired => f.write_str("request state has expired"),
            StateError::WrongPrincipal => {
                f.write_str("request state was issued to a different principal")
            }
            StateError::WrongRequest => {
                f.write_str("request state was issued for a different request")
            }
            StateError::Replayed => f.write_str("request state was already used"),
            StateError::BindingMismatch { expected } => write!(
                f,
                "the binding must supply exactly the fields marked `#[state(bind)]`: {expected:?}"
            ),
            StateError::Encode(message) => write!(f, "cannot seal request state: {message}"),
            StateError::Decode(message) => {
                write!(f, "request state does not decode into this type: {message}")
            }
            StateError::Random => f.write_str("the operating system's random source failed"),
        }
    }
}

impl std::error::Error for StateError {}
