//! The rules of one authorization: which scopes to ask for, the
//! authorization URL, the checks on the redirect that comes back (`state`,
//! RFC 9207 `iss`, errors), the token requests and how the client
//! authenticates in them, and what a token response means. Sans-IO: the
//! driver does the fetching.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use reqwest::Url;

use super::error::{neutral, AuthError};
use super::metadata::{ServerMetadata, TokenResponse};
use super::secret::Secret;
use super::store::Tokens;

/// The scope that asks for a refresh token (OpenID Connect Core §11).
pub const OFFLINE_ACCESS: &str = "offline_access";

/// How the client authenticates at the token endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientAuth {
    /// A public client: the `client_id` in the form, no secret.
    None,
    /// HTTP Basic with the client id and secret (RFC 6749 §2.3.1).
    SecretBasic,
    /// The client id and secret in the form.
    SecretPost,
    /// A signed JWT assertion (RFC 7523 §2.2).
    PrivateKeyJwt,
}

impl ClientAuth {
    /// The method named `name` (RFC 7591 §2).
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "none" => Self::None,
            "client_secret_basic" => Self::SecretBasic,
            "client_secret_post" => Self::SecretPost,
            "private_key_jwt" => Self::PrivateKeyJwt,
            _ => return None,
        })
    }

    /// The method's registered name.
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::SecretBasic => "client_secret_basic",
            Self::SecretPost => "client_secret_post",
            Self::PrivateKeyJwt => "private_key_jwt",
        }
    }

    /// The method for a client whose secret is known (or not), among those
    /// the server `supported`: Basic, then the form, for a secret; none
    /// without one.
    pub fn for_secret(has_secret: bool, supported: &[String]) -> Self {
        let offers = |m: Self| supported.iter().any(|s| s == m.name());
        if !has_secret {
            Self::None
        } else if offers(Self::SecretBasic) {
            Self::SecretBasic
        } else if offers(Self::SecretPost) {
            Self::SecretPost
        } else if offers(Self::None) {
            Self::None
        } else {
            Self::SecretBasic
        }
    }

    /// The method to ask for in a dynamic registration: a public client
    /// when the server takes one, else a secret by Basic, else in the form.
    pub fn to_register(supported: &[String]) -> Self {
        let offers = |m: Self| supported.iter().any(|s| s == m.name());
        if offers(Self::None) {
            Self::None
        } else if offers(Self::SecretBasic) {
            Self::SecretBasic
        } else if offers(Self::SecretPost) {
            Self::SecretPost
        } else {
            Self::None
        }
    }
}

/// Who the client is at one authorization server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientIdentity {
    /// The client id.
    pub client_id: String,
    /// The secret of a confidential client.
    pub secret: Option<Secret>,
    /// How it authenticates at the token endpoint.
    pub auth: ClientAuth,
    /// The signed client assertion of a `private_key_jwt` client, made
    /// for the authorization server this identity is used with; sent on
    /// every token request (code, refresh and client credentials).
    pub assertion: Option<Secret>,
}

/// The scopes in `a`, then those of `b` not in `a`.
pub fn union(a: &[String], b: &[String]) -> Vec<String> {
    let mut out = a.to_vec();
    for scope in b {
        if !out.contains(scope) {
            out.push(scope.clone());
        }
    }
    out
}

/// The scopes of a first authorization, by the spec's strategy: those the
/// challenge names, else every scope of the Protected Resource Metadata's
/// `scopes_supported`, else none (the `scope` parameter is then left
/// out). `configured` scopes and those asked for `before` are added, so a
/// new authorization loses nothing earlier ones had.
pub fn initial_scopes(
    challenge: &[String],
    resource_supported: Option<&[String]>,
    configured: &[String],
    before: &[String],
) -> Vec<String> {
    let base = if challenge.is_empty() {
        resource_supported.unwrap_or(&[])
    } else {
        challenge
    };
    union(&union(before, configured), base)
        .into_iter()
        .filter(|s| s != OFFLINE_ACCESS)
        .collect()
}

