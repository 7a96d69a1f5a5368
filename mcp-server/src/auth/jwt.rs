//! JWT access tokens, verified against the keys the authorization server
//! publishes. The pure parts are in [`compact`] (taking a token apart),
//! [`claims`] (reading and checking claims), [`jwk`] (keys and signature
//! checks on `ring`) and [`keys`] (when to fetch keys again); this file
//! drives them and does the fetching.

pub(crate) mod claims;
pub(crate) mod compact;
pub(crate) mod jwk;
pub(crate) mod keys;

use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use reqwest::Url;

use super::discovery::{self, check_url};
use super::fetch::Fetcher;
use super::{AccessToken, ConfigError, Grant, Rejection, TokenError, TokenVerifier};
use crate::BoxFuture;
use compact::Algorithm;
use jwk::Jwk;
use keys::{KeySet, Lookup, Refresh};

/// Verifies JWT access tokens
/// ([RFC 9068](https://datatracker.ietf.org/doc/html/rfc9068)) issued by
/// configured authorization servers for one resource.
///
/// A token passes when:
///
/// - it is a compact JWS of at most 8 KiB (header at most 2 KiB), signed
///   with RS256/384/512, PS256/384/512, ES256, ES384 or EdDSA (Ed25519):
///   never `none`, never an HMAC algorithm, and only under a key whose
///   type and curve fit the algorithm;
/// - its `iss` is one of the configured issuers, exactly, and the
///   signature verifies under a key of that issuer's JWK Set;
/// - its `aud` (a string or an array) contains the resource URI exactly
///   ([RFC 8707](https://www.rfc-editor.org/rfc/rfc8707.html));
/// - `exp` is present and not past, `nbf` (if present) is reached and
///   `iat` (if present) is not in the future, all within the leeway;
/// - its header's `typ` is `at+jwt` (or `application/at+jwt`), as RFC 9068
///   §4 asks, so that an ID token or another JWT of the same issuer is not
///   taken for an access token; [`JwtVerifierBuilder::accept_plain_jwt`]
///   also takes `JWT` or no `typ`, for authorization servers that do not
///   stamp the type;
/// - `sub` is a non-empty string, and every claim read has its proper type; a
///   `cnf` holds nothing but a `jkt` (a key binding of RFC 9449, checked
///   by the [`ResourceServer`](super::ResourceServer) against the
///   request's DPoP proof).
///
/// Scopes come from `scope` (space-separated) or else `scp` (an array, or
/// a space-separated string); the client from `client_id` or else `azp`.
///
/// The JWK Set is found through the issuer's metadata (RFC 8414 at
/// `/.well-known/oauth-authorization-server`, then OpenID Connect
/// Discovery), whose `issuer` must be the configured one, unless
/// [`JwtVerifierBuilder::jwks_uri`] names it. Sets are cached, fetched
/// again for a key id they lack at most once per
/// [`refetch_interval`](JwtVerifierBuilder::refetch_interval), and
/// refreshed when older than [`max_key_age`](JwtVerifierBuilder::max_key_age).
/// Fetches go over https only (or http to a loopback address), follow no
/// redirects, time out, and read at most 256 KiB.
#[derive(Debug)]
pub struct JwtVerifier {
    audience: String,
    issuers: Vec<Issuer>,
    leeway: Duration,
    refresh: Refresh,
    fetcher: Fetcher,
    plain_jwt: bool,
}

/// One trusted authorization server and what is known of its keys.
#[derive(Debug)]
struct Issuer {
    id: String,
    url: Url,
    /// Configured, or found in the metadata (and forgotten when a fetch
    /// from it fails, so that the metadata is read again).
    jwks_uri: RwLock<Option<Url>>,
    configured_jwks: bool,
    keys: RwLock<KeySet>,
    /// Held while the set is fetched: one fetch at a time.
    fetching: tokio::sync::Mutex<()>,
}

impl JwtVerifier {
    /// A verifier for tokens issued by `issuers` for `audience` (the
    /// resource URI), with the default settings.
    ///
    /// # Errors
    ///
    /// As [`JwtVerifierBuilder::build`].
    pub fn new<S: Into<String>>(
        audience: impl Into<String>,
        issuers: impl IntoIterator<Item = S>,
    ) -> Result<Self, ConfigError> {
        JwtVerifier::builder(audience, issuers).build()
    }

    /// Starts configuring a verifier for tokens issued by `issuers` for
    /// `audience`.
    pub fn builder<S: Into<String>>(
        audience: impl Into<String>,
        issuers: impl IntoIterator<Item = S>,
    ) -> JwtVerifierBuilder {
        JwtVerifierBuilder {
            audience: audience.into(),
            issuers: issuers.into_iter().map(Into::into).collect(),
            jwks: Vec::new(),
            leeway: Duration::from_secs(60),
            refetch_interval: Duration::from_secs(30),
            max_key_age: Duration::from_secs(3600),
            timeout: Duration::from_secs(10),
            max_response_bytes: 256 * 1024,
            plain_jwt: false,
        }
    }

