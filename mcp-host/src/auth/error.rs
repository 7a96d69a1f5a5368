//! What can go wrong authorizing with a server. No variant carries a
//! token or secret; text that came from a server or an authorization
//! server is neutralised before it is kept.

/// An error of the authorization flow.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AuthError {
    /// A URL the flow was told to use is not allowed: not `https` (plain
    /// `http` is only for loopback addresses, and only when the MCP server
    /// itself is on one), or malformed.
    #[error("refused to use {what} `{url}`: {reason}")]
    InsecureUrl {
        /// Which URL.
        what: &'static str,
        /// The URL, neutralised.
        url: String,
        /// Why.
        reason: &'static str,
    },
    /// Fetching a document or calling an endpoint failed.
    #[error("{what}: {reason}")]
    Fetch {
        /// What was fetched.
        what: &'static str,
        /// Why it failed.
        reason: String,
    },
    /// No Protected Resource Metadata could be found for the server.
    #[error(
        "the server asks for authorization but publishes no protected resource metadata ({0})"
    )]
    NoResourceMetadata(String),
    /// The Protected Resource Metadata names another resource.
    #[error(
        "the protected resource metadata is for `{found}`, not for this server (`{expected}`)"
    )]
    ResourceMismatch {
        /// The server's URL.
        expected: String,
        /// The `resource` of the document.
        found: String,
    },
    /// The Protected Resource Metadata names no authorization server.
    #[error("the protected resource metadata names no authorization server")]
    NoAuthorizationServer,
    /// The authorization server metadata was not found at any of the
    /// well-known URLs.
    #[error("no authorization server metadata for `{0}`")]
    NoServerMetadata(String),
    /// The metadata document names another issuer than the one it was
    /// found by.
    #[error("the authorization server metadata names issuer `{found}`, not `{expected}`")]
    IssuerMismatch {
        /// The issuer the URL was built from.
        expected: String,
        /// The issuer in the document.
        found: String,
    },
    /// The authorization server does not support PKCE with `S256`.
    #[error(
        "the authorization server `{0}` does not support PKCE with S256; refusing to authorize"
    )]
    NoPkce(String),
    /// The authorization server metadata lacks an endpoint the flow needs.
    #[error("the authorization server `{issuer}` has no {endpoint}")]
    MissingEndpoint {
        /// The issuer.
        issuer: String,
        /// Which endpoint.
        endpoint: &'static str,
    },
    /// The client cannot get a client id from this authorization server.
    #[error("no way to register with `{0}`: it offers neither client id metadata documents nor dynamic registration; configure a client id")]
    NoRegistration(String),
    /// The pre-registered credentials are for another authorization server.
    #[error("the configured client id is for `{configured}`, but the server now uses `{found}`")]
    WrongServerForCredentials {
        /// The issuer configured.
        configured: String,
        /// The issuer the server names.
        found: String,
    },
    /// A client secret or key was given without the issuer it belongs to.
    #[error("server `{server}`: {credential} is issued by one authorization server; set the `issuer` it was issued by, so that it is never sent to another")]
    UnboundCredentials {
        /// The server's id.
        server: String,
        /// What was given: "a client secret" or "a private key".
        credential: &'static str,
    },
    /// The server publishes neither resource nor authorization server
    /// metadata, and the 2025-03-26 endpoint fallback is not enabled.
    #[error("server `{server}` publishes no authorization metadata, so nothing says its authorization server supports PKCE; refusing to authorize (set `\"legacyEndpointFallback\": true` in its `oauth` entry to use the 2025-03-26 default endpoints anyway)")]
    NoMetadataAtAll {
        /// The server's id.
        server: String,
    },
    /// A server off loopback asked for authorization over plain `http`.
    #[error("server `{server}` asks for authorization over plain http; tokens are only sent over https, or http to a loopback address")]
    Cleartext {
        /// The server's id.
        server: String,
    },
    /// Dynamic registration was refused.
    #[error("registration with `{issuer}` failed: {reason}")]
    Registration {
        /// The issuer.
        issuer: String,
        /// Why, neutralised.
        reason: String,
    },
    /// A login is needed, but nobody can log in here.
    #[error("server `{0}` needs a login: run `mcp-host login {0}` at a terminal")]
    LoginRequired(String),
    /// The login did not complete: cancelled, timed out, or failed.
    #[error("login failed: {0}")]
    Login(String),
    /// The authorization response does not carry the `state` sent.
    #[error("the authorization response does not match the request (state mismatch); ignored")]
    StateMismatch,
    /// The authorization response names another issuer (RFC 9207).
    #[error("the authorization response comes from issuer `{found}`, not `{expected}`; ignored")]
    IssMismatch {
        /// The issuer recorded before the redirect.
        expected: String,
        /// The `iss` of the response, neutralised.
        found: String,
    },
    /// The authorization server promised `iss` and the response has none.
    #[error("the authorization response lacks the `iss` its server promised; ignored")]
    IssMissing,
    /// The authorization server refused the authorization.
    #[error("the authorization server refused: {error}{}", describe(.description))]
    Denied {
        /// The error code, neutralised.
        error: String,
        /// The server's words, neutralised.
        description: Option<String>,
    },
    /// The token endpoint refused.
    #[error("the token endpoint refused ({status}): {error}{}", describe(.description))]
    Token {
        /// The HTTP status.
        status: u16,
        /// The error code, neutralised.
        error: String,
        /// The server's words, neutralised.
        description: Option<String>,
    },
    /// The server still refuses after the allowed authorizations.
    #[error("the server still refuses after {attempts} authorization attempts{}", needs(.scopes))]
    StillRefused {
        /// How many authorizations this request went through.
        attempts: usize,
        /// The scopes the server last asked for.
        scopes: Vec<String>,
    },
    /// The server asked for the same scopes again and again although the
    /// person granted them: the client stops asking for a while.
    #[error("server `{server}` asked {times} times for the scopes `{}` and still refused; not asking again for {minutes} min", .scopes.join(" "))]
    StepUpPaused {
        /// The server's id.
        server: String,
        /// The scopes it asked for.
        scopes: Vec<String>,
        /// How many step-ups to them it had.
        times: usize,
        /// How long until it may ask again, in minutes (rounded up).
        minutes: u64,
    },
    /// The credential store failed.
    #[error("credential store: {0}")]
    Store(String),
    /// The client assertion key cannot be used.
    #[error("client assertion key: {0}")]
    Key(String),
    /// The token the host presents for a JWT bearer grant or a token
    /// exchange could not be had (see [`TokenSource`](super::source::TokenSource)).
    #[error("the token to present could not be read: {0}")]
    TokenSource(String),
}

fn describe(description: &Option<String>) -> String {
    description
        .as_deref()
        .map(|d| format!(" ({d})"))
        .unwrap_or_default()
}

fn needs(scopes: &[String]) -> String {
    if scopes.is_empty() {
        String::new()
    } else {
        format!(" (it asks for scope `{}`)", scopes.join(" "))
    }
}

/// Text from the other side, safe to keep in an error: control and
/// invisible characters escaped, length capped.
pub(crate) fn neutral(text: &str) -> String {
    const LIMIT: usize = 200;
    let mut out = crate::untrusted::neutralise(text);
    if out.chars().count() > LIMIT {
        out = out.chars().take(LIMIT).collect();
        out.push('…');
    }
    out
}
