//! The rules a DPoP proof must pass (RFC 9449, section 4.3), checked
//! against the request it came with. Pure: the time is an argument, and
//! whether the `jti` was seen before is the caller's to ask.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use reqwest::Url;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::nonce::Nonces;
use super::ProofError;
use crate::auth::jwt::claims::{date, string};
use crate::auth::jwt::compact::{self, is_type};
use crate::auth::jwt::jwk::{self, thumbprint};
use crate::auth::Rejection;

/// The longest proof read: a proof carries its public key, so it may be
/// as long as a token.
pub(crate) const MAX_PROOF_BYTES: usize = compact::MAX_TOKEN_BYTES;

/// The longest encoded proof header read: room for an 8192-bit RSA key.
const MAX_PROOF_HEADER_BYTES: usize = 4 * 1024;

/// The longest `jti` accepted.
pub(crate) const MAX_JTI_BYTES: usize = 256;

/// How old a proof may be, in seconds.
pub(crate) const MAX_AGE: u64 = 300;

/// How far in the future a proof's `iat` may be, for clock skew.
pub(crate) const MAX_SKEW: u64 = 60;

/// The members of a JWK that only a private key has (RFC 7518, section
/// 6), and the secret of a symmetric one.
const PRIVATE_MEMBERS: [&str; 8] = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"];

/// The URL proofs must name in `htu`, normalised as RFC 9449 section 4.3
/// asks (RFC 3986 syntax- and scheme-based normalisation: scheme and host
/// in lower case, the default port left out, an empty path as `/`),
/// without query or fragment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Target {
    scheme: String,
    host: String,
    port: Option<u16>,
    path: String,
}

impl Target {
    /// The target of `url`.
    pub(crate) fn of(url: &Url) -> Target {
        Target {
            scheme: url.scheme().to_owned(),
            host: url.host_str().unwrap_or_default().to_ascii_lowercase(),
            port: url.port_or_known_default(),
            path: url.path().to_owned(),
        }
    }

    /// The target `htu` names, if it is an absolute URL.
    fn parse(htu: &str) -> Option<Target> {
        Url::parse(htu).ok().map(|url| Target::of(&url))
    }
}

/// What the request says that the proof must match.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Request<'a> {
    /// The HTTP method, as sent.
    pub(crate) method: &'a str,
    /// The access token sent with the proof.
    pub(crate) token: &'a str,
    /// The time, in seconds since the epoch.
    pub(crate) now: u64,
}

/// A proof that passed every rule but the replay check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Proof {
    /// The JWK SHA-256 thumbprint of the key that signed it.
    pub(crate) jkt: String,
    /// What to record in the replay guard: the digest of the key's
    /// thumbprint and the `jti`, since a `jti` is unique per key only.
    pub(crate) replay_id: [u8; 32],
    /// Until when (seconds since the epoch) the proof would pass, and so
    /// how long its `jti` must be remembered.
    pub(crate) accepted_until: u64,
}

