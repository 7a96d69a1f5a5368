//! The JWS compact serialization
//! ([RFC 7515, section 7.1](https://datatracker.ietf.org/doc/html/rfc7515#section-7.1)),
//! read strictly: three base64url parts without padding, bounded sizes and
//! nesting, a header that names an accepted algorithm and nothing we do
//! not understand.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde_json::{Map, Value};

use crate::auth::Rejection;
use crate::server::parse::strict_document;

/// The longest token read.
pub(crate) const MAX_TOKEN_BYTES: usize = 8 * 1024;
/// The longest encoded header read.
pub(crate) const MAX_HEADER_BYTES: usize = 2 * 1024;
/// The deepest nesting of the header.
const MAX_HEADER_DEPTH: usize = 4;
/// The deepest nesting of the claims.
const MAX_CLAIMS_DEPTH: usize = 16;

/// The signing algorithms accepted: asymmetric ones only. `none` and the
/// HMAC algorithms are not among them, so a token "signed" with a public
/// key as an HMAC secret has no algorithm to be checked under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Algorithm {
    Rs256,
    Rs384,
    Rs512,
    Ps256,
    Ps384,
    Ps512,
    Es256,
    Es384,
    EdDsa,
}

impl Algorithm {
    pub(crate) const ALL: [Algorithm; 9] = [
        Algorithm::Rs256,
        Algorithm::Rs384,
        Algorithm::Rs512,
        Algorithm::Ps256,
        Algorithm::Ps384,
        Algorithm::Ps512,
        Algorithm::Es256,
        Algorithm::Es384,
        Algorithm::EdDsa,
    ];

    /// The `alg` name (RFC 7518, RFC 8037).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Algorithm::Rs256 => "RS256",
            Algorithm::Rs384 => "RS384",
            Algorithm::Rs512 => "RS512",
            Algorithm::Ps256 => "PS256",
            Algorithm::Ps384 => "PS384",
            Algorithm::Ps512 => "PS512",
            Algorithm::Es256 => "ES256",
            Algorithm::Es384 => "ES384",
            Algorithm::EdDsa => "EdDSA",
        }
    }

    /// The algorithm called `name` exactly, if it is accepted.
    pub(crate) fn from_name(name: &str) -> Option<Algorithm> {
        Algorithm::ALL.into_iter().find(|alg| alg.name() == name)
    }
}

/// A token taken apart; nothing in it is verified yet.
#[derive(Debug)]
pub(crate) struct Jws<'a> {
    pub(crate) alg: Algorithm,
    pub(crate) kid: Option<String>,
    /// Whether the header's `typ` says an access token (`at+jwt`, RFC
    /// 9068 §2.1), rather than a plain `JWT` or nothing.
    pub(crate) access_token_type: bool,
    /// The bytes the signature covers: `header.payload` as received.
    pub(crate) signing_input: &'a [u8],
    pub(crate) claims: Map<String, Value>,
    pub(crate) signature: Vec<u8>,
}

/// Takes `token` apart.
pub(crate) fn parse(token: &str) -> Result<Jws<'_>, Rejection> {
    let parts = split(token, MAX_HEADER_BYTES)?;
    let (alg, kid, access_token_type) = read_header(&parts.header)?;
    Ok(Jws {
        alg,
        kid,
        access_token_type,
        signing_input: parts.signing_input,
        claims: parts.claims()?,
        signature: parts.signature()?,
    })
}

/// A compact JWS of at most [`MAX_TOKEN_BYTES`] taken apart: its header
/// read as a JSON object, its claims and signature still encoded, so
/// that what is wrong with the header is found first.
#[derive(Debug)]
pub(crate) struct Parts<'a> {
    pub(crate) header: Map<String, Value>,
    /// The bytes the signature covers: `header.payload` as received.
    pub(crate) signing_input: &'a [u8],
    payload: &'a str,
    signature: &'a str,
}

impl Parts<'_> {
    /// The claims, a JSON object.
    pub(crate) fn claims(&self) -> Result<Map<String, Value>, Rejection> {
        match strict_document(&decode(self.payload, "payload encoding")?, MAX_CLAIMS_DEPTH) {
            Some(Value::Object(claims)) => Ok(claims),
            _ => Err(Rejection::Malformed("the claims are not a JSON object")),
        }
    }

    /// The signature, not empty.
    pub(crate) fn signature(&self) -> Result<Vec<u8>, Rejection> {
        let signature = decode(self.signature, "signature encoding")?;
        if signature.is_empty() {
            return Err(Rejection::Malformed("no signature"));
        }
        Ok(signature)
    }
}

