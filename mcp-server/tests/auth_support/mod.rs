//! What the auth tests share: signing keys (EC and Ed25519 made here, RSA
//! from the test key under `tests/data`), minting tokens, a client's DPoP
//! key and its proofs, a real authorization server on loopback serving its
//! metadata and keys, and a raw HTTP/1.1 client that can send what a
//! careful client would not.

#![allow(dead_code)] // each test file uses its own part

use std::collections::BTreeMap;
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use axum::extract::State;
use axum::routing::get;
use axum::Router;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use mcp_server::auth::{ResourceServer, ResourceServerBuilder};
use mcp_server::tool::ToolSet;
use mcp_server::transport::http::{self, HttpConfig};
use mcp_server::Server;
use ring::rand::{SecureRandom as _, SystemRandom};
use ring::signature::{self, EcdsaKeyPair, Ed25519KeyPair, KeyPair as _, RsaKeyPair};
use serde_json::{json, Value};
use sha2::{Digest as _, Sha256};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The RSA test key (see `tests/data/README.md`).
const RSA_TEST_KEY: &[u8] = include_bytes!("../data/rsa2048-test-key.pk8.der");

/// A minted token. Its `Debug` hides it, so no assertion message shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(pub String);

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Token(<{} bytes>)", self.0.len())
    }
}

/// The keys an authorization server signs with.
pub struct Keys {
    rng: SystemRandom,
    pub ec: EcdsaKeyPair,
    pub ed: Ed25519KeyPair,
    pub rsa: RsaKeyPair,
}

/// How a token is signed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Alg {
    Es256,
    EdDsa,
    Rs256,
    Ps256,
}

impl Alg {
    pub fn name(self) -> &'static str {
        match self {
            Alg::Es256 => "ES256",
            Alg::EdDsa => "EdDSA",
            Alg::Rs256 => "RS256",
            Alg::Ps256 => "PS256",
        }
    }

    /// The key id its key is published under.
    pub fn kid(self) -> &'static str {
        match self {
            Alg::Es256 => "ec-1",
            Alg::EdDsa => "ed-1",
            Alg::Rs256 | Alg::Ps256 => "rsa-1",
        }
    }
}

impl Keys {
    pub fn new() -> Keys {
        let rng = SystemRandom::new();
        let ec_alg = &signature::ECDSA_P256_SHA256_FIXED_SIGNING;
        let ec = EcdsaKeyPair::generate_pkcs8(ec_alg, &rng).expect("EC key");
        let ec = EcdsaKeyPair::from_pkcs8(ec_alg, ec.as_ref(), &rng).expect("EC key loads");
        let ed = Ed25519KeyPair::generate_pkcs8(&rng).expect("Ed25519 key");
        let ed = Ed25519KeyPair::from_pkcs8(ed.as_ref()).expect("Ed25519 key loads");
        let rsa = RsaKeyPair::from_pkcs8(RSA_TEST_KEY).expect("the RSA test key loads");
        Keys { rng, ec, ed, rsa }
    }

    /// The JWK Set of all three keys.
    pub fn jwks(&self) -> Value {
        json!({ "keys": [self.ec_jwk("ec-1"), self.ed_jwk("ed-1"), self.rsa_jwk("rsa-1")] })
    }

    pub fn ec_jwk(&self, kid: &str) -> Value {
        let public = self.ec.public_key().as_ref();
        json!({"kty": "EC", "crv": "P-256", "kid": kid, "use": "sig",
            "x": b64(&public[1..33]), "y": b64(&public[33..])})
    }

    pub fn ed_jwk(&self, kid: &str) -> Value {
        json!({"kty": "OKP", "crv": "Ed25519", "kid": kid, "x": b64(self.ed.public_key().as_ref())})
    }

    pub fn rsa_jwk(&self, kid: &str) -> Value {
        let public = signature::RsaPublicKeyComponents::<Vec<u8>>::from(self.rsa.public());
        json!({"kty": "RSA", "kid": kid, "n": b64(&public.n), "e": b64(&public.e)})
    }

