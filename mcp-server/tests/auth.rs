//! A protected server over real HTTP, against a real authorization server
//! on loopback serving its metadata and keys: the metadata routes, every
//! refusal (status, challenge parameters, JSON-RPC error), tokens of each
//! accepted algorithm, key rotation and the bounded refetch, per-tool and
//! server-wide scopes, the grant in handlers, legacy sessions, a
//! verifier of our own behind the cache, and each principal's share of
//! the DPoP proofs the replay guard records.

#![cfg(feature = "auth")]

#[path = "auth_support/mod.rs"]
mod auth_support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use auth_support::*;
use mcp_server::auth::{
    AccessToken, DpopPolicy, Grant, JwtVerifier, Rejection, ResourceServer, ResourceServerBuilder,
    TokenError, TokenVerifier,
};
use mcp_server::shared::{MemoryShared, SharedReplayGuard};
use mcp_server::transport::http::{self, HttpConfig};
use mcp_server::{tool, tools, BoxFuture, Context, Server};
use serde_json::{json, Value};

struct Notes;

#[tools]
impl Notes {
    /// Says who is asking, as the grant tells.
    #[tool]
    fn whoami(&self, cx: &Context) -> String {
        let grant = cx.grant();
        json!({
            "principal": cx.principal(),
            "issuer": grant.map(Grant::issuer),
            "subject": grant.map(Grant::subject),
            "client": grant.and_then(Grant::client_id),
            "scopes": grant.map(Grant::scopes),
            "expires": grant.and_then(Grant::expires_at).is_some(),
        })
        .to_string()
    }

    /// Writes a note.
    #[tool(scopes = ["notes:write"])]
    fn write(&self) -> String {
        String::from("written")
    }

    /// Deletes every note.
    #[tool(scopes = ["notes:write", "notes:admin"])]
    fn purge(&self) -> String {
        String::from("purged")
    }
}

/// Notes protected for `notes:read` (implied by `notes:write`), with
/// `configure` applied to the resource server.
async fn fixture(
    configure: impl FnOnce(ResourceServerBuilder, &str, &str) -> ResourceServerBuilder,
) -> Protected {
    fixture_with(Discovery::OAuth, configure).await
}

async fn fixture_with(
    discovery: Discovery,
    configure: impl FnOnce(ResourceServerBuilder, &str, &str) -> ResourceServerBuilder,
) -> Protected {
    Protected::start(Notes, discovery, |builder, resource, issuer| {
        let builder = builder
            .scopes_supported(["notes:read"])
            .require_scopes(["notes:read"])
            .implies("notes:write", ["notes:read"]);
        configure(builder, resource, issuer)
    })
    .await
}

/// The text a successful call answered with.
fn text(response: &Response) -> String {
    assert_eq!(response.status, 200, "{}", response.body);
    let body = response.json();
    body["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {body}"))
        .to_owned()
}

/// `token` with its signature changed in one bit.
fn tampered(token: &Token) -> Token {
    let (input, signature) = token.0.rsplit_once('.').expect("three parts");
    let mut signature = base64_decode(signature);
    signature[0] ^= 1;
    Token(format!("{input}.{}", b64(&signature)))
}

fn base64_decode(text: &str) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(text)
        .expect("base64url")
}

#[tokio::test]
async fn a_request_without_a_token_is_challenged() {
    let fx = fixture(|b, _, _| b).await;
    let response = fx.call("whoami", None).await;
    let challenge = fx.refused(&response, 401, None, None);
    assert_eq!(challenge["scope"], "notes:read");
    assert_eq!(challenge.len(), 2, "{challenge:?}");
    assert!(response.json()["error"]["message"]
        .as_str()
        .is_some_and(|m| m.contains("Authorization: Bearer")));
    for method in ["GET", "DELETE"] {
        let response = send(fx.port, method, "/mcp", &[], "").await;
        fx.refused(&response, 401, None, None);
    }
}

#[tokio::test]
async fn metadata_is_served_at_the_resource_path_and_the_root() {
    let fx = fixture(|b, _, _| b.resource_name("Notes")).await;
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let response = send(fx.port, "GET", path, &[], "").await;
        assert_eq!(response.status, 200, "{path}: {}", response.body);
        assert_eq!(response.header("content-type"), Some("application/json"));
        assert_eq!(
            response.json(),
            json!({
                "resource": fx.resource,
                "authorization_servers": [fx.auth.issuer],
                "scopes_supported": ["notes:read"],
                "bearer_methods_supported": ["header"],
                "resource_name": "Notes",
            })
        );
    }
}

