//! The OAuth client's refusals against a scripted protected server: every
//! URL the server or its metadata names is checked before it is fetched,
//! documents are bounded and followed through a redirect only on their own
//! origin (as the MCP client follows one), and the
//! flow stops, with the exact error, at the first document that is not
//! about this server or not from the issuer it claims.

#![cfg(feature = "oauth")]

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use common::{discovered, reply};
use mcp_host::auth::{
    AuthError, CredentialStore, MemoryStore, OAuthClient, OAuthSettings, Secret, Tokens,
};
use mcp_host::client::{Client, ClientError, ClientOptions, NoInput, Target};
use mcp_host::ServerId;
use serde_json::{json, Value};

/// What the scripted server serves; `{origin}` in any string is replaced by
/// the server's origin.
#[derive(Clone, Default)]
struct Script {
    /// The `resource_metadata` of the challenge, if any.
    challenge: Option<String>,
    /// The Protected Resource Metadata at the path-based well-known URL.
    resource: Option<Value>,
    /// A redirect for the Protected Resource Metadata instead: its status
    /// and `Location` (`{origin}` filled in).
    redirect: Option<(StatusCode, String)>,
    /// A document of this many bytes instead.
    oversized: Option<usize>,
    /// The authorization server metadata.
    server: Option<Value>,
}

#[derive(Clone)]
struct Peer {
    script: Script,
    origin: Arc<Mutex<String>>,
    /// Requests to anything of the authorization server.
    server_hits: Arc<AtomicUsize>,
    /// Requests to where a redirect of the metadata leads on this origin.
    moved_hits: Arc<AtomicUsize>,
    /// The `Authorization` headers of MCP requests.
    bearers: Arc<Mutex<Vec<String>>>,
}

impl Peer {
    fn fill(&self, value: &Value) -> Value {
        let origin = self.origin.lock().expect("lock").clone();
        serde_json::from_str(&value.to_string().replace("{origin}", &origin)).expect("json")
    }
}

async fn mcp(State(peer): State<Peer>, headers: HeaderMap, body: String) -> Response {
    let message: Value = serde_json::from_str(&body).unwrap_or_default();
    if let Some(bearer) = headers.get("authorization").and_then(|v| v.to_str().ok()) {
        peer.bearers.lock().expect("lock").push(bearer.to_owned());
        if bearer == "Bearer good-token" {
            return reply(
                StatusCode::OK,
                json!({"jsonrpc": "2.0", "id": message["id"], "result": discovered()}),
            );
        }
    }
    let mut challenge = String::from("Bearer error=\"invalid_token\"");
    if let Some(url) = &peer.script.challenge {
        let url = peer.fill(&json!(url));
        challenge.push_str(&format!(
            ", resource_metadata=\"{}\"",
            url.as_str().unwrap_or("")
        ));
    }
    (
        StatusCode::UNAUTHORIZED,
        [("www-authenticate", challenge)],
        "{}",
    )
        .into_response()
}

