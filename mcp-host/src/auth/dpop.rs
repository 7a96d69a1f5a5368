//! Sender-constrained tokens (DPoP, RFC 9449): a key the host makes for
//! itself, the proof JWT that goes with each token request and each
//! request that presents a DPoP-bound token, and the rules for when to
//! use it. Sans-IO; [`OAuthClient`](super::OAuthClient) calls into it.
//!
//! A DPoP-bound token is useless without its key, so a token that leaks
//! (from a log, a proxy, a compromised server) cannot be replayed. The
//! key is an ECDSA P-256 key (`ES256`, the one algorithm every
//! authorization server that speaks DPoP supports), made when a token is
//! first bound and kept with that token in the credential store (mode
//! `0600`), never in `Debug`, logs or errors.
//!
//! ```
//! use mcp_host::auth::dpop::DpopKey;
//! use mcp_host::auth::Secret;
//!
//! let key = DpopKey::generate()?;
//! let token = Secret::new("an access token");
//! let proof = key.proof("POST", "https://mcp.example.com/mcp?x=1", Some(&token), None)?;
//! assert_eq!(proof.expose().split('.').count(), 3);
//! assert!(!format!("{key:?}").contains(key.pkcs8().expose()));
//! # Ok::<(), mcp_host::auth::AuthError>(())
//! ```

use std::time::{SystemTime, UNIX_EPOCH};

use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine;
use ring::rand::SystemRandom;
use ring::signature::{EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
use serde_json::json;
use sha2::{Digest, Sha256};

use super::error::AuthError;
use super::pkce::random_text;
use super::secret::Secret;

/// The one signing algorithm the host uses for proofs.
pub const ALGORITHM: &str = "ES256";

/// The `error` of a token endpoint's or a resource server's refusal that
/// asks for a server-provided nonce (RFC 9449 §8, §9).
pub const USE_NONCE: &str = "use_dpop_nonce";

/// The header that carries a proof.
pub const PROOF_HEADER: &str = "DPoP";
/// The header a server's nonce comes in.
pub const NONCE_HEADER: &str = "DPoP-Nonce";

/// The longest nonce taken from a server; a longer one is ignored.
pub const MAX_NONCE: usize = 512;

/// A proof-of-possession key. Its `Debug` shows the algorithm and the
/// public key's thumbprint only.
pub struct DpopKey {
    pair: EcdsaKeyPair,
    pkcs8: Secret,
}

impl std::fmt::Debug for DpopKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DpopKey")
            .field("algorithm", &ALGORITHM)
            .field("thumbprint", &self.thumbprint())
            .finish_non_exhaustive()
    }
}

impl DpopKey {
    /// A fresh key.
    ///
    /// # Errors
    ///
    /// [`AuthError::Key`] when the system's random source fails.
    pub fn generate() -> Result<Self, AuthError> {
        let rng = SystemRandom::new();
        let document = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
            .map_err(|_| AuthError::Key(String::from("no DPoP key could be made")))?;
        Self::from_pkcs8(&Secret::new(STANDARD.encode(document.as_ref())))
    }

