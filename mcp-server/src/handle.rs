//! Handles: typed, opaque, unguessable ids for state that spans calls.
//!
//! A creation tool returns a handle; later calls take it back as an
//! ordinary argument. Each handle belongs to a *kind* (a type implementing
//! [`HandleKind`]) that fixes its text prefix and lifetime, so a
//! `Handle<Note>` cannot be passed where a `Handle<Session>` is expected:
//! the compiler refuses it, and decoding refuses a string of another kind.
//!
//! ```
//! use mcp_server::handle::{Handle, HandleStore};
//!
//! struct Note {
//!     text: String,
//! }
//! mcp_server::handle_kind!(Note, prefix = "note", ttl_secs = 3600);
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let notes: HandleStore<Note, Note> = HandleStore::new(10_000);
//! let handle = notes.insert(Some("alice"), Note { text: "hello".into() })?;
//! assert!(handle.to_string().starts_with("note_"));
//!
//! // The handle travels as a plain string and comes back typed.
//! let back: Handle<Note> = handle.to_string().parse()?;
//! assert_eq!(notes.with(&back, Some("alice"), |note| note.text.clone())?, "hello");
//!
//! // It names the note but grants nothing to another principal.
//! assert!(notes.with(&back, Some("mallory"), |_| ()).is_err());
//! # Ok(())
//! # }
//! ```
//!
//! A handle is drawn from the operating system's secure random source with
//! 192 bits of entropy, so on a server without authentication it can serve
//! as a bearer token. On a server with authentication it names the state
//! but grants nothing: [`HandleStore`] records the principal that created
//! each entry and answers only that principal.
//!
//! [`HandleStore`] keeps its values in this process. Behind a load
//! balancer, where the call that uses a handle may reach another replica
//! than the one that minted it, [`SharedHandleStore`] keeps them in a
//! [`SharedStore`](crate::shared::SharedStore) every replica reaches
//! (Redis, with the `redis` feature).

mod shared;
mod store;

use std::borrow::Cow;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;
use std::str::FromStr;
use std::time::Duration;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;

pub use shared::{SharedHandleStore, DEFAULT_SHARE};
pub use store::{HandleError, HandleStore};

/// The number of random bytes in a handle (192 bits).
pub const HANDLE_BYTES: usize = 24;
/// The number of characters after the prefix and `_`: the base64url text
/// of [`HANDLE_BYTES`] bytes, without padding.
pub const HANDLE_TEXT_LEN: usize = HANDLE_BYTES / 3 * 4;

/// What a kind of handle names: its text prefix and how long it lives.
///
/// Implement it on a marker type or on the stored type itself, directly or
/// with [`handle_kind!`](crate::handle_kind):
///
/// ```
/// use std::time::Duration;
/// use mcp_server::handle::HandleKind;
///
/// enum Session {}
///
/// impl HandleKind for Session {
///     const PREFIX: &'static str = "sess";
///     const TTL: Duration = Duration::from_secs(30 * 60);
/// }
/// ```
pub trait HandleKind {
    /// The text before the `_` in every handle of this kind: 1 to 32
    /// lowercase ASCII letters and digits, starting with a letter. An
    /// invalid prefix fails the build where a handle of the kind is minted
    /// or parsed.
    const PREFIX: &'static str;

    /// How long a stored entry lives after it is created. State the
    /// retention in the creating tool's description so the model knows.
    const TTL: Duration;
}

/// Implements [`HandleKind`](crate::handle::HandleKind) for a type in one
/// line.
///
/// ```
/// enum Upload {}
/// mcp_server::handle_kind!(Upload, prefix = "upload", ttl_secs = 900);
///
/// use mcp_server::handle::HandleKind;
/// assert_eq!(Upload::PREFIX, "upload");
/// ```
#[macro_export]
macro_rules! handle_kind {
    ($kind:ty, prefix = $prefix:literal, ttl_secs = $ttl:expr $(,)?) => {
        const _: () = ::core::assert!(
            $crate::handle::__valid_prefix($prefix),
            "the handle prefix must be 1 to 32 lowercase ASCII letters or digits, starting with a letter, like \"note\""
        );
        impl $crate::handle::HandleKind for $kind {
            const PREFIX: &'static str = $prefix;
            const TTL: ::core::time::Duration = ::core::time::Duration::from_secs($ttl);
        }
    };
}

/// Whether `prefix` is a valid [`HandleKind::PREFIX`]; used by
/// [`handle_kind!`](crate::handle_kind) to fail the build at the kind.
#[doc(hidden)]
pub const fn __valid_prefix(prefix: &str) -> bool {
    let bytes = prefix.as_bytes();
    if bytes.is_empty() || bytes.len() > 32 || !bytes[0].is_ascii_lowercase() {
        return false;
    }
    let mut i = 1;
    while i < bytes.len() {
        if !(bytes[i].is_ascii_lowercase() || bytes[i].is_ascii_digit()) {
            return false;
        }
        i += 1;
    }
    true
}

/// An opaque id for state of kind `K`, written `<prefix>_<32 base64url
/// characters>`, for example `note_3q2-7wAAAbcdEfGh_ijkLMNopQRstUVw`.
///
/// It serializes as that string and deserializes only from a string of the
/// same kind and shape. `Debug` shows the prefix and a few characters only,
/// so logs do not carry usable handles; `Display` shows it whole, to send
/// to the client.
pub struct Handle<K: HandleKind> {
    bytes: [u8; HANDLE_BYTES],
    kind: PhantomData<fn() -> K>,
}

