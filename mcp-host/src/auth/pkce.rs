//! PKCE (RFC 7636) with `S256`, and the random values of a flow.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use sha2::{Digest, Sha256};

use super::error::AuthError;
use super::secret::Secret;

/// `bytes` random bytes from the operating system, base64url-encoded
/// without padding: 32 bytes give 43 characters and 256 bits.
///
/// # Errors
///
/// [`AuthError::Login`] when the system has no randomness to give.
pub fn random_text(bytes: usize) -> Result<String, AuthError> {
    let mut buffer = vec![0u8; bytes];
    getrandom::fill(&mut buffer)
        .map_err(|_| AuthError::Login(String::from("no randomness available")))?;
    Ok(URL_SAFE_NO_PAD.encode(buffer))
}

/// A code verifier and its `S256` challenge.
#[derive(Debug, Clone)]
pub struct Pkce {
    /// The verifier, sent with the code.
    pub verifier: Secret,
    /// `BASE64URL(SHA256(verifier))`, sent with the authorization request.
    pub challenge: String,
}

impl Pkce {
    /// A fresh pair, with 256 bits in the verifier.
    ///
    /// # Errors
    ///
    /// As [`random_text`].
    pub fn new() -> Result<Self, AuthError> {
        Ok(Self::from_verifier(Secret::new(random_text(32)?)))
    }

    /// The pair of a given verifier.
    pub fn from_verifier(verifier: Secret) -> Self {
        let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.expose().as_bytes()));
        Self {
            verifier,
            challenge,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenge_is_base64url_of_sha256() {
        // The expected value was computed apart, with Python's hashlib.
        let pkce = Pkce::from_verifier(Secret::new("dBjftJeZ4CVP-mJ92IZd7ZYbVNSKTsl8SC3bd8r0l0U"));
        assert_eq!(
            pkce.challenge,
            "ZWHXZJUFiD2vNJlk8923FyQi-IbI08u2_rnfdjzpJeI"
        );
    }

    #[test]
    fn verifiers_are_long_and_fresh() {
        let (a, b) = (Pkce::new().expect("a"), Pkce::new().expect("b"));
        assert_eq!(a.verifier.expose().len(), 43);
        assert_ne!(a.verifier, b.verifier);
        assert!(a
            .verifier
            .expose()
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_'));
    }
}