/// Checks `proof` against `target` and `request`, and against the
/// current nonce when `nonces` is given.
///
/// # Errors
///
/// The first rule the proof breaks; [`ProofError::Nonce`] only for a
/// proof that passes every other rule.
pub(crate) fn check(
    proof: &str,
    target: &Target,
    nonces: Option<&Nonces>,
    request: Request<'_>,
) -> Result<Proof, ProofError> {
    let parts = compact::split(proof, MAX_PROOF_HEADER_BYTES).map_err(from_rejection)?;
    match parts.header.get("typ") {
        Some(Value::String(typ)) if is_type(typ, "dpop+jwt") => {}
        _ => return Err(ProofError::Type),
    }
    let alg = compact::algorithm(&parts.header).map_err(from_rejection)?;
    compact::no_critical_extensions(&parts.header).map_err(from_rejection)?;
    let Some(Value::Object(public)) = parts.header.get("jwk") else {
        return Err(ProofError::Key("is missing from its header"));
    };
    if PRIVATE_MEMBERS.iter().any(|m| public.contains_key(*m)) {
        return Err(ProofError::Key("is a private key"));
    }
    let key = jwk::jwk(public).ok_or(ProofError::Key("is not a usable public key"))?;
    let jkt = thumbprint(public).ok_or(ProofError::Key("is not a usable public key"))?;
    if !key.fits(alg) {
        return Err(ProofError::Key("does not fit its algorithm"));
    }
    let claims = &parts.claims().map_err(from_rejection)?;
    let signature = parts.signature().map_err(from_rejection)?;
    if !key.verify(alg, parts.signing_input, &signature) {
        return Err(ProofError::Signature);
    }
    let jti = text(claims, "jti")?;
    if jti.is_empty() || jti.len() > MAX_JTI_BYTES {
        return Err(ProofError::Claim("jti"));
    }
    if text(claims, "htm")? != request.method {
        return Err(ProofError::Method);
    }
    let htu = text(claims, "htu")?;
    if Target::parse(&htu).as_ref() != Some(target) {
        return Err(ProofError::Url);
    }
    let iat = date(claims, "iat")
        .ok()
        .flatten()
        .ok_or(ProofError::Claim("iat"))?;
    if iat.saturating_add(MAX_AGE) < request.now || iat > request.now.saturating_add(MAX_SKEW) {
        return Err(ProofError::Time);
    }
    if text(claims, "ath")? != token_hash(request.token) {
        return Err(ProofError::TokenHash);
    }
    let nonce = string(claims, "nonce").map_err(|_| ProofError::Claim("nonce"))?;
    if let Some(nonces) = nonces {
        if !nonce.is_some_and(|nonce| nonces.accepts(&nonce, request.now)) {
            return Err(ProofError::Nonce);
        }
    }
    Ok(Proof {
        replay_id: Sha256::new()
            .chain_update(jkt.as_bytes())
            .chain_update(b".")
            .chain_update(jti.as_bytes())
            .finalize()
            .into(),
        jkt,
        accepted_until: iat.saturating_add(MAX_AGE),
    })
}

/// The `ath` of a proof sent with `token`: base64url of its SHA-256.
pub(crate) fn token_hash(token: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(token.as_bytes()))
}

/// The string claim `name`, which must be present.
fn text(claims: &Map<String, Value>, name: &'static str) -> Result<String, ProofError> {
    string(claims, name)
        .ok()
        .flatten()
        .ok_or(ProofError::Claim(name))
}