#[tokio::test]
async fn metadata_through_serve_with_and_a_router_mounted_elsewhere() {
    let keys = Keys::new();
    let auth = AuthServer::start(keys.jwks(), Discovery::OAuth).await;
    let protect = |resource: &str| ResourceServer::new(resource, [&auth.issuer]).expect("builds");
    let server = |resource: &str| {
        Server::builder(Notes)
            .tools()
            .authorization(protect(resource))
            .build()
            .expect("builds")
    };

    // serve_with, at /mcp.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let resource = format!("http://127.0.0.1:{port}/mcp");
    tokio::spawn(http::serve_with(
        server(&resource),
        listener,
        HttpConfig::default(),
        std::future::pending(),
    ));
    let response = send(
        port,
        "GET",
        "/.well-known/oauth-protected-resource/mcp",
        &[],
        "",
    )
    .await;
    assert_eq!(response.json()["resource"], resource.as_str());

    // A router at /v1/mcp merged into an application of its own, for a
    // resource whose public path differs (a proxy rewrites /api/v1/mcp).
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let resource = format!("http://127.0.0.1:{port}/api/v1/mcp");
    let app = axum::Router::new()
        .route("/health", axum::routing::get(|| async { "ok" }))
        .merge(http::router(
            server(&resource),
            "/v1/mcp",
            HttpConfig::default(),
        ));
    tokio::spawn(async move { axum::serve(listener, app).await });
    for path in [
        "/.well-known/oauth-protected-resource/api/v1/mcp",
        "/.well-known/oauth-protected-resource/v1/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let response = send(port, "GET", path, &[], "").await;
        assert_eq!(response.status, 200, "{path}");
        assert_eq!(response.json()["resource"], resource.as_str());
    }
    let response = send(
        port,
        "POST",
        "/v1/mcp",
        &call_headers("whoami", None),
        &call(1, "whoami", json!({})),
    )
    .await;
    assert_eq!(response.status, 401);
    let challenge = response.challenge();
    assert_eq!(
        challenge["resource_metadata"],
        format!("http://127.0.0.1:{port}/.well-known/oauth-protected-resource/api/v1/mcp")
    );
    assert_eq!(send(port, "GET", "/health", &[], "").await.body, "ok");
}

#[tokio::test]
async fn a_good_token_is_served_and_its_grant_reaches_the_handler() {
    let fx = fixture(|b, _, _| b).await;
    let token = fx.token("alice", "notes:read profile");
    let who: Value =
        serde_json::from_str(&text(&fx.call("whoami", Some(&token)).await)).expect("JSON");
    assert_eq!(
        who,
        json!({
            "principal": serde_json::to_string(&[&fx.auth.issuer, "alice"]).expect("encodes"),
            "issuer": fx.auth.issuer,
            "subject": "alice",
            "client": "test-client",
            "scopes": ["notes:read", "profile"],
            "expires": true,
        })
    );
    // GET is still not a method of the endpoint, once authorized.
    let auth = [("Authorization", format!("Bearer {}", token.0))];
    assert_eq!(send(fx.port, "GET", "/mcp", &auth, "").await.status, 405);
}

#[tokio::test]
async fn every_accepted_algorithm_verifies() {
    let fx = fixture(|b, _, _| b).await;
    for alg in [Alg::Es256, Alg::EdDsa, Alg::Rs256, Alg::Ps256] {
        let token = fx.keys.mint(alg, &fx.claims("alice", "notes:read"));
        let response = fx.call("whoami", Some(&token)).await;
        assert_eq!(response.status, 200, "{alg:?}: {}", response.body);
    }
    // Scopes may come as an `scp` array instead.
    let mut claims = fx.claims("alice", "");
    claims["scp"] = json!(["notes:read"]);
    claims.as_object_mut().map(|c| c.remove("scope"));
    let token = fx.keys.mint(Alg::Es256, &claims);
    assert_eq!(fx.call("whoami", Some(&token)).await.status, 200);
}

#[tokio::test]
async fn a_tampered_signature_is_refused() {
    let fx = fixture(|b, _, _| b).await;
    for alg in [Alg::Es256, Alg::EdDsa, Alg::Rs256] {
        let token = tampered(&fx.keys.mint(alg, &fx.claims("alice", "notes:read")));
        fx.invalid(&token, "the token's signature does not verify")
            .await;
    }
    // Claims changed under a good signature fail the same way.
    let good = fx.token("alice", "notes:read");
    let (_, signature) = good.0.rsplit_once('.').expect("parts");
    let header = json!({"alg": "ES256", "kid": "ec-1", "typ": "at+jwt"});
    let forged = signing_input(&header, &fx.claims("alice", "notes:read notes:write"));
    fx.invalid(
        &Token(format!("{forged}.{signature}")),
        "the token's signature does not verify",
    )
    .await;
}

#[tokio::test]
async fn alg_none_is_refused() {
    let fx = fixture(|b, _, _| b).await;
    let claims = fx.claims("alice", "notes:read");
    for header in [
        json!({"alg": "none"}),
        json!({"alg": "none", "kid": "ec-1"}),
    ] {
        let token = Token(format!("{}.", signing_input(&header, &claims)));
        fx.invalid(&token, "the token's signing algorithm is not accepted")
            .await;
    }
}

