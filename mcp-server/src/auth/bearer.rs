//! Finding the access token of a request: only in one `Authorization`
//! header of the `Bearer` scheme
//! ([RFC 6750, section 2.1](https://datatracker.ietf.org/doc/html/rfc6750#section-2.1))
//! or the `DPoP` one
//! ([RFC 9449, section 7.1](https://datatracker.ietf.org/doc/html/rfc9449#section-7.1)),
//! never in the query string or a form body.

use axum::http::{header, HeaderMap};

use super::AccessToken;

/// The longest token read from a header, whatever the verifier: longer
/// ones are refused before any verifier sees them.
pub(crate) const MAX_TOKEN_BYTES: usize = 16 * 1024;

/// The scheme a token came in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scheme {
    Bearer,
    /// A DPoP-bound token, whose proof is in the `DPoP` header.
    Dpop,
}

/// Why a request yields no token to verify.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Problem {
    /// No `Authorization` header, or one of another scheme: the client is
    /// told how to authenticate.
    Missing,
    /// The request is malformed (400 `invalid_request`); the text says how.
    Request(&'static str),
    /// The credentials are not a token (401 `invalid_token`).
    Token(&'static str),
}

/// The access token of a request with `headers` and the query string
/// `query`, and the scheme it came in.
pub(crate) fn token<'a>(
    headers: &'a HeaderMap,
    query: Option<&str>,
) -> Result<(Scheme, AccessToken<'a>), Problem> {
    if query.is_some_and(has_access_token) {
        return Err(Problem::Request(
            "send the access token in the Authorization header, never in the query string",
        ));
    }
    let form = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.trim_start()
                .get(..33)
                .is_some_and(|t| t.eq_ignore_ascii_case("application/x-www-form-urlencoded"))
        });
    if form {
        return Err(Problem::Request(
            "send the access token in the Authorization header, never in a form body",
        ));
    }
    let mut values = headers.get_all(header::AUTHORIZATION).iter();
    let Some(value) = values.next() else {
        return Err(Problem::Missing);
    };
    if values.next().is_some() {
        return Err(Problem::Request("send exactly one Authorization header"));
    }
    let value = value.as_bytes();
    let (scheme, rest) = match value.iter().position(|&b| b == b' ') {
        Some(at) => (&value[..at], &value[at..]),
        None => (value, &b""[..]),
    };
    let scheme = if scheme.eq_ignore_ascii_case(b"bearer") {
        Scheme::Bearer
    } else if scheme.eq_ignore_ascii_case(b"dpop") {
        Scheme::Dpop
    } else {
        return Err(Problem::Missing);
    };
    let credentials = trim(rest);
    if credentials.is_empty() {
        return Err(Problem::Request(match scheme {
            Scheme::Bearer => "the Bearer credentials hold no token",
            Scheme::Dpop => "the DPoP credentials hold no token",
        }));
    }
    if credentials.len() > MAX_TOKEN_BYTES {
        return Err(Problem::Token("the token is too large"));
    }
    if !is_b64token(credentials) {
        return Err(Problem::Token(
            "the token holds characters a bearer token cannot",
        ));
    }
    // A b64token is ASCII.
    std::str::from_utf8(credentials)
        .map(|token| (scheme, AccessToken::new(token)))
        .map_err(|_| Problem::Token("the token holds characters a bearer token cannot"))
}

fn trim(bytes: &[u8]) -> &[u8] {
    let start = bytes
        .iter()
        .position(|&b| b != b' ' && b != b'\t')
        .unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|&b| b != b' ' && b != b'\t')
        .map_or(start, |at| at + 1);
    &bytes[start..end.max(start)]
}

/// The `b64token` of RFC 6750: `1*( ALPHA / DIGIT / "-" / "." / "_" / "~"
/// / "+" / "/" ) *"="`.
fn is_b64token(token: &[u8]) -> bool {
    let body = token.len() - token.iter().rev().take_while(|&&b| b == b'=').count();
    // Every byte is looked at, without branching on each: the compiler
    // vectorises this, and a token is checked on every request.
    body > 0
        && token[..body]
            .iter()
            .fold(true, |ok, &b| ok & is_token_char(b))
}

fn is_token_char(b: u8) -> bool {
    // Bit 0x20 is all that tells an upper-case letter from a lower-case one.
    let letter = (b | 0x20).wrapping_sub(b'a') < 26;
    let digit = b.wrapping_sub(b'0') < 10;
    let mark = (b == b'-') | (b == b'.') | (b == b'_') | (b == b'~') | (b == b'+') | (b == b'/');
    letter | digit | mark
}

