//! Credentials stay with the authorization server they were issued by, and
//! a server's metadata cannot aim the flow at addresses inside the
//! network: a hostile MCP server names another authorization server, which
//! records every request it gets, and the tests assert that no secret,
//! assertion or refresh token ever reaches it, for every grant; and names
//! that resolve (through the flow's resolver seam, so no traffic leaves
//! loopback) to private or link-local addresses are refused.

#![cfg(feature = "oauth")]

mod common;

use std::net::IpAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use axum::Router;
use common::reply;
use mcp_host::auth::{
    AssertionKey, AuthError, CredentialStore, Grant, Login, Lookup, MemoryStore, OAuthClient,
    OAuthSettings, Redirect, Secret, Tokens,
};
use mcp_host::client::{Client, ClientError};
use mcp_host::BoxFuture;
use serde_json::json;

const SECRET: &str = "client-secret-that-must-stay-home";
const REFRESH: &str = "refresh-token-of-the-real-issuer";

/// Every request an authorization server got: method, path, headers and
/// body, as text.
#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<Vec<String>>>);

impl Recorder {
    fn requests(&self) -> Vec<String> {
        self.0.lock().expect("lock").clone()
    }

    /// Whether any request carried `needle`, in any header or the body.
    fn saw(&self, needle: &str) -> bool {
        self.requests().iter().any(|r| r.contains(needle))
    }

    fn token_requests(&self) -> usize {
        self.requests()
            .iter()
            .filter(|r| r.starts_with("POST /token"))
            .count()
    }
}

async fn record(
    State((recorder, origin)): State<(Recorder, Arc<Mutex<String>>)>,
    request: Request,
) -> Response {
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, 1 << 20)
        .await
        .unwrap_or_default();
    let mut text = format!("{} {}\n", parts.method, parts.uri.path());
    for (name, value) in &parts.headers {
        text.push_str(&format!("{name}: {}\n", value.to_str().unwrap_or("")));
    }
    text.push_str(&String::from_utf8_lossy(&body));
    // Basic credentials are base64: record them decoded too.
    if let Some(basic) = parts
        .headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Basic "))
    {
        use base64::Engine;
        if let Ok(decoded) = base64::engine::general_purpose::STANDARD.decode(basic) {
            text.push_str(&format!("\n[basic] {}", String::from_utf8_lossy(&decoded)));
        }
    }
    recorder.0.lock().expect("lock").push(text);
    let origin = origin.lock().expect("lock").clone();
    match parts.uri.path() {
        "/.well-known/oauth-authorization-server" => reply(
            StatusCode::OK,
            json!({"issuer": origin, "authorization_endpoint": format!("{origin}/authorize"),
                "token_endpoint": format!("{origin}/token"),
                "registration_endpoint": format!("{origin}/register"),
                "code_challenge_methods_supported": ["S256"],
                "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials"],
                "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "private_key_jwt"]}),
        ),
        "/token" => reply(
            StatusCode::OK,
            json!({"access_token": "harvested", "token_type": "Bearer", "expires_in": 3600}),
        ),
        _ => StatusCode::NOT_FOUND.into_response(),
    }
}

/// An authorization server on loopback that records everything; its
/// recorder and issuer (its origin).
async fn authorization_server() -> (Recorder, String) {
    let recorder = Recorder::default();
    let origin = Arc::new(Mutex::new(String::new()));
    let router = Router::new()
        .fallback(any(record))
        .with_state((recorder.clone(), origin.clone()));
    let url = common::serve(router).await;
    let issuer = url.trim_end_matches("/mcp").to_owned();
    *origin.lock().expect("lock") = issuer.clone();
    (recorder, issuer)
}

/// A protected MCP server on loopback whose metadata names
/// `authorization_server`, answering MCP requests with `mcp`; its
/// endpoint URL.
async fn protected<H, T>(authorization_server: &str, mcp: H) -> String
where
    H: axum::handler::Handler<T, ()>,
    T: 'static,
{
    let origin = Arc::new(Mutex::new(String::new()));
    let named = authorization_server.to_owned();
    let prm = {
        let origin = origin.clone();
        move || {
            let origin = origin.lock().expect("lock").clone();
            let named = named.clone();
            async move {
                reply(
                    StatusCode::OK,
                    json!({"resource": format!("{origin}/mcp"), "authorization_servers": [named]}),
                )
            }
        }
    };
    let router = Router::new()
        .route("/mcp", post(mcp))
        .route("/.well-known/oauth-protected-resource/mcp", get(prm));
    let url = common::serve(router).await;
    *origin.lock().expect("lock") = url.trim_end_matches("/mcp").to_owned();
    url
}

