//! The claims of a JWT access token
//! ([RFC 9068](https://datatracker.ietf.org/doc/html/rfc9068)), read with
//! strict types (a claim of the wrong type is an error, never "absent")
//! and checked against what this server expects.

use serde_json::{Map, Value};

use crate::auth::scope::is_scope_token;
use crate::auth::Rejection;

/// What a token claims, typed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Claims {
    pub(crate) iss: String,
    pub(crate) sub: String,
    /// Empty when the token names no audience.
    pub(crate) aud: Vec<String>,
    pub(crate) exp: u64,
    pub(crate) nbf: Option<u64>,
    pub(crate) iat: Option<u64>,
    pub(crate) scopes: Vec<String>,
    pub(crate) client_id: Option<String>,
    /// The JWK thumbprint of the key the token is bound to (`cnf.jkt`,
    /// RFC 9449 section 6.1).
    pub(crate) jkt: Option<String>,
}

/// Reads the claims the server uses; other claims are left alone.
pub(crate) fn read(claims: &Map<String, Value>) -> Result<Claims, Rejection> {
    let iss = string(claims, "iss")?.ok_or(Rejection::Claim("iss"))?;
    // A subject names someone: an empty one would make every such token
    // the same principal.
    let sub = string(claims, "sub")?
        .filter(|sub| !sub.is_empty())
        .ok_or(Rejection::Claim("sub"))?;
    let aud = match claims.get("aud") {
        None => Vec::new(),
        Some(Value::String(aud)) => vec![aud.clone()],
        Some(Value::Array(auds)) => strings(auds).ok_or(Rejection::Claim("aud"))?,
        Some(_) => return Err(Rejection::Claim("aud")),
    };
    let exp = date(claims, "exp")?.ok_or(Rejection::Claim("exp"))?;
    let scopes = match (claims.get("scope"), claims.get("scp")) {
        (Some(Value::String(scope)), _) => split(scope, "scope")?,
        (Some(_), _) => return Err(Rejection::Claim("scope")),
        (None, None) => Vec::new(),
        (None, Some(Value::String(scp))) => split(scp, "scp")?,
        (None, Some(Value::Array(scp))) => {
            let scp = strings(scp).ok_or(Rejection::Claim("scp"))?;
            if !scp.iter().all(|s| is_scope_token(s)) {
                return Err(Rejection::Claim("scp"));
            }
            scp
        }
        (None, Some(_)) => return Err(Rejection::Claim("scp")),
    };
    let client_id = match string(claims, "client_id")? {
        Some(id) => Some(id),
        None => string(claims, "azp")?,
    };
    let jkt = match claims.get("cnf") {
        None => None,
        Some(Value::Object(cnf)) => confirmation(cnf)?,
        Some(_) => return Err(Rejection::Claim("cnf")),
    };
    Ok(Claims {
        iss,
        sub,
        aud,
        exp,
        nbf: date(claims, "nbf")?,
        iat: date(claims, "iat")?,
        scopes,
        client_id,
        jkt,
    })
}

/// The `jkt` of a `cnf` claim (RFC 7800). A token bound in a way this
/// server cannot check (a certificate, RFC 8705, or any other member) is
/// refused: it must not pass as a bearer token.
fn confirmation(cnf: &Map<String, Value>) -> Result<Option<String>, Rejection> {
    if cnf.keys().any(|member| member != "jkt") {
        return Err(Rejection::Claim("cnf"));
    }
    match string(cnf, "jkt") {
        Ok(Some(jkt)) if !jkt.is_empty() => Ok(Some(jkt)),
        Ok(None) => Ok(None),
        _ => Err(Rejection::Claim("cnf")),
    }
}