impl<K: HandleKind> Handle<K> {
    /// Evaluated wherever a handle is made, so a bad prefix fails the build.
    const PREFIX_CHECK: () = assert!(
        __valid_prefix(K::PREFIX),
        "the prefix of a `HandleKind` must be 1 to 32 lowercase ASCII letters or digits, starting with a letter"
    );

    /// A fresh handle from the operating system's secure random source.
    ///
    /// # Errors
    ///
    /// [`HandleError::Random`] if the random source fails.
    pub fn mint() -> Result<Self, HandleError> {
        let () = Self::PREFIX_CHECK;
        let mut bytes = [0; HANDLE_BYTES];
        getrandom::fill(&mut bytes).map_err(|_| HandleError::Random)?;
        Ok(Handle {
            bytes,
            kind: PhantomData,
        })
    }

    /// Decodes a handle of this kind from its text.
    ///
    /// # Errors
    ///
    /// A [`ParseHandleError`] if the text does not start with this kind's
    /// prefix and `_`, or is not followed by exactly
    /// [`HANDLE_TEXT_LEN`] base64url characters.
    pub fn parse(text: &str) -> Result<Self, ParseHandleError> {
        let () = Self::PREFIX_CHECK;
        let body = text
            .strip_prefix(K::PREFIX)
            .and_then(|rest| rest.strip_prefix('_'))
            .ok_or(ParseHandleError::Prefix {
                expected: K::PREFIX,
            })?;
        if body.len() != HANDLE_TEXT_LEN {
            return Err(ParseHandleError::Length { kind: K::PREFIX });
        }
        let mut bytes = [0; HANDLE_BYTES];
        match URL_SAFE_NO_PAD.decode_slice(body, &mut bytes) {
            Ok(HANDLE_BYTES) => Ok(Handle {
                bytes,
                kind: PhantomData,
            }),
            _ => Err(ParseHandleError::Character),
        }
    }

    pub(crate) fn key(&self) -> [u8; HANDLE_BYTES] {
        self.bytes
    }
}

impl<K: HandleKind> fmt::Display for Handle<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = [0; HANDLE_TEXT_LEN];
        let n = URL_SAFE_NO_PAD
            .encode_slice(self.bytes, &mut text)
            .map_err(|_| fmt::Error)?;
        let text = std::str::from_utf8(&text[..n]).map_err(|_| fmt::Error)?;
        write!(f, "{}_{}", K::PREFIX, text)
    }
}

impl<K: HandleKind> fmt::Debug for Handle<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self.to_string();
        let shown = K::PREFIX.len() + 1 + 4;
        write!(f, "Handle({}…)", text.get(..shown).unwrap_or(K::PREFIX))
    }
}

impl<K: HandleKind> Clone for Handle<K> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<K: HandleKind> Copy for Handle<K> {}

impl<K: HandleKind> PartialEq for Handle<K> {
    fn eq(&self, other: &Self) -> bool {
        self.bytes == other.bytes
    }
}

impl<K: HandleKind> Eq for Handle<K> {}

impl<K: HandleKind> Hash for Handle<K> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.bytes.hash(state);
    }
}

impl<K: HandleKind> FromStr for Handle<K> {
    type Err = ParseHandleError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Handle::parse(text)
    }
}

impl<K: HandleKind> serde::Serialize for Handle<K> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de, K: HandleKind> serde::Deserialize<'de> for Handle<K> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor<K>(PhantomData<fn() -> K>);

        impl<K: HandleKind> serde::de::Visitor<'_> for Visitor<K> {
            type Value = Handle<K>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "a `{}_...` handle", K::PREFIX)
            }

            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Handle<K>, E> {
                Handle::parse(text).map_err(E::custom)
            }
        }

        deserializer.deserialize_str(Visitor(PhantomData))
    }
}

impl<K: HandleKind> schemars::JsonSchema for Handle<K> {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        format!("Handle_{}", K::PREFIX).into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "pattern": format!("^{}_[A-Za-z0-9_-]{{{}}}$", K::PREFIX, HANDLE_TEXT_LEN),
            "description": format!(
                "An opaque `{}` handle returned by an earlier call; pass it back unchanged.",
                K::PREFIX
            ),
        })
    }
}

/// Why a string is not a handle of the expected kind.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParseHandleError {
    /// The string does not start with the kind's prefix and `_`: it is a
    /// handle of another kind, or not a handle.
    Prefix {
        /// The prefix expected.
        expected: &'static str,
    },
    /// The part after the prefix has the wrong length.
    Length {
        /// The prefix of the kind expected.
        kind: &'static str,
    },
    /// The part after the prefix holds a character outside base64url.
    Character,
}

impl fmt::Display for ParseHandleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseHandleError::Prefix { expected } => {
                write!(f, "expected a handle starting with `{expected}_`")
            }
            ParseHandleError::Length { kind } => write!(
                f,
                "a `{kind}` handle has exactly {HANDLE_TEXT_LEN} characters after `{kind}_`"
            ),
            ParseHandleError::Character => {
                f.write_str("a handle holds only letters, digits, `-` and `_` after its prefix")
            }
        }
    }
}

impl std::error::Error for ParseHandleError {}
