//! DPoP (RFC 9449) end to end, with nothing scripted: the real
//! authorization server of `mcp_tests::oauth` (oidc-provider) issues a
//! DPoP-bound JWT on the client credentials grant to a proof this test
//! makes with a key of its own, and protected `mcp-server` replicas on
//! loopback take that token only with fresh proofs of that key: not as a
//! bearer token, not with another key's proof, not with a proof for
//! another URL or method, not with a proof another replica has seen
//! (their replay guard is one real Redis), and, when the servers ask for
//! nonces, only after the nonce dance, on whichever replica. And the
//! host's side against the same two: `mcp-host` binds its token when the
//! server asks, answers its nonces, and keeps the key with the token.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use mcp_host::approval::{ApproveAll, Gate, Policy};
use mcp_host::auth::{DpopUse, FileStore, Grant, OAuthClient, OAuthSettings, Secret};
use mcp_host::client::{CallOptions, Client as McpClient, ClientOptions, NoInput, Target};
use mcp_host::ServerId;
use mcp_server::auth::{DpopPolicy, ResourceServer};
use mcp_server::shared::{RedisShared, SharedReplayGuard};
use mcp_server::transport::http::{self, HttpConfig};
use mcp_server::{tool, tools, Context, Server};
use mcp_tests::oauth::AuthServer;
use mcp_tests::redis::Redis;
use reqwest::{Client, StatusCode};
use ring::rand::SystemRandom;
use ring::signature::{EcdsaKeyPair, KeyPair as _, ECDSA_P256_SHA256_FIXED_SIGNING};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use tokio::net::TcpListener;

struct Notes;

#[tools]
impl Notes {
    /// Says whom the token speaks for.
    #[tool]
    fn whoami(&self, cx: &Context) -> String {
        cx.grant()
            .map(|grant| grant.subject().to_owned())
            .unwrap_or_default()
    }
}

fn b64(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_secs()
}

/// The body of `response`, as JSON.
async fn json(response: reqwest::Response) -> Value {
    let text = response.text().await.expect("a body");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// A client's DPoP key, P-256.
struct Key {
    pair: EcdsaKeyPair,
    rng: SystemRandom,
}

impl Key {
    fn new() -> Key {
        let rng = SystemRandom::new();
        let alg = &ECDSA_P256_SHA256_FIXED_SIGNING;
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(alg, &rng).expect("a key");
        let pair = EcdsaKeyPair::from_pkcs8(alg, pkcs8.as_ref(), &rng).expect("a key");
        Key { pair, rng }
    }

    fn jwk(&self) -> Value {
        let public = self.pair.public_key().as_ref();
        json!({"kty": "EC", "crv": "P-256", "x": b64(&public[1..33]), "y": b64(&public[33..])})
    }

    /// The RFC 7638 thumbprint, members in lexicographic order.
    fn thumbprint(&self) -> String {
        let jwk = self.jwk();
        let canonical = format!(
            r#"{{"crv":"P-256","kty":"EC","x":"{}","y":"{}"}}"#,
            jwk["x"].as_str().expect("x"),
            jwk["y"].as_str().expect("y")
        );
        b64(&Sha256::digest(canonical.as_bytes()))
    }

    /// A proof for `method` on `url`, with `ath` for `token` and `nonce`
    /// when given, and a fresh `jti`.
    fn proof(&self, method: &str, url: &str, token: Option<&str>, nonce: Option<&str>) -> String {
        let mut jti = [0u8; 16];
        getrandom::fill(&mut jti).expect("randomness");
        let mut claims = json!({"jti": b64(&jti), "htm": method, "htu": url, "iat": now()});
        if let Some(token) = token {
            claims["ath"] = json!(b64(&Sha256::digest(token.as_bytes())));
        }
        if let Some(nonce) = nonce {
            claims["nonce"] = json!(nonce);
        }
        let header = json!({"typ": "dpop+jwt", "alg": "ES256", "jwk": self.jwk()});
        let input = format!(
            "{}.{}",
            b64(header.to_string().as_bytes()),
            b64(claims.to_string().as_bytes())
        );
        let signature = self.pair.sign(&self.rng, input.as_bytes()).expect("signs");
        format!("{input}.{}", b64(signature.as_ref()))
    }
}

fn http_client() -> Client {
    Client::builder()
        .no_proxy()
        .build()
        .expect("an HTTP client")
}

/// A DPoP-bound access token for `resource` from the client credentials
/// grant, asked for with a proof of `key`.
async fn dpop_token(http: &Client, server: &AuthServer, key: &Key, resource: &str) -> String {
    let discovery = http
        .get(format!(
            "{}/.well-known/openid-configuration",
            server.issuer()
        ))
        .send()
        .await
        .expect("discovery");
    let discovery = json(discovery).await;
    let endpoint = discovery["token_endpoint"]
        .as_str()
        .expect("token_endpoint");
    let algs = &discovery["dpop_signing_alg_values_supported"];
    assert!(
        algs.as_array().is_some_and(|a| a.contains(&json!("ES256"))),
        "{discovery}"
    );
    let response = http
        .post(endpoint)
        .basic_auth(
            server.confidential_client_id(),
            Some(server.confidential_client_secret()),
        )
        .header("DPoP", key.proof("POST", endpoint, None, None))
        .form(&[
            ("grant_type", "client_credentials"),
            ("scope", "notes:read"),
            ("resource", resource),
        ])
        .send()
        .await
        .expect("POST token");
    let status = response.status();
    let body = json(response).await;
    assert_eq!(status, StatusCode::OK, "{body} {}", server.log());
    assert_eq!(body["token_type"], "DPoP", "{body}");
    let token = body["access_token"].as_str().expect("access_token");
    let payload = token.split('.').nth(1).expect("a JWT");
    let payload: Value =
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).expect("base64url")).expect("JSON");
    assert_eq!(payload["cnf"]["jkt"], key.thumbprint(), "{payload}");
    token.to_owned()
}