impl Claims {
    /// Checks the audience and the times. `now` and `leeway` are in
    /// seconds; the leeway absorbs clock skew both ways.
    pub(crate) fn check(&self, audience: &str, now: u64, leeway: u64) -> Result<(), Rejection> {
        if !self.aud.iter().any(|aud| aud == audience) {
            return Err(Rejection::Audience);
        }
        if now >= self.exp.saturating_add(leeway) {
            return Err(Rejection::Expired);
        }
        if self.nbf.is_some_and(|nbf| nbf > now.saturating_add(leeway)) {
            return Err(Rejection::NotYetValid);
        }
        if self.iat.is_some_and(|iat| iat > now.saturating_add(leeway)) {
            return Err(Rejection::Claim("iat"));
        }
        Ok(())
    }
}

pub(crate) fn string(
    claims: &Map<String, Value>,
    name: &'static str,
) -> Result<Option<String>, Rejection> {
    match claims.get(name) {
        None => Ok(None),
        Some(Value::String(value)) => Ok(Some(value.clone())),
        Some(_) => Err(Rejection::Claim(name)),
    }
}

fn strings(values: &[Value]) -> Option<Vec<String>> {
    values
        .iter()
        .map(|v| v.as_str().map(str::to_owned))
        .collect()
}

/// A NumericDate: seconds since the epoch, possibly fractional (rounded
/// down), never negative.
pub(crate) fn date(
    claims: &Map<String, Value>,
    name: &'static str,
) -> Result<Option<u64>, Rejection> {
    let Some(value) = claims.get(name) else {
        return Ok(None);
    };
    let Value::Number(number) = value else {
        return Err(Rejection::Claim(name));
    };
    if let Some(seconds) = number.as_u64() {
        return Ok(Some(seconds));
    }
    match number.as_f64() {
        // Whole seconds below 2^64 fit; the cast rounds down.
        Some(seconds) if seconds.is_finite() && (0.0..1.8e19).contains(&seconds) => {
            Ok(Some(seconds as u64))
        }
        _ => Err(Rejection::Claim(name)),
    }
}