    /// The RSA public key as an RSAPublicKey DER, the bytes an attacker
    /// would use as an HMAC secret.
    pub fn rsa_public_der(&self) -> Vec<u8> {
        self.rsa.public_key().as_ref().to_vec()
    }

    /// A token of `claims` signed with `alg` under its usual key id.
    pub fn mint(&self, alg: Alg, claims: &Value) -> Token {
        let header = json!({"alg": alg.name(), "kid": alg.kid(), "typ": "at+jwt"});
        self.mint_with(alg, &header, claims)
    }

    /// A token of `header` and `claims` signed with the key of `alg`.
    pub fn mint_with(&self, alg: Alg, header: &Value, claims: &Value) -> Token {
        let input = signing_input(header, claims);
        let signature = match alg {
            Alg::Es256 => self
                .ec
                .sign(&self.rng, input.as_bytes())
                .expect("signs")
                .as_ref()
                .to_vec(),
            Alg::EdDsa => self.ed.sign(input.as_bytes()).as_ref().to_vec(),
            Alg::Rs256 | Alg::Ps256 => {
                let padding: &'static dyn signature::RsaEncoding = match alg {
                    Alg::Rs256 => &signature::RSA_PKCS1_SHA256,
                    _ => &signature::RSA_PSS_SHA256,
                };
                let mut signature = vec![0; self.rsa.public().modulus_len()];
                self.rsa
                    .sign(padding, &self.rng, input.as_bytes(), &mut signature)
                    .expect("signs");
                signature
            }
        };
        Token(format!("{input}.{}", b64(&signature)))
    }
}

/// A client's DPoP key (P-256), which signs its proofs (RFC 9449).
pub struct DpopKey {
    rng: SystemRandom,
    pair: EcdsaKeyPair,
}

impl DpopKey {
    pub fn new() -> DpopKey {
        let rng = SystemRandom::new();
        let alg = &signature::ECDSA_P256_SHA256_FIXED_SIGNING;
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(alg, &rng).expect("EC key");
        let pair = EcdsaKeyPair::from_pkcs8(alg, pkcs8.as_ref(), &rng).expect("EC key loads");
        DpopKey { rng, pair }
    }

    /// The public key, as a proof's header carries it.
    pub fn jwk(&self) -> Value {
        let public = self.pair.public_key().as_ref();
        json!({"kty": "EC", "crv": "P-256", "x": b64(&public[1..33]), "y": b64(&public[33..])})
    }

    /// The RFC 7638 thumbprint, which a bound token names in `cnf.jkt`.
    pub fn thumbprint(&self) -> String {
        let jwk = self.jwk();
        let canonical = format!(
            r#"{{"crv":"P-256","kty":"EC","x":"{}","y":"{}"}}"#,
            jwk["x"].as_str().expect("x"),
            jwk["y"].as_str().expect("y")
        );
        b64(&Sha256::digest(canonical.as_bytes()))
    }

    /// A proof for `method` on `url` sent with `token`, made now, with a
    /// fresh `jti`.
    pub fn proof(&self, method: &str, url: &str, token: &Token) -> String {
        let mut jti = [0u8; 16];
        self.rng.fill(&mut jti).expect("randomness");
        let claims = json!({
            "jti": b64(&jti), "htm": method, "htu": url, "iat": now(),
            "ath": b64(&Sha256::digest(token.0.as_bytes())),
        });
        let header = json!({"typ": "dpop+jwt", "alg": "ES256", "jwk": self.jwk()});
        let input = signing_input(&header, &claims);
        let signature = self.pair.sign(&self.rng, input.as_bytes()).expect("signs");
        format!("{input}.{}", b64(signature.as_ref()))
    }
}

