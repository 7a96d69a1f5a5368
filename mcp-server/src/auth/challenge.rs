//! Refusals: the HTTP status, the `WWW-Authenticate` challenges of
//! [RFC 6750, section 3](https://datatracker.ietf.org/doc/html/rfc6750#section-3)
//! (`Bearer`) and [RFC 9449, section 7.1](https://datatracker.ietf.org/doc/html/rfc9449#section-7.1)
//! (`DPoP`), and the JSON-RPC error body of each way a request can fail
//! authorization. Pure: the transport only writes them out.

use mcp_types::jsonrpc::ErrorObject;
use serde_json::json;

/// Why a request was refused before it reached the router, and how to
/// say so.
#[derive(Clone, Debug, PartialEq)]
pub struct Refusal {
    status: u16,
    challenge: Option<String>,
    nonce: Option<String>,
    /// Seconds; a `u16` fits beside `status`, so the refusal, the error
    /// of every authorization, stays small.
    retry_after: Option<u16>,
    error: ErrorObject,
}

impl Refusal {
    /// The HTTP status: 400, 401, 403, 429 or 503.
    pub fn status(&self) -> u16 {
        self.status
    }

    /// The value of the `WWW-Authenticate` header, when there is one: a
    /// `Bearer` challenge, a `DPoP` one, or both, comma-separated.
    pub fn challenge(&self) -> Option<&str> {
        self.challenge.as_deref()
    }

    /// The value of the `DPoP-Nonce` header, when the server asks for
    /// nonces in DPoP proofs (RFC 9449, section 9).
    pub fn dpop_nonce(&self) -> Option<&str> {
        self.nonce.as_deref()
    }

    /// The value of the `Retry-After` header, in seconds, when the same
    /// request may well be served later: a 429 (the principal holds its
    /// whole share of the DPoP proofs recorded; the seconds until one of
    /// them expires) or a 503.
    pub fn retry_after(&self) -> Option<u64> {
        self.retry_after.map(u64::from)
    }

    /// The refusal with `nonce` for the `DPoP-Nonce` header.
    pub(crate) fn with_nonce(mut self, nonce: String) -> Self {
        self.nonce = Some(nonce);
        self
    }

    /// The JSON-RPC error of the body, sent without an `id`: the request
    /// was not read, and the MCP schema has no null id.
    pub fn error(&self) -> &ErrorObject {
        &self.error
    }
}

/// The OAuth error codes of RFC 6750 and RFC 9449.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Code {
    InvalidRequest,
    InvalidToken,
    InsufficientScope,
    InvalidDpopProof,
    UseDpopNonce,
}

impl Code {
    fn as_str(self) -> &'static str {
        match self {
            Code::InvalidRequest => "invalid_request",
            Code::InvalidToken => "invalid_token",
            Code::InsufficientScope => "insufficient_scope",
            Code::InvalidDpopProof => "invalid_dpop_proof",
            Code::UseDpopNonce => "use_dpop_nonce",
        }
    }

    fn status(self) -> u16 {
        match self {
            Code::InvalidRequest => 400,
            Code::InvalidToken | Code::InvalidDpopProof | Code::UseDpopNonce => 401,
            Code::InsufficientScope => 403,
        }
    }
}

/// Which authentication schemes a refusal challenges for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Schemes {
    pub(crate) bearer: bool,
    pub(crate) dpop: bool,
}

impl Schemes {
    pub(crate) const BEARER: Schemes = Schemes {
        bearer: true,
        dpop: false,
    };
    pub(crate) const DPOP: Schemes = Schemes {
        bearer: false,
        dpop: true,
    };
    pub(crate) const BOTH: Schemes = Schemes {
        bearer: true,
        dpop: true,
    };
}

/// Renders the challenges of `schemes`, comma-separated, each with the
/// same parameters; the `DPoP` one also names the proof algorithms in
/// `algs`. `scope` is left out when empty.
pub(crate) fn challenge(
    schemes: Schemes,
    code: Option<Code>,
    description: Option<&str>,
    scope: &str,
    resource_metadata: &str,
) -> String {
    let mut params = Vec::with_capacity(4);
    if let Some(code) = code {
        params.push(format!("error={}", quoted(code.as_str())));
    }
    if let Some(description) = description {
        params.push(format!("error_description={}", quoted(description)));
    }
    if !scope.is_empty() {
        params.push(format!("scope={}", quoted(scope)));
    }
    params.push(format!("resource_metadata={}", quoted(resource_metadata)));
    let params = params.join(", ");
    let mut challenges = Vec::with_capacity(2);
    if schemes.bearer {
        challenges.push(format!("Bearer {params}"));
    }
    if schemes.dpop {
        let algs: Vec<&str> = super::dpop::algorithms().collect();
        let algs = quoted(&algs.join(" "));
        challenges.push(format!("DPoP algs={algs}, {params}"));
    }
    challenges.join(", ")
}

