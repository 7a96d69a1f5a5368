//! Bearer tokens for the protected rows: an authorization server on
//! loopback that publishes its metadata and keys, and access tokens
//! signed with those keys (ES256 with a key made here, RS256 with the
//! test key of mcp-server's tests).

use std::io;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use axum::routing::get;
use axum::{Json, Router};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use ring::rand::SystemRandom;
use ring::signature::{self, EcdsaKeyPair, KeyPair as _, RsaKeyPair};
use serde_json::{json, Value};

/// The resource the protected calculator is told it is, and the audience
/// of every token. An identifier only: the benchmark reaches the server
/// on loopback under whatever port it was given.
pub const RESOURCE: &str = "https://calculator.bench.example/mcp";

/// How many tokens a "new token each request" row sends in turn: more
/// than the 10,000 the server caches, so that (first in, first out) a
/// token has always left the cache before it comes round again.
pub const POOL: usize = 12_000;

/// The RSA test key (see mcp-server/tests/data/README.md).
const RSA_TEST_KEY: &[u8] =
    include_bytes!("../../../../mcp-server/tests/data/rsa2048-test-key.pk8.der");

/// How a token is signed.
#[derive(Clone, Copy, Debug)]
pub enum Alg {
    Es256,
    Rs256,
}

/// The authorization server: its URL (the issuer) and its keys.
pub struct Issuer {
    pub url: String,
    rng: SystemRandom,
    ec: EcdsaKeyPair,
    rsa: Arc<RsaKeyPair>,
}

impl Issuer {
    /// Starts serving the metadata and the key set on a thread of its own
    /// for the rest of the run.
    pub fn start() -> io::Result<Issuer> {
        let rng = SystemRandom::new();
        let alg = &signature::ECDSA_P256_SHA256_FIXED_SIGNING;
        let pkcs8 =
            EcdsaKeyPair::generate_pkcs8(alg, &rng).map_err(|_| io::Error::other("EC key"))?;
        let ec = EcdsaKeyPair::from_pkcs8(alg, pkcs8.as_ref(), &rng)
            .map_err(|_| io::Error::other("EC key"))?;
        let rsa = RsaKeyPair::from_pkcs8(RSA_TEST_KEY).map_err(|_| io::Error::other("RSA key"))?;
        let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
        listener.set_nonblocking(true)?;
        let url = format!("http://{}", listener.local_addr()?);
        let public = ec.public_key().as_ref();
        let rsa_public = signature::RsaPublicKeyComponents::<Vec<u8>>::from(rsa.public());
        let jwks = json!({"keys": [
            {"kty": "EC", "crv": "P-256", "kid": "ec", "x": b64(&public[1..33]), "y": b64(&public[33..])},
            {"kty": "RSA", "kid": "rsa", "n": b64(&rsa_public.n), "e": b64(&rsa_public.e)},
        ]});
        let metadata = json!({"issuer": url, "jwks_uri": format!("{url}/jwks")});
        std::thread::spawn(move || serve(listener, metadata, jwks));
        Ok(Issuer {
            url,
            rng,
            ec,
            rsa: Arc::new(rsa),
        })
    }

    /// `count` distinct tokens signed with `alg`, minted on two threads
    /// (an RSA signature takes about a millisecond).
    pub fn tokens(&self, alg: Alg, count: usize) -> Vec<String> {
        let half = count / 2;
        std::thread::scope(|scope| {
            let second = scope.spawn(|| {
                (half..count)
                    .map(|n| self.token(alg, n))
                    .collect::<Vec<_>>()
            });
            let mut tokens: Vec<String> = (0..half).map(|n| self.token(alg, n)).collect();
            tokens.extend(second.join().unwrap_or_default());
            tokens
        })
    }

    /// Token `n`: distinct from every other by its `jti`.
    pub fn token(&self, alg: Alg, n: usize) -> String {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let (name, kid) = match alg {
            Alg::Es256 => ("ES256", "ec"),
            Alg::Rs256 => ("RS256", "rsa"),
        };
        let header = json!({"alg": name, "kid": kid, "typ": "at+jwt"});
        let claims = json!({
            "iss": self.url, "sub": "bench", "aud": RESOURCE, "client_id": "mcp-bench",
            "scope": "calculator", "iat": now, "exp": now + 7200, "jti": n.to_string(),
        });
        let encode = |v: &Value| b64(&serde_json::to_vec(v).unwrap_or_default());
        let input = format!("{}.{}", encode(&header), encode(&claims));
        let signature = match alg {
            Alg::Es256 => self
                .ec
                .sign(&self.rng, input.as_bytes())
                .map(|s| s.as_ref().to_vec())
                .unwrap_or_default(),
            Alg::Rs256 => {
                let mut signature = vec![0; self.rsa.public().modulus_len()];
                let signed = self.rsa.sign(
                    &signature::RSA_PKCS1_SHA256,
                    &self.rng,
                    input.as_bytes(),
                    &mut signature,
                );
                if signed.is_err() {
                    signature.clear();
                }
                signature
            }
        };
        format!("{input}.{}", b64(&signature))
    }
}

fn b64(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

fn serve(listener: std::net::TcpListener, metadata: Value, jwks: Value) {
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        return;
    };
    runtime.block_on(async move {
        let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
            return;
        };
        let app = Router::new()
            .route(
                "/.well-known/oauth-authorization-server",
                get(move || async move { Json(metadata) }),
            )
            .route("/jwks", get(move || async move { Json(jwks) }));
        let _ = axum::serve(listener, app).await;
    });
}