    /// The key kept by [`pkcs8`](Self::pkcs8).
    ///
    /// # Errors
    ///
    /// [`AuthError::Key`] when the text is not such a key.
    pub fn from_pkcs8(pkcs8: &Secret) -> Result<Self, AuthError> {
        let bad = || AuthError::Key(String::from("the stored DPoP key is unreadable"));
        let der = zeroize::Zeroizing::new(STANDARD.decode(pkcs8.expose()).map_err(|_| bad())?);
        let pair =
            EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &der, &SystemRandom::new())
                .map_err(|_| bad())?;
        Ok(Self {
            pair,
            pkcs8: pkcs8.clone(),
        })
    }

    /// The private key as base64 PKCS#8, for the credential store.
    pub fn pkcs8(&self) -> &Secret {
        &self.pkcs8
    }

    /// The public key as a JWK (RFC 7517), members in the order RFC 7638
    /// hashes them.
    pub fn jwk(&self) -> serde_json::Value {
        // An uncompressed point: 0x04, then x and y of 32 bytes each.
        let point = self.pair.public_key().as_ref();
        let x = point.get(1..33).unwrap_or_default();
        let y = point.get(33..65).unwrap_or_default();
        json!({
            "crv": "P-256",
            "kty": "EC",
            "x": URL_SAFE_NO_PAD.encode(x),
            "y": URL_SAFE_NO_PAD.encode(y),
        })
    }

    /// The JWK SHA-256 thumbprint of the public key (RFC 7638), which a
    /// bound token names in `cnf.jkt`.
    pub fn thumbprint(&self) -> String {
        URL_SAFE_NO_PAD.encode(Sha256::digest(self.jwk().to_string()))
    }

    /// A fresh proof for a request with `method` to `url` (whose query
    /// and fragment are left out of `htu`), with `ath` when it presents
    /// `token` and the server's `nonce` when one was given.
    ///
    /// # Errors
    ///
    /// [`AuthError::Key`] when signing fails.
    pub fn proof(
        &self,
        method: &str,
        url: &str,
        token: Option<&Secret>,
        nonce: Option<&str>,
    ) -> Result<Secret, AuthError> {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let header = json!({ "typ": "dpop+jwt", "alg": ALGORITHM, "jwk": self.jwk() });
        let mut claims = json!({
            "jti": random_text(16)?,
            "htm": method,
            "htu": htu(url),
            "iat": now,
        });
        if let Some(token) = token {
            claims["ath"] = json!(access_token_hash(token));
        }
        if let Some(nonce) = nonce {
            claims["nonce"] = json!(nonce);
        }
        let input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let signature = self
            .pair
            .sign(&SystemRandom::new(), input.as_bytes())
            .map_err(|_| AuthError::Key(String::from("signing a DPoP proof failed")))?;
        Ok(Secret::new(format!(
            "{input}.{}",
            URL_SAFE_NO_PAD.encode(signature.as_ref())
        )))
    }
}

/// `url` without its query and fragment, as a proof's `htu` has it
/// (RFC 9449 §4.2).
pub fn htu(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) => {
            parsed.set_query(None);
            parsed.set_fragment(None);
            parsed.to_string()
        }
        Err(_) => url.split(['?', '#']).next().unwrap_or(url).to_owned(),
    }
}

/// The `ath` of a proof: the base64url SHA-256 of the access token.
pub fn access_token_hash(token: &Secret) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(token.expose().as_bytes()))
}

/// Whether an authorization server that lists `algorithms` in
/// `dpop_signing_alg_values_supported` takes the host's proofs.
pub fn supported(algorithms: &[String]) -> bool {
    algorithms.iter().any(|a| a == ALGORITHM)
}

/// A server's nonce, if it is one a proof may carry: printable ASCII
/// (RFC 9449 §8.1's `NQCHAR`), not empty, not too long.
pub fn nonce(value: &str) -> Option<String> {
    let ok = !value.is_empty()
        && value.len() <= MAX_NONCE
        && value
            .bytes()
            .all(|b| b == b'!' || (0x23..=0x5b).contains(&b) || (0x5d..=0x7e).contains(&b));
    ok.then(|| value.to_owned())
}

/// When the host binds its tokens with DPoP.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum DpopUse {
    /// When the MCP server asks for it (a `DPoP` challenge, or DPoP in
    /// its Protected Resource Metadata) and its authorization server
    /// supports `ES256` proofs.
    #[default]
    Auto,
    /// Whenever the authorization server supports `ES256` proofs.
    Always,
    /// Never: bearer tokens only.
    Never,
}

impl DpopUse {
    /// Whether a new token is to be bound, given whether the resource
    /// asked for DPoP and the algorithms its authorization server lists.
    pub fn binds(self, resource_asks: bool, algorithms: &[String]) -> bool {
        match self {
            Self::Never => false,
            Self::Auto => resource_asks && supported(algorithms),
            Self::Always => supported(algorithms),
        }
    }
}