/// A quoted-string of RFC 9110: `"` and `\` escaped, and anything outside
/// printable ASCII dropped (our own values hold none, but a header must
/// not carry it).
fn quoted(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            ' '..='~' => out.push(c),
            _ => {}
        }
    }
    out.push('"');
    out
}

/// The refusal of a request that carries no token (none at all, or
/// credentials of a scheme not accepted): 401 with a challenge for each
/// scheme accepted and no error code, as RFC 6750 asks.
pub(crate) fn missing(schemes: Schemes, scope: &str, resource_metadata: &str) -> Refusal {
    let message = match schemes.bearer {
        true => "unauthorized: send an OAuth access token in an `Authorization: Bearer` header",
        false => {
            "unauthorized: send a DPoP-bound access token in an `Authorization: DPoP` header, \
             with a proof in a `DPoP` header"
        }
    };
    Refusal {
        status: 401,
        challenge: Some(challenge(schemes, None, None, scope, resource_metadata)),
        nonce: None,
        retry_after: None,
        error: ErrorObject::invalid_request(message),
    }
}

/// The refusal of a malformed request, a bad token or proof, or a token
/// without the scopes the request needs, challenging for `schemes`.
/// `scope` is what the challenge asks for.
pub(crate) fn refuse(
    schemes: Schemes,
    code: Code,
    description: &str,
    scope: &str,
    resource_metadata: &str,
) -> Refusal {
    let what = match code.status() {
        400 => "bad request",
        403 => "forbidden",
        _ => "unauthorized",
    };
    let mut data = json!({ "error": code.as_str() });
    if code == Code::InsufficientScope {
        data["scope"] = json!(scope);
    }
    Refusal {
        status: code.status(),
        challenge: Some(challenge(
            schemes,
            Some(code),
            Some(description),
            scope,
            resource_metadata,
        )),
        nonce: None,
        retry_after: None,
        error: ErrorObject::invalid_request(format!("{what}: {description}")).with_data(data),
    }
}

/// The refusal of a request whose token cannot be verified now: 503,
/// without a challenge, since the token may well be good, and to be
/// retried in 5 seconds.
pub(crate) fn unavailable() -> Refusal {
    Refusal {
        status: 503,
        challenge: None,
        nonce: None,
        retry_after: Some(5),
        error: ErrorObject::internal_error(
            "the server cannot verify access tokens right now; retry later",
        ),
    }
}

/// The refusal of a DPoP request whose principal holds its whole `share`
/// of the proofs this server has recorded: 429, to be retried in
/// `retry_after` seconds (when the principal's oldest proof expires; at
/// least 1), without a challenge, since the token and the proof are
/// good. The JSON-RPC error is -32603, with the limit in `data`, as for
/// the other limits a client may retry after.
pub(crate) fn over_share(share: usize, retry_after: u64) -> Refusal {
    crate::observe::limit_refused("dpop_replay_share");
    let retry_after = u16::try_from(retry_after.max(1)).unwrap_or(u16::MAX);
    Refusal {
        status: 429,
        challenge: None,
        nonce: None,
        retry_after: Some(retry_after),
        error: ErrorObject::internal_error(format!(
            "too many requests: this principal holds its whole share of the DPoP proofs \
             this server remembers (limit {share}); retry after {retry_after} s, when the \
             oldest of them expires"
        ))
        .with_data(json!({ "limit": "dpop_replay_share", "max": share })),
    }
}

