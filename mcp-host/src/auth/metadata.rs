//! The documents the authorization flow reads: Protected Resource Metadata
//! (RFC 9728), authorization server metadata (RFC 8414 and OpenID Connect
//! Discovery), token responses (RFC 6749 §5) and registration responses
//! (RFC 7591). Unknown fields are kept out; what is read is typed.

use serde::Deserialize;

use super::secret::Secret;

/// A Protected Resource Metadata document.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub struct ResourceMetadata {
    /// The resource identifier of the server.
    pub resource: String,
    /// The issuers of the authorization servers the server accepts.
    #[serde(default)]
    pub authorization_servers: Vec<String>,
    /// The scopes the server knows, for a first authorization.
    #[serde(default)]
    pub scopes_supported: Option<Vec<String>>,
    /// The DPoP proof algorithms the server accepts (RFC 9449 §5.2).
    #[serde(default)]
    pub dpop_signing_alg_values_supported: Option<Vec<String>>,
    /// Whether the server takes DPoP-bound tokens only (RFC 9449 §5.2).
    #[serde(default)]
    pub dpop_bound_access_tokens_required: bool,
}

impl ResourceMetadata {
    /// Whether the server asks for DPoP-bound tokens.
    pub fn asks_for_dpop(&self) -> bool {
        self.dpop_bound_access_tokens_required || self.dpop_signing_alg_values_supported.is_some()
    }
}

/// Authorization server metadata, from either discovery document.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq, Default)]
pub struct ServerMetadata {
    /// The issuer identifier; must equal the one the document was found by.
    pub issuer: String,
    /// Where the person authorizes.
    pub authorization_endpoint: Option<String>,
    /// Where codes and refresh tokens become access tokens.
    pub token_endpoint: Option<String>,
    /// Where dynamic client registration happens.
    pub registration_endpoint: Option<String>,
    /// The scopes the server issues.
    pub scopes_supported: Option<Vec<String>>,
    /// The grant types the server supports.
    pub grant_types_supported: Option<Vec<String>>,
    /// The PKCE methods; without `S256` the flow refuses to start.
    pub code_challenge_methods_supported: Option<Vec<String>>,
    /// How clients authenticate at the token endpoint.
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    /// Whether the server sends `iss` in authorization responses (RFC 9207).
    #[serde(default)]
    pub authorization_response_iss_parameter_supported: bool,
    /// Whether the server accepts Client ID Metadata Document URLs as
    /// client ids.
    #[serde(default)]
    pub client_id_metadata_document_supported: bool,
    /// The DPoP proof algorithms the server accepts (RFC 9449 §5.1);
    /// without them it issues no DPoP-bound tokens.
    #[serde(default)]
    pub dpop_signing_alg_values_supported: Option<Vec<String>>,
}

impl ServerMetadata {
    /// Whether PKCE with `S256` is supported.
    pub fn supports_s256(&self) -> bool {
        self.code_challenge_methods_supported
            .as_ref()
            .is_some_and(|m| m.iter().any(|m| m == "S256"))
    }

    /// Whether the server lists `scope` among the scopes it issues.
    pub fn lists_scope(&self, scope: &str) -> bool {
        self.scopes_supported
            .as_ref()
            .is_some_and(|s| s.iter().any(|s| s == scope))
    }

    /// The token endpoint authentication methods, with RFC 8414's default
    /// (`client_secret_basic`) when the document names none.
    pub fn auth_methods(&self) -> Vec<String> {
        self.token_endpoint_auth_methods_supported
            .clone()
            .unwrap_or_else(|| vec![String::from("client_secret_basic")])
    }
}

/// A successful token response.
#[derive(Deserialize)]
pub struct TokenResponse {
    /// The access token.
    pub access_token: Secret,
    /// Its type; only `Bearer` is used.
    pub token_type: String,
    /// Seconds until the access token expires.
    pub expires_in: Option<u64>,
    /// A refresh token, when one was issued.
    pub refresh_token: Option<Secret>,
    /// The scopes granted, when they differ from those asked for.
    pub scope: Option<String>,
}

impl std::fmt::Debug for TokenResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenResponse")
            .field("token_type", &self.token_type)
            .field("expires_in", &self.expires_in)
            .field(
                "refresh_token",
                &self.refresh_token.as_ref().map(|_| "<redacted>"),
            )
            .field("scope", &self.scope)
            .finish_non_exhaustive()
    }
}

/// An OAuth error response (RFC 6749 §5.2).
#[derive(Debug, Clone, Deserialize)]
pub struct ErrorResponse {
    /// The error code.
    pub error: String,
    /// The server's words; untrusted.
    pub error_description: Option<String>,
}

/// A dynamic client registration response.
#[derive(Debug, Deserialize)]
pub struct RegistrationResponse {
    /// The client id issued.
    pub client_id: String,
    /// The secret, for a confidential client.
    pub client_secret: Option<Secret>,
    /// When the secret expires (seconds since the epoch, 0 for never).
    pub client_secret_expires_at: Option<u64>,
    /// The authentication method the server settled on.
    pub token_endpoint_auth_method: Option<String>,
}
