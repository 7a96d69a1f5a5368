//! The OAuth harness (`mcp_tests::oauth`) against itself: a real
//! `oidc-provider` started by the test, spoken to in plain HTTP with no code
//! of this workspace in between, as an MCP host would: discovery, dynamic
//! registration of a native public client, authorization with PKCE S256 and
//! a resource indicator, the code exchange, refresh, and client credentials;
//! and each token is a JWT for the resource asked for, and no other.
//!
//! The first start installs the pinned packages with `npm ci` in
//! `tests/oauth` when they are missing, so it needs npm and the registry
//! once; every start kills its server when the test ends.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use mcp_tests::oauth::{self, AuthServer, Settings, SigningAlg};
use reqwest::{Client, StatusCode, Url};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// The MCP server the tokens are for; nothing listens there.
const RESOURCE: &str = "http://127.0.0.1:9/mcp";

/// Some other protected resource.
const OTHER_RESOURCE: &str = "http://127.0.0.1:9/other";

/// The redirect URI registered: loopback, so any port will do (RFC 8252).
const REGISTERED_REDIRECT: &str = "http://127.0.0.1:1/callback";

/// The redirect URI used, on another port.
const REDIRECT: &str = "http://127.0.0.1:53682/callback";

fn start(settings: &Settings) -> AuthServer {
    AuthServer::start_with(settings).unwrap_or_else(|e| panic!("{e}"))
}

fn http() -> Client {
    Client::builder()
        .no_proxy()
        .build()
        .expect("an HTTP client")
}

/// 43 characters of base64url from 32 random bytes, as PKCE wants.
fn random_token() -> String {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).expect("randomness");
    URL_SAFE_NO_PAD.encode(bytes)
}

async fn json(response: reqwest::Response) -> (StatusCode, Value) {
    let status = response.status();
    let text = response.text().await.expect("a body");
    let value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{status} {e}: {text}"));
    (status, value)
}

async fn get(http: &Client, url: &str) -> Value {
    let (status, body) = json(http.get(url).send().await.expect("GET")).await;
    assert_eq!(status, StatusCode::OK, "GET {url}: {body}");
    body
}

async fn discover(http: &Client, server: &AuthServer) -> Value {
    let url = format!("{}/.well-known/openid-configuration", server.issuer());
    get(http, &url).await
}

/// POSTs a token request and returns the successful answer.
async fn token(
    http: &Client,
    endpoint: &str,
    form: &[(&str, &str)],
    basic: Option<(&str, &str)>,
) -> Value {
    let mut request = http.post(endpoint).form(form);
    if let Some((id, secret)) = basic {
        request = request.basic_auth(id, Some(secret));
    }
    let (status, body) = json(request.send().await.expect("POST token")).await;
    assert_eq!(status, StatusCode::OK, "token request {form:?}: {body}");
    assert_eq!(body["token_type"], "Bearer", "{body}");
    body
}

/// The header and payload of a compact JWS, unverified.
fn jwt(token: &str) -> (Value, Value) {
    let parts: Vec<&str> = token.split('.').collect();
    assert_eq!(parts.len(), 3, "a JWT has three parts: {token}");
    let decode = |part: &str| -> Value {
        let bytes = URL_SAFE_NO_PAD.decode(part).expect("base64url");
        serde_json::from_slice(&bytes).expect("JSON")
    };
    (decode(parts[0]), decode(parts[1]))
}

/// Checks what a resource server would check of an access token, short of
/// the signature: a JWT access token (RFC 9068) signed with a published
/// asymmetric key, from `issuer`, for `resource`, with `scopes`.
fn check_access_token(
    token: &str,
    jwks: &Value,
    issuer: &str,
    resource: &str,
    scopes: &[&str],
) -> Value {
    let (header, payload) = jwt(token);
    let alg = header["alg"].as_str().unwrap_or_default();
    assert!(
        ["ES256", "RS256"].contains(&alg),
        "asymmetric alg: {header}"
    );
    assert_eq!(header["typ"], "at+jwt", "{header}");
    let published = jwks["keys"]
        .as_array()
        .expect("keys")
        .iter()
        .any(|key| key["kid"] == header["kid"] && key["alg"] == alg && key.get("d").is_none());
    assert!(published, "kid {} in the JWKS {jwks}", header["kid"]);
    assert_eq!(payload["iss"], issuer, "{payload}");
    assert_eq!(payload["aud"], resource, "{payload}");
    let granted: Vec<&str> = payload["scope"]
        .as_str()
        .unwrap_or_default()
        .split(' ')
        .collect();
    for scope in scopes {
        assert!(granted.contains(scope), "scope {scope} in {payload}");
    }
    assert!(
        payload["exp"].as_u64() > payload["iat"].as_u64(),
        "{payload}"
    );
    payload
}