/// Splits `jws` into its parts and reads its header, refusing an encoded
/// header longer than `max_header` bytes.
pub(crate) fn split(jws: &str, max_header: usize) -> Result<Parts<'_>, Rejection> {
    if jws.len() > MAX_TOKEN_BYTES {
        return Err(Rejection::TooLarge);
    }
    let mut parts = jws.split('.');
    let (Some(header), Some(payload), Some(signature), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(match jws.split('.').count() {
            5 => Rejection::Malformed("encrypted tokens are not accepted"),
            _ => Rejection::Malformed("not three dot-separated parts"),
        });
    };
    if header.len() > max_header {
        return Err(Rejection::TooLarge);
    }
    let Some(Value::Object(header_object)) =
        strict_document(&decode(header, "header encoding")?, MAX_HEADER_DEPTH)
    else {
        return Err(Rejection::Malformed("the header is not a JSON object"));
    };
    Ok(Parts {
        header: header_object,
        signing_input: &jws.as_bytes()[..header.len() + 1 + payload.len()],
        payload,
        signature,
    })
}

/// Base64url without padding, canonical (no stray bits).
fn decode(part: &str, what: &'static str) -> Result<Vec<u8>, Rejection> {
    URL_SAFE_NO_PAD
        .decode(part)
        .map_err(|_| Rejection::Malformed(what))
}

/// The algorithm and key id of a header, once its other members pass,
/// and whether its `typ` is `at+jwt`.
fn read_header(
    header: &Map<String, Value>,
) -> Result<(Algorithm, Option<String>, bool), Rejection> {
    let alg = algorithm(header)?;
    let kid = match header.get("kid") {
        None => None,
        Some(Value::String(kid)) => Some(kid.clone()),
        Some(_) => return Err(Rejection::Malformed("the header's `kid` is not a string")),
    };
    let access_token = match header.get("typ") {
        None => false,
        Some(Value::String(typ)) if is_type(typ, "at+jwt") => true,
        Some(Value::String(typ)) if is_type(typ, "jwt") => false,
        Some(_) => return Err(Rejection::Malformed("the header's `typ` is not a JWT type")),
    };
    no_critical_extensions(header)?;
    Ok((alg, kid, access_token))
}

/// The header's `alg`, if it is one of the accepted ones.
pub(crate) fn algorithm(header: &Map<String, Value>) -> Result<Algorithm, Rejection> {
    match header.get("alg") {
        Some(Value::String(alg)) => Algorithm::from_name(alg).ok_or(Rejection::Algorithm),
        _ => Err(Rejection::Malformed("the header has no `alg`")),
    }
}

/// Refuses a header with a `crit` naming anything: no extension is
/// understood here.
pub(crate) fn no_critical_extensions(header: &Map<String, Value>) -> Result<(), Rejection> {
    match header.get("crit") {
        None => Ok(()),
        Some(Value::Array(crit)) if crit.is_empty() => Ok(()),
        Some(_) => Err(Rejection::Malformed(
            "the header names critical extensions this server does not know",
        )),
    }
}