    async fn check(&self, token: &str) -> Result<Grant, TokenError> {
        let jws = compact::parse(token)?;
        let claims = claims::read(&jws.claims)?;
        let issuer = self
            .issuers
            .iter()
            .find(|issuer| issuer.id == claims.iss)
            .ok_or(Rejection::Issuer)?;
        let key = self.key(issuer, jws.kid.as_deref(), jws.alg).await?;
        if !key.verify(jws.alg, jws.signing_input, &jws.signature) {
            return Err(Rejection::Signature.into());
        }
        // Another JWT of the same issuer (an ID token) is not an access token.
        if !jws.access_token_type && !self.plain_jwt {
            return Err(Rejection::Malformed("the header's `typ` is not `at+jwt`").into());
        }
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        claims.check(&self.audience, now, self.leeway.as_secs())?;
        let mut grant = Grant::new(claims.iss, claims.sub)
            .with_scopes(claims.scopes)
            .with_expiry(UNIX_EPOCH + Duration::from_secs(claims.exp));
        if let Some(client_id) = claims.client_id {
            grant = grant.with_client_id(client_id);
        }
        if let Some(jkt) = claims.jkt {
            grant = grant.with_jkt(jkt);
        }
        Ok(grant)
    }

    /// The key of `issuer` for `kid` and `alg`, fetching the set when
    /// the key is unknown or the set old, as [`KeySet`] allows.
    async fn key(
        &self,
        issuer: &Issuer,
        kid: Option<&str>,
        alg: Algorithm,
    ) -> Result<Arc<Jwk>, TokenError> {
        match self.lookup(issuer, kid, alg) {
            Lookup::Found(key) => return Ok(key),
            Lookup::Missing => return Err(missing(issuer)),
            Lookup::Fetch => {}
        }
        let _fetching = issuer.fetching.lock().await;
        // Another request may have fetched while this one waited.
        if let Lookup::Fetch = self.lookup(issuer, kid, alg) {
            let fetched = self.fetch_keys(issuer).await;
            let now = Instant::now();
            if let Ok(mut keys) = issuer.keys.write() {
                match fetched {
                    Ok(fetched) => keys.loaded(fetched, now),
                    Err(_) => keys.failed(now),
                }
            }
        }
        let keys = issuer
            .keys
            .read()
            .map_err(|_| TokenError::Unavailable("the key cache is poisoned".to_owned()))?;
        match keys.find(kid, alg) {
            Some(key) => Ok(key),
            None => Err(missing_in(&keys)),
        }
    }

    fn lookup(&self, issuer: &Issuer, kid: Option<&str>, alg: Algorithm) -> Lookup {
        match issuer.keys.read() {
            Ok(keys) => keys.lookup(kid, alg, Instant::now(), self.refresh),
            Err(_) => Lookup::Missing,
        }
    }

    /// Fetches the key set of `issuer`, finding its URL first if need be.
    async fn fetch_keys(&self, issuer: &Issuer) -> Result<Vec<Jwk>, String> {
        let known = issuer.jwks_uri.read().ok().and_then(|uri| uri.clone());
        let uri = match known {
            Some(uri) => uri,
            None => {
                let uri = self.discover(issuer).await?;
                if let Ok(mut slot) = issuer.jwks_uri.write() {
                    *slot = Some(uri.clone());
                }
                uri
            }
        };
        let fetched = self
            .fetcher
            .json(&uri)
            .await
            .and_then(|document| jwk::key_set(&document).map_err(str::to_owned));
        if fetched.is_err() && !issuer.configured_jwks {
            if let Ok(mut slot) = issuer.jwks_uri.write() {
                *slot = None;
            }
        }
        fetched
    }

    /// The `jwks_uri` from the first metadata document of `issuer` that
    /// can be fetched and names `issuer` as its issuer.
    async fn discover(&self, issuer: &Issuer) -> Result<Url, String> {
        let mut problems = Vec::new();
        for url in discovery::metadata_urls(&issuer.url) {
            let found = self
                .fetcher
                .json(&url)
                .await
                .and_then(|metadata| discovery::jwks_uri(&metadata, &issuer.id));
            match found {
                Ok(uri) => return Ok(uri),
                Err(problem) => problems.push(problem),
            }
        }
        Err(format!(
            "no usable metadata for {}: {}",
            issuer.id,
            problems.join("; ")
        ))
    }
}

/// The error for a key not found without fetching.
fn missing(issuer: &Issuer) -> TokenError {
    match issuer.keys.read() {
        Ok(keys) => missing_in(&keys),
        Err(_) => TokenError::Unavailable("the key cache is poisoned".to_owned()),
    }
}