/// Registers a native public client for the code flow with refresh, as an
/// MCP host does, and returns its id.
async fn register(http: &Client, discovery: &Value) -> String {
    let endpoint = discovery["registration_endpoint"]
        .as_str()
        .expect("registration_endpoint");
    let metadata = serde_json::json!({
        "client_name": "mcp-tests",
        "application_type": "native",
        "redirect_uris": [REGISTERED_REDIRECT],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    });
    let response = http
        .post(endpoint)
        .header("content-type", "application/json")
        .body(metadata.to_string())
        .send()
        .await
        .expect("POST registration");
    let (status, client) = json(response).await;
    assert_eq!(status, StatusCode::CREATED, "{client}");
    assert!(
        client.get("client_secret").is_none(),
        "a public client: {client}"
    );
    client["client_id"].as_str().expect("client_id").to_owned()
}

/// The authorization URL of a code request with PKCE S256 and a resource.
fn authorization_url(
    discovery: &Value,
    client_id: &str,
    state: &str,
    verifier: &str,
    pkce: bool,
) -> String {
    let endpoint = discovery["authorization_endpoint"]
        .as_str()
        .expect("authorization_endpoint");
    let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()).as_slice());
    let mut params = vec![
        ("response_type", "code"),
        ("client_id", client_id),
        ("redirect_uri", REDIRECT),
        ("scope", "notes:read notes:write offline_access"),
        ("state", state),
        ("resource", RESOURCE),
    ];
    if pkce {
        params.extend([
            ("code_challenge", challenge.as_str()),
            ("code_challenge_method", "S256"),
        ]);
    }
    Url::parse_with_params(endpoint, &params)
        .expect("a URL")
        .into()
}

fn query(url: &str, key: &str) -> Option<String> {
    let url = Url::parse(url).expect("a URL");
    url.query_pairs()
        .find(|(name, _)| name == key)
        .map(|(_, value)| value.into_owned())
}

/// A code issued to a freshly registered client, and what redeems it.
struct Code {
    client_id: String,
    code: String,
    verifier: String,
}

/// Registers a client and signs in as `alice` to authorize it for
/// [`RESOURCE`], checking the callback as a host would.
async fn authorize(http: &Client, server: &AuthServer, discovery: &Value) -> Code {
    let client_id = register(http, discovery).await;
    let (state, verifier) = (random_token(), random_token());
    let url = authorization_url(discovery, &client_id, &state, &verifier, true);
    let callback = oauth::drive_login(&url, "alice")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(callback.starts_with(REDIRECT), "{callback}");
    assert_eq!(query(&callback, "error"), None, "{callback}");
    assert_eq!(query(&callback, "state").as_deref(), Some(state.as_str()));
    assert_eq!(query(&callback, "iss").as_deref(), Some(server.issuer()));
    let code = query(&callback, "code").expect("a code");
    Code {
        client_id,
        code,
        verifier,
    }
}

/// The form of a code exchange, with `resource` when given.
fn exchange<'a>(code: &'a Code, resource: Option<&'a str>) -> Vec<(&'a str, &'a str)> {
    let mut form = vec![
        ("grant_type", "authorization_code"),
        ("code", &code.code),
        ("redirect_uri", REDIRECT),
        ("client_id", &code.client_id),
        ("code_verifier", &code.verifier),
    ];
    form.extend(resource.map(|resource| ("resource", resource)));
    form
}