/// Whether a query string has an `access_token` parameter, however its
/// name is percent-encoded.
fn has_access_token(query: &str) -> bool {
    query.split('&').any(|pair| {
        let name = pair.split('=').next().unwrap_or_default();
        percent_decoded(name).as_deref() == Some(b"access_token".as_slice())
    })
}

/// `name` with `%XX` escapes and `+` decoded; `None` when an escape is
/// broken (such a name is not `access_token` either way).
fn percent_decoded(name: &str) -> Option<Vec<u8>> {
    let bytes = name.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = bytes.get(i + 1..i + 3)?;
                let hex = std::str::from_utf8(hex).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(values: &[&'static str]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for value in values {
            map.append(header::AUTHORIZATION, HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn extraction_table() {
        use Problem::*;
        use Scheme::*;
        type Found = Result<(Scheme, &'static str), Problem>;
        let table: &[(&[&str], Found)] = &[
            (&["Bearer abc.def-_~+/=="], Ok((Bearer, "abc.def-_~+/=="))),
            (&["bearer abc"], Ok((Bearer, "abc"))),
            (&["BEARER   abc  "], Ok((Bearer, "abc"))),
            (&["DPoP abc.def"], Ok((Dpop, "abc.def"))),
            (&["dpop  abc "], Ok((Dpop, "abc"))),
            (
                &["DPoP"],
                Err(Request("the DPoP credentials hold no token")),
            ),
            (
                &["DPoP a b"],
                Err(Token("the token holds characters a bearer token cannot")),
            ),
            (&["DPoPabc"], Err(Missing)),
            (&[], Err(Missing)),
            (&["Basic dXNlcjpwYXNz"], Err(Missing)),
            (&["Bearerabc"], Err(Missing)),
            (
                &["Bearer"],
                Err(Request("the Bearer credentials hold no token")),
            ),
            (
                &["Bearer    "],
                Err(Request("the Bearer credentials hold no token")),
            ),
            (
                &["Bearer a", "Bearer b"],
                Err(Request("send exactly one Authorization header")),
            ),
            (
                &["Bearer a b"],
                Err(Token("the token holds characters a bearer token cannot")),
            ),
            (
                &["Bearer a\"b"],
                Err(Token("the token holds characters a bearer token cannot")),
            ),
            (
                &["Bearer =="],
                Err(Token("the token holds characters a bearer token cannot")),
            ),
            (
                &["Bearer a=b"],
                Err(Token("the token holds characters a bearer token cannot")),
            ),
        ];
        for (values, expected) in table {
            let map = headers(values);
            let found = token(&map, None).map(|(scheme, t)| (scheme, t.expose()));
            assert_eq!(found, *expected, "{values:?}");
        }
    }

    #[test]
    fn the_query_and_form_bodies_are_refused() {
        let with_header = headers(&["Bearer abc"]);
        for query in [
            "access_token=abc",
            "a=1&access_token=abc",
            "access%5Ftoken=abc",
            "access%5ftoken",
        ] {
            assert!(
                matches!(token(&with_header, Some(query)), Err(Problem::Request(_))),
                "{query}"
            );
        }
        for query in ["a=1", "access_tokens=1", "x=access_token", "%zz=1", ""] {
            assert!(token(&with_header, Some(query)).is_ok(), "{query}");
        }
        let mut form = headers(&["Bearer abc"]);
        form.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("Application/X-WWW-Form-Urlencoded; charset=utf-8"),
        );
        assert!(matches!(token(&form, None), Err(Problem::Request(_))));
    }

    #[test]
    fn token_characters_are_exactly_the_b64token_ones() {
        for b in 0..=255u8 {
            let expected = b.is_ascii_alphanumeric() || b"-._~+/".contains(&b);
            assert_eq!(is_token_char(b), expected, "{b:#04x}");
        }
    }

    #[test]
    fn oversized_tokens_are_refused_unread() {
        let long = format!("Bearer {}", "a".repeat(MAX_TOKEN_BYTES + 1));
        let mut map = HeaderMap::new();
        map.insert(
            header::AUTHORIZATION,
            HeaderValue::from_str(&long).expect("header"),
        );
        assert_eq!(
            token(&map, None).map(|(_, t)| t.expose().len()),
            Err(Problem::Token("the token is too large"))
        );
    }
}