/// `scopes` with `offline_access` added when the authorization server
/// lists it and the client wants refresh tokens; never to an empty list,
/// which would narrow a request that asked for the server's defaults.
pub fn with_offline_access(
    scopes: Vec<String>,
    server: &ServerMetadata,
    wanted: bool,
) -> Vec<String> {
    if wanted && !scopes.is_empty() && server.lists_scope(OFFLINE_ACCESS) {
        union(&scopes, &[String::from(OFFLINE_ACCESS)])
    } else {
        scopes
    }
}

/// What goes into the authorization URL.
#[derive(Debug)]
pub struct AuthorizationRequest<'a> {
    /// The client id.
    pub client_id: &'a str,
    /// Where the browser is sent back.
    pub redirect_uri: &'a str,
    /// The scopes; the parameter is left out when empty.
    pub scopes: &'a [String],
    /// The resource indicator (RFC 8707).
    pub resource: &'a str,
    /// The `state` value.
    pub state: &'a str,
    /// The PKCE challenge.
    pub code_challenge: &'a str,
}

/// The URL to send the person to: the authorization endpoint with the
/// request's parameters added to any it already has.
pub fn authorization_url(endpoint: &Url, request: &AuthorizationRequest<'_>) -> Url {
    let mut url = endpoint.clone();
    {
        let mut query = url.query_pairs_mut();
        query
            .append_pair("response_type", "code")
            .append_pair("client_id", request.client_id)
            .append_pair("redirect_uri", request.redirect_uri)
            .append_pair("code_challenge", request.code_challenge)
            .append_pair("code_challenge_method", "S256")
            .append_pair("state", request.state)
            .append_pair("resource", request.resource);
        if !request.scopes.is_empty() {
            query.append_pair("scope", &request.scopes.join(" "));
        }
    }
    url
}

/// What the redirect must match, recorded before the person is sent off.
#[derive(Debug, Clone)]
pub struct Expected {
    /// The `state` sent.
    pub state: Secret,
    /// The issuer of the validated metadata, when there was metadata.
    pub issuer: Option<String>,
    /// Whether that metadata promised `iss` in responses.
    pub iss_required: bool,
}

/// The authorization code of a redirect, once it passes the checks: the
/// `state` must be the one sent; then `iss` (RFC 9207 §2.4, as the MCP
/// spec's table has it): compared by exact string when present, whatever
/// the metadata says, and required when the metadata promised it; only
/// then is an error in the redirect read, so that a response from another
/// server is never acted on or shown.
///
/// # Errors
///
/// [`AuthError::StateMismatch`], [`AuthError::IssMismatch`],
/// [`AuthError::IssMissing`], [`AuthError::Denied`], or
/// [`AuthError::Login`] when there is no code.
pub fn read_redirect(redirect: &Url, expected: &Expected) -> Result<Secret, AuthError> {
    let one = |name: &str| -> Result<Option<String>, AuthError> {
        let mut values = redirect.query_pairs().filter(|(k, _)| k == name);
        let first = values.next().map(|(_, v)| v.into_owned());
        if values.next().is_some() {
            // Two of a parameter: nothing says which counts.
            return Err(AuthError::StateMismatch);
        }
        Ok(first)
    };
    match one("state")? {
        Some(state) if Secret::new(state.as_str()) == expected.state => {}
        _ => return Err(AuthError::StateMismatch),
    }
    match (one("iss")?, &expected.issuer) {
        (Some(iss), Some(issuer)) if &iss == issuer => {}
        (Some(iss), issuer) => {
            return Err(AuthError::IssMismatch {
                expected: issuer.clone().unwrap_or_else(|| String::from("(none)")),
                found: neutral(&iss),
            })
        }
        (None, _) if expected.iss_required => return Err(AuthError::IssMissing),
        (None, _) => {}
    }
    if let Some(error) = one("error")? {
        return Err(AuthError::Denied {
            error: neutral(&error),
            description: one("error_description")?.map(|d| neutral(&d)),
        });
    }
    match one("code")? {
        Some(code) if !code.is_empty() => Ok(Secret::new(code)),
        _ => Err(AuthError::Login(String::from(
            "the authorization response has no code",
        ))),
    }
}

