//! Public keys of a JWK Set
//! ([RFC 7517](https://datatracker.ietf.org/doc/html/rfc7517)) and
//! signature checks with them on `ring`. A key is used only with an
//! algorithm its type and curve fit, and only for signatures.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use ring::signature::{self, RsaPublicKeyComponents, UnparsedPublicKey};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::compact::Algorithm;

/// The most keys of one set that are read; the rest are ignored.
pub(crate) const MAX_KEYS: usize = 64;

/// The key material, decoded once when the set is read.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Material {
    /// Modulus and exponent, big-endian without leading zeros.
    Rsa { n: Vec<u8>, e: Vec<u8> },
    /// An uncompressed P-256 point (`04 || x || y`).
    P256(Vec<u8>),
    /// An uncompressed P-384 point.
    P384(Vec<u8>),
    /// An Ed25519 public key.
    Ed25519(Vec<u8>),
}

/// One verification key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Jwk {
    pub(crate) kid: Option<String>,
    /// The one algorithm the key is for, when the set says.
    alg: Option<Algorithm>,
    material: Material,
}

impl Jwk {
    /// Whether the key may check a signature made with `alg`.
    pub(crate) fn fits(&self, alg: Algorithm) -> bool {
        use Algorithm::*;
        let kind = matches!(
            (&self.material, alg),
            (
                Material::Rsa { .. },
                Rs256 | Rs384 | Rs512 | Ps256 | Ps384 | Ps512
            ) | (Material::P256(_), Es256)
                | (Material::P384(_), Es384)
                | (Material::Ed25519(_), EdDsa)
        );
        kind && self.alg.is_none_or(|own| own == alg)
    }

    /// Whether `signature` over `message` verifies under this key and
    /// `alg`; `false` for an algorithm the key does not fit.
    pub(crate) fn verify(&self, alg: Algorithm, message: &[u8], signature: &[u8]) -> bool {
        use Algorithm::*;
        if !self.fits(alg) {
            return false;
        }
        let verified = match &self.material {
            Material::Rsa { n, e } => {
                let parameters: &signature::RsaParameters = match alg {
                    Rs256 => &signature::RSA_PKCS1_2048_8192_SHA256,
                    Rs384 => &signature::RSA_PKCS1_2048_8192_SHA384,
                    Rs512 => &signature::RSA_PKCS1_2048_8192_SHA512,
                    Ps256 => &signature::RSA_PSS_2048_8192_SHA256,
                    Ps384 => &signature::RSA_PSS_2048_8192_SHA384,
                    Ps512 => &signature::RSA_PSS_2048_8192_SHA512,
                    Es256 | Es384 | EdDsa => return false,
                };
                RsaPublicKeyComponents { n, e }.verify(parameters, message, signature)
            }
            Material::P256(point) => {
                UnparsedPublicKey::new(&signature::ECDSA_P256_SHA256_FIXED, point)
                    .verify(message, signature)
            }
            Material::P384(point) => {
                UnparsedPublicKey::new(&signature::ECDSA_P384_SHA384_FIXED, point)
                    .verify(message, signature)
            }
            Material::Ed25519(key) => {
                UnparsedPublicKey::new(&signature::ED25519, key).verify(message, signature)
            }
        };
        verified.is_ok()
    }
}

/// The verification keys of a JWK Set document. Keys that are not for
/// signatures, of an unknown or symmetric type, or malformed are skipped,
/// so that one odd key does not hide the others.
///
/// # Errors
///
/// When the document is not an object with a `keys` array.
pub(crate) fn key_set(document: &Value) -> Result<Vec<Jwk>, &'static str> {
    let Some(Value::Array(keys)) = document.get("keys") else {
        return Err("the key set has no `keys` array");
    };
    Ok(keys
        .iter()
        .take(MAX_KEYS)
        .filter_map(|key| key.as_object().and_then(jwk))
        .collect())
}