#[tokio::test]
async fn hs256_signed_with_the_public_key_is_refused() {
    let fx = fixture(|b, _, _| b).await;
    let claims = fx.claims("alice", "notes:read");
    let secrets = [
        fx.keys.rsa_public_der(),
        serde_json::to_vec(&fx.keys.rsa_jwk("rsa-1")).expect("encodes"),
        serde_json::to_vec(&fx.keys.ec_jwk("ec-1")).expect("encodes"),
    ];
    for (secret, kid) in secrets.iter().zip(["rsa-1", "rsa-1", "ec-1"]) {
        let header = json!({"alg": "HS256", "kid": kid, "typ": "JWT"});
        let input = signing_input(&header, &claims);
        let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, secret);
        let tag = ring::hmac::sign(&key, input.as_bytes());
        let token = Token(format!("{input}.{}", b64(tag.as_ref())));
        fx.invalid(&token, "the token's signing algorithm is not accepted")
            .await;
    }
}

#[tokio::test]
async fn a_key_is_used_only_with_its_own_algorithm() {
    let fx = fixture(|b, _, _| b).await;
    let claims = fx.claims("alice", "notes:read");
    // An EdDSA signature presented as ES256 under the EC key's id, and an
    // RS256 one under the EC key: no key fits, whatever the bytes.
    let header = json!({"alg": "ES256", "kid": "ed-1"});
    let token = fx.keys.mint_with(Alg::EdDsa, &header, &claims);
    fx.invalid(&token, "the token names no known signing key")
        .await;
    let header = json!({"alg": "RS256", "kid": "ec-1"});
    let token = fx.keys.mint_with(Alg::Rs256, &header, &claims);
    fx.invalid(&token, "the token names no known signing key")
        .await;
}

#[tokio::test]
async fn the_wrong_audience_is_refused() {
    let fx = fixture(|b, _, _| b).await;
    for audience in [
        json!("https://other.example.com/mcp"),
        json!(format!("{}/", fx.resource)),
        json!(["https://other.example.com/mcp"]),
        json!([]),
    ] {
        let mut claims = fx.claims("alice", "notes:read");
        claims["aud"] = audience;
        let token = fx.keys.mint(Alg::Es256, &claims);
        fx.invalid(&token, "the token was not issued for this server")
            .await;
    }
    let mut claims = fx.claims("alice", "notes:read");
    claims["aud"] = json!(["https://other.example.com/mcp", fx.resource]);
    let token = fx.keys.mint(Alg::Es256, &claims);
    assert_eq!(fx.call("whoami", Some(&token)).await.status, 200);
}

#[tokio::test]
async fn the_wrong_issuer_is_refused() {
    let fx = fixture(|b, _, _| b).await;
    for issuer in [
        "https://evil.example.com".to_owned(),
        format!("{}/", fx.auth.issuer),
    ] {
        let claims = claims(&issuer, &fx.resource, "alice", "notes:read");
        let token = fx.keys.mint(Alg::Es256, &claims);
        fx.invalid(
            &token,
            "the token is from an issuer this server does not trust",
        )
        .await;
    }
}

#[tokio::test]
async fn expired_and_not_yet_valid_tokens_are_refused() {
    let fx = fixture(|b, _, _| b).await;
    let mut claims = fx.claims("alice", "notes:read");
    claims["exp"] = json!(now() - 3600);
    fx.invalid(&fx.keys.mint(Alg::Es256, &claims), "the token has expired")
        .await;
    let mut claims = fx.claims("alice", "notes:read");
    claims["nbf"] = json!(now() + 3600);
    fx.invalid(
        &fx.keys.mint(Alg::Es256, &claims),
        "the token is not valid yet",
    )
    .await;
    // Within the leeway, both pass.
    let mut claims = fx.claims("alice", "notes:read");
    claims["exp"] = json!(now() - 10);
    claims["nbf"] = json!(now() + 10);
    assert_eq!(
        fx.call("whoami", Some(&fx.keys.mint(Alg::Es256, &claims)))
            .await
            .status,
        200
    );
    // A string `exp` is not an absent one.
    let mut claims = fx.claims("alice", "notes:read");
    claims["exp"] = json!((now() + 600).to_string());
    fx.invalid(
        &fx.keys.mint(Alg::Es256, &claims),
        "the token's `exp` claim is missing or malformed",
    )
    .await;
}