/// A rejection of the compact form, in a proof's words.
fn from_rejection(rejection: Rejection) -> ProofError {
    match rejection {
        Rejection::TooLarge => ProofError::TooLarge,
        Rejection::Algorithm => ProofError::Algorithm,
        Rejection::Malformed(part) => ProofError::Malformed(part),
        _ => ProofError::Malformed("not a compact JWS"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ring::rand::SystemRandom;
    use ring::signature::{self, EcdsaKeyPair, Ed25519KeyPair, KeyPair as _};
    use serde_json::json;

    const NOW: u64 = 1_800_000_000;
    const RESOURCE: &str = "https://notes.example.com/mcp";
    const TOKEN: &str = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2ln";

    fn b64(bytes: &[u8]) -> String {
        URL_SAFE_NO_PAD.encode(bytes)
    }

    /// A client's key: an ES256 one, or an Ed25519 one.
    enum Signer {
        Ec(EcdsaKeyPair),
        Ed(Ed25519KeyPair),
    }

    impl Signer {
        fn ec() -> Signer {
            let rng = SystemRandom::new();
            let alg = &signature::ECDSA_P256_SHA256_FIXED_SIGNING;
            let pkcs8 = EcdsaKeyPair::generate_pkcs8(alg, &rng).expect("generates");
            Signer::Ec(EcdsaKeyPair::from_pkcs8(alg, pkcs8.as_ref(), &rng).expect("loads"))
        }

        fn ed() -> Signer {
            let pkcs8 = Ed25519KeyPair::generate_pkcs8(&SystemRandom::new()).expect("generates");
            Signer::Ed(Ed25519KeyPair::from_pkcs8(pkcs8.as_ref()).expect("loads"))
        }

        fn alg(&self) -> &'static str {
            match self {
                Signer::Ec(_) => "ES256",
                Signer::Ed(_) => "EdDSA",
            }
        }

        fn jwk(&self) -> Value {
            match self {
                Signer::Ec(pair) => {
                    let public = pair.public_key().as_ref();
                    json!({"kty": "EC", "crv": "P-256",
                        "x": b64(&public[1..33]), "y": b64(&public[33..])})
                }
                Signer::Ed(pair) => {
                    json!({"kty": "OKP", "crv": "Ed25519", "x": b64(pair.public_key().as_ref())})
                }
            }
        }

        fn sign(&self, header: &Value, claims: &Value) -> String {
            let input = format!(
                "{}.{}",
                b64(header.to_string().as_bytes()),
                b64(claims.to_string().as_bytes())
            );
            let signature = match self {
                Signer::Ec(pair) => pair
                    .sign(&SystemRandom::new(), input.as_bytes())
                    .expect("signs")
                    .as_ref()
                    .to_vec(),
                Signer::Ed(pair) => pair.sign(input.as_bytes()).as_ref().to_vec(),
            };
            format!("{input}.{}", b64(&signature))
        }

        fn header(&self) -> Value {
            json!({"typ": "dpop+jwt", "alg": self.alg(), "jwk": self.jwk()})
        }

        /// A good proof with `changes` applied to its claims and header:
        /// a member set to `"-"` is removed, any other value replaces it.
        fn proof(&self, header: Value, claims: Value) -> String {
            let good = json!({
                "jti": "e1j3V_bKic8-LAEB", "htm": "POST", "htu": RESOURCE,
                "iat": NOW, "ath": token_hash(TOKEN),
            });
            self.sign(&apply(self.header(), header), &apply(good, claims))
        }
    }

    fn apply(mut base: Value, changes: Value) -> Value {
        for (key, value) in changes.as_object().cloned().unwrap_or_default() {
            if value == "-" {
                base.as_object_mut().map(|o| o.remove(&key));
            } else {
                base[key] = value;
            }
        }
        base
    }

    fn target() -> Target {
        Target::of(&Url::parse(RESOURCE).expect("a URL"))
    }

    fn post() -> Request<'static> {
        Request {
            method: "POST",
            token: TOKEN,
            now: NOW,
        }
    }

    fn checked(proof: &str) -> Result<Proof, ProofError> {
        check(proof, &target(), None, post())
    }

    #[test]
    fn a_good_proof_passes_with_its_key_thumbprint() {
        for signer in [Signer::ec(), Signer::ed()] {
            let proof = checked(&signer.proof(json!({}), json!({}))).expect("passes");
            let jwk = signer.jwk();
            assert_eq!(
                Some(proof.jkt),
                thumbprint(jwk.as_object().expect("an object"))
            );
            assert_eq!(proof.accepted_until, NOW + MAX_AGE);
        }
    }

    #[test]
    fn header_rules() {
        use ProofError::*;
        let signer = Signer::ec();
        let mut with_d = signer.jwk();
        with_d["d"] = json!("AAAA");
        let table = [
            (json!({"typ": "-"}), Type),
            (json!({"typ": "JWT"}), Type),
            (json!({"typ": "at+jwt"}), Type),
            (json!({"typ": 1}), Type),
            (json!({"alg": "none"}), Algorithm),
            (json!({"alg": "HS256"}), Algorithm),
            (json!({"alg": "-"}), Malformed("the header has no `alg`")),
            (json!({"jwk": "-"}), Key("is missing from its header")),
            (json!({"jwk": "a key"}), Key("is missing from its header")),
            (json!({"jwk": with_d}), Key("is a private key")),
            (
                json!({"jwk": {"kty": "oct", "k": "c2VjcmV0"}}),
                Key("is a private key"),
            ),
            (
                json!({"jwk": {"kty": "EC", "crv": "P-256", "x": "AA", "y": "AA"}}),
                Key("is not a usable public key"),
            ),
            (json!({"alg": "RS256"}), Key("does not fit its algorithm")),
            (
                json!({"crit": ["exp"]}),
                Malformed("the header names critical extensions this server does not know"),
            ),
            (json!({"jwk": Signer::ec().jwk()}), Signature),
        ];
        for (changes, expected) in table {
            let proof = signer.proof(changes.clone(), json!({}));
            assert_eq!(checked(&proof), Err(expected), "{changes}");
        }
        let media_type = signer.proof(json!({"typ": "application/DPoP+JWT"}), json!({}));
        assert!(checked(&media_type).is_ok());
    }

    #[test]
    fn claim_rules() {
        use ProofError::*;
        let signer = Signer::ec();
        let table = [
            (json!({"jti": "-"}), Claim("jti")),
            (json!({"jti": ""}), Claim("jti")),
            (json!({"jti": 7}), Claim("jti")),
            (json!({"jti": "j".repeat(MAX_JTI_BYTES + 1)}), Claim("jti")),
            (json!({"htm": "-"}), Claim("htm")),
            (json!({"htm": "GET"}), Method),
            (json!({"htm": "post"}), Method),
            (json!({"htu": "-"}), Claim("htu")),
            (json!({"htu": "https://notes.example.com/other"}), Url),
            (json!({"htu": "https://notes.example.com/mcp/"}), Url),
            (json!({"htu": "https://evil.example.com/mcp"}), Url),
            (json!({"htu": "http://notes.example.com/mcp"}), Url),
            (json!({"htu": "https://notes.example.com:8443/mcp"}), Url),
            (json!({"htu": "/mcp"}), Url),
            (json!({"iat": "-"}), Claim("iat")),
            (json!({"iat": "1800000000"}), Claim("iat")),
            (json!({"iat": NOW - MAX_AGE - 1}), Time),
            (json!({"iat": NOW + MAX_SKEW + 1}), Time),
            (json!({"ath": "-"}), Claim("ath")),
            (json!({"ath": token_hash("another token")}), TokenHash),
            (json!({"nonce": 5}), Claim("nonce")),
        ];
        for (changes, expected) in table {
            let proof = signer.proof(json!({}), changes.clone());
            assert_eq!(checked(&proof), Err(expected), "{changes}");
        }
        let passing = [
            json!({"jti": "j".repeat(MAX_JTI_BYTES)}),
            json!({"htu": "HTTPS://Notes.Example.COM:443/mcp"}),
            json!({"htu": "https://notes.example.com/mcp?x=1#frag"}),
            json!({"iat": NOW - MAX_AGE}),
            json!({"iat": NOW + MAX_SKEW}),
            json!({"iat": 1_800_000_000.5}),
            json!({"nonce": "ignored without nonces"}),
        ];
        for changes in passing {
            let proof = signer.proof(json!({}), changes.clone());
            assert!(checked(&proof).is_ok(), "{changes}");
        }
    }

    #[test]
    fn the_nonce_is_checked_last_when_configured() {
        let signer = Signer::ec();
        let nonces = Nonces::new(&[9; 32]).expect("a long secret");
        let current = nonces.current(NOW);
        let check_with = |claims: Value| {
            let proof = signer.proof(json!({}), claims);
            check(&proof, &target(), Some(&nonces), post())
        };
        assert_eq!(check_with(json!({})), Err(ProofError::Nonce));
        assert_eq!(
            check_with(json!({"nonce": "stale"})),
            Err(ProofError::Nonce)
        );
        assert!(check_with(json!({"nonce": current})).is_ok());
        assert_eq!(
            check_with(json!({"htm": "GET"})),
            Err(ProofError::Method),
            "a bad proof is not asked for a nonce"
        );
    }

    #[test]
    fn replay_ids_are_per_key_and_jti() {
        let (one, two) = (Signer::ec(), Signer::ec());
        let id = |signer: &Signer, jti: &str| {
            checked(&signer.proof(json!({}), json!({"jti": jti})))
                .expect("passes")
                .replay_id
        };
        assert_eq!(id(&one, "a"), id(&one, "a"));
        assert_ne!(id(&one, "a"), id(&one, "b"));
        assert_ne!(id(&one, "a"), id(&two, "a"));
    }

    #[test]
    fn hostile_input_is_refused_without_panic() {
        let signer = Signer::ec();
        let good = signer.proof(json!({}), json!({}));
        let big = "a".repeat(MAX_PROOF_BYTES + 1);
        for bad in ["", ".", "..", "a.b", "a.b.c", "a.b.c.d.e", "é.é.é", &big] {
            assert!(checked(bad).is_err(), "{bad}");
        }
        // Every one-character change, and every truncation, is refused.
        for at in 0..good.len() {
            let mut changed = good.clone().into_bytes();
            changed[at] = if changed[at] == b'A' { b'B' } else { b'A' };
            let changed = String::from_utf8(changed).expect("ASCII");
            if changed != good {
                assert!(checked(&changed).is_err(), "changed at {at}");
            }
            assert!(checked(&good[..at]).is_err(), "cut at {at}");
        }
    }
}
