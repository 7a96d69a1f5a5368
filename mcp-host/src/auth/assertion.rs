//! Client authentication with a signed JWT (`private_key_jwt`, RFC 7523
//! §2.2), for hosts that run without a person and hold a private key
//! instead of a secret. The key is a PKCS#8 PEM; ES256, ES384, RS256 and
//! EdDSA (Ed25519) are supported.

use std::time::{SystemTime, UNIX_EPOCH};

use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine;
use ring::rand::SystemRandom;
use ring::signature::{self, EcdsaKeyPair, Ed25519KeyPair, RsaKeyPair};
use serde_json::json;

use super::error::AuthError;
use super::pkce::random_text;
use super::secret::Secret;

/// How long an assertion is valid, in seconds.
const LIFETIME: u64 = 300;

/// A private key that signs client assertions. Its `Debug` shows the
/// algorithm only.
pub struct AssertionKey {
    algorithm: &'static str,
    key: Key,
    key_id: Option<String>,
}

enum Key {
    Ecdsa(EcdsaKeyPair),
    Rsa(RsaKeyPair),
    Ed25519(Ed25519KeyPair),
}

impl std::fmt::Debug for AssertionKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AssertionKey")
            .field("algorithm", &self.algorithm)
            .field("key_id", &self.key_id)
            .finish_non_exhaustive()
    }
}

/// The DER of the first `PRIVATE KEY` block of a PEM text.
fn pem_der(pem: &str) -> Result<Vec<u8>, AuthError> {
    const BEGIN: &str = "-----BEGIN PRIVATE KEY-----";
    const END: &str = "-----END PRIVATE KEY-----";
    let start = pem.find(BEGIN).ok_or_else(|| {
        AuthError::Key(String::from(
            "no `BEGIN PRIVATE KEY` block (a PKCS#8 PEM is needed)",
        ))
    })?;
    let body = &pem[start + BEGIN.len()..];
    let end = body
        .find(END)
        .ok_or_else(|| AuthError::Key(String::from("the PEM block does not end")))?;
    let text: String = body[..end].chars().filter(|c| !c.is_whitespace()).collect();
    STANDARD
        .decode(text)
        .map_err(|_| AuthError::Key(String::from("the PEM block is not base64")))
}

impl AssertionKey {
    /// The key in a PKCS#8 PEM, for `algorithm` (`ES256`, `ES384`,
    /// `RS256` or `EdDSA`).
    ///
    /// # Errors
    ///
    /// [`AuthError::Key`] when the text is not such a key, or the
    /// algorithm is not one of those.
    pub fn from_pem(pem: &str, algorithm: &str) -> Result<Self, AuthError> {
        let der = zeroize::Zeroizing::new(pem_der(pem)?);
        let bad = |_| AuthError::Key(format!("not a PKCS#8 key for {algorithm}"));
        let rng = SystemRandom::new();
        let (algorithm, key) = match algorithm {
            "ES256" => (
                "ES256",
                Key::Ecdsa(
                    EcdsaKeyPair::from_pkcs8(
                        &signature::ECDSA_P256_SHA256_FIXED_SIGNING,
                        &der,
                        &rng,
                    )
                    .map_err(bad)?,
                ),
            ),
            "ES384" => (
                "ES384",
                Key::Ecdsa(
                    EcdsaKeyPair::from_pkcs8(
                        &signature::ECDSA_P384_SHA384_FIXED_SIGNING,
                        &der,
                        &rng,
                    )
                    .map_err(bad)?,
                ),
            ),
            "RS256" => (
                "RS256",
                Key::Rsa(RsaKeyPair::from_pkcs8(&der).map_err(bad)?),
            ),
            "EdDSA" => (
                "EdDSA",
                Key::Ed25519(Ed25519KeyPair::from_pkcs8_maybe_unchecked(&der).map_err(bad)?),
            ),
            other => {
                return Err(AuthError::Key(format!(
                    "algorithm `{}` is not supported (ES256, ES384, RS256, EdDSA)",
                    super::error::neutral(other)
                )))
            }
        };
        Ok(Self {
            algorithm,
            key,
            key_id: None,
        })
    }

    /// Names the key in the assertion's `kid` header.
    pub fn with_key_id(mut self, key_id: impl Into<String>) -> Self {
        self.key_id = Some(key_id.into());
        self
    }