#[cfg(test)]
mod tests {
    use ring::signature::{UnparsedPublicKey, ECDSA_P256_SHA256_FIXED};

    use super::*;

    fn decode(part: &str) -> serde_json::Value {
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).expect("base64url")).expect("json")
    }

    #[test]
    fn proofs_verify_with_the_key_in_their_header() {
        let key = DpopKey::generate().expect("key");
        let token = Secret::new("tok");
        let proof = key
            .proof(
                "POST",
                "https://mcp.example.com/mcp?q=1#f",
                Some(&token),
                Some("n-1"),
            )
            .expect("proof");
        let text = proof.expose();
        let parts: Vec<&str> = text.split('.').collect();
        assert_eq!(parts.len(), 3);
        let header = decode(parts[0]);
        let claims = decode(parts[1]);
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(header["alg"], "ES256");
        assert!(header["jwk"].get("d").is_none());
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "https://mcp.example.com/mcp");
        assert_eq!(claims["nonce"], "n-1");
        assert_eq!(
            claims["ath"],
            URL_SAFE_NO_PAD.encode(Sha256::digest(b"tok"))
        );
        assert!(claims["jti"].as_str().is_some_and(|j| j.len() >= 16));
        // The signature verifies with the public key the header carries.
        let jwk = &header["jwk"];
        let mut point = vec![4u8];
        point.extend(
            URL_SAFE_NO_PAD
                .decode(jwk["x"].as_str().expect("x"))
                .expect("x"),
        );
        point.extend(
            URL_SAFE_NO_PAD
                .decode(jwk["y"].as_str().expect("y"))
                .expect("y"),
        );
        let signature = URL_SAFE_NO_PAD.decode(parts[2]).expect("signature");
        UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, &point)
            .verify(format!("{}.{}", parts[0], parts[1]).as_bytes(), &signature)
            .expect("verifies");
    }

    #[test]
    fn every_proof_is_fresh_and_a_token_request_carries_no_ath() {
        let key = DpopKey::generate().expect("key");
        let a = key
            .proof("POST", "https://as.example/token", None, None)
            .expect("a");
        let b = key
            .proof("POST", "https://as.example/token", None, None)
            .expect("b");
        let claims = |p: &Secret| decode(p.expose().split('.').nth(1).expect("claims"));
        assert_ne!(claims(&a)["jti"], claims(&b)["jti"]);
        assert!(claims(&a).get("ath").is_none());
        assert!(claims(&a).get("nonce").is_none());
    }

    #[test]
    fn the_key_survives_the_store_and_never_shows() {
        let key = DpopKey::generate().expect("key");
        let again = DpopKey::from_pkcs8(key.pkcs8()).expect("reload");
        assert_eq!(key.thumbprint(), again.thumbprint());
        assert_eq!(key.thumbprint().len(), 43);
        let shown = format!("{key:?}");
        assert!(!shown.contains(key.pkcs8().expose()), "{shown}");
        assert!(DpopKey::from_pkcs8(&Secret::new("not a key")).is_err());
        assert!(DpopKey::from_pkcs8(&Secret::new(STANDARD.encode(b"junk"))).is_err());
    }

    #[test]
    fn when_tokens_are_bound() {
        let es256 = vec![String::from("ES256"), String::from("RS256")];
        let rs_only = vec![String::from("RS256")];
        assert!(DpopUse::Auto.binds(true, &es256));
        assert!(!DpopUse::Auto.binds(false, &es256));
        assert!(!DpopUse::Auto.binds(true, &rs_only));
        assert!(DpopUse::Always.binds(false, &es256));
        assert!(!DpopUse::Never.binds(true, &es256));
    }

    #[test]
    fn nonces_are_printable_and_bounded() {
        assert_eq!(nonce("abc-123").as_deref(), Some("abc-123"));
        assert_eq!(nonce(""), None);
        assert_eq!(nonce("a\"b"), None);
        assert_eq!(nonce("a\\b"), None);
        assert_eq!(nonce("a\nb"), None);
        assert_eq!(nonce(&"x".repeat(MAX_NONCE + 1)), None);
    }
}