/// A token request: its form and, for Basic, the credentials of the
/// `Authorization` header. Every value is kept as a secret, so the
/// request never shows in `Debug`.
#[derive(Clone)]
pub struct TokenRequest {
    /// The form fields.
    pub form: Vec<(&'static str, Secret)>,
    /// The `Authorization: Basic` value, when the client uses Basic.
    pub basic: Option<Secret>,
}

impl std::fmt::Debug for TokenRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenRequest")
            .field(
                "fields",
                &self.form.iter().map(|(k, _)| *k).collect::<Vec<_>>(),
            )
            .field("basic", &self.basic.is_some())
            .finish()
    }
}

impl TokenRequest {
    fn new(grant_type: &str) -> Self {
        Self {
            form: vec![("grant_type", Secret::new(grant_type))],
            basic: None,
        }
    }

    fn field(mut self, name: &'static str, value: impl Into<Secret>) -> Self {
        self.form.push((name, value.into()));
        self
    }

    /// Adds `scope`, the scopes joined by spaces, when there are any.
    fn scopes(self, scopes: &[String]) -> Self {
        if scopes.is_empty() {
            self
        } else {
            self.field("scope", scopes.join(" "))
        }
    }

    /// The form, encoded as `application/x-www-form-urlencoded`.
    pub fn encoded(&self) -> Secret {
        let mut serializer = url::form_urlencoded::Serializer::new(String::new());
        for (name, value) in &self.form {
            serializer.append_pair(name, value.expose());
        }
        Secret::new(serializer.finish())
    }

    /// Adds the client's authentication; a `private_key_jwt` client
    /// without an assertion sends only its id, never a bare
    /// `client_assertion_type`.
    fn authenticated(mut self, client: &ClientIdentity) -> Self {
        match client.auth {
            ClientAuth::None => self.field("client_id", client.client_id.as_str()),
            ClientAuth::SecretPost => {
                self = self.field("client_id", client.client_id.as_str());
                match &client.secret {
                    Some(secret) => self.field("client_secret", secret.clone()),
                    None => self,
                }
            }
            ClientAuth::SecretBasic => {
                let encode = |s: &str| {
                    url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>()
                };
                let secret = client.secret.as_ref().map(Secret::expose).unwrap_or("");
                let pair = format!("{}:{}", encode(&client.client_id), encode(secret));
                self.basic = Some(Secret::new(format!("Basic {}", STANDARD.encode(pair))));
                self
            }
            ClientAuth::PrivateKeyJwt => {
                self = self.field("client_id", client.client_id.as_str());
                match &client.assertion {
                    Some(assertion) => self
                        .field(
                            "client_assertion_type",
                            "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
                        )
                        .field("client_assertion", assertion.clone()),
                    None => self,
                }
            }
        }
    }
}

/// Exchanges an authorization code (RFC 6749 §4.1.3, with the PKCE
/// verifier and the resource indicator).
pub fn code_request(
    code: Secret,
    verifier: &Secret,
    redirect_uri: &str,
    resource: &str,
    client: &ClientIdentity,
) -> TokenRequest {
    TokenRequest::new("authorization_code")
        .field("code", code)
        .field("redirect_uri", redirect_uri)
        .field("code_verifier", verifier.clone())
        .field("resource", resource)
        .authenticated(client)
}

/// Refreshes an access token (RFC 6749 §6), for the same resource.
pub fn refresh_request(refresh: &Secret, resource: &str, client: &ClientIdentity) -> TokenRequest {
    TokenRequest::new("refresh_token")
        .field("refresh_token", refresh.clone())
        .field("resource", resource)
        .authenticated(client)
}

/// Asks for a token in the client's own name (RFC 6749 §4.4).
pub fn client_credentials_request(
    scopes: &[String],
    resource: &str,
    client: &ClientIdentity,
) -> TokenRequest {
    TokenRequest::new("client_credentials")
        .field("resource", resource)
        .scopes(scopes)
        .authenticated(client)
}

/// The grant type of the JWT bearer grant (RFC 7523 §2.1).
pub const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/// The grant type of a token exchange (RFC 8693 §2.1).
pub const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
/// The token type of an OpenID Connect ID token (RFC 8693 §3).
pub const ID_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:id_token";
/// The token type of an Identity Assertion JWT Authorization Grant
/// (ID-JAG), which enterprise-managed authorization exchanges an ID
/// token for.
pub const ID_JAG_TYPE: &str = "urn:ietf:params:oauth:token-type:id-jag";