#[tokio::test]
async fn malformed_tokens_are_refused() {
    let fx = fixture(|b, _, _| b).await;
    let good = fx.token("alice", "notes:read");
    let parts: Vec<&str> = good.0.split('.').collect();
    let table = [
        (
            format!("{}.{}", parts[0], parts[1]),
            "the token is malformed (not three dot-separated parts)",
        ),
        (
            format!("{}=.{}.{}", parts[0], parts[1], parts[2]),
            "the token holds characters a bearer token cannot",
        ),
        (
            format!("{}.{}*.{}", parts[0], parts[1], parts[2]),
            "the token holds characters a bearer token cannot",
        ),
        (
            format!("!!.{}.{}", parts[1], parts[2]),
            "the token holds characters a bearer token cannot",
        ),
        (
            format!("{}.{}.{}", "e30", parts[1], parts[2]),
            "the token is malformed (the header has no `alg`)",
        ),
        (
            format!("{}.{}.{}", b64(b"not json"), parts[1], parts[2]),
            "the token is malformed (the header is not a JSON object)",
        ),
        (
            format!("{}.{}.{}", parts[0], b64(b"[]"), parts[2]),
            "the token is malformed (the claims are not a JSON object)",
        ),
        (
            format!("+{}.{}.{}", parts[0], parts[1], parts[2]),
            "the token is malformed (header encoding)",
        ),
        (
            "a.b.c.d.e".to_owned(),
            "the token is malformed (encrypted tokens are not accepted)",
        ),
        (
            "opaque-token".to_owned(),
            "the token is malformed (not three dot-separated parts)",
        ),
    ];
    for (token, description) in table {
        fx.invalid(&Token(token), description).await;
    }
}

#[tokio::test]
async fn oversized_headers_and_tokens_are_refused() {
    let fx = fixture(|b, _, _| b).await;
    let claims = fx.claims("alice", "notes:read");
    let header = json!({"alg": "ES256", "kid": "ec-1", "pad": "x".repeat(3000)});
    let token = fx.keys.mint_with(Alg::Es256, &header, &claims);
    fx.invalid(&token, "the token is too large").await;
    let mut big = claims.clone();
    big["pad"] = json!("x".repeat(9000));
    fx.invalid(&fx.keys.mint(Alg::Es256, &big), "the token is too large")
        .await;
    let mut huge = claims;
    huge["pad"] = json!("x".repeat(20_000));
    fx.invalid(&fx.keys.mint(Alg::Es256, &huge), "the token is too large")
        .await;
}

#[tokio::test]
async fn tokens_outside_the_authorization_header_are_refused() {
    let fx = fixture(|b, _, _| b).await;
    let token = fx.token("alice", "notes:read");
    // In the query string: refused even beside a good header.
    for headers in [
        call_headers("whoami", None),
        call_headers("whoami", Some(&token)),
    ] {
        let target = format!("/mcp?access_token={}", token.0);
        let response = send(
            fx.port,
            "POST",
            &target,
            &headers,
            &call(1, "whoami", json!({})),
        )
        .await;
        let challenge = fx.refused(&response, 400, Some("invalid_request"), Some(&token));
        assert!(challenge["error_description"].contains("query string"));
    }
    // In a form body: not a JSON-RPC message, refused as such before any
    // token is looked for, and the token is not echoed.
    let headers = [
        (
            "Content-Type",
            "application/x-www-form-urlencoded".to_owned(),
        ),
        ("Accept", "application/json, text/event-stream".to_owned()),
    ];
    let body = format!("access_token={}", token.0);
    let response = send(fx.port, "POST", "/mcp", &headers, &body).await;
    assert_eq!(response.status, 415, "{}", response.body);
    assert_eq!(response.json()["error"]["code"], -32600);
    assert!(!response.shows(&token), "{response:?}");
}

#[tokio::test]
async fn only_one_bearer_header_is_read() {
    let fx = fixture(|b, _, _| b).await;
    let token = fx.token("alice", "notes:read");
    let mut headers = call_headers("whoami", Some(&token));
    headers.push(("Authorization", format!("Bearer {}", token.0)));
    let response = send(
        fx.port,
        "POST",
        "/mcp",
        &headers,
        &call(1, "whoami", json!({})),
    )
    .await;
    let challenge = fx.refused(&response, 400, Some("invalid_request"), Some(&token));
    assert_eq!(
        challenge["error_description"],
        "send exactly one Authorization header"
    );
    // Another scheme is no token at all; the scheme's case does not matter.
    for credentials in ["Basic YWxpY2U6c2VjcmV0", "Token abc", "DPoP abc"] {
        let mut headers = call_headers("whoami", None);
        headers.push(("Authorization", credentials.to_owned()));
        let response = send(
            fx.port,
            "POST",
            "/mcp",
            &headers,
            &call(1, "whoami", json!({})),
        )
        .await;
        let challenge = fx.refused(&response, 401, None, None);
        assert_eq!(challenge["scope"], "notes:read");
    }
    let mut headers = call_headers("whoami", None);
    headers.push(("Authorization", format!("bEaReR {}", token.0)));
    let response = send(
        fx.port,
        "POST",
        "/mcp",
        &headers,
        &call(1, "whoami", json!({})),
    )
    .await;
    assert_eq!(response.status, 200, "{}", response.body);
}