/// The verification key `key` describes, or `None` when it is not one
/// (see [`key_set`]).
pub(crate) fn jwk(key: &Map<String, Value>) -> Option<Jwk> {
    let text = |name: &str| -> Result<Option<&str>, ()> {
        match key.get(name) {
            None => Ok(None),
            Some(Value::String(value)) => Ok(Some(value)),
            Some(_) => Err(()),
        }
    };
    if text("use").ok()?.is_some_and(|u| u != "sig") {
        return None;
    }
    if let Some(ops) = key.get("key_ops") {
        let ops = ops.as_array()?;
        if !ops.iter().any(|op| op == "verify") {
            return None;
        }
    }
    let alg = match text("alg").ok()? {
        None => None,
        Some(name) => Some(Algorithm::from_name(name)?),
    };
    let kid = text("kid").ok()?.map(str::to_owned);
    let bytes = |name: &str| -> Option<Vec<u8>> { URL_SAFE_NO_PAD.decode(text(name).ok()??).ok() };
    let material = match (text("kty").ok()??, text("crv").ok()?) {
        ("RSA", _) => {
            let n = unsigned(bytes("n")?);
            let e = unsigned(bytes("e")?);
            // 2048 to 8192 bits, as the verification algorithms demand;
            // an exponent of at most 33 bits, as ring takes.
            if !(256..=1024).contains(&n.len()) || !(1..=5).contains(&e.len()) {
                return None;
            }
            Material::Rsa { n, e }
        }
        ("EC", Some("P-256")) => Material::P256(point(bytes("x")?, bytes("y")?, 32)?),
        ("EC", Some("P-384")) => Material::P384(point(bytes("x")?, bytes("y")?, 48)?),
        ("OKP", Some("Ed25519")) => {
            let x = bytes("x")?;
            (x.len() == 32).then_some(Material::Ed25519(x))?
        }
        _ => return None,
    };
    let jwk = Jwk { kid, alg, material };
    // A key whose stated algorithm does not fit its type is refused whole.
    match alg {
        Some(alg) if !jwk.fits(alg) => None,
        _ => Some(jwk),
    }
}

/// The JWK SHA-256 thumbprint of `key`
/// ([RFC 7638](https://datatracker.ietf.org/doc/html/rfc7638)), base64url:
/// the digest of its required members, as given, in lexicographic order
/// and without whitespace. `None` for a key type without a thumbprint
/// here (only `EC`, `RSA` and `OKP` keys have one) or a required member
/// that is not a string.
pub(crate) fn thumbprint(key: &Map<String, Value>) -> Option<String> {
    let members: &[&str] = match key.get("kty")?.as_str()? {
        "EC" => &["crv", "kty", "x", "y"],
        "RSA" => &["e", "kty", "n"],
        "OKP" => &["crv", "kty", "x"],
        _ => return None,
    };
    let mut canonical = serde_json::Map::new();
    for &member in members {
        canonical.insert(
            member.to_owned(),
            Value::String(key.get(member)?.as_str()?.to_owned()),
        );
    }
    // Inserted in lexicographic order, which is the order serde_json
    // writes them in, whichever map it is built with; no whitespace.
    let canonical = serde_json::to_vec(&canonical).ok()?;
    Some(URL_SAFE_NO_PAD.encode(Sha256::digest(&canonical)))
}

/// Big-endian bytes without leading zeros.
fn unsigned(mut bytes: Vec<u8>) -> Vec<u8> {
    let zeros = bytes.iter().take_while(|&&b| b == 0).count();
    bytes.drain(..zeros);
    bytes
}