/// Presents a JWT as the grant (RFC 7523 §2.1): a workload's
/// platform-issued token, or the ID-JAG of enterprise-managed
/// authorization.
pub fn jwt_bearer_request(
    assertion: Secret,
    scopes: &[String],
    resource: &str,
    client: &ClientIdentity,
) -> TokenRequest {
    TokenRequest::new(JWT_BEARER)
        .field("assertion", assertion)
        .field("resource", resource)
        .scopes(scopes)
        .authenticated(client)
}

/// Exchanges a person's ID token at the identity provider for an ID-JAG
/// for the authorization server `audience` and the MCP server `resource`
/// (RFC 8693, as enterprise-managed authorization profiles it).
pub fn id_jag_request(
    id_token: Secret,
    audience: &str,
    resource: &str,
    scopes: &[String],
    client: &ClientIdentity,
) -> TokenRequest {
    TokenRequest::new(TOKEN_EXCHANGE)
        .field("requested_token_type", ID_JAG_TYPE)
        .field("audience", audience)
        .field("resource", resource)
        .field("subject_token", id_token)
        .field("subject_token_type", ID_TOKEN_TYPE)
        .scopes(scopes)
        .authenticated(client)
}

/// The tokens of a successful token response received at `now` (seconds
/// since the epoch). A response without a refresh token keeps `previous`
/// (RFC 6749 §6: the old one stays valid unless replaced). The scopes are
/// those granted, or those asked for when the response names none.
/// `dpop_key` is the key of the proof the request carried, if it carried
/// one: a `DPoP` token is bound to it, and a `Bearer` token may still
/// come back (RFC 9449 §5).
///
/// # Errors
///
/// [`AuthError::Token`] when the token is neither a Bearer token nor a
/// DPoP token the request asked for, or is empty.
pub fn accept_tokens(
    response: TokenResponse,
    issuer: &str,
    requested: &[String],
    previous: Option<Secret>,
    now: u64,
    dpop_key: Option<&Secret>,
) -> Result<Tokens, AuthError> {
    let dpop_key = if response.token_type.eq_ignore_ascii_case("dpop") && dpop_key.is_some() {
        dpop_key.cloned()
    } else if response.token_type.eq_ignore_ascii_case("bearer") {
        None
    } else {
        return Err(AuthError::Token {
            status: 200,
            error: String::from("unsupported_token_type"),
            description: Some(format!(
                "token type `{}` is not Bearer{}",
                neutral(&response.token_type),
                if dpop_key.is_some() { " or DPoP" } else { "" }
            )),
        });
    };
    if response.access_token.is_empty() {
        return Err(AuthError::Token {
            status: 200,
            error: String::from("invalid_response"),
            description: Some(String::from("the access token is empty")),
        });
    }
    Ok(Tokens {
        issuer: issuer.to_owned(),
        access_token: response.access_token,
        refresh_token: response.refresh_token.or(previous),
        expires_at: response.expires_in.map(|s| now.saturating_add(s)),
        issued_at: Some(now),
        requested: requested.to_vec(),
        granted: response
            .scope
            .map(|s| super::challenge::split_scopes(&s))
            .unwrap_or_else(|| requested.to_vec()),
        dpop_key,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn scope_strategy() {
        // The challenge wins over scopes_supported.
        assert_eq!(
            initial_scopes(&s(&["mcp:basic"]), Some(&s(&["mcp:profile"])), &[], &[]),
            s(&["mcp:basic"])
        );
        // Then scopes_supported, all of it.
        assert_eq!(
            initial_scopes(&[], Some(&s(&["a", "b", "c"])), &[], &[]),
            s(&["a", "b", "c"])
        );
        // Then nothing.
        assert!(initial_scopes(&[], None, &[], &[]).is_empty());
        // Earlier and configured scopes are kept; offline_access from the
        // resource is dropped.
        assert_eq!(
            initial_scopes(&s(&["w"]), None, &s(&["c"]), &s(&["r"])),
            s(&["r", "c", "w"])
        );
        assert_eq!(
            initial_scopes(&[], Some(&s(&["a", OFFLINE_ACCESS])), &[], &[]),
            s(&["a"])
        );
    }

    #[test]
    fn offline_access_only_when_listed() {
        let listed = ServerMetadata {
            scopes_supported: Some(s(&["mcp:basic", OFFLINE_ACCESS])),
            ..ServerMetadata::default()
        };
        let unlisted = ServerMetadata {
            scopes_supported: Some(s(&["mcp:basic"])),
            ..ServerMetadata::default()
        };
        assert_eq!(
            with_offline_access(s(&["mcp:basic"]), &listed, true),
            s(&["mcp:basic", OFFLINE_ACCESS])
        );
        assert_eq!(
            with_offline_access(s(&["mcp:basic"]), &unlisted, true),
            s(&["mcp:basic"])
        );
        assert_eq!(
            with_offline_access(s(&["mcp:basic"]), &listed, false),
            s(&["mcp:basic"])
        );
        assert!(with_offline_access(Vec::new(), &listed, true).is_empty());
    }

    #[test]
    fn auth_method_choice() {
        assert_eq!(
            ClientAuth::for_secret(true, &s(&["client_secret_post"])),
            ClientAuth::SecretPost
        );
        assert_eq!(
            ClientAuth::for_secret(true, &s(&["client_secret_post", "client_secret_basic"])),
            ClientAuth::SecretBasic
        );
        assert_eq!(
            ClientAuth::for_secret(false, &s(&["client_secret_basic"])),
            ClientAuth::None
        );
        assert_eq!(
            ClientAuth::to_register(&s(&["none", "client_secret_basic"])),
            ClientAuth::None
        );
        assert_eq!(
            ClientAuth::to_register(&s(&["client_secret_post"])),
            ClientAuth::SecretPost
        );
        for m in [
            "none",
            "client_secret_basic",
            "client_secret_post",
            "private_key_jwt",
        ] {
            assert_eq!(ClientAuth::from_name(m).map(ClientAuth::name), Some(m));
        }
        assert_eq!(ClientAuth::from_name("tls_client_auth"), None);
    }

    #[test]
    fn the_authorization_url() {
        let endpoint = Url::parse("https://as.example/authorize?tenant=1").expect("url");
        let scopes = s(&["a", "b"]);
        let url = authorization_url(
            &endpoint,
            &AuthorizationRequest {
                client_id: "cid",
                redirect_uri: "http://127.0.0.1:9/callback",
                scopes: &scopes,
                resource: "https://mcp.example/mcp",
                state: "st",
                code_challenge: "ch",
            },
        );
        let pairs: Vec<(String, String)> = url.query_pairs().into_owned().collect();
        let get = |k: &str| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        assert_eq!(get("tenant"), Some("1"));
        assert_eq!(get("response_type"), Some("code"));
        assert_eq!(get("code_challenge_method"), Some("S256"));
        assert_eq!(get("resource"), Some("https://mcp.example/mcp"));
        assert_eq!(get("scope"), Some("a b"));
        let none = authorization_url(
            &endpoint,
            &AuthorizationRequest {
                scopes: &[],
                client_id: "c",
                redirect_uri: "r",
                resource: "x",
                state: "s",
                code_challenge: "c",
            },
        );
        assert!(!none.query_pairs().any(|(k, _)| k == "scope"));
    }

    fn expected(issuer: Option<&str>, required: bool) -> Expected {
        Expected {
            state: Secret::new("st"),
            issuer: issuer.map(str::to_owned),
            iss_required: required,
        }
    }

    fn redirect(query: &str) -> Url {
        Url::parse(&format!("http://127.0.0.1:9/callback?{query}")).expect("url")
    }

    #[test]
    fn the_iss_table() {
        let issuer = Some("http://as.example");
        // Advertised and present: compared.
        assert!(read_redirect(
            &redirect("code=c&state=st&iss=http%3A%2F%2Fas.example"),
            &expected(issuer, true)
        )
        .is_ok());
        // Advertised and absent: rejected.
        assert_eq!(
            read_redirect(&redirect("code=c&state=st"), &expected(issuer, true)),
            Err(AuthError::IssMissing)
        );
        // Not advertised and present: still compared.
        assert!(matches!(
            read_redirect(
                &redirect("code=c&state=st&iss=https%3A%2F%2Fevil.example.com"),
                &expected(issuer, false)
            ),
            Err(AuthError::IssMismatch { .. })
        ));
        // Not advertised and absent: proceed.
        assert!(read_redirect(&redirect("code=c&state=st"), &expected(issuer, false)).is_ok());
        // No normalization: a trailing slash is another issuer.
        assert!(matches!(
            read_redirect(
                &redirect("code=c&state=st&iss=http%3A%2F%2Fas.example%2F"),
                &expected(issuer, true)
            ),
            Err(AuthError::IssMismatch { .. })
        ));
        assert!(matches!(
            read_redirect(
                &redirect("code=c&state=st&iss=HTTP%3A%2F%2Fas.example"),
                &expected(issuer, true)
            ),
            Err(AuthError::IssMismatch { .. })
        ));
    }

    #[test]
    fn state_and_errors() {
        let e = expected(Some("i"), false);
        assert_eq!(
            read_redirect(&redirect("code=c&state=other"), &e),
            Err(AuthError::StateMismatch)
        );
        assert_eq!(
            read_redirect(&redirect("code=c"), &e),
            Err(AuthError::StateMismatch)
        );
        assert_eq!(
            read_redirect(&redirect("code=c&state=st&state=st"), &e),
            Err(AuthError::StateMismatch)
        );
        assert_eq!(
            read_redirect(
                &redirect("state=st&error=access_denied&error_description=no%1b[31m"),
                &e
            ),
            Err(AuthError::Denied {
                error: "access_denied".into(),
                description: Some("no\\u{1b}[31m".into())
            })
        );
        // An error from another issuer is not acted on.
        assert!(matches!(
            read_redirect(&redirect("state=st&iss=x&error=access_denied"), &e),
            Err(AuthError::IssMismatch { .. })
        ));
        assert!(matches!(
            read_redirect(&redirect("state=st"), &e),
            Err(AuthError::Login(_))
        ));
        let code = read_redirect(&redirect("state=st&code=abc"), &e).expect("code");
        assert_eq!(code.expose(), "abc");
    }

    fn client(auth: ClientAuth) -> ClientIdentity {
        ClientIdentity {
            client_id: "id:1".into(),
            secret: Some(Secret::new("s&cret")),
            auth,
            assertion: None,
        }
    }

    fn fields(request: &TokenRequest) -> Vec<(&'static str, String)> {
        request
            .form
            .iter()
            .map(|(k, v)| (*k, v.expose().to_owned()))
            .collect()
    }

    #[test]
    fn token_requests() {
        let verifier = Secret::new("v");
        let basic = code_request(
            Secret::new("c"),
            &verifier,
            "r",
            "res",
            &client(ClientAuth::SecretBasic),
        );
        assert!(!fields(&basic)
            .iter()
            .any(|(k, _)| *k == "client_secret" || *k == "client_id"));
        // Both halves are form-encoded before base64 (RFC 6749 §2.3.1).
        assert_eq!(
            basic.basic.as_ref().map(Secret::expose),
            Some(format!("Basic {}", STANDARD.encode("id%3A1:s%26cret")).as_str())
        );
        let post = refresh_request(&Secret::new("rt"), "res", &client(ClientAuth::SecretPost));
        assert!(fields(&post).contains(&("client_secret", "s&cret".into())));
        assert!(fields(&post).contains(&("resource", "res".into())));
        assert!(post.basic.is_none());
        let none = code_request(
            Secret::new("c"),
            &verifier,
            "r",
            "res",
            &client(ClientAuth::None),
        );
        assert!(fields(&none).contains(&("client_id", "id:1".into())));
        assert!(!fields(&none).iter().any(|(k, _)| *k == "client_secret"));
        assert!(fields(&none).contains(&("code_verifier", "v".into())));
        let mut signed = client(ClientAuth::PrivateKeyJwt);
        signed.assertion = Some(Secret::new("jwt"));
        let jwt = client_credentials_request(&s(&["a", "b"]), "res", &signed);
        assert!(fields(&jwt).contains(&("client_assertion", "jwt".into())));
        // The assertion goes with every grant, not only client credentials.
        let code = code_request(Secret::new("c"), &verifier, "r", "res", &signed);
        let refresh = refresh_request(&Secret::new("rt"), "res", &signed);
        for request in [&code, &refresh] {
            let fields = fields(request);
            assert!(
                fields.contains(&("client_assertion", "jwt".into())),
                "{fields:?}"
            );
            assert!(fields.contains(&(
                "client_assertion_type",
                "urn:ietf:params:oauth:client-assertion-type:jwt-bearer".into()
            )));
        }
        // Never a bare assertion type.
        let unsigned = refresh_request(
            &Secret::new("rt"),
            "res",
            &client(ClientAuth::PrivateKeyJwt),
        );
        assert!(!fields(&unsigned)
            .iter()
            .any(|(k, _)| k.starts_with("client_assertion")));
        assert!(fields(&jwt).contains(&("scope", "a b".into())));
        let debug = format!("{jwt:?}");
        assert!(
            !debug.contains("jwt\"") && !debug.contains("s&cret"),
            "{debug}"
        );
        assert!(basic.encoded().expose().contains("code_verifier=v"));
    }

    fn response(kind: &str, refresh: Option<&str>, scope: Option<&str>) -> TokenResponse {
        TokenResponse {
            access_token: Secret::new("at"),
            token_type: kind.into(),
            expires_in: Some(60),
            refresh_token: refresh.map(Secret::new),
            scope: scope.map(str::to_owned),
        }
    }

    #[test]
    fn token_responses() {
        let kept = accept_tokens(
            response("bearer", None, None),
            "i",
            &s(&["a"]),
            Some(Secret::new("old")),
            100,
            None,
        )
        .expect("ok");
        assert_eq!(kept.refresh_token.as_ref().map(Secret::expose), Some("old"));
        assert_eq!(kept.expires_at, Some(160));
        assert_eq!(kept.granted, s(&["a"]));
        let replaced = accept_tokens(
            response("Bearer", Some("new"), Some("a b")),
            "i",
            &s(&["a"]),
            Some(Secret::new("old")),
            0,
            None,
        )
        .expect("ok");
        assert_eq!(
            replaced.refresh_token.as_ref().map(Secret::expose),
            Some("new")
        );
        assert_eq!(replaced.granted, s(&["a", "b"]));
        // A DPoP token is taken only when the request carried a proof.
        assert!(matches!(
            accept_tokens(response("DPoP", None, None), "i", &[], None, 0, None),
            Err(AuthError::Token { .. })
        ));
        let key = Secret::new("pkcs8");
        let bound = accept_tokens(response("DPoP", None, None), "i", &[], None, 0, Some(&key))
            .expect("bound");
        assert_eq!(bound.dpop_key.as_ref().map(Secret::expose), Some("pkcs8"));
        // An authorization server may answer a proof with a Bearer token.
        let plain = accept_tokens(
            response("Bearer", None, None),
            "i",
            &[],
            None,
            0,
            Some(&key),
        )
        .expect("bearer");
        assert!(plain.dpop_key.is_none());
        assert!(accept_tokens(response("MAC", None, None), "i", &[], None, 0, Some(&key)).is_err());
    }

    #[test]
    fn jwt_bearer_and_token_exchange_requests() {
        let client = ClientIdentity {
            client_id: String::from("c"),
            secret: None,
            auth: ClientAuth::None,
            assertion: None,
        };
        let grant = jwt_bearer_request(Secret::new("w.j.t"), &s(&["x"]), "https://r/mcp", &client);
        let f = fields(&grant);
        assert!(f.contains(&("grant_type", JWT_BEARER.into())));
        assert!(f.contains(&("assertion", "w.j.t".into())));
        assert!(f.contains(&("resource", "https://r/mcp".into())));
        assert!(f.contains(&("scope", "x".into())));
        assert!(f.contains(&("client_id", "c".into())));
        assert!(!format!("{grant:?}").contains("w.j.t"));
        let exchange = id_jag_request(
            Secret::new("i.d.t"),
            "https://as",
            "https://r/mcp",
            &[],
            &client,
        );
        let f = fields(&exchange);
        assert!(f.contains(&("grant_type", TOKEN_EXCHANGE.into())));
        assert!(f.contains(&("requested_token_type", ID_JAG_TYPE.into())));
        assert!(f.contains(&("subject_token_type", ID_TOKEN_TYPE.into())));
        assert!(f.contains(&("subject_token", "i.d.t".into())));
        assert!(f.contains(&("audience", "https://as".into())));
        assert!(!f.iter().any(|(k, _)| *k == "scope"));
    }
}