    /// The algorithm.
    pub fn algorithm(&self) -> &'static str {
        self.algorithm
    }

    /// A fresh assertion for `client_id` at the authorization server
    /// `audience` (its issuer identifier).
    ///
    /// # Errors
    ///
    /// [`AuthError::Key`] when signing fails.
    pub fn assertion(&self, client_id: &str, audience: &str) -> Result<Secret, AuthError> {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let mut header = json!({ "alg": self.algorithm, "typ": "JWT" });
        if let Some(kid) = &self.key_id {
            header["kid"] = json!(kid);
        }
        let claims = json!({
            "iss": client_id,
            "sub": client_id,
            "aud": audience,
            "iat": now,
            "exp": now + LIFETIME,
            "jti": random_text(16)?,
        });
        let input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let failed = |_| AuthError::Key(String::from("signing failed"));
        let rng = SystemRandom::new();
        let signature = match &self.key {
            Key::Ecdsa(key) => key
                .sign(&rng, input.as_bytes())
                .map_err(failed)?
                .as_ref()
                .to_vec(),
            Key::Ed25519(key) => key.sign(input.as_bytes()).as_ref().to_vec(),
            Key::Rsa(key) => {
                let mut out = vec![0; key.public().modulus_len()];
                key.sign(
                    &signature::RSA_PKCS1_SHA256,
                    &rng,
                    input.as_bytes(),
                    &mut out,
                )
                .map_err(failed)?;
                out
            }
        };
        Ok(Secret::new(format!(
            "{input}.{}",
            URL_SAFE_NO_PAD.encode(signature)
        )))
    }
}

#[cfg(test)]
mod tests {
    use ring::signature::KeyPair;

    use super::*;

    fn pem(der: &[u8]) -> String {
        let body = STANDARD.encode(der);
        let lines: Vec<&str> = body
            .as_bytes()
            .chunks(64)
            .map(|c| std::str::from_utf8(c).unwrap_or(""))
            .collect();
        format!(
            "-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n",
            lines.join("\n")
        )
    }

    fn parts(jwt: &Secret) -> (serde_json::Value, serde_json::Value, Vec<u8>, String) {
        let text = jwt.expose();
        let mut it = text.split('.');
        let h = it.next().unwrap_or_default();
        let c = it.next().unwrap_or_default();
        let s = it.next().unwrap_or_default();
        let decode = |p: &str| URL_SAFE_NO_PAD.decode(p).expect("base64url");
        (
            serde_json::from_slice(&decode(h)).expect("header"),
            serde_json::from_slice(&decode(c)).expect("claims"),
            decode(s),
            format!("{h}.{c}"),
        )
    }

    #[test]
    fn es256_assertions_verify() {
        let rng = SystemRandom::new();
        let der = EcdsaKeyPair::generate_pkcs8(&signature::ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
            .expect("key");
        let pair = EcdsaKeyPair::from_pkcs8(
            &signature::ECDSA_P256_SHA256_FIXED_SIGNING,
            der.as_ref(),
            &rng,
        )
        .expect("pair");
        let key = AssertionKey::from_pem(&pem(der.as_ref()), "ES256")
            .expect("load")
            .with_key_id("k1");
        let jwt = key
            .assertion("client-1", "https://as.example")
            .expect("sign");
        let (header, claims, sig, input) = parts(&jwt);
        assert_eq!(header["alg"], "ES256");
        assert_eq!(header["kid"], "k1");
        assert_eq!(claims["iss"], "client-1");
        assert_eq!(claims["sub"], "client-1");
        assert_eq!(claims["aud"], "https://as.example");
        assert!(claims["exp"].as_u64() > claims["iat"].as_u64());
        signature::UnparsedPublicKey::new(
            &signature::ECDSA_P256_SHA256_FIXED,
            pair.public_key().as_ref(),
        )
        .verify(input.as_bytes(), &sig)
        .expect("verifies");
        assert!(!format!("{key:?}").contains("BEGIN"));
    }

    #[test]
    fn ed25519_assertions_verify() {
        let der = Ed25519KeyPair::generate_pkcs8(&SystemRandom::new()).expect("key");
        let pair = Ed25519KeyPair::from_pkcs8(der.as_ref()).expect("pair");
        let key = AssertionKey::from_pem(&pem(der.as_ref()), "EdDSA").expect("load");
        let jwt = key.assertion("c", "https://as.example").expect("sign");
        let (_, _, sig, input) = parts(&jwt);
        signature::UnparsedPublicKey::new(&signature::ED25519, pair.public_key().as_ref())
            .verify(input.as_bytes(), &sig)
            .expect("verifies");
    }

    #[test]
    fn refuses_what_it_cannot_use() {
        let der = Ed25519KeyPair::generate_pkcs8(&SystemRandom::new()).expect("key");
        assert!(AssertionKey::from_pem(&pem(der.as_ref()), "ES256").is_err());
        assert!(AssertionKey::from_pem(&pem(der.as_ref()), "HS256").is_err());
        assert!(AssertionKey::from_pem("not a pem", "ES256").is_err());
        assert!(AssertionKey::from_pem(
            "-----BEGIN PRIVATE KEY-----\n!!\n-----END PRIVATE KEY-----",
            "ES256"
        )
        .is_err());
    }
}