/// A protected replica of `resource` (the URL clients use, whichever
/// replica answers) on `listener`.
fn replica(listener: TcpListener, resource: ResourceServer) {
    let server = Server::builder(Notes)
        .info("notes", "1.0.0")
        .tools()
        .authorization(resource)
        .build()
        .expect("the server builds");
    let app = http::router(server, "/mcp", HttpConfig::default());
    tokio::spawn(async move { axum::serve(listener, app).await });
}

async fn listener() -> (TcpListener, String) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("an address");
    (listener, format!("http://{addr}/mcp"))
}

/// An answer: its status, `WWW-Authenticate`, `DPoP-Nonce` and body.
#[derive(Debug)]
struct Answer {
    status: u16,
    challenge: String,
    nonce: Option<String>,
    body: String,
}

impl Answer {
    fn refused(&self, error: &str) {
        assert_eq!(self.status, 401, "{self:?}");
        assert!(
            self.challenge.contains(&format!(r#"error="{error}""#)),
            "{self:?}"
        );
    }
}

/// Calls `whoami` at `url` with `authorization` and `proof`.
async fn call(http: &Client, url: &str, authorization: &str, proof: Option<&str>) -> Answer {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        },
        "name": "whoami", "arguments": {}}});
    let mut request = http
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", "tools/call")
        .header("Mcp-Name", "whoami")
        .header("Authorization", authorization)
        .body(body.to_string());
    if let Some(proof) = proof {
        request = request.header("DPoP", proof);
    }
    let response = request.send().await.expect("POST");
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    Answer {
        status: response.status().as_u16(),
        challenge: header("www-authenticate").unwrap_or_default(),
        nonce: header("dpop-nonce"),
        body: response.text().await.expect("a body"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bound_token_works_only_with_fresh_proofs_of_its_key_on_any_replica() {
    let auth = AuthServer::start().unwrap_or_else(|e| panic!("{e}"));
    let redis = Redis::start();
    let http = http_client();
    let (first, resource) = listener().await;
    let (second, second_url) = listener().await;
    for listener in [first, second] {
        let store = RedisShared::connect(redis.url(), "dpop-e2e:")
            .await
            .expect("connects");
        let protection = ResourceServer::builder(&resource, [auth.issuer()])
            .dpop(DpopPolicy::Accepted)
            .replay_guard(SharedReplayGuard::new(Arc::new(store)))
            .build()
            .expect("builds");
        replica(listener, protection);
    }
    let key = Key::new();
    let token = dpop_token(&http, &auth, &key, &resource).await;
    let dpop = format!("DPoP {token}");
    let good = |key: &Key| key.proof("POST", &resource, Some(&token), None);

    let proof = good(&key);
    let served = call(&http, &resource, &dpop, Some(&proof)).await;
    assert_eq!(served.status, 200, "{served:?}");
    assert!(
        served.body.contains(auth.confidential_client_id()),
        "{served:?}"
    );
    // The other replica serves the same token with a proof of its own.
    let served = call(&http, &second_url, &dpop, Some(&good(&key))).await;
    assert_eq!(served.status, 200, "{served:?}");

    // The proof seen by the first replica is refused by the second, and
    // by the first again.
    let replayed = call(&http, &second_url, &dpop, Some(&proof)).await;
    replayed.refused("invalid_dpop_proof");
    assert!(replayed.challenge.contains("used before"), "{replayed:?}");
    call(&http, &resource, &dpop, Some(&proof))
        .await
        .refused("invalid_dpop_proof");

    // Without the key, the token is worth nothing.
    let bearer = call(&http, &resource, &format!("Bearer {token}"), None).await;
    bearer.refused("invalid_token");
    assert!(!bearer.body.contains(&token) && !bearer.challenge.contains(&token));
    let thief = Key::new();
    call(&http, &resource, &dpop, Some(&good(&thief)))
        .await
        .refused("invalid_token");
    call(&http, &resource, &dpop, None)
        .await
        .refused("invalid_dpop_proof");

    // A proof is for one URL and one method.
    let elsewhere = key.proof(
        "POST",
        &second_url.replace("/mcp", "/other"),
        Some(&token),
        None,
    );
    call(&http, &resource, &dpop, Some(&elsewhere))
        .await
        .refused("invalid_dpop_proof");
    let get = key.proof("GET", &resource, Some(&token), None);
    call(&http, &resource, &dpop, Some(&get))
        .await
        .refused("invalid_dpop_proof");
    // ... and for one token.
    let unbound = key.proof("POST", &resource, Some("another token"), None);
    call(&http, &resource, &dpop, Some(&unbound))
        .await
        .refused("invalid_dpop_proof");

    // Both schemes are offered to a client without a token.
    let challenge = call(&http, &resource, "Basic eDp5", None).await;
    assert_eq!(challenge.status, 401);
    assert!(
        challenge.challenge.starts_with("Bearer ") && challenge.challenge.contains("DPoP algs="),
        "{challenge:?}"
    );
    drop(redis);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_nonce_dance_works_on_any_replica_and_bearer_tokens_are_refused() {
    let auth = AuthServer::start().unwrap_or_else(|e| panic!("{e}"));
    let http = http_client();
    let (first, resource) = listener().await;
    let (second, second_url) = listener().await;
    let mut secret = [0u8; 32];
    getrandom::fill(&mut secret).expect("randomness");
    for listener in [first, second] {
        let protection = ResourceServer::builder(&resource, [auth.issuer()])
            .dpop(DpopPolicy::Required)
            .dpop_nonce(secret)
            .build()
            .expect("builds");
        replica(listener, protection);
    }
    let metadata = http
        .get(resource.replace("/mcp", "/.well-known/oauth-protected-resource/mcp"))
        .send()
        .await
        .expect("GET metadata");
    let metadata = json(metadata).await;
    assert_eq!(
        metadata["dpop_bound_access_tokens_required"], true,
        "{metadata}"
    );

    let key = Key::new();
    let token = dpop_token(&http, &auth, &key, &resource).await;
    let dpop = format!("DPoP {token}");
    let asked = call(
        &http,
        &resource,
        &dpop,
        Some(&key.proof("POST", &resource, Some(&token), None)),
    )
    .await;
    asked.refused("use_dpop_nonce");
    assert!(asked.challenge.starts_with("DPoP "), "{asked:?}");
    let nonce = asked.nonce.expect("a DPoP-Nonce header");
    // The nonce one replica gave is good on the other.
    let proof = key.proof("POST", &resource, Some(&token), Some(&nonce));
    let served = call(&http, &second_url, &dpop, Some(&proof)).await;
    assert_eq!(served.status, 200, "{served:?}");
    let stale = key.proof("POST", &resource, Some(&token), Some("not-the-nonce"));
    call(&http, &resource, &dpop, Some(&stale))
        .await
        .refused("use_dpop_nonce");

    // DPoP is required: a bearer token is refused, and challenged for DPoP.
    let bearer = call(&http, &resource, &format!("Bearer {token}"), None).await;
    bearer.refused("invalid_token");
    assert!(bearer.challenge.starts_with("DPoP "), "{bearer:?}");
}

// The host's side: `mcp-host`'s OAuth client gets a token for a server
// that requires DPoP-bound tokens and hands out nonces, and calls its
// tool. The host binds the token because the server asks for it, answers
// the server's nonce challenge, keeps the key with the token in a
// credential file of mode 0600, and a new client from that file goes on
// with the same token and key.

fn oauth(auth: &AuthServer, url: &str, store: Arc<FileStore>) -> Arc<OAuthClient> {
    let settings = OAuthSettings {
        client_id: Some(auth.confidential_client_id().to_owned()),
        client_secret: Some(Secret::new(auth.confidential_client_secret())),
        issuer: Some(auth.issuer().to_owned()),
        grant: Grant::ClientCredentials,
        scopes: vec![String::from("notes:read")],
        dpop: DpopUse::Auto,
        ..OAuthSettings::default()
    };
    Arc::new(OAuthClient::new("notes", url, settings, store, None).expect("an OAuth client"))
}

async fn whoami(oauth: Arc<OAuthClient>, url: &str) -> String {
    let options = ClientOptions {
        oauth: Some(oauth),
        ..ClientOptions::default()
    };
    let target = Target::Http {
        url: url.to_owned(),
        headers: Vec::new(),
    };
    let id = ServerId::new("notes").expect("id");
    let client = McpClient::connect(id, target, Arc::new(NoInput), options, None)
        .await
        .expect("connects");
    let call = client
        .prepare_call("whoami", serde_json::Map::new())
        .await
        .expect("prepared");
    let gate = Gate::new(Policy::default(), Arc::new(ApproveAll));
    let approval = gate.authorize(&call).await.expect("approved");
    let result = client
        .call_tool(call, approval, &CallOptions::default())
        .await
        .expect("called");
    let value = serde_json::to_value(result.accept()).expect("encodes");
    value["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_host_binds_its_token_when_the_server_asks_and_keeps_the_key_with_it() {
    let auth = AuthServer::start().unwrap_or_else(|e| panic!("{e}"));
    let (listener, url) = listener().await;
    let mut secret = [0u8; 32];
    getrandom::fill(&mut secret).expect("randomness");
    let protection = ResourceServer::builder(&url, [auth.issuer()])
        .scopes_supported(["notes:read"])
        .dpop(DpopPolicy::Required)
        .dpop_nonce(secret)
        .build()
        .expect("builds");
    replica(listener, protection);
    let dir = std::env::temp_dir().join(format!("mcp-host-dpop-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a directory");
    let file = dir.join("credentials.json");
    let store = Arc::new(FileStore::new(&file));

    let subject = whoami(oauth(&auth, &url, store.clone()), &url).await;
    assert_eq!(subject, auth.confidential_client_id(), "{}", auth.log());

    // The token is bound, its key kept beside it, readable by the owner only.
    let text = std::fs::read_to_string(&file).expect("the credential file");
    let stored: Value = serde_json::from_str(&text).expect("JSON");
    let tokens = stored["tokens"]
        .as_object()
        .and_then(|t| t.values().next())
        .cloned()
        .expect("tokens for the server");
    assert!(
        tokens["dpop_key"].as_str().is_some_and(|k| !k.is_empty()),
        "{tokens}"
    );
    let token = tokens["access_token"].as_str().expect("a token").to_owned();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file)
            .expect("metadata")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    // A new client from the file goes on with the same token and key.
    let again = whoami(oauth(&auth, &url, store), &url).await;
    assert_eq!(again, auth.confidential_client_id());
    let after: Value =
        serde_json::from_str(&std::fs::read_to_string(&file).expect("the file")).expect("JSON");
    assert_eq!(
        after["tokens"]
            .as_object()
            .and_then(|t| t.values().next())
            .map(|t| &t["access_token"]),
        Some(&json!(token)),
        "no new token was needed"
    );

    // The token without its key is refused.
    let stolen = http_client()
        .post(&url)
        .header("Authorization", format!("DPoP {token}"))
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}"#)
        .send()
        .await
        .expect("answered");
    assert_eq!(stolen.status(), 401);
    let _ = std::fs::remove_dir_all(&dir);
}