#[tokio::test]
async fn code_flow_with_pkce_gives_audience_bound_jwts_that_refresh() {
    let server = start(&Settings::default());
    let http = http();
    let discovery = discover(&http, &server).await;
    assert_eq!(discovery["issuer"], server.issuer());
    assert_eq!(
        discovery["authorization_response_iss_parameter_supported"],
        true
    );
    assert_eq!(
        discovery["code_challenge_methods_supported"],
        serde_json::json!(["S256"])
    );
    let jwks = get(&http, discovery["jwks_uri"].as_str().expect("jwks_uri")).await;
    let token_endpoint = discovery["token_endpoint"]
        .as_str()
        .expect("token_endpoint");

    let code = authorize(&http, &server, &discovery).await;
    let tokens = token(
        &http,
        token_endpoint,
        &exchange(&code, Some(RESOURCE)),
        None,
    )
    .await;
    assert_eq!(tokens["expires_in"], 300, "{tokens}");
    let access = tokens["access_token"].as_str().expect("access_token");
    let scopes = ["notes:read", "notes:write"];
    let payload = check_access_token(access, &jwks, server.issuer(), RESOURCE, &scopes);
    assert_eq!(payload["sub"], "alice");
    assert_eq!(payload["client_id"], code.client_id.as_str());

    let refresh = tokens["refresh_token"].as_str().expect("a refresh token");
    let refreshed = token(
        &http,
        token_endpoint,
        &[
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh),
            ("client_id", &code.client_id),
            ("resource", RESOURCE),
        ],
        None,
    )
    .await;
    let again = refreshed["access_token"].as_str().expect("access_token");
    assert_ne!(again, access);
    check_access_token(again, &jwks, server.issuer(), RESOURCE, &scopes);
}

#[tokio::test]
async fn token_requests_get_the_granted_resource_and_no_other() {
    let server = start(&Settings::default());
    let http = http();
    let discovery = discover(&http, &server).await;
    let jwks = get(&http, discovery["jwks_uri"].as_str().expect("jwks_uri")).await;
    let token_endpoint = discovery["token_endpoint"]
        .as_str()
        .expect("token_endpoint");

    let code = authorize(&http, &server, &discovery).await;
    let response = http
        .post(token_endpoint)
        .form(&exchange(&code, Some(OTHER_RESOURCE)))
        .send()
        .await
        .expect("POST token");
    let (status, body) = json(response).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["error"], "invalid_target", "{body}");

    // The refused exchange used the code up; without `resource` a new one
    // gets a token for the resource the user granted.
    let code = authorize(&http, &server, &discovery).await;
    let tokens = token(&http, token_endpoint, &exchange(&code, None), None).await;
    let access = tokens["access_token"].as_str().expect("access_token");
    check_access_token(access, &jwks, server.issuer(), RESOURCE, &["notes:read"]);
}

#[tokio::test]
async fn client_credentials_get_a_token_for_another_audience() {
    let settings = Settings {
        access_token_ttl: std::time::Duration::from_secs(7),
        signing_alg: SigningAlg::Rs256,
    };
    let server = start(&settings);
    let http = http();
    let discovery = discover(&http, &server).await;
    let jwks = get(&http, discovery["jwks_uri"].as_str().expect("jwks_uri")).await;
    let tokens = token(
        &http,
        discovery["token_endpoint"]
            .as_str()
            .expect("token_endpoint"),
        &[
            ("grant_type", "client_credentials"),
            ("scope", "notes:read"),
            ("resource", OTHER_RESOURCE),
        ],
        Some((
            server.confidential_client_id(),
            server.confidential_client_secret(),
        )),
    )
    .await;
    assert_eq!(tokens["expires_in"], 7, "{tokens}");
    assert!(tokens.get("refresh_token").is_none(), "{tokens}");
    let access = tokens["access_token"].as_str().expect("access_token");
    let payload = check_access_token(
        access,
        &jwks,
        server.issuer(),
        OTHER_RESOURCE,
        &["notes:read"],
    );
    assert_eq!(payload["sub"], server.confidential_client_id());
    assert_eq!(jwt(access).0["alg"], "RS256");
}

#[tokio::test]
async fn authorization_without_pkce_comes_back_as_an_error() {
    let server = start(&Settings::default());
    let http = http();
    let discovery = discover(&http, &server).await;
    let client_id = register(&http, &discovery).await;
    let url = authorization_url(&discovery, &client_id, "s", &random_token(), false);
    let callback = oauth::drive_login(&url, "alice")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        query(&callback, "error").as_deref(),
        Some("invalid_request"),
        "{callback}"
    );
    assert_eq!(query(&callback, "code"), None, "{callback}");
    assert_eq!(query(&callback, "iss").as_deref(), Some(server.issuer()));
}

#[test]
fn dropping_the_server_kills_and_reaps_it() {
    let server = start(&Settings::default());
    let process = std::path::PathBuf::from(format!("/proc/{}", server.pid()));
    assert!(process.exists(), "{} runs", process.display());
    drop(server);
    assert!(!process.exists(), "{} is gone", process.display());
}
