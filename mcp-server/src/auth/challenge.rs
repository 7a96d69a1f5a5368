//! Refusals: the HTTP status, the `WWW-Authenticate` challenge of
//! [RFC 6750, section 3](https://datatracker.ietf.org/doc/html/rfc6750#section-3)
//! and the JSON-RPC error body of each way a request can fail
//! authorization. Pure: the transport only writes them out.

use mcp_types::jsonrpc::ErrorObject;
use serde_json::json;

/// Why a request was refused before it reached the router, and how to
/// say so.
#[derive(Clone, Debug, PartialEq)]
pub struct Refusal {
    status: u16,
    challenge: Option<String>,
    error: ErrorObject,
}

impl Refusal {
    /// The HTTP status: 400, 401, 403 or 503.
    pub fn status(&self) -> u16 {
        self.status
    }

    /// The value of the `WWW-Authenticate` header, when there is one.
    pub fn challenge(&self) -> Option<&str> {
        self.challenge.as_deref()
    }

    /// The JSON-RPC error of the body, sent without an `id`: the request
    /// was not read, and the MCP schema has no null id.
    pub fn error(&self) -> &ErrorObject {
        &self.error
    }
}

/// The OAuth error codes of RFC 6750.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Code {
    InvalidRequest,
    InvalidToken,
    InsufficientScope,
}

impl Code {
    fn as_str(self) -> &'static str {
        match self {
            Code::InvalidRequest => "invalid_request",
            Code::InvalidToken => "invalid_token",
            Code::InsufficientScope => "insufficient_scope",
        }
    }

    fn status(self) -> u16 {
        match self {
            Code::InvalidRequest => 400,
            Code::InvalidToken => 401,
            Code::InsufficientScope => 403,
        }
    }
}

/// Renders a `Bearer` challenge. `scope` is left out when empty.
pub(crate) fn challenge(
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
    format!("Bearer {}", params.join(", "))
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

/// The refusal of a request that carries no bearer token (none at all, or
/// credentials of another scheme): 401 with a challenge and no error code,
/// as RFC 6750 asks.
pub(crate) fn missing(scope: &str, resource_metadata: &str) -> Refusal {
    Refusal {
        status: 401,
        challenge: Some(challenge(None, None, scope, resource_metadata)),
        error: ErrorObject::invalid_request(
            "unauthorized: send an OAuth access token in an `Authorization: Bearer` header",
        ),
    }
}

/// The refusal of a malformed request, a bad token or a token without the
/// scopes the request needs. `scope` is what the challenge asks for.
pub(crate) fn refuse(
    code: Code,
    description: &str,
    scope: &str,
    resource_metadata: &str,
) -> Refusal {
    let what = match code {
        Code::InvalidRequest => "bad request",
        Code::InvalidToken => "unauthorized",
        Code::InsufficientScope => "forbidden",
    };
    let mut data = json!({ "error": code.as_str() });
    if code == Code::InsufficientScope {
        data["scope"] = json!(scope);
    }
    Refusal {
        status: code.status(),
        challenge: Some(challenge(
            Some(code),
            Some(description),
            scope,
            resource_metadata,
        )),
        error: ErrorObject::invalid_request(format!("{what}: {description}")).with_data(data),
    }
}

/// The refusal of a request whose token cannot be verified now: 503,
/// without a challenge, since the token may well be good.
pub(crate) fn unavailable() -> Refusal {
    Refusal {
        status: 503,
        challenge: None,
        error: ErrorObject::internal_error(
            "the server cannot verify access tokens right now; retry later",
        ),
    }
}

/// What the router answers a `tools/call` whose grant lacks a scope of the
/// tool: `scope` names every scope the call needs.
pub(crate) fn insufficient_scope(scope: &str, resource_metadata: &str) -> Refusal {
    let description = format!("this request needs the scopes `{scope}`");
    refuse(
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
                missing("notes:read", PRM),
                401,
                format!(r#"Bearer scope="notes:read", resource_metadata="{PRM}""#),
            ),
            (
                missing("", PRM),
                401,
                format!(r#"Bearer resource_metadata="{PRM}""#),
            ),
            (
                refuse(
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
                insufficient_scope("notes:read notes:write", PRM),
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
    }

    #[test]
    fn bodies_name_the_oauth_error() {
        let refusal = insufficient_scope("a b", PRM);
        let data = refusal.error().data.clone().expect("data");
        assert_eq!(
            data,
            json!({ "error": "insufficient_scope", "scope": "a b" })
        );
        let refusal = refuse(Code::InvalidToken, "the token has expired", "", PRM);
        assert_eq!(
            refusal.error().message,
            "unauthorized: the token has expired"
        );
    }

    #[test]
    fn quoting_escapes_and_drops() {
        assert_eq!(quoted(r#"a"b\c"#), r#""a\"b\\c""#);
        assert_eq!(quoted("tab\there\u{e9}"), r#""tabhere""#);
    }
}