/// What the router answers a `tools/call` whose grant lacks a scope of the
/// tool: `scope` names every scope the call needs.
pub(crate) fn insufficient_scope(
    schemes: Schemes,
    scope: &str,
    resource_metadata: &str,
) -> Refusal {
    let description = format!("this request needs the scopes `{scope}`");
    refuse(
        schemes,
        Code::InsufficientScope,
        &description,
        scope,
        resource_metadata,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const PRM: &str = "https://notes.example.com/.well-known/oauth-protected-resource/mcp";

    #[test]
    fn challenges() {
        let table = [
            (
                missing(Schemes::BEARER, "notes:read", PRM),
                401,
                format!(r#"Bearer scope="notes:read", resource_metadata="{PRM}""#),
            ),
            (
                missing(Schemes::BEARER, "", PRM),
                401,
                format!(r#"Bearer resource_metadata="{PRM}""#),
            ),
            (
                refuse(
                    Schemes::BEARER,
                    Code::InvalidToken,
                    "the token has expired",
                    "notes:read",
                    PRM,
                ),
                401,
                format!(
                    r#"Bearer error="invalid_token", error_description="the token has expired", scope="notes:read", resource_metadata="{PRM}""#
                ),
            ),
            (
                refuse(
                    Schemes::BEARER,
                    Code::InvalidRequest,
                    "send one Authorization header",
                    "",
                    PRM,
                ),
                400,
                format!(
                    r#"Bearer error="invalid_request", error_description="send one Authorization header", resource_metadata="{PRM}""#
                ),
            ),
            (
                insufficient_scope(Schemes::BEARER, "notes:read notes:write", PRM),
                403,
                format!(
                    r#"Bearer error="insufficient_scope", error_description="this request needs the scopes `notes:read notes:write`", scope="notes:read notes:write", resource_metadata="{PRM}""#
                ),
            ),
        ];
        for (refusal, status, header) in table {
            assert_eq!(refusal.status(), status);
            assert_eq!(refusal.challenge(), Some(header.as_str()));
            assert_eq!(refusal.error().code, -32600);
        }
        let busy = unavailable();
        assert_eq!((busy.status(), busy.challenge()), (503, None));
        assert_eq!(busy.error().code, -32603);
        assert_eq!(busy.retry_after(), Some(5));
        for refusal in [
            missing(Schemes::BEARER, "", PRM),
            refuse(Schemes::BEARER, Code::InvalidToken, "x", "", PRM),
        ] {
            assert_eq!(refusal.retry_after(), None);
        }
    }

    #[test]
    fn a_principal_over_its_share_is_told_when_to_retry() {
        let refusal = over_share(16, 42);
        assert_eq!(refusal.status(), 429);
        assert_eq!(refusal.challenge(), None, "the credentials are good");
        assert_eq!(refusal.retry_after(), Some(42));
        assert_eq!(refusal.error().code, -32603);
        assert_eq!(
            refusal.error().data.clone().expect("data"),
            json!({ "limit": "dpop_replay_share", "max": 16 })
        );
        assert!(refusal.error().message.contains("retry after 42 s"));
        assert_eq!(over_share(16, 0).retry_after(), Some(1), "at least 1");
        assert_eq!(over_share(16, 1 << 20).retry_after(), Some(65_535));
    }

    #[test]
    fn bodies_name_the_oauth_error() {
        let refusal = insufficient_scope(Schemes::BEARER, "a b", PRM);
        let data = refusal.error().data.clone().expect("data");
        assert_eq!(
            data,
            json!({ "error": "insufficient_scope", "scope": "a b" })
        );
        let refusal = refuse(
            Schemes::BEARER,
            Code::InvalidToken,
            "the token has expired",
            "",
            PRM,
        );
        assert_eq!(
            refusal.error().message,
            "unauthorized: the token has expired"
        );
    }

    #[test]
    fn dpop_challenges() {
        const ALGS: &str = "RS256 RS384 RS512 PS256 PS384 PS512 ES256 ES384 EdDSA";
        let table = [
            (
                missing(Schemes::DPOP, "notes:read", PRM),
                401,
                format!(r#"DPoP algs="{ALGS}", scope="notes:read", resource_metadata="{PRM}""#),
            ),
            (
                missing(Schemes::BOTH, "", PRM),
                401,
                format!(
                    r#"Bearer resource_metadata="{PRM}", DPoP algs="{ALGS}", resource_metadata="{PRM}""#
                ),
            ),
            (
                refuse(
                    Schemes::DPOP,
                    Code::InvalidDpopProof,
                    "the DPoP proof is for another URL",
                    "notes:read",
                    PRM,
                ),
                401,
                format!(
                    r#"DPoP algs="{ALGS}", error="invalid_dpop_proof", error_description="the DPoP proof is for another URL", scope="notes:read", resource_metadata="{PRM}""#
                ),
            ),
            (
                refuse(
                    Schemes::DPOP,
                    Code::UseDpopNonce,
                    "the DPoP proof lacks the server's current nonce",
                    "",
                    PRM,
                ),
                401,
                format!(
                    r#"DPoP algs="{ALGS}", error="use_dpop_nonce", error_description="the DPoP proof lacks the server's current nonce", resource_metadata="{PRM}""#
                ),
            ),
            (
                insufficient_scope(Schemes::DPOP, "a", PRM),
                403,
                format!(
                    r#"DPoP algs="{ALGS}", error="insufficient_scope", error_description="this request needs the scopes `a`", scope="a", resource_metadata="{PRM}""#
                ),
            ),
        ];
        for (refusal, status, header) in table {
            assert_eq!(refusal.status(), status);
            assert_eq!(refusal.challenge(), Some(header.as_str()));
            assert_eq!(refusal.dpop_nonce(), None);
        }
        let only_dpop = missing(Schemes::DPOP, "", PRM);
        assert!(only_dpop.error().message.contains("`Authorization: DPoP`"));
        let asked = refuse(Schemes::DPOP, Code::UseDpopNonce, "x", "", PRM).with_nonce("n1".into());
        assert_eq!(asked.dpop_nonce(), Some("n1"));
        assert_eq!(
            asked.error().data.clone().expect("data"),
            json!({ "error": "use_dpop_nonce" })
        );
    }

    #[test]
    fn quoting_escapes_and_drops() {
        assert_eq!(quoted(r#"a"b\c"#), r#""a\"b\\c""#);
        assert_eq!(quoted("tab\there\u{e9}"), r#""tabhere""#);
    }
}
