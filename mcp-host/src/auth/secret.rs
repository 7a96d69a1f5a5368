//! Secrets: access and refresh tokens, client secrets, PKCE verifiers.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

/// A secret string. It never shows in `Debug` (there is no `Display`), is
/// wiped from memory when dropped, and compares in constant time. Only
/// [`Secret::expose`] gives the text, where it has to go on the wire or
/// into the credential store.
#[derive(Clone, Default)]
pub struct Secret(Zeroizing<String>);

impl Secret {
    /// Wraps `text`.
    pub fn new(text: impl Into<String>) -> Self {
        Self(Zeroizing::new(text.into()))
    }

    /// The secret text.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Whether the secret is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl From<String> for Secret {
    fn from(text: String) -> Self {
        Self::new(text)
    }
}

impl From<&str> for Secret {
    fn from(text: &str) -> Self {
        Self::new(text)
    }
}

impl PartialEq for Secret {
    fn eq(&self, other: &Self) -> bool {
        // Lengths are not secret enough to matter for tokens, but compare
        // digests anyway so that nothing about the text leaks by timing.
        use sha2::Digest;
        let a = sha2::Sha256::digest(self.0.as_bytes());
        let b = sha2::Sha256::digest(other.0.as_bytes());
        a.as_slice().ct_eq(b.as_slice()).into()
    }
}

impl Eq for Secret {}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

impl Serialize for Secret {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Secret {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Self::new)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_shows_in_debug() {
        let secret = Secret::new("tok-123");
        assert_eq!(format!("{secret:?}"), "Secret(<redacted>)");
        assert_eq!(format!("{:?}", Some(&secret)), "Some(Secret(<redacted>))");
        assert_eq!(secret.expose(), "tok-123");
    }

    #[test]
    fn compares_by_value() {
        assert_eq!(Secret::new("a"), Secret::new("a"));
        assert_ne!(Secret::new("a"), Secret::new("ab"));
    }

    #[test]
    fn round_trips_as_a_string() {
        let json = serde_json::to_string(&Secret::new("x")).expect("encode");
        assert_eq!(json, "\"x\"");
        let back: Secret = serde_json::from_str(&json).expect("decode");
        assert_eq!(back.expose(), "x");
    }
}
