//! DPoP ([RFC 9449](https://datatracker.ietf.org/doc/html/rfc9449)):
//! access tokens bound to a key the client holds, each request carrying a
//! fresh proof signed with it, so that a stolen token is useless without
//! the key. Pure: [`proof`] holds the rules a proof must pass, [`nonce`]
//! the server-provided nonces; the [`ResourceServer`](super::ResourceServer)
//! drives them and records each proof's `jti` in its replay guard, within
//! the principal's share of it ([`share`], which keeps a count but takes
//! the time as an argument).

pub(crate) mod nonce;
pub(crate) mod proof;
pub(crate) mod share;

use std::fmt;

use axum::http::HeaderMap;

use super::jwt::compact::Algorithm;

/// The name of the request header that carries the proof, and of the
/// response header that carries a nonce.
pub(crate) const DPOP: &str = "dpop";
pub(crate) const DPOP_NONCE: &str = "dpop-nonce";

/// Whether a server takes DPoP-bound tokens
/// ([`ResourceServerBuilder::dpop`](super::ResourceServerBuilder::dpop)).
///
/// Whatever the policy, a token bound to a key (one whose `cnf` names a
/// `jkt`) is never accepted as a bearer token.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum DpopPolicy {
    /// Bearer tokens only, in `Authorization: Bearer`; the `DPoP` scheme
    /// is answered as an unknown one. The default.
    #[default]
    BearerOnly,
    /// Bearer tokens, and DPoP-bound tokens in `Authorization: DPoP` with
    /// a proof in the `DPoP` header.
    Accepted,
    /// DPoP-bound tokens only: a bearer token is refused, and the
    /// metadata says `dpop_bound_access_tokens_required`.
    Required,
}

/// The proof algorithms accepted, as the `algs` of a `DPoP` challenge and
/// the metadata's `dpop_signing_alg_values_supported` list them: the
/// asymmetric ones a JWT access token may be signed with, never `none`
/// nor an HMAC.
pub(crate) fn algorithms() -> impl Iterator<Item = &'static str> {
    Algorithm::ALL.into_iter().map(Algorithm::name)
}

/// What is wrong with a request's DPoP proof, in words of our own that
/// reveal nothing of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ProofError {
    /// The request has no `DPoP` header.
    Missing,
    /// The request has more than one.
    Several,
    /// The proof is longer than is read.
    TooLarge,
    /// The proof is not a well-formed JWS; the text names the part.
    Malformed(&'static str),
    /// The header's `typ` is not `dpop+jwt`.
    Type,
    /// The header's `alg` is not an accepted one.
    Algorithm,
    /// The header's `jwk` is missing, private, or not a key that can
    /// check the signature; the text says which.
    Key(&'static str),
    /// The signature does not verify under the header's key.
    Signature,
    /// A claim is missing or of the wrong type; the text names it.
    Claim(&'static str),
    /// `htm` is not the request's method.
    Method,
    /// `htu` is not the resource's URL.
    Url,
    /// `iat` is too far in the past or the future.
    Time,
    /// `ath` is not the hash of the access token sent with it.
    TokenHash,
    /// The proof lacks the current server nonce (answered with
    /// `use_dpop_nonce` and a fresh one).
    Nonce,
    /// A proof with this `jti` was seen before.
    Replayed,
}

impl fmt::Display for ProofError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match *self {
            ProofError::Missing => "send a DPoP proof in one `DPoP` header",
            ProofError::Several => "send exactly one `DPoP` header",
            ProofError::TooLarge => "the DPoP proof is too large",
            ProofError::Malformed(part) => {
                return write!(f, "the DPoP proof is malformed ({part})")
            }
            ProofError::Type => "the DPoP proof's `typ` is not `dpop+jwt`",
            ProofError::Algorithm => "the DPoP proof's signing algorithm is not accepted",
            ProofError::Key(why) => return write!(f, "the DPoP proof's key {why}"),
            ProofError::Signature => "the DPoP proof's signature does not verify",
            ProofError::Claim(name) => {
                return write!(f, "the DPoP proof's `{name}` claim is missing or malformed")
            }
            ProofError::Method => "the DPoP proof is for another HTTP method",
            ProofError::Url => "the DPoP proof is for another URL",
            ProofError::Time => "the DPoP proof was not made just now",
            ProofError::TokenHash => "the DPoP proof is for another access token",
            ProofError::Nonce => "the DPoP proof lacks the server's current nonce",
            ProofError::Replayed => "the DPoP proof was used before",
        };
        f.write_str(what)
    }
}

/// The one `DPoP` header of a request.
pub(crate) fn header(headers: &HeaderMap) -> Result<&str, ProofError> {
    let mut values = headers.get_all(DPOP).iter();
    let value = values.next().ok_or(ProofError::Missing)?;
    if values.next().is_some() {
        return Err(ProofError::Several);
    }
    if value.len() > proof::MAX_PROOF_BYTES {
        return Err(ProofError::TooLarge);
    }
    value
        .to_str()
        .map(str::trim)
        .map_err(|_| ProofError::Malformed("not a compact JWS"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn one_header_of_bounded_size() {
        let mut headers = HeaderMap::new();
        assert_eq!(header(&headers), Err(ProofError::Missing));
        headers.append(DPOP, HeaderValue::from_static("a.b.c"));
        assert_eq!(header(&headers), Ok("a.b.c"));
        headers.append(DPOP, HeaderValue::from_static("d.e.f"));
        assert_eq!(header(&headers), Err(ProofError::Several));
        let mut headers = HeaderMap::new();
        let long = "a".repeat(proof::MAX_PROOF_BYTES + 1);
        headers.insert(DPOP, HeaderValue::from_str(&long).expect("a header"));
        assert_eq!(header(&headers), Err(ProofError::TooLarge));
        let mut headers = HeaderMap::new();
        headers.insert(
            DPOP,
            HeaderValue::from_bytes(b"a.\xff.c").expect("a header"),
        );
        assert!(matches!(header(&headers), Err(ProofError::Malformed(_))));
    }

    #[test]
    fn the_algorithms_are_asymmetric_only() {
        let algs: Vec<&str> = algorithms().collect();
        for needed in ["ES256", "ES384", "RS256", "PS256", "EdDSA"] {
            assert!(algs.contains(&needed), "{needed}");
        }
        assert!(algs
            .iter()
            .all(|alg| *alg != "none" && !alg.starts_with("HS")));
    }

    #[test]
    fn errors_are_plain_ascii_without_quotes() {
        let all = [
            ProofError::Missing,
            ProofError::Several,
            ProofError::TooLarge,
            ProofError::Malformed("header"),
            ProofError::Type,
            ProofError::Algorithm,
            ProofError::Key("is private"),
            ProofError::Signature,
            ProofError::Claim("jti"),
            ProofError::Method,
            ProofError::Url,
            ProofError::Time,
            ProofError::TokenHash,
            ProofError::Nonce,
            ProofError::Replayed,
        ];
        for error in all {
            let text = error.to_string();
            assert!(
                text.bytes()
                    .all(|b| matches!(b, 0x20..=0x21 | 0x23..=0x5b | 0x5d..=0x7e)),
                "{text}"
            );
        }
    }
}