#[tokio::test]
async fn a_bearer_only_server_refuses_dpop_bound_tokens() {
    let fx = fixture(|b, _, _| b).await;
    let mut claims = fx.claims("alice", "notes:read");
    claims["cnf"] = json!({"jkt": "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"});
    let bound = fx.keys.mint(Alg::Es256, &claims);
    fx.invalid(
        &bound,
        "the token is bound to a key: send it in the DPoP scheme with a proof made with that key",
    )
    .await;
    // The `DPoP` scheme is answered as any unknown one (see above).
    let metadata = send(
        fx.port,
        "GET",
        "/.well-known/oauth-protected-resource/mcp",
        &[],
        "",
    )
    .await;
    assert!(metadata
        .json()
        .get("dpop_signing_alg_values_supported")
        .is_none());
}

/// Notes taking DPoP-bound tokens, whose replay guard keeps its proofs
/// in `store`, with `configure` applied to the resource server.
async fn dpop_fixture(
    store: &Arc<MemoryShared>,
    configure: impl FnOnce(ResourceServerBuilder) -> ResourceServerBuilder,
) -> Protected {
    let guard = SharedReplayGuard::new(store.clone());
    fixture(|b, _, _| configure(b.dpop(DpopPolicy::Accepted).replay_guard(guard))).await
}

/// One principal sending DPoP requests, each with a fresh proof, cannot
/// fill the replay guard and have every other principal refused: once
/// it holds its share of the guard (by default a sixteenth of it, 2 of
/// 32 proofs here) its next request gets 429 with `Retry-After` and
/// records nothing, while another principal is still served.
#[tokio::test]
async fn a_principal_at_its_share_of_dpop_proofs_gets_429_and_others_are_served() {
    let store = Arc::new(MemoryShared::new(32));
    let fx = dpop_fixture(&store, |b| b).await;
    let (alice, bob) = (DpopKey::new(), DpopKey::new());
    let alice_token = fx.dpop_token("alice", "notes:read", &alice);
    let bob_token = fx.dpop_token("bob", "notes:read", &bob);
    // Alice sends until she is refused: at the latest once the guard is
    // full.
    let mut served = 0;
    let refused = loop {
        let response = fx.dpop_call("whoami", &alice_token, &alice).await;
        if response.status != 200 {
            break response;
        }
        served += 1;
        assert!(served <= 32, "alice was never refused");
    };
    let recorded = store.len();
    // Bob is served meanwhile, with a real result, and his proofs are
    // recorded.
    for n in 1..=2 {
        let response = fx.dpop_call("whoami", &bob_token, &bob).await;
        assert_eq!(response.status, 200, "bob's request {n}: {}", response.body);
        let who: Value = serde_json::from_str(&text(&response)).expect("JSON");
        assert_eq!(who["subject"], "bob", "{who}");
        assert_eq!(
            who["principal"],
            json!([&fx.auth.issuer, "bob"]).to_string()
        );
    }
    assert_eq!(store.len(), recorded + 2);
    // Alice was refused at her share, told when to retry, with nothing
    // recorded for the refused request.
    assert_eq!(served, 2, "alice's share: {}", refused.body);
    assert_eq!(refused.status, 429, "{}", refused.body);
    let retry_after: u64 = refused
        .header("retry-after")
        .unwrap_or_else(|| panic!("no Retry-After in {refused:?}"))
        .parse()
        .expect("seconds");
    assert!(
        (1..=300).contains(&retry_after),
        "until her oldest proof expires: {retry_after}"
    );
    assert_eq!(
        refused.header("www-authenticate"),
        None,
        "her credentials are good"
    );
    let body = refused.json();
    assert!(body.get("id").is_none(), "{body}");
    assert_eq!(body["error"]["code"], -32603, "{body}");
    assert_eq!(
        body["error"]["data"],
        json!({ "limit": "dpop_replay_share", "max": 2 })
    );
    assert!(!refused.shows(&alice_token));
    assert_eq!(recorded, 2, "only the proofs of her served requests");
    // She stays refused until a proof of hers expires.
    let again = fx.dpop_call("whoami", &alice_token, &alice).await;
    assert_eq!(again.status, 429, "{}", again.body);
    assert_eq!(store.len(), 4);
}

/// The share is what refused Alice above: with a share of 3 set on the
/// same guard, her third request is served, and her fourth refused.
#[tokio::test]
async fn a_larger_dpop_replay_share_serves_more_requests() {
    let store = Arc::new(MemoryShared::new(32));
    let fx = dpop_fixture(&store, |b| b.dpop_replay_share(3)).await;
    let alice = DpopKey::new();
    let token = fx.dpop_token("alice", "notes:read", &alice);
    for n in 1..=3 {
        let response = fx.dpop_call("whoami", &token, &alice).await;
        assert_eq!(response.status, 200, "request {n}: {}", response.body);
        let who: Value = serde_json::from_str(&text(&response)).expect("JSON");
        assert_eq!(who["subject"], "alice", "{who}");
    }
    let fourth = fx.dpop_call("whoami", &token, &alice).await;
    assert_eq!(fourth.status, 429, "{}", fourth.body);
    assert!(fourth.header("retry-after").is_some(), "{fourth:?}");
    assert_eq!(
        fourth.json()["error"]["data"],
        json!({ "limit": "dpop_replay_share", "max": 3 })
    );
    assert_eq!(store.len(), 3);
}

