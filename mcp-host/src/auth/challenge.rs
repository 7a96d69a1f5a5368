//! The `WWW-Authenticate` challenge of a protected MCP server (RFC 7235
//! syntax, the `Bearer` parameters of RFC 6750 and RFC 9728, and the
//! `DPoP` challenge of RFC 9449). Sans-IO.
//!
//! ```
//! use mcp_host::auth::challenge::BearerChallenge;
//!
//! let header = r#"Bearer error="insufficient_scope", scope="files:read files:write",
//!     resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource""#;
//! let challenge = BearerChallenge::from_headers([header]).expect("a Bearer challenge");
//! assert_eq!(challenge.error.as_deref(), Some("insufficient_scope"));
//! assert_eq!(challenge.scopes(), ["files:read", "files:write"]);
//! ```

/// The longest header value read; the rest is ignored.
const MAX_HEADER: usize = 8 * 1024;

/// The most parameters read from one challenge.
const MAX_PARAMS: usize = 32;

/// What a `Bearer` challenge asks for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BearerChallenge {
    /// Where the Protected Resource Metadata is (RFC 9728 §5.1).
    pub resource_metadata: Option<String>,
    /// The scopes the operation needs, space-separated (RFC 6750 §3).
    pub scope: Option<String>,
    /// The error code, such as `invalid_token` or `insufficient_scope`.
    pub error: Option<String>,
    /// The server's words about the error; untrusted text.
    pub error_description: Option<String>,
    /// Whether the server sent a `DPoP` challenge: it takes DPoP-bound
    /// tokens (RFC 9449 §7.1).
    pub dpop: bool,
    /// The proof algorithms of the `DPoP` challenge, space-separated.
    pub algs: Option<String>,
}

impl BearerChallenge {
    /// The `Bearer` and `DPoP` (RFC 9449 §7.1) challenges among the
    /// values of the `WWW-Authenticate` headers of a reply, as one: each
    /// parameter from the first challenge that has it, except that a
    /// `DPoP` challenge asking for a nonce wins. `None` when there is
    /// neither.
    pub fn from_headers<'a>(values: impl IntoIterator<Item = &'a str>) -> Option<Self> {
        let mut found = None::<Self>;
        for c in values.into_iter().flat_map(parse) {
            let dpop = c.scheme.eq_ignore_ascii_case("dpop");
            if !dpop && !c.scheme.eq_ignore_ascii_case("bearer") {
                continue;
            }
            let challenge = found.get_or_insert_with(Self::default);
            challenge.dpop |= dpop;
            for (name, value) in c.params {
                let slot = match name.to_ascii_lowercase().as_str() {
                    "resource_metadata" => &mut challenge.resource_metadata,
                    "scope" => &mut challenge.scope,
                    "error" if dpop && value == crate::auth::dpop::USE_NONCE => {
                        challenge.error = Some(value);
                        continue;
                    }
                    "error" => &mut challenge.error,
                    "error_description" => &mut challenge.error_description,
                    "algs" if dpop => &mut challenge.algs,
                    _ => continue,
                };
                // The first of a repeated parameter counts.
                if slot.is_none() {
                    *slot = Some(value);
                }
            }
        }
        found
    }

    /// Whether the server asks for a DPoP nonce (RFC 9449 §9).
    pub fn wants_nonce(&self) -> bool {
        self.error.as_deref() == Some(crate::auth::dpop::USE_NONCE)
    }

    /// The scopes of the challenge, in order, without repeats.
    pub fn scopes(&self) -> Vec<String> {
        split_scopes(self.scope.as_deref().unwrap_or(""))
    }

    /// Whether the server says the token lacks scope (a `403` with
    /// `error="insufficient_scope"`).
    pub fn is_insufficient_scope(&self) -> bool {
        self.error.as_deref() == Some("insufficient_scope")
    }
}