/// `base64url(header).base64url(claims)`.
pub fn signing_input(header: &Value, claims: &Value) -> String {
    let encode = |v: &Value| b64(&serde_json::to_vec(v).expect("encodes"));
    format!("{}.{}", encode(header), encode(claims))
}

pub fn b64(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_secs()
}

/// The claims of a good token from `issuer` for `audience` with `scope`.
pub fn claims(issuer: &str, audience: &str, subject: &str, scope: &str) -> Value {
    json!({
        "iss": issuer,
        "sub": subject,
        "aud": audience,
        "client_id": "test-client",
        "scope": scope,
        "iat": now(),
        "exp": now() + 600,
    })
}

/// How the authorization server publishes its metadata.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Discovery {
    /// At the RFC 8414 well-known URI.
    OAuth,
    /// Only at the OpenID Connect one.
    OpenId,
    /// At the RFC 8414 one, naming another issuer.
    WrongIssuer,
}

struct Published {
    issuer: String,
    discovery: Discovery,
    jwks: Mutex<Value>,
    fetches: AtomicUsize,
}

/// An authorization server on loopback: its metadata and its JWK Set,
/// which a test may change, and a count of the times the set was fetched.
#[derive(Clone)]
pub struct AuthServer {
    pub issuer: String,
    published: Arc<Published>,
}

impl AuthServer {
    pub async fn start(jwks: Value, discovery: Discovery) -> AuthServer {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let issuer = format!(
            "http://127.0.0.1:{}",
            listener.local_addr().expect("addr").port()
        );
        let published = Arc::new(Published {
            issuer: issuer.clone(),
            discovery,
            jwks: Mutex::new(jwks),
            fetches: AtomicUsize::new(0),
        });
        let app = Router::new()
            .route(
                "/.well-known/oauth-authorization-server",
                get(oauth_metadata),
            )
            .route("/.well-known/openid-configuration", get(openid_metadata))
            .route("/jwks", get(jwks_document))
            .with_state(published.clone());
        tokio::spawn(async move { axum::serve(listener, app).await });
        AuthServer { issuer, published }
    }

    /// Publishes another key set.
    pub fn set_jwks(&self, jwks: Value) {
        *self.published.jwks.lock().expect("lock") = jwks;
    }

    /// How many times the key set was fetched.
    pub fn fetches(&self) -> usize {
        self.published.fetches.load(Ordering::SeqCst)
    }
}

fn metadata(published: &Published, issuer: &str) -> axum::Json<Value> {
    axum::Json(json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{}/authorize", published.issuer),
        "token_endpoint": format!("{}/token", published.issuer),
        "jwks_uri": format!("{}/jwks", published.issuer),
        "code_challenge_methods_supported": ["S256"],
    }))
}

async fn oauth_metadata(
    State(published): State<Arc<Published>>,
) -> Result<axum::Json<Value>, axum::http::StatusCode> {
    match published.discovery {
        Discovery::OAuth => Ok(metadata(&published, &published.issuer)),
        Discovery::WrongIssuer => Ok(metadata(&published, "https://honest.example")),
        Discovery::OpenId => Err(axum::http::StatusCode::NOT_FOUND),
    }
}

async fn openid_metadata(
    State(published): State<Arc<Published>>,
) -> Result<axum::Json<Value>, axum::http::StatusCode> {
    match published.discovery {
        Discovery::OpenId => Ok(metadata(&published, &published.issuer)),
        Discovery::OAuth | Discovery::WrongIssuer => Err(axum::http::StatusCode::NOT_FOUND),
    }
}

async fn jwks_document(State(published): State<Arc<Published>>) -> axum::Json<Value> {
    published.fetches.fetch_add(1, Ordering::SeqCst);
    axum::Json(published.jwks.lock().expect("lock").clone())
}