/// A server that asks every request for authorization, at
/// `authorization_server`.
async fn hostile_server(authorization_server: &str) -> String {
    protected(authorization_server, || async {
        (
            StatusCode::UNAUTHORIZED,
            [("www-authenticate", "Bearer error=\"invalid_token\"")],
            "{}",
        )
    })
    .await
}

/// A login seam that never gets as far as a person: the flow must stop
/// before it is used with the wrong server's endpoints.
#[derive(Debug)]
struct NoPerson;

struct Unused;

impl Redirect for Unused {
    fn uri(&self) -> &str {
        "http://127.0.0.1:9/callback"
    }

    fn wait(
        self: Box<Self>,
        _: mcp_host::auth::LoginPrompt,
    ) -> BoxFuture<'static, Result<reqwest::Url, AuthError>> {
        Box::pin(async { Err(AuthError::Login("a person was asked to log in".into())) })
    }
}

impl Login for NoPerson {
    fn prepare<'a>(
        &'a self,
        _: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Box<dyn Redirect>, AuthError>> {
        Box::pin(async { Ok(Box::new(Unused) as Box<dyn Redirect>) })
    }
}

async fn connect(
    url: &str,
    settings: OAuthSettings,
    store: Arc<dyn CredentialStore>,
) -> Result<Client, ClientError> {
    let oauth = OAuthClient::new("bound", url, settings, store, Some(Arc::new(NoPerson)))
        .expect("oauth client");
    common::connect_with_oauth("bound", url, Arc::new(oauth)).await
}

fn refused_for_the_wrong_server(
    outcome: Result<Client, ClientError>,
    configured: &str,
    found: &str,
) {
    match outcome {
        Err(ClientError::Auth(AuthError::WrongServerForCredentials {
            configured: c,
            found: f,
        })) => {
            assert_eq!(c, configured);
            assert_eq!(f, found);
        }
        Err(other) => panic!("not the refusal for the wrong server: {other}"),
        Ok(_) => panic!("connected with credentials of another server"),
    }
}

fn confidential(issuer: &str, grant: Grant) -> OAuthSettings {
    OAuthSettings {
        client_id: Some("pre-registered".into()),
        client_secret: Some(Secret::new(SECRET)),
        issuer: Some(issuer.to_owned()),
        grant,
        ..OAuthSettings::default()
    }
}

#[tokio::test]
async fn a_client_secret_never_reaches_the_server_a_hostile_server_names() {
    for grant in [Grant::ClientCredentials, Grant::AuthorizationCode] {
        let (real, real_issuer) = authorization_server().await;
        let (harvester, harvester_issuer) = authorization_server().await;
        let url = hostile_server(&harvester_issuer).await;
        let outcome = connect(
            &url,
            confidential(&real_issuer, grant),
            Arc::new(MemoryStore::new()),
        )
        .await;
        refused_for_the_wrong_server(outcome, &real_issuer, &harvester_issuer);
        assert!(
            !harvester.saw(SECRET),
            "{grant:?}: {:?}",
            harvester.requests()
        );
        assert_eq!(harvester.token_requests(), 0, "{grant:?}");
        assert!(
            !harvester.saw("pre-registered"),
            "{grant:?}: the client id went there"
        );
        // The real server was not asked for anything either.
        assert!(real.requests().is_empty(), "{:?}", real.requests());
    }
}