async fn resource(State(peer): State<Peer>) -> Response {
    if let Some((status, location)) = &peer.script.redirect {
        let location = peer.fill(&json!(location));
        return (*status, [("location", location.as_str().unwrap_or(""))]).into_response();
    }
    if let Some(size) = peer.script.oversized {
        return reply(StatusCode::OK, json!({"resource": "x".repeat(size)}));
    }
    match &peer.script.resource {
        Some(document) => reply(StatusCode::OK, peer.fill(document)),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

/// Where a redirect of the metadata leads on this origin: the metadata.
async fn moved(State(peer): State<Peer>) -> Response {
    peer.moved_hits.fetch_add(1, Ordering::SeqCst);
    reply(StatusCode::OK, peer.fill(&prm()))
}

async fn server(State(peer): State<Peer>) -> Response {
    peer.server_hits.fetch_add(1, Ordering::SeqCst);
    match &peer.script.server {
        Some(document) => reply(StatusCode::OK, peer.fill(document)),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

async fn counted(State(peer): State<Peer>) -> Response {
    peer.server_hits.fetch_add(1, Ordering::SeqCst);
    StatusCode::NOT_FOUND.into_response()
}

/// Serves `script`; the peer and the MCP endpoint URL.
async fn start(script: Script) -> (Peer, String) {
    let peer = Peer {
        script,
        origin: Arc::default(),
        server_hits: Arc::default(),
        moved_hits: Arc::default(),
        bearers: Arc::default(),
    };
    let router = Router::new()
        .route("/mcp", post(mcp))
        .route("/.well-known/oauth-protected-resource/mcp", get(resource))
        .route("/moved/oauth-protected-resource/mcp", get(moved))
        .route("/.well-known/oauth-authorization-server", get(server))
        .route("/.well-known/openid-configuration", get(counted))
        .route("/register", post(counted))
        .route("/token", post(counted))
        .with_state(peer.clone());
    let url = common::serve(router).await;
    *peer.origin.lock().expect("lock") = url.trim_end_matches("/mcp").to_owned();
    (peer, url)
}

fn prm() -> Value {
    json!({"resource": "{origin}/mcp", "authorization_servers": ["{origin}"]})
}

fn as_metadata() -> Value {
    json!({"issuer": "{origin}", "authorization_endpoint": "{origin}/authorize",
        "token_endpoint": "{origin}/token", "registration_endpoint": "{origin}/register",
        "code_challenge_methods_supported": ["S256"]})
}

async fn connect(url: &str, store: Arc<dyn CredentialStore>) -> Result<Client, ClientError> {
    connect_with(url, store, OAuthSettings::default()).await
}

async fn connect_with(
    url: &str,
    store: Arc<dyn CredentialStore>,
    settings: OAuthSettings,
) -> Result<Client, ClientError> {
    let oauth = OAuthClient::new("guarded", url, settings, store, None).expect("oauth client");
    common::connect_with_oauth("guarded", url, Arc::new(oauth)).await
}

async fn refused(script: Script) -> (AuthError, Peer) {
    let (peer, url) = start(script).await;
    match connect(&url, Arc::new(MemoryStore::new())).await {
        Err(ClientError::Auth(error)) => (error, peer),
        Err(other) => panic!("not an authorization error: {other}"),
        Ok(_) => panic!("connected"),
    }
}

#[tokio::test]
async fn metadata_urls_off_the_loopback_or_of_other_schemes_are_not_fetched() {
    for url in [
        "http://10.1.2.3/.well-known/oauth-protected-resource",
        "file:///etc/passwd",
        "https://user:pw@example.com/prm",
    ] {
        let (error, _) = refused(Script {
            challenge: Some(url.to_owned()),
            ..Script::default()
        })
        .await;
        assert!(
            matches!(
                &error,
                AuthError::InsecureUrl {
                    what: "resource metadata URL",
                    ..
                }
            ),
            "{url}: {error}"
        );
    }
}

/// A listener that counts the connections it accepts; its origin.
async fn witness() -> (Arc<AtomicUsize>, String) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("binds");
    let origin = format!("http://{}", listener.local_addr().expect("address"));
    let seen = Arc::new(AtomicUsize::new(0));
    let counter = seen.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            counter.fetch_add(1, Ordering::SeqCst);
            drop(stream);
        }
    });
    (seen, origin)
}

#[tokio::test]
async fn a_redirect_to_another_origin_is_refused_and_nothing_reaches_it() {
    let (seen, elsewhere) = witness().await;
    for status in [StatusCode::TEMPORARY_REDIRECT, StatusCode::FOUND] {
        let (error, _) = refused(Script {
            redirect: Some((
                status,
                format!("{elsewhere}/.well-known/oauth-protected-resource/mcp"),
            )),
            ..Script::default()
        })
        .await;
        match error {
            AuthError::Fetch { what, reason } => {
                assert_eq!(what, "protected resource metadata");
                assert!(
                    reason.contains(&elsewhere),
                    "names where it pointed: {reason}"
                );
            }
            other => panic!("{other}"),
        }
    }
    assert_eq!(
        seen.load(Ordering::SeqCst),
        0,
        "the other origin was reached"
    );
}

#[tokio::test]
async fn a_same_origin_redirect_of_the_metadata_is_followed() {
    let (error, peer) = refused(Script {
        redirect: Some((
            StatusCode::PERMANENT_REDIRECT,
            String::from("{origin}/moved/oauth-protected-resource/mcp"),
        )),
        server: Some(as_metadata()),
        ..Script::default()
    })
    .await;
    // The metadata was fetched where the redirect led, and the flow went
    // on to the authorization server it names (and stopped at the login,
    // which this test has no seam for).
    assert_eq!(peer.moved_hits.load(Ordering::SeqCst), 1, "{error}");
    assert!(peer.server_hits.load(Ordering::SeqCst) >= 1, "{error}");
    assert!(!error.to_string().contains("redirect"), "{error}");
}

#[tokio::test]
async fn documents_are_bounded() {
    let (error, _) = refused(Script {
        oversized: Some(300 * 1024),
        ..Script::default()
    })
    .await;
    match error {
        AuthError::Fetch { reason, .. } => {
            assert!(reason.contains("larger than 262144 bytes"), "{reason}")
        }
        other => panic!("{other}"),
    }
}