/// The scope tokens of a space-separated scope string, in order, without
/// repeats or empty tokens.
pub fn split_scopes(scope: &str) -> Vec<String> {
    let mut scopes: Vec<String> = Vec::new();
    for token in scope.split([' ', '\t']).filter(|t| !t.is_empty()) {
        if !scopes.iter().any(|s| s == token) {
            scopes.push(token.to_owned());
        }
    }
    scopes
}

/// One challenge of a header: its scheme and parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Challenge {
    scheme: String,
    params: Vec<(String, String)>,
}

fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            self.at += 1;
        }
    }

    fn skip_separators(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r' | b'\n' | b',')) {
            self.at += 1;
        }
    }

    fn token(&mut self) -> Option<String> {
        let start = self.at;
        while self.peek().is_some_and(is_tchar) {
            self.at += 1;
        }
        (self.at > start).then(|| String::from_utf8_lossy(&self.bytes[start..self.at]).into_owned())
    }

    /// A token68 (RFC 7235 §2.1): token characters and `/`, then `=`s.
    fn token68(&mut self) -> Option<String> {
        let start = self.at;
        while self
            .peek()
            .is_some_and(|b| b.is_ascii_alphanumeric() || b"-._~+/".contains(&b))
        {
            self.at += 1;
        }
        while self.peek() == Some(b'=') {
            self.at += 1;
        }
        (self.at > start).then(|| String::from_utf8_lossy(&self.bytes[start..self.at]).into_owned())
    }

    fn quoted(&mut self) -> String {
        // At the opening quote.
        self.at += 1;
        let mut out = Vec::new();
        while let Some(b) = self.peek() {
            self.at += 1;
            match b {
                b'"' => break,
                b'\\' => {
                    if let Some(next) = self.peek() {
                        out.push(next);
                        self.at += 1;
                    }
                }
                other => out.push(other),
            }
        }
        String::from_utf8_lossy(&out).into_owned()
    }

    /// Whether a parameter (`name =`) starts here, without moving.
    fn at_param(&self) -> bool {
        let mut probe = Cursor {
            bytes: self.bytes,
            at: self.at,
        };
        if probe.token().is_none() {
            return false;
        }
        probe.skip_space();
        probe.peek() == Some(b'=') && {
            // `name=` followed by more `=` or the end is a token68.
            probe.at += 1;
            !matches!(probe.peek(), Some(b'=' | b',') | None)
        }
    }
}