/// Whether `typ` names the media type `application/<name>`, with or
/// without the `application/` prefix; media types compare
/// case-insensitively. `name` is lower case.
pub(crate) fn is_type(typ: &str, name: &str) -> bool {
    let typ = typ
        .get(..12)
        .filter(|p| p.eq_ignore_ascii_case("application/"))
        .map_or(typ, |_| &typ[12..]);
    typ.eq_ignore_ascii_case(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn b64(value: &Value) -> String {
        URL_SAFE_NO_PAD.encode(serde_json::to_vec(value).expect("encodes"))
    }

    fn token(header: &Value, claims: &Value) -> String {
        format!("{}.{}.c2ln", b64(header), b64(claims))
    }

    #[test]
    fn a_good_token_comes_apart() {
        let header = json!({"alg": "ES256", "kid": "k1", "typ": "at+jwt", "crit": []});
        let text = token(&header, &json!({"sub": "alice"}));
        let jws = parse(&text).expect("parses");
        assert_eq!(jws.alg, Algorithm::Es256);
        assert_eq!(jws.kid.as_deref(), Some("k1"));
        assert_eq!(jws.signature, b"sig");
        assert_eq!(jws.claims["sub"], "alice");
        let (head, _) = text.rsplit_once('.').expect("dots");
        assert_eq!(jws.signing_input, head.as_bytes());
    }

    #[test]
    fn headers_table() {
        use Rejection::*;
        let claims = json!({});
        let table = [
            (json!({"alg": "none"}), Err(Algorithm)),
            (json!({"alg": "HS256"}), Err(Algorithm)),
            (json!({"alg": "HS512"}), Err(Algorithm)),
            (json!({"alg": "ES512"}), Err(Algorithm)),
            (json!({"alg": "es256"}), Err(Algorithm)),
            (json!({"alg": "RS256"}), Ok(super::Algorithm::Rs256)),
            (json!({"alg": "PS512"}), Ok(super::Algorithm::Ps512)),
            (json!({"alg": "EdDSA"}), Ok(super::Algorithm::EdDsa)),
            (
                json!({"alg": "EdDSA", "typ": "JWT"}),
                Ok(super::Algorithm::EdDsa),
            ),
            (
                json!({"alg": "EdDSA", "typ": "application/AT+JWT"}),
                Ok(super::Algorithm::EdDsa),
            ),
            (
                json!({"kid": "k"}),
                Err(Malformed("the header has no `alg`")),
            ),
            (
                json!({"alg": 256}),
                Err(Malformed("the header has no `alg`")),
            ),
            (
                json!({"alg": "ES256", "kid": 7}),
                Err(Malformed("the header's `kid` is not a string")),
            ),
            (
                json!({"alg": "ES256", "typ": "JOSE"}),
                Err(Malformed("the header's `typ` is not a JWT type")),
            ),
            (
                json!({"alg": "ES256", "typ": 1}),
                Err(Malformed("the header's `typ` is not a JWT type")),
            ),
            (
                json!({"alg": "ES256", "crit": ["b64"], "b64": false}),
                Err(Malformed(
                    "the header names critical extensions this server does not know",
                )),
            ),
            (
                json!([1, 2]),
                Err(Malformed("the header is not a JSON object")),
            ),
            (
                json!({"alg": "ES256", "x": [[[[[1]]]]]}),
                Err(Malformed("the header is not a JSON object")),
            ),
        ];
        for (header, expected) in table {
            let text = token(&header, &claims);
            assert_eq!(parse(&text).map(|j| j.alg), expected, "{header}");
        }
    }

    #[test]
    fn shapes_table() {
        use Rejection::*;
        let header = b64(&json!({"alg": "ES256"}));
        let claims = b64(&json!({"sub": "a"}));
        let long_claims = URL_SAFE_NO_PAD.encode(vec![b' '; MAX_TOKEN_BYTES]);
        let long_header = URL_SAFE_NO_PAD.encode(
            format!(
                r#"{{"alg":"ES256","x":"{}"}}"#,
                "a".repeat(MAX_HEADER_BYTES)
            )
            .as_bytes(),
        );
        let table = [
            (
                format!("{header}.{claims}"),
                Malformed("not three dot-separated parts"),
            ),
            (
                format!("{header}.{claims}.c2ln.x"),
                Malformed("not three dot-separated parts"),
            ),
            (
                format!("{header}.a.b.c.d"),
                Malformed("encrypted tokens are not accepted"),
            ),
            (format!("{header}.{claims}."), Malformed("no signature")),
            (
                format!("{header}=.{claims}.c2ln"),
                Malformed("header encoding"),
            ),
            (
                format!("{header}.{claims}.c2ln=="),
                Malformed("signature encoding"),
            ),
            (
                format!("{header}.{claims}.c2l+"),
                Malformed("signature encoding"),
            ),
            // "c2k" is "si"; "c2l" sets bits past its last byte.
            (
                format!("{header}.{claims}.c2l"),
                Malformed("signature encoding"),
            ),
            (
                format!("{header}.{claims}!.c2ln"),
                Malformed("payload encoding"),
            ),
            (
                format!("bm90IGpzb24.{claims}.c2ln"),
                Malformed("the header is not a JSON object"),
            ),
            (
                format!("{header}.bm90IGpzb24.c2ln"),
                Malformed("the claims are not a JSON object"),
            ),
            (
                format!("{header}.{}.c2ln", b64(&json!("s"))),
                Malformed("the claims are not a JSON object"),
            ),
            (
                format!(
                    "{header}.{}.c2ln",
                    URL_SAFE_NO_PAD.encode(br#"{"sub":"a","sub":"b"}"#)
                ),
                Malformed("the claims are not a JSON object"),
            ),
            (format!("{header}.{long_claims}.c2ln"), TooLarge),
            (format!("{long_header}.{claims}.c2ln"), TooLarge),
            (String::new(), Malformed("not three dot-separated parts")),
        ];
        for (text, expected) in table {
            assert_eq!(parse(&text).err(), Some(expected), "{expected:?}");
        }
    }

    #[test]
    fn repeated_header_members_are_refused() {
        let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"ES256","alg":"none"}"#);
        let text = format!("{header}.{}.c2ln", b64(&json!({})));
        assert_eq!(
            parse(&text).err(),
            Some(Rejection::Malformed("the header is not a JSON object"))
        );
    }
}