#[tokio::test]
async fn a_missing_tool_scope_is_403_naming_every_scope_of_the_call() {
    let fx = fixture(|b, _, _| b).await;
    let reader = fx.token("alice", "notes:read");
    let writer = fx.token("bob", "notes:write");
    for (tool, token, scope) in [
        ("write", &reader, "notes:read notes:write"),
        ("purge", &reader, "notes:read notes:write notes:admin"),
        ("purge", &writer, "notes:read notes:write notes:admin"),
    ] {
        let response = fx.call(tool, Some(token)).await;
        assert_eq!(response.status, 403, "{tool}: {}", response.body);
        let challenge = response.challenge();
        assert_eq!(challenge["error"], "insufficient_scope");
        assert_eq!(challenge["scope"], scope);
        assert_eq!(challenge["resource_metadata"], fx.metadata_url());
        let body = response.json();
        assert_eq!(body["id"], 1, "the router read the request: {body}");
        assert_eq!(body["error"]["code"], -32600);
        assert_eq!(
            body["error"]["data"],
            json!({"error": "insufficient_scope", "scope": scope})
        );
        assert!(!response.shows(token));
    }
    // `notes:write` implies the server-wide `notes:read`.
    assert_eq!(text(&fx.call("write", Some(&writer)).await), "written");
    let admin = fx.token("carol", "notes:write notes:admin");
    assert_eq!(text(&fx.call("purge", Some(&admin)).await), "purged");
}

#[tokio::test]
async fn a_token_without_the_server_wide_scope_is_refused_before_the_body() {
    let fx = fixture(|b, _, _| b).await;
    let token = fx.token("alice", "profile");
    let response = fx.call("whoami", Some(&token)).await;
    let challenge = fx.refused(&response, 403, Some("insufficient_scope"), Some(&token));
    assert_eq!(challenge["scope"], "notes:read");
}

#[tokio::test]
async fn refusals_come_before_the_body_and_after_the_host_check() {
    let fx = fixture(|b, _, _| b).await;
    // A body announced and never sent: the refusal does not wait for it
    // (the body timeout is 30 s).
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n",
        fx.port
    );
    let response = tokio::time::timeout(Duration::from_secs(5), send_raw(fx.port, &request))
        .await
        .expect("answered without the body");
    fx.refused(&response, 401, None, None);
    // A foreign Host is refused as before, whatever the token.
    let token = fx.token("alice", "notes:read");
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: evil.example.com\r\nConnection: close\r\nAuthorization: Bearer {}\r\nContent-Length: 0\r\n\r\n",
        token.0
    );
    let response = send_raw(fx.port, &request).await;
    assert_eq!(response.status, 403);
    assert!(response.header("www-authenticate").is_none());
    for method in ["GET", "DELETE"] {
        let request = format!(
            "{method} /mcp HTTP/1.1\r\nHost: evil.example.com\r\nConnection: close\r\n\r\n"
        );
        let response = send_raw(fx.port, &request).await;
        assert_eq!(response.status, 403, "{method}");
        assert!(response.header("www-authenticate").is_none());
    }
}

#[tokio::test]
async fn an_unknown_kid_is_refused_after_one_bounded_refetch() {
    let interval = Duration::from_millis(1500);
    let fx = fixture(|b, resource, issuer| {
        let jwt = JwtVerifier::builder(resource, [issuer])
            .refetch_interval(interval)
            .build()
            .expect("builds");
        b.verifier(jwt)
    })
    .await;
    // Taken before the first fetch: time since it is never underestimated.
    let first = Instant::now();
    assert_eq!(
        fx.call("whoami", Some(&fx.token("alice", "notes:read")))
            .await
            .status,
        200
    );
    assert_eq!(fx.auth.fetches(), 1);
    let claims = fx.claims("alice", "notes:read");
    let flood = |round: usize| {
        (0..20).map(move |i| json!({"alg": "ES256", "kid": format!("made-up-{round}-{i}")}))
    };
    // At most one fetch per interval, whatever the machine's speed: the
    // intervals that passed since `from` bound the refetches.
    let most = |from: Instant| {
        let passed = from.elapsed().as_millis() / interval.as_millis();
        usize::try_from(passed).expect("small")
    };
    // Unknown keys flood in: refused, and the keys are fetched again only
    // once an interval has passed (never, on a machine that is not slow).
    for header in flood(0) {
        let token = fx.keys.mint_with(Alg::Es256, &header, &claims);
        fx.invalid(&token, "the token names no known signing key")
            .await;
    }
    let refetched = fx.auth.fetches() - 1;
    assert!(refetched <= most(first), "{refetched} refetches");
    // Past the interval: refetched, once for the whole flood (once more
    // only for each further interval the flood itself took).
    tokio::time::sleep(interval + Duration::from_millis(50)).await;
    let before = fx.auth.fetches();
    let second = Instant::now();
    for header in flood(1) {
        let token = fx.keys.mint_with(Alg::Es256, &header, &claims);
        fx.invalid(&token, "the token names no known signing key")
            .await;
    }
    let refetched = fx.auth.fetches() - before;
    assert!(
        (1..=1 + most(second)).contains(&refetched),
        "{refetched} refetches"
    );
}