/// Every challenge in one header value.
fn parse(value: &str) -> Vec<Challenge> {
    let bytes = &value.as_bytes()[..value.len().min(MAX_HEADER)];
    let mut cursor = Cursor { bytes, at: 0 };
    let mut challenges = Vec::new();
    loop {
        cursor.skip_separators();
        let Some(scheme) = cursor.token() else {
            break;
        };
        let mut challenge = Challenge {
            scheme,
            params: Vec::new(),
        };
        cursor.skip_space();
        if !cursor.at_param() && cursor.peek().is_some_and(|b| b != b',') {
            // A token68 credential hint; nothing we read.
            let _ = cursor.token68();
        }
        loop {
            cursor.skip_space();
            if cursor.peek() == Some(b',') {
                let mark = cursor.at;
                cursor.skip_separators();
                if !cursor.at_param() {
                    cursor.at = mark;
                    cursor.skip_separators();
                    break;
                }
            }
            if !cursor.at_param() {
                break;
            }
            let Some(name) = cursor.token() else {
                break;
            };
            cursor.skip_space();
            cursor.at += 1; // '='
            cursor.skip_space();
            let value = if cursor.peek() == Some(b'"') {
                cursor.quoted()
            } else {
                cursor.token().unwrap_or_default()
            };
            if challenge.params.len() < MAX_PARAMS {
                challenge.params.push((name, value));
            }
        }
        challenges.push(challenge);
        if cursor.peek().is_none() {
            break;
        }
        // Skip anything unparseable up to the next separator.
        while cursor.peek().is_some_and(|b| b != b',' && !is_tchar(b)) {
            cursor.at += 1;
        }
    }
    challenges
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bearer(header: &str) -> BearerChallenge {
        BearerChallenge::from_headers([header]).expect("bearer")
    }

    #[test]
    fn reads_the_parameters() {
        let c = bearer(
            r#"Bearer resource_metadata="https://a.example/.well-known/oauth-protected-resource/mcp", scope="mcp:basic""#,
        );
        assert_eq!(
            c.resource_metadata.as_deref(),
            Some("https://a.example/.well-known/oauth-protected-resource/mcp")
        );
        assert_eq!(c.scopes(), ["mcp:basic"]);
        assert!(!c.is_insufficient_scope());
    }

    #[test]
    fn scheme_and_names_are_case_insensitive() {
        let c = bearer(r#"bearer Error="insufficient_scope",SCOPE="a b""#);
        assert!(c.is_insufficient_scope());
        assert_eq!(c.scopes(), ["a", "b"]);
    }

    #[test]
    fn finds_bearer_among_other_challenges() {
        let header = r#"Basic realm="x", charset="UTF-8", Bearer scope="s", error="invalid_token""#;
        let c = bearer(header);
        assert_eq!(c.scope.as_deref(), Some("s"));
        assert_eq!(c.error.as_deref(), Some("invalid_token"));
        let c = BearerChallenge::from_headers([r#"Basic realm="x""#, "Bearer scope=t"])
            .expect("second header");
        assert_eq!(c.scope.as_deref(), Some("t"));
    }

    #[test]
    fn unquoted_values_escapes_and_odd_spacing() {
        let c = bearer(
            "Bearer   error = invalid_token ,error_description=\"say \\\"hi\\\"\",scope=\"x\"",
        );
        assert_eq!(c.error.as_deref(), Some("invalid_token"));
        assert_eq!(c.error_description.as_deref(), Some("say \"hi\""));
        assert_eq!(c.scope.as_deref(), Some("x"));
    }

    #[test]
    fn bare_scheme_and_token68() {
        assert_eq!(bearer("Bearer"), BearerChallenge::default());
        assert_eq!(bearer("Bearer abc=="), BearerChallenge::default());
        let c = bearer("Negotiate abc==, Bearer scope=\"z\"");
        assert_eq!(c.scope.as_deref(), Some("z"));
    }

    #[test]
    fn dpop_challenges_are_read_with_bearer_ones() {
        let c = bearer(r#"DPoP resource_metadata="https://a.example/prm", algs="ES256 PS256""#);
        assert!(c.dpop);
        assert_eq!(c.algs.as_deref(), Some("ES256 PS256"));
        assert_eq!(
            c.resource_metadata.as_deref(),
            Some("https://a.example/prm")
        );
        assert!(!c.wants_nonce());
        let c = BearerChallenge::from_headers([
            r#"Bearer scope="s", error="invalid_token""#,
            r#"DPoP error="use_dpop_nonce", error_description="fresh nonce""#,
        ])
        .expect("both");
        assert!(c.dpop && c.wants_nonce());
        assert_eq!(c.scope.as_deref(), Some("s"));
        assert!(!bearer("Bearer scope=s").dpop);
        // A Bearer challenge cannot ask for a DPoP nonce.
        assert!(!bearer(r#"Bearer error="use_dpop_nonce""#).dpop);
    }

    #[test]
    fn hostile_input_does_not_panic() {
        for header in [
            "",
            "\"",
            "Bearer scope=\"unterminated",
            "Bearer =,=,=",
            "Bearer scope=",
            ",,,,",
            "Bearer \u{0}\u{1}",
            "Bearer scope=\"a\" trailing junk ))",
        ] {
            let _ = BearerChallenge::from_headers([header]);
        }
        assert!(BearerChallenge::from_headers(["Basic realm=x"]).is_none());
        let long = format!("Bearer scope=\"{}\"", "a".repeat(100_000));
        let c = bearer(&long);
        assert!(c.scope.is_some_and(|s| s.len() < MAX_HEADER));
    }

    #[test]
    fn splits_scopes_without_repeats() {
        assert_eq!(split_scopes("  a b  a\tc "), ["a", "b", "c"]);
        assert!(split_scopes("").is_empty());
    }
}