/// An HTTP response as the raw client read it.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Response {
    /// The values of header `name`, compared case-insensitively.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }

    /// The parameters of the `Bearer` challenge.
    pub fn challenge(&self) -> BTreeMap<String, String> {
        let value = self
            .header("www-authenticate")
            .unwrap_or_else(|| panic!("no challenge in {self:?}"));
        parse_challenge(value)
    }

    /// Whether `token` appears anywhere in the response.
    pub fn shows(&self, token: &Token) -> bool {
        self.body.contains(&token.0) || self.headers.iter().any(|(_, v)| v.contains(&token.0))
    }
}

/// The parameters of a `Bearer` challenge (quoted values, `\` escapes).
pub fn parse_challenge(value: &str) -> BTreeMap<String, String> {
    let rest = value
        .strip_prefix("Bearer")
        .unwrap_or_else(|| panic!("not a Bearer challenge: {value}"));
    let mut params = BTreeMap::new();
    let mut chars = rest.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| *c == ' ' || *c == ',') {
            chars.next();
        }
        let name: String = chars.by_ref().take_while(|c| *c != '=').collect();
        if name.is_empty() {
            break;
        }
        assert_eq!(chars.next(), Some('"'), "{value}");
        let mut text = String::new();
        while let Some(c) = chars.next() {
            match c {
                '\\' => text.extend(chars.next()),
                '"' => break,
                c => text.push(c),
            }
        }
        params.insert(name, text);
    }
    params
}

/// Sends one HTTP/1.1 request to `127.0.0.1:port` and reads the response
/// to its end. `headers` are sent as given, repeats included.
pub async fn send(
    port: u16,
    method: &str,
    target: &str,
    headers: &[(&str, String)],
    body: &str,
) -> Response {
    let mut request = format!(
        "{method} {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    send_raw(port, &request).await
}

/// Writes `request` as it is and reads the response to its end.
pub async fn send_raw(port: u16, request: &str) -> Response {
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    stream.write_all(request.as_bytes()).await.expect("send");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.expect("read");
    parse_response(&String::from_utf8_lossy(&raw))
}

pub fn parse_response(raw: &str) -> Response {
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((raw, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|line| line.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
        .collect();
    Response {
        status,
        headers,
        body: body.to_owned(),
    }
}

/// The `_meta` of a modern request.
pub fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}
    })
}

/// A modern `tools/call` of `name`.
pub fn call(id: i64, name: &str, arguments: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"_meta": meta(), "name": name, "arguments": arguments}})
    .to_string()
}

/// The headers of a modern `tools/call` of `name`, with `token` if given.
pub fn call_headers(name: &str, token: Option<&Token>) -> Vec<(&'static str, String)> {
    let mut headers = vec![
        ("Content-Type", "application/json".to_owned()),
        ("Accept", "application/json, text/event-stream".to_owned()),
        ("MCP-Protocol-Version", "2026-07-28".to_owned()),
        ("Mcp-Method", "tools/call".to_owned()),
        ("Mcp-Name", name.to_owned()),
    ];
    if let Some(token) = token {
        headers.push(("Authorization", format!("Bearer {}", token.0)));
    }
    headers
}

/// Calls the tool `name` on the endpoint `/mcp` at `port` with `token`.
pub async fn call_tool(port: u16, name: &str, arguments: Value, token: Option<&Token>) -> Response {
    let headers = call_headers(name, token);
    send(port, "POST", "/mcp", &headers, &call(1, name, arguments)).await
}

/// A protected server on loopback at `/mcp`, and the authorization
/// server it trusts.
pub struct Protected {
    pub port: u16,
    pub resource: String,
    pub auth: AuthServer,
    pub keys: Keys,
}