#[tokio::test]
async fn a_rotated_key_is_picked_up() {
    let interval = Duration::from_millis(1500);
    let fx = fixture(|b, resource, issuer| {
        b.verifier(
            JwtVerifier::builder(resource, [issuer])
                .refetch_interval(interval)
                .build()
                .expect("builds"),
        )
    })
    .await;
    assert_eq!(
        fx.call("whoami", Some(&fx.token("alice", "notes:read")))
            .await
            .status,
        200
    );
    let next = Keys::new();
    fx.auth.set_jwks(json!({"keys": [next.ec_jwk("ec-2")]}));
    let header = json!({"alg": "ES256", "kid": "ec-2", "typ": "at+jwt"});
    let rotated = next.mint_with(Alg::Es256, &header, &fx.claims("alice", "notes:read"));
    fx.invalid(&rotated, "the token names no known signing key")
        .await;
    tokio::time::sleep(interval + Duration::from_millis(50)).await;
    assert_eq!(fx.call("whoami", Some(&rotated)).await.status, 200);
    assert_eq!(fx.auth.fetches(), 2);
}

#[tokio::test]
async fn openid_discovery_is_the_fallback() {
    let fx = fixture_with(Discovery::OpenId, |b, _, _| b).await;
    let response = fx
        .call("whoami", Some(&fx.token("alice", "notes:read")))
        .await;
    assert_eq!(response.status, 200, "{}", response.body);
}

#[tokio::test]
async fn metadata_naming_another_issuer_is_not_trusted() {
    let fx = fixture_with(Discovery::WrongIssuer, |b, _, _| b).await;
    let token = fx.token("alice", "notes:read");
    let response = fx.call("whoami", Some(&token)).await;
    assert_eq!(response.status, 503, "{}", response.body);
    assert_eq!(
        fx.auth.fetches(),
        0,
        "the key set of an unverified issuer is never fetched"
    );
}

#[tokio::test]
async fn an_unreachable_authorization_server_is_503() {
    // Nothing listens on port 9 of loopback.
    let issuer = "http://127.0.0.1:9";
    let fx = Protected::start(Notes, Discovery::OAuth, |_, resource, _| {
        ResourceServer::builder(resource, [issuer])
    })
    .await;
    let token = fx.keys.mint(
        Alg::Es256,
        &claims(issuer, &fx.resource, "alice", "notes:read"),
    );
    let response = fx.call("whoami", Some(&token)).await;
    assert_eq!(response.status, 503, "{}", response.body);
    assert_eq!(response.header("retry-after"), Some("5"));
    assert!(response.header("www-authenticate").is_none());
    let body = response.json();
    assert_eq!(body["error"]["code"], -32603);
    assert!(body.get("id").is_none(), "{body}");
    assert!(!response.shows(&token));
}

#[tokio::test]
async fn legacy_sessions_belong_to_their_principal() {
    let fx = fixture(|b, _, _| b).await;
    let alice = fx.token("alice", "notes:read");
    let mallory = fx.token("mallory", "notes:read notes:write");
    let legacy = |token: &Token| {
        vec![
            ("Content-Type", "application/json".to_owned()),
            ("Accept", "application/json, text/event-stream".to_owned()),
            ("Authorization", format!("Bearer {}", token.0)),
        ]
    };
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let response = send(
        fx.port,
        "POST",
        "/mcp",
        &legacy(&alice),
        &initialize.to_string(),
    )
    .await;
    assert_eq!(response.status, 200, "{}", response.body);
    let session = response
        .header("mcp-session-id")
        .expect("a session")
        .to_owned();
    let whoami = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "whoami", "arguments": {}}})
    .to_string();
    let in_session = |token: &Token| {
        let mut headers = legacy(token);
        headers.push(("Mcp-Session-Id", session.clone()));
        headers
    };
    let response = send(fx.port, "POST", "/mcp", &in_session(&alice), &whoami).await;
    assert_eq!(response.status, 200, "{}", response.body);
    assert!(response.body.contains("alice"), "{}", response.body);
    // Another subject's token cannot use the session, nor end it.
    let response = send(fx.port, "POST", "/mcp", &in_session(&mallory), &whoami).await;
    assert_eq!(response.status, 404, "{}", response.body);
    let response = send(fx.port, "DELETE", "/mcp", &in_session(&mallory), "").await;
    assert_eq!(response.status, 404);
    // Legacy calls are held to the tools' scopes too.
    let write = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "write", "arguments": {}}})
    .to_string();
    let response = send(fx.port, "POST", "/mcp", &in_session(&alice), &write).await;
    assert_eq!(response.status, 403);
    assert_eq!(response.challenge()["scope"], "notes:read notes:write");
    assert_eq!(
        send(fx.port, "DELETE", "/mcp", &in_session(&alice), "")
            .await
            .status,
        200
    );
}