#[tokio::test]
async fn metadata_about_another_resource_stops_before_the_authorization_server() {
    let (error, peer) = refused(Script {
        resource: Some(json!({"resource": "https://evil.example.com/mcp",
            "authorization_servers": ["{origin}"]})),
        server: Some(as_metadata()),
        ..Script::default()
    })
    .await;
    match error {
        AuthError::ResourceMismatch { found, .. } => {
            assert_eq!(found, "https://evil.example.com/mcp")
        }
        other => panic!("{other}"),
    }
    assert_eq!(peer.server_hits.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn metadata_of_another_issuer_is_not_used() {
    let mut metadata = as_metadata();
    metadata["issuer"] = json!("https://attacker.example");
    let (error, peer) = refused(Script {
        resource: Some(prm()),
        server: Some(metadata),
        ..Script::default()
    })
    .await;
    match error {
        AuthError::IssuerMismatch { found, .. } => assert_eq!(found, "https://attacker.example"),
        other => panic!("{other}"),
    }
    // Nothing after the metadata: no registration, no token request.
    assert_eq!(peer.server_hits.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_server_without_s256_is_refused() {
    let mut metadata = as_metadata();
    metadata["code_challenge_methods_supported"] = json!(["plain"]);
    let (error, peer) = refused(Script {
        resource: Some(prm()),
        server: Some(metadata),
        ..Script::default()
    })
    .await;
    assert!(matches!(error, AuthError::NoPkce(_)), "{error}");
    assert_eq!(peer.server_hits.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn without_a_login_seam_the_error_says_how_to_log_in() {
    let (error, peer) = refused(Script {
        resource: Some(prm()),
        server: Some(as_metadata()),
        ..Script::default()
    })
    .await;
    assert_eq!(error, AuthError::LoginRequired("guarded".into()));
    assert_eq!(
        error.to_string(),
        "server `guarded` needs a login: run `mcp-host login guarded` at a terminal"
    );
    assert_eq!(peer.server_hits.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_client_without_oauth_names_the_refusal() {
    let (_, url) = start(Script::default()).await;
    let target = Target::Http {
        url: url.clone(),
        headers: Vec::new(),
    };
    let error = Client::connect(
        ServerId::new("plain").expect("id"),
        target,
        Arc::new(NoInput),
        ClientOptions::default(),
        None,
    )
    .await
    .expect_err("refused");
    assert!(
        matches!(&error, ClientError::Unauthorized(r) if r.status == 401),
        "{error}"
    );
    assert_eq!(
        error.to_string(),
        "the server refused the request (HTTP 401: the request needs authorization); configure OAuth for it"
    );
}

#[tokio::test]
async fn stored_tokens_are_sent_and_never_shown() {
    let (peer, url) = start(Script::default()).await;
    let store = Arc::new(MemoryStore::new());
    let key = url.clone();
    store
        .set_tokens(
            &key,
            Some(&Tokens {
                issuer: "http://issuer.example".into(),
                access_token: Secret::new("good-token"),
                refresh_token: None,
                expires_at: None,
                issued_at: None,
                requested: Vec::new(),
                granted: Vec::new(),
                dpop_key: None,
            }),
        )
        .expect("store");
    let client = connect(&url, store)
        .await
        .expect("connects with the stored token");
    assert_eq!(
        peer.bearers.lock().expect("lock").as_slice(),
        ["Bearer good-token"]
    );
    assert!(!format!("{client:?}").contains("good-token"));
}

#[tokio::test]
async fn a_server_without_any_metadata_is_refused_unless_the_fallback_is_on() {
    // Neither resource nor authorization server metadata: nothing says
    // PKCE is supported, so the flow stops before any endpoint is used.
    let (error, peer) = refused(Script::default()).await;
    assert_eq!(
        error,
        AuthError::NoMetadataAtAll {
            server: "guarded".into()
        }
    );
    assert!(
        error.to_string().contains("legacyEndpointFallback"),
        "{error}"
    );
    // Only the metadata lookups were made.
    assert_eq!(peer.server_hits.load(Ordering::SeqCst), 2);
    // With the 2025-03-26 fallback on for this server, the default
    // endpoints are used: here it gets as far as the login.
    let (_, url) = start(Script::default()).await;
    let settings = OAuthSettings {
        legacy_endpoint_fallback: true,
        ..OAuthSettings::default()
    };
    match connect_with(&url, Arc::new(MemoryStore::new()), settings).await {
        Err(ClientError::Auth(error)) => {
            assert_eq!(error, AuthError::LoginRequired("guarded".into()))
        }
        Err(other) => panic!("{other}"),
        Ok(_) => panic!("connected"),
    }
}