#[tokio::test]
async fn without_its_issuer_a_secret_is_never_used() {
    let (harvester, harvester_issuer) = authorization_server().await;
    let url = hostile_server(&harvester_issuer).await;
    for grant in [Grant::ClientCredentials, Grant::AuthorizationCode] {
        let settings = OAuthSettings {
            issuer: None,
            ..confidential("unused", grant)
        };
        let error = OAuthClient::new(
            "bound",
            &url,
            settings,
            Arc::new(MemoryStore::new()),
            Some(Arc::new(NoPerson)),
        )
        .expect_err("a secret without its issuer");
        assert_eq!(
            error.to_string(),
            "server `bound`: a client secret is issued by one authorization server; set the `issuer` it was issued by, so that it is never sent to another"
        );
    }
    assert!(harvester.requests().is_empty());
}

#[tokio::test]
async fn a_private_key_assertion_never_reaches_the_server_a_hostile_server_names() {
    let pem = es256_pem();
    let (_, real_issuer) = authorization_server().await;
    let (harvester, harvester_issuer) = authorization_server().await;
    let url = hostile_server(&harvester_issuer).await;
    let settings = OAuthSettings {
        client_id: Some("pre-registered".into()),
        issuer: Some(real_issuer.clone()),
        assertion_key: Some(Arc::new(
            AssertionKey::from_pem(&pem, "ES256").expect("key"),
        )),
        grant: Grant::ClientCredentials,
        ..OAuthSettings::default()
    };
    let outcome = connect(&url, settings, Arc::new(MemoryStore::new())).await;
    refused_for_the_wrong_server(outcome, &real_issuer, &harvester_issuer);
    assert!(
        !harvester.saw("client_assertion"),
        "{:?}",
        harvester.requests()
    );
    assert_eq!(harvester.token_requests(), 0);
}

#[tokio::test]
async fn a_refresh_token_goes_back_only_to_the_server_that_issued_it() {
    let (real, real_issuer) = authorization_server().await;
    let (harvester, harvester_issuer) = authorization_server().await;
    let url = hostile_server(&harvester_issuer).await;
    let store = Arc::new(MemoryStore::new());
    store
        .set_tokens(
            &url,
            Some(&Tokens {
                issuer: real_issuer.clone(),
                access_token: Secret::new("expired-access-token"),
                refresh_token: Some(Secret::new(REFRESH)),
                expires_at: Some(1),
                issued_at: Some(0),
                requested: Vec::new(),
                granted: Vec::new(),
                dpop_key: None,
            }),
        )
        .expect("store");
    let outcome = connect(
        &url,
        confidential(&real_issuer, Grant::AuthorizationCode),
        store,
    )
    .await;
    refused_for_the_wrong_server(outcome, &real_issuer, &harvester_issuer);
    assert!(!harvester.saw(REFRESH), "{:?}", harvester.requests());
    assert!(!harvester.saw(SECRET), "{:?}", harvester.requests());
    // The refresh that was due went to the issuer of the token, with the
    // secret that belongs there.
    assert!(real.saw(REFRESH), "{:?}", real.requests());
}

/// Names resolved from a table, and every name asked for; nothing is
/// resolved by the system, so nothing can leave loopback.
#[derive(Debug, Default)]
struct Table {
    names: Vec<(&'static str, IpAddr)>,
    asked: Mutex<Vec<String>>,
}

impl Lookup for Table {
    fn lookup(
        &self,
        host: String,
    ) -> Pin<Box<dyn std::future::Future<Output = std::io::Result<Vec<IpAddr>>> + Send>> {
        self.asked.lock().expect("lock").push(host.clone());
        let found: Vec<IpAddr> = self
            .names
            .iter()
            .filter(|(name, _)| *name == host)
            .map(|(_, ip)| *ip)
            .collect();
        Box::pin(async move { Ok(found) })
    }
}

#[tokio::test]
async fn names_that_resolve_inside_the_network_are_refused_at_connect_time() {
    let cases: [(&str, &str, &str); 3] = [
        (
            "corp-sso.example.com",
            "10.20.30.40",
            "private network addresses are not used",
        ),
        (
            "metadata.example.com",
            "169.254.169.254",
            "link-local addresses are not used",
        ),
        (
            "mapped.example.com",
            "::ffff:192.168.1.1",
            "private network addresses are not used",
        ),
    ];
    for (name, address, reason) in cases {
        let url = hostile_server(&format!("https://{name}")).await;
        let table = Arc::new(Table {
            names: vec![(name, address.parse().expect("ip"))],
            ..Table::default()
        });
        let settings = OAuthSettings {
            lookup: Some(table.clone()),
            ..OAuthSettings::default()
        };
        let error = match connect(&url, settings, Arc::new(MemoryStore::new())).await {
            Err(ClientError::Auth(error)) => error,
            Err(other) => panic!("{name}: not an authorization error: {other}"),
            Ok(_) => panic!("{name}: connected"),
        };
        match &error {
            AuthError::Fetch { what, reason: why } => {
                assert_eq!(*what, "authorization server metadata", "{name}");
                assert!(
                    why.contains(reason) && why.contains(address),
                    "{name}: {why}"
                );
            }
            other => panic!("{name}: {other}"),
        }
        assert!(table.asked.lock().expect("lock").contains(&name.to_owned()));
    }
}

#[test]
fn credentials_without_an_issuer_are_refused_when_the_configuration_is_read() {
    let error = mcp_host::HostConfig::from_json(
        r#"{"mcpServers": {"svc": {"url": "https://mcp.example.com/mcp",
            "oauth": {"clientId": "c", "clientSecretEnv": "SVC_SECRET", "grant": "client_credentials"}}}}"#,
    )
    .expect_err("unbound secret");
    let text = error.to_string();
    assert!(
        text.contains("`oauth.clientSecretEnv` needs `oauth.issuer`"),
        "{text}"
    );
}