/// Opaque tokens looked up in a table, counting the lookups: a stand-in
/// for an introspection endpoint that does no networking.
struct Table {
    lookups: Arc<AtomicUsize>,
}

impl TokenVerifier for Table {
    fn verify<'a>(&'a self, token: AccessToken<'a>) -> BoxFuture<'a, Result<Grant, TokenError>> {
        self.lookups.fetch_add(1, Ordering::SeqCst);
        Box::pin(async move {
            match token.expose() {
                "opaque-alice" => Ok(Grant::new("https://auth.example.com", "alice")
                    .with_scopes(["notes:read"])
                    .with_expiry(std::time::SystemTime::now() + Duration::from_secs(600))),
                "opaque-bob" => {
                    Ok(Grant::new("https://auth.example.com", "bob").with_scopes(["notes:write"]))
                }
                "opaque-expired" => Ok(Grant::new("https://auth.example.com", "eve")
                    .with_scopes(["notes:read"])
                    .with_expiry(std::time::SystemTime::now() - Duration::from_secs(1))),
                _ => Err(TokenError::Invalid(Rejection::Inactive)),
            }
        })
    }
}

#[tokio::test]
async fn a_verifier_of_our_own_sits_behind_the_cache() {
    for (capacity, expected) in [(100, 5), (0, 7)] {
        let lookups = Arc::new(AtomicUsize::new(0));
        let verifier = Table {
            lookups: lookups.clone(),
        };
        let fx = fixture(move |b, _, _| {
            b.verifier(verifier)
                .token_cache(capacity, Duration::from_secs(60))
        })
        .await;
        let alice = Token("opaque-alice".into());
        let bob = Token("opaque-bob".into());
        for _ in 0..3 {
            assert_eq!(fx.call("whoami", Some(&alice)).await.status, 200);
        }
        assert_eq!(text(&fx.call("write", Some(&bob)).await), "written");
        let expired = Token("opaque-expired".into());
        assert_eq!(
            fx.call("whoami", Some(&expired)).await.status,
            200,
            "the verifier's call"
        );
        assert_eq!(
            fx.call("whoami", Some(&expired)).await.status,
            200,
            "never cached"
        );
        fx.invalid(&Token("opaque-unknown".into()), "the token is not active")
            .await;
        // With the cache: alice once, bob once, the expired one twice; the
        // unknown one is looked up once either way.
        assert_eq!(
            lookups.load(Ordering::SeqCst),
            expected,
            "capacity {capacity}"
        );
    }
}

/// RFC 9068 §4: an access token says so in its header. A token of the same
/// issuer, for this server, validly signed, but typed `JWT` (an ID token,
/// say) or untyped is refused, unless the verifier is told that the
/// authorization server does not stamp the type.
#[tokio::test]
async fn a_token_not_typed_at_jwt_is_refused_unless_plain_jwts_are_accepted() {
    let fx = fixture(|b, _, _| b).await;
    let claims = fx.claims("alice", "notes:read");
    for header in [
        json!({"alg": "ES256", "kid": "ec-1", "typ": "JWT"}),
        json!({"alg": "ES256", "kid": "ec-1"}),
    ] {
        let token = fx.keys.mint_with(Alg::Es256, &header, &claims);
        fx.invalid(
            &token,
            "the token is malformed (the header's `typ` is not `at+jwt`)",
        )
        .await;
    }
    for typ in ["at+jwt", "application/at+jwt", "AT+JWT"] {
        let header = json!({"alg": "ES256", "kid": "ec-1", "typ": typ});
        let token = fx.keys.mint_with(Alg::Es256, &header, &claims);
        assert_eq!(fx.call("whoami", Some(&token)).await.status, 200, "{typ}");
    }

    let lenient = fixture(|b, resource, issuer| {
        let jwt = JwtVerifier::builder(resource, [issuer])
            .accept_plain_jwt(true)
            .build()
            .expect("builds");
        b.verifier(jwt)
    })
    .await;
    let claims = lenient.claims("alice", "notes:read");
    let header = json!({"alg": "ES256", "kid": "ec-1", "typ": "JWT"});
    let token = lenient.keys.mint_with(Alg::Es256, &header, &claims);
    assert_eq!(lenient.call("whoami", Some(&token)).await.status, 200);
}

/// An empty `sub` names nobody: every such token would be one principal.
#[tokio::test]
async fn a_token_with_an_empty_subject_is_refused() {
    let fx = fixture(|b, _, _| b).await;
    let token = fx.keys.mint(Alg::Es256, &fx.claims("", "notes:read"));
    fx.invalid(&token, "the token's `sub` claim is missing or malformed")
        .await;
}