/// The uncompressed point of coordinates `x` and `y`, each `len` bytes.
fn point(x: Vec<u8>, y: Vec<u8>, len: usize) -> Option<Vec<u8>> {
    if x.len() != len || y.len() != len {
        return None;
    }
    let mut point = Vec::with_capacity(1 + 2 * len);
    point.push(4);
    point.extend(x);
    point.extend(y);
    Some(point)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ring::rand::SystemRandom;
    use ring::signature::{EcdsaKeyPair, Ed25519KeyPair, KeyPair as _};
    use serde_json::json;

    fn b64(bytes: &[u8]) -> String {
        URL_SAFE_NO_PAD.encode(bytes)
    }

    fn ec_key() -> (EcdsaKeyPair, Value) {
        let rng = SystemRandom::new();
        let alg = &signature::ECDSA_P256_SHA256_FIXED_SIGNING;
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(alg, &rng).expect("generates");
        let pair = EcdsaKeyPair::from_pkcs8(alg, pkcs8.as_ref(), &rng).expect("loads");
        let public = pair.public_key().as_ref();
        let jwk = json!({
            "kty": "EC", "crv": "P-256", "kid": "ec",
            "x": b64(&public[1..33]), "y": b64(&public[33..]),
        });
        (pair, jwk)
    }

    #[test]
    fn keys_fit_their_algorithms_only() {
        let (_, ec) = ec_key();
        let rsa = json!({"kty": "RSA", "n": b64(&[0xc5; 256]), "e": "AQAB"});
        let ed = json!({"kty": "OKP", "crv": "Ed25519", "x": b64(&[9; 32])});
        let set = key_set(&json!({"keys": [ec, rsa, ed]})).expect("a set");
        assert_eq!(set.len(), 3);
        let fits = |key: &Jwk| {
            Algorithm::ALL
                .into_iter()
                .filter(|&alg| key.fits(alg))
                .map(Algorithm::name)
                .collect::<Vec<_>>()
        };
        assert_eq!(fits(&set[0]), ["ES256"]);
        assert_eq!(
            fits(&set[1]),
            ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512"]
        );
        assert_eq!(fits(&set[2]), ["EdDSA"]);
    }

    #[test]
    fn odd_keys_are_skipped() {
        let (_, ec) = ec_key();
        let with = |changes: Value| {
            let mut key = ec.clone();
            for (k, v) in changes.as_object().cloned().unwrap_or_default() {
                key[k] = v;
            }
            key_set(&json!({"keys": [key]})).expect("a set").len()
        };
        assert_eq!(with(json!({})), 1);
        assert_eq!(
            with(json!({"use": "sig", "key_ops": ["verify"], "alg": "ES256"})),
            1
        );
        for skipped in [
            json!({"use": "enc"}),
            json!({"key_ops": ["encrypt"]}),
            json!({"alg": "ES384"}),
            json!({"alg": "HS256"}),
            json!({"crv": "P-521"}),
            json!({"kty": "oct", "k": "c2VjcmV0"}),
            json!({"x": "AAAA"}),
            json!({"x": 5}),
            json!({"kid": 5}),
        ] {
            assert_eq!(with(skipped.clone()), 0, "{skipped}");
        }
        assert!(key_set(&json!({"keys": {}})).is_err());
        assert!(key_set(&json!([])).is_err());
        let many: Vec<Value> = (0..100).map(|_| ec.clone()).collect();
        assert_eq!(
            key_set(&json!({ "keys": many })).map(|k| k.len()),
            Ok(MAX_KEYS)
        );
    }

    #[test]
    fn signatures_verify_under_the_right_key_only() {
        let rng = SystemRandom::new();
        let (pair, jwk) = ec_key();
        let key = &key_set(&json!({"keys": [jwk]})).expect("a set")[0];
        let good = pair.sign(&rng, b"message").expect("signs");
        assert!(key.verify(Algorithm::Es256, b"message", good.as_ref()));
        assert!(!key.verify(Algorithm::Es256, b"massage", good.as_ref()));
        assert!(!key.verify(Algorithm::Es384, b"message", good.as_ref()));
        assert!(!key.verify(Algorithm::Rs256, b"message", good.as_ref()));

        let pkcs8 = Ed25519KeyPair::generate_pkcs8(&rng).expect("generates");
        let ed = Ed25519KeyPair::from_pkcs8(pkcs8.as_ref()).expect("loads");
        let jwk = json!({"kty": "OKP", "crv": "Ed25519", "x": b64(ed.public_key().as_ref())});
        let key = &key_set(&json!({"keys": [jwk]})).expect("a set")[0];
        let signature = ed.sign(b"message");
        assert!(key.verify(Algorithm::EdDsa, b"message", signature.as_ref()));
        assert!(!key.verify(Algorithm::EdDsa, b"message", &signature.as_ref()[1..]));
    }

    #[test]
    fn leading_zeros_are_dropped() {
        assert_eq!(unsigned(vec![0, 0, 1, 0]), [1, 0]);
        assert!(unsigned(vec![0, 0]).is_empty());
    }

    #[test]
    fn thumbprints_follow_rfc_7638() {
        // The example of RFC 7638, section 3.1.
        let key = json!({
            "kty": "RSA",
            "n": "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw",
            "e": "AQAB",
            "alg": "RS256",
            "kid": "2011-04-29",
        });
        let object = key.as_object().expect("an object");
        assert_eq!(
            thumbprint(object).as_deref(),
            Some("NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
        );
        // Members other than the required ones do not count.
        let (_, ec) = ec_key();
        let mut more = ec.clone();
        more["use"] = json!("sig");
        more["kid"] = json!("other");
        let thumb = |key: &Value| thumbprint(key.as_object().expect("an object"));
        assert!(thumb(&ec).is_some());
        assert_eq!(thumb(&ec), thumb(&more));
        for broken in [
            json!({"kty": "oct", "k": "c2VjcmV0"}),
            json!({"kty": "EC", "crv": "P-256", "x": "AA"}),
            json!({"kty": "RSA", "n": 1, "e": "AQAB"}),
            json!({"crv": "Ed25519", "x": "AA"}),
        ] {
            assert_eq!(thumb(&broken), None, "{broken}");
        }
    }
}