impl Protected {
    /// Serves `tools`, protected by a resource server that trusts a fresh
    /// authorization server, with `configure` applied to it (given the
    /// resource URI and the issuer).
    pub async fn start<T: ToolSet + 'static>(
        tools: T,
        discovery: Discovery,
        configure: impl FnOnce(ResourceServerBuilder, &str, &str) -> ResourceServerBuilder,
    ) -> Protected {
        let keys = Keys::new();
        let auth = AuthServer::start(keys.jwks(), discovery).await;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let resource = format!("http://127.0.0.1:{port}/mcp");
        let builder = ResourceServer::builder(&resource, [&auth.issuer]);
        let protection = configure(builder, &resource, &auth.issuer)
            .build()
            .expect("the resource server builds");
        let server = Server::builder(tools)
            .info("protected", "1.0.0")
            .tools()
            .authorization(protection)
            .build()
            .expect("the server builds");
        let app = http::router(server, "/mcp", HttpConfig::default());
        tokio::spawn(async move { axum::serve(listener, app).await });
        Protected {
            port,
            resource,
            auth,
            keys,
        }
    }

    pub fn metadata_url(&self) -> String {
        format!(
            "http://127.0.0.1:{}/.well-known/oauth-protected-resource/mcp",
            self.port
        )
    }

    /// Good claims for `subject` with `scope`.
    pub fn claims(&self, subject: &str, scope: &str) -> Value {
        claims(&self.auth.issuer, &self.resource, subject, scope)
    }

    /// A good ES256 token for `subject` with `scope`.
    pub fn token(&self, subject: &str, scope: &str) -> Token {
        self.keys.mint(Alg::Es256, &self.claims(subject, scope))
    }

    /// A good ES256 token for `subject` with `scope`, bound to `key`.
    pub fn dpop_token(&self, subject: &str, scope: &str, key: &DpopKey) -> Token {
        let mut claims = self.claims(subject, scope);
        claims["cnf"] = json!({ "jkt": key.thumbprint() });
        self.keys.mint(Alg::Es256, &claims)
    }

    pub async fn call(&self, name: &str, token: Option<&Token>) -> Response {
        call_tool(self.port, name, json!({}), token).await
    }

    /// Calls the tool `name` with the DPoP-bound `token`, in the `DPoP`
    /// scheme, and a fresh proof of `key` for this resource.
    pub async fn dpop_call(&self, name: &str, token: &Token, key: &DpopKey) -> Response {
        let mut headers = call_headers(name, None);
        headers.push(("Authorization", format!("DPoP {}", token.0)));
        headers.push(("DPoP", key.proof("POST", &self.resource, token)));
        send(
            self.port,
            "POST",
            "/mcp",
            &headers,
            &call(1, name, json!({})),
        )
        .await
    }

    /// Asserts a refusal answered before the router: `status`, a challenge
    /// with `error` (or none) pointing at the metadata, a JSON-RPC error
    /// without an id, and no trace of `token`. Returns the challenge.
    pub fn refused(
        &self,
        response: &Response,
        status: u16,
        error: Option<&str>,
        token: Option<&Token>,
    ) -> BTreeMap<String, String> {
        assert_eq!(response.status, status, "{}", response.body);
        let challenge = response.challenge();
        assert_eq!(
            challenge.get("error").map(String::as_str),
            error,
            "{challenge:?}"
        );
        assert_eq!(challenge["resource_metadata"], self.metadata_url());
        let body = response.json();
        assert_eq!(body["jsonrpc"], "2.0");
        assert!(
            body.get("id").is_none(),
            "no id: the request was not read: {body}"
        );
        assert_eq!(body["error"]["code"], -32600, "{body}");
        if let Some(error) = error {
            assert_eq!(body["error"]["data"]["error"], error, "{body}");
        }
        if let Some(token) = token {
            assert!(!response.shows(token), "the response repeats the token");
        }
        challenge
    }

    /// Asserts a 401 `invalid_token` whose description is `description`.
    pub async fn invalid(&self, token: &Token, description: &str) {
        let response = self.call("whoami", Some(token)).await;
        let challenge = self.refused(&response, 401, Some("invalid_token"), Some(token));
        assert_eq!(challenge["error_description"], description);
        assert_eq!(challenge["scope"], "notes:read");
        let message = response.json()["error"]["message"].clone();
        assert_eq!(message, format!("unauthorized: {description}"));
    }
}