/// A space-separated list of scope tokens.
fn split(scopes: &str, name: &'static str) -> Result<Vec<String>, Rejection> {
    scopes
        .split(' ')
        .filter(|s| !s.is_empty())
        .map(|s| {
            is_scope_token(s)
                .then(|| s.to_owned())
                .ok_or(Rejection::Claim(name))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const NOW: u64 = 1_800_000_000;
    const RESOURCE: &str = "https://notes.example.com/mcp";

    fn base() -> Value {
        json!({
            "iss": "https://auth.example.com",
            "sub": "alice",
            "aud": RESOURCE,
            "exp": NOW + 600,
        })
    }

    /// The base claims with `changes` applied: a member set to `"-"` is
    /// removed, any other value (`null` included) replaces it.
    fn with(changes: Value) -> Map<String, Value> {
        let mut claims = base().as_object().cloned().unwrap_or_default();
        for (key, value) in changes.as_object().cloned().unwrap_or_default() {
            if value == "-" {
                claims.remove(&key);
            } else {
                claims.insert(key, value);
            }
        }
        claims
    }

    #[test]
    fn types_are_strict() {
        use Rejection::Claim;
        let table = [
            (json!({"exp": "1800000600"}), Claim("exp")),
            (json!({"exp": null}), Claim("exp")),
            (json!({"exp": -5}), Claim("exp")),
            (json!({"exp": true}), Claim("exp")),
            (json!({"nbf": "0"}), Claim("nbf")),
            (json!({"iat": [1]}), Claim("iat")),
            (json!({"iss": 1}), Claim("iss")),
            (json!({"iss": null}), Claim("iss")),
            (json!({"iss": "-"}), Claim("iss")),
            (json!({"sub": null}), Claim("sub")),
            (json!({"sub": "-"}), Claim("sub")),
            (json!({"sub": ""}), Claim("sub")),
            (json!({"exp": "-"}), Claim("exp")),
            (json!({"aud": null}), Claim("aud")),
            (json!({"sub": {"id": "alice"}}), Claim("sub")),
            (json!({"aud": 7}), Claim("aud")),
            (json!({"aud": [RESOURCE, 7]}), Claim("aud")),
            (json!({"scope": ["notes:read"]}), Claim("scope")),
            (json!({"scope": "notes:read \"x\""}), Claim("scope")),
            (json!({"scp": [1]}), Claim("scp")),
            (json!({"scp": ["a b"]}), Claim("scp")),
            (json!({"scp": 1}), Claim("scp")),
            (json!({"client_id": 1}), Claim("client_id")),
            (json!({"azp": false}), Claim("azp")),
            (json!({"cnf": "abc"}), Claim("cnf")),
            (json!({"cnf": {"jkt": 1}}), Claim("cnf")),
            (json!({"cnf": {"jkt": ""}}), Claim("cnf")),
            (json!({"cnf": {"x5t#S256": "abc"}}), Claim("cnf")),
            (json!({"cnf": {"jkt": "abc", "jwk": {}}}), Claim("cnf")),
        ];
        for (changes, expected) in table {
            assert_eq!(
                read(&with(changes.clone())).err(),
                Some(expected),
                "{changes}"
            );
        }
    }

    #[test]
    fn scopes_come_from_scope_or_scp() {
        let read_scopes = |changes: Value| read(&with(changes)).map(|c| c.scopes);
        assert_eq!(
            read_scopes(json!({"scope": "a  b"})),
            Ok(vec!["a".into(), "b".into()])
        );
        assert_eq!(
            read_scopes(json!({"scp": ["a", "b"]})),
            Ok(vec!["a".into(), "b".into()])
        );
        assert_eq!(
            read_scopes(json!({"scp": "a b"})),
            Ok(vec!["a".into(), "b".into()])
        );
        assert_eq!(
            read_scopes(json!({"scope": "a", "scp": ["b"]})),
            Ok(vec!["a".into()])
        );
        assert_eq!(read_scopes(json!({})), Ok(vec![]));
        let claims = read(&with(json!({"azp": "app", "exp": 1.8e9}))).expect("reads");
        assert_eq!(claims.client_id.as_deref(), Some("app"));
        assert_eq!(claims.exp, 1_800_000_000);
        assert_eq!(claims.jkt, None);
        let bound = read(&with(
            json!({"cnf": {"jkt": "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"}}),
        ));
        assert_eq!(
            bound.map(|c| c.jkt),
            Ok(Some(
                "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I".to_owned()
            ))
        );
    }

    #[test]
    fn checks_table() {
        use Rejection::*;
        let table = [
            (json!({}), Ok(())),
            (json!({"aud": ["other", RESOURCE]}), Ok(())),
            (
                json!({"aud": "https://notes.example.com/mcp/"}),
                Err(Audience),
            ),
            (
                json!({"aud": "https://NOTES.example.com/mcp"}),
                Err(Audience),
            ),
            (json!({"aud": []}), Err(Audience)),
            (json!({"aud": "-"}), Err(Audience)),
            (json!({"exp": NOW}), Ok(())),
            (json!({"exp": NOW - 59}), Ok(())),
            (json!({"exp": NOW - 60}), Err(Expired)),
            (json!({"nbf": NOW + 60}), Ok(())),
            (json!({"nbf": NOW + 61}), Err(NotYetValid)),
            (json!({"iat": NOW + 61}), Err(Claim("iat"))),
            (json!({"iat": NOW - 86_400}), Ok(())),
        ];
        for (changes, expected) in table {
            let claims = read(&with(changes.clone())).expect("reads");
            assert_eq!(claims.check(RESOURCE, NOW, 60), expected, "{changes}");
        }
        let claims = read(&with(json!({"exp": NOW}))).expect("reads");
        assert_eq!(claims.check(RESOURCE, NOW, 0), Err(Expired));
    }
}