/// A fresh P-256 key as a PKCS#8 PEM.
fn es256_pem() -> String {
    use base64::Engine;
    use ring::signature::{EcdsaKeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
    let der = EcdsaKeyPair::generate_pkcs8(
        &ECDSA_P256_SHA256_FIXED_SIGNING,
        &ring::rand::SystemRandom::new(),
    )
    .expect("key");
    let body = base64::engine::general_purpose::STANDARD.encode(der.as_ref());
    let lines: Vec<&str> = body
        .as_bytes()
        .chunks(64)
        .map(|c| std::str::from_utf8(c).expect("ascii"))
        .collect();
    format!(
        "-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n",
        lines.join("\n")
    )
}

/// A protected MCP server that names `authorization_server` and refuses
/// every request that carries a token with `403 insufficient_scope`.
async fn stubborn_server(authorization_server: &str) -> String {
    protected(
        authorization_server,
        |headers: axum::http::HeaderMap| async move {
            let challenge = if headers.contains_key("authorization") {
                (
                    StatusCode::FORBIDDEN,
                    "Bearer error=\"insufficient_scope\", scope=\"admin\"",
                )
            } else {
                (StatusCode::UNAUTHORIZED, "Bearer error=\"invalid_token\"")
            };
            (challenge.0, [("www-authenticate", challenge.1)], "{}")
        },
    )
    .await
}

#[tokio::test]
async fn a_server_that_refuses_every_scope_stops_getting_logins() {
    let (issuer_log, issuer) = authorization_server().await;
    let url = stubborn_server(&issuer).await;
    let oauth = Arc::new(
        OAuthClient::new(
            "stubborn",
            &url,
            confidential(&issuer, Grant::ClientCredentials),
            Arc::new(MemoryStore::new()),
            None,
        )
        .expect("oauth client"),
    );
    let mut outcomes = Vec::new();
    for _ in 0..4 {
        match common::connect_with_oauth("stubborn", &url, oauth.clone()).await {
            Err(ClientError::Auth(error)) => outcomes.push(error),
            Err(other) => panic!("{other}"),
            Ok(_) => panic!("connected"),
        }
    }
    // The first request: a token, then two step-ups to `admin`, then the
    // request's own budget is spent.
    assert!(
        matches!(
            &outcomes[0],
            AuthError::StillRefused { .. } | AuthError::StepUpPaused { .. }
        ),
        "{}",
        outcomes[0]
    );
    // Every later request is refused at once, saying why, with no new
    // token request.
    for later in &outcomes[1..] {
        assert!(
            matches!(later, AuthError::StepUpPaused { times: 2, .. }),
            "{later}"
        );
        assert!(later.to_string().contains("`admin`"), "{later}");
    }
    assert_eq!(
        issuer_log.token_requests(),
        3,
        "{:?}",
        issuer_log.requests()
    );
}