/// An unknown key is the token's fault once a set was loaded; before
/// that, the keys could not be had.
fn missing_in(keys: &KeySet) -> TokenError {
    if keys.ever_loaded() {
        Rejection::UnknownKey.into()
    } else {
        TokenError::Unavailable("the authorization server's keys could not be fetched".to_owned())
    }
}

impl TokenVerifier for JwtVerifier {
    fn verify<'a>(&'a self, token: AccessToken<'a>) -> BoxFuture<'a, Result<Grant, TokenError>> {
        Box::pin(self.check(token.expose()))
    }
}

/// Configures a [`JwtVerifier`]; see [`JwtVerifier::builder`].
#[derive(Clone, Debug)]
pub struct JwtVerifierBuilder {
    audience: String,
    issuers: Vec<String>,
    jwks: Vec<(String, String)>,
    leeway: Duration,
    refetch_interval: Duration,
    max_key_age: Duration,
    timeout: Duration,
    max_response_bytes: usize,
    plain_jwt: bool,
}

impl JwtVerifierBuilder {
    /// Also accepts tokens whose header says `typ: JWT`, or has no `typ`
    /// (default: only `at+jwt`, as RFC 9068 §4 asks). For an authorization
    /// server that issues JWT access tokens without stamping their type;
    /// the audience, issuer and signature checks still tell its access
    /// tokens apart only as far as it gives its other JWTs (ID tokens)
    /// another audience.
    pub fn accept_plain_jwt(mut self, accept: bool) -> Self {
        self.plain_jwt = accept;
        self
    }

    /// Takes the JWK Set of `issuer` from `uri` instead of finding it in
    /// the issuer's metadata.
    pub fn jwks_uri(mut self, issuer: impl Into<String>, uri: impl Into<String>) -> Self {
        self.jwks.push((issuer.into(), uri.into()));
        self
    }

    /// How far `exp`, `nbf` and `iat` may be off, for clock skew
    /// (default 60 s).
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// The least time between two fetches of one issuer's keys (default
    /// 30 s). A token naming an unknown key within it is refused without
    /// a fetch.
    pub fn refetch_interval(mut self, interval: Duration) -> Self {
        self.refetch_interval = interval;
        self
    }

    /// How old a key set may grow before a token prompts a refresh
    /// (default 1 hour); the old keys serve until it succeeds.
    pub fn max_key_age(mut self, age: Duration) -> Self {
        self.max_key_age = age;
        self
    }

    /// How long a fetch may take, connecting included (default 10 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The largest metadata or key set document read (default 256 KiB).
    pub fn max_response_bytes(mut self, bytes: usize) -> Self {
        self.max_response_bytes = bytes;
        self
    }

    /// The verifier.
    ///
    /// # Errors
    ///
    /// When there is no issuer, an issuer or JWK Set URI is not an https
    /// URL (or http to loopback), a JWK Set URI is given for an issuer not
    /// in the list, or the HTTP client cannot be built.
    pub fn build(self) -> Result<JwtVerifier, ConfigError> {
        if self.issuers.is_empty() {
            return Err(ConfigError::NoAuthorizationServer);
        }
        for (issuer, _) in &self.jwks {
            if !self.issuers.contains(issuer) {
                return Err(ConfigError::JwksUri(
                    issuer.clone(),
                    "names an issuer that is not trusted",
                ));
            }
        }
        let mut issuers = Vec::with_capacity(self.issuers.len());
        for id in self.issuers {
            let url =
                usable(&id).map_err(|why| ConfigError::AuthorizationServer(id.clone(), why))?;
            let jwks = match self.jwks.iter().find(|(issuer, _)| *issuer == id) {
                Some((_, uri)) => {
                    Some(usable(uri).map_err(|why| ConfigError::JwksUri(uri.clone(), why))?)
                }
                None => None,
            };
            issuers.push(Issuer {
                configured_jwks: jwks.is_some(),
                jwks_uri: RwLock::new(jwks),
                url,
                id,
                keys: RwLock::new(KeySet::default()),
                fetching: tokio::sync::Mutex::new(()),
            });
        }
        let fetcher =
            Fetcher::new(self.timeout, self.max_response_bytes).map_err(ConfigError::Client)?;
        Ok(JwtVerifier {
            audience: self.audience,
            issuers,
            leeway: self.leeway,
            refresh: Refresh {
                min_interval: self.refetch_interval,
                max_age: self.max_key_age,
            },
            fetcher,
            plain_jwt: self.plain_jwt,
        })
    }
}

/// `text` as a URL an authorization server may be reached at.
pub(crate) fn usable(text: &str) -> Result<Url, &'static str> {
    let url = Url::parse(text).map_err(|_| "it is not an absolute URL")?;
    check_url(&url)?;
    if url.query().is_some() {
        return Err("it has a query");
    }
    Ok(url)
}
