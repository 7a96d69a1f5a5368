//! The protected resource: its configuration, its metadata, and the one
//! call the transport makes per request to authorize it.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::http::HeaderMap;
use reqwest::Url;

use super::bearer::{self, Problem, Scheme};
use super::cache::{Digest, TokenCache};
use super::challenge::{self, Code, Refusal, Schemes};
use super::dpop::nonce::Nonces;
use super::dpop::proof::{self, Target};
use super::dpop::share::Shares;
use super::dpop::{self, DpopPolicy, ProofError};
use super::jwt::{usable, JwtVerifier};
use super::metadata::{well_known_path, Document};
use super::scope::{is_scope_token, join, ScopeRules, OFFLINE_ACCESS};
use super::{AccessToken, Grant, TokenError, TokenVerifier};
use crate::shared::{MemoryShared, SharedReplayGuard};

/// The namespace of DPoP proofs in the replay guard.
const DPOP_REPLAY: &str = "dpop";

/// How many proofs the default replay guard holds.
const DEFAULT_REPLAY_CAPACITY: usize = 100_000;

/// The part of the replay guard's capacity that one principal may fill
/// by default: a sixteenth.
const DEFAULT_SHARE_DIVISOR: usize = 16;

/// A server protected as an OAuth 2.1 resource server: which
/// authorization servers it trusts, which scopes it needs, how it checks
/// tokens, and the Protected Resource Metadata it publishes.
///
/// Give it to [`ServerBuilder::authorization`](crate::ServerBuilder::authorization);
/// the Streamable HTTP transport then serves the metadata and refuses
/// requests without a good token. See [the module](super) for an example.
pub struct ResourceServer {
    resource: String,
    metadata_url: String,
    metadata_path: String,
    document: Vec<u8>,
    required: Vec<String>,
    /// The `scope` of a 401 challenge.
    challenge_scope: String,
    rules: ScopeRules,
    verifier: Arc<dyn TokenVerifier>,
    cache: TokenCache,
    dpop: DpopPolicy,
    /// What proofs must name in `htu`: the resource.
    target: Target,
    nonces: Option<Nonces>,
    replay: SharedReplayGuard,
    /// Each principal's share of the proofs this replica records in
    /// `replay`.
    shares: Shares,
}

impl fmt::Debug for ResourceServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResourceServer")
            .field("resource", &self.resource)
            .field("metadata_url", &self.metadata_url)
            .field("required", &self.required)
            .field("cache", &self.cache)
            .field("dpop", &self.dpop)
            .field("dpop_replay_share", &self.shares.share())
            .finish_non_exhaustive()
    }
}

impl ResourceServer {
    /// A resource server for the canonical URI `resource` (the URL clients
    /// use to reach the MCP endpoint, such as
    /// `https://notes.example.com/mcp`) trusting the authorization servers
    /// `authorization_servers` (issuer identifiers), checking JWT access
    /// tokens with a [`JwtVerifier`] and the default settings.
    ///
    /// # Errors
    ///
    /// As [`ResourceServerBuilder::build`].
    pub fn new<S: Into<String>>(
        resource: impl Into<String>,
        authorization_servers: impl IntoIterator<Item = S>,
    ) -> Result<Self, ConfigError> {
        ResourceServer::builder(resource, authorization_servers).build()
    }

    /// Starts configuring a resource server; see [`ResourceServer::new`].
    pub fn builder<S: Into<String>>(
        resource: impl Into<String>,
        authorization_servers: impl IntoIterator<Item = S>,
    ) -> ResourceServerBuilder {
        ResourceServerBuilder {
            resource: resource.into(),
            authorization_servers: authorization_servers.into_iter().map(Into::into).collect(),
            scopes_supported: Vec::new(),
            required: Vec::new(),
            implies: Vec::new(),
            resource_name: None,
            resource_documentation: None,
            verifier: None,
            cache_capacity: 10_000,
            cache_max_age: Duration::from_secs(300),
            dpop: DpopPolicy::default(),
            dpop_nonce: None,
            replay: None,
            dpop_replay_share: None,
        }
    }

    /// The canonical URI of the resource, which tokens must name in `aud`.
    pub fn resource(&self) -> &str {
        &self.resource
    }

    /// The absolute URL of the Protected Resource Metadata, sent in every
    /// challenge as `resource_metadata`.
    pub fn metadata_url(&self) -> &str {
        &self.metadata_url
    }

    /// The path of [`ResourceServer::metadata_url`] on this server: the
    /// well-known prefix followed by the resource's path.
    pub fn metadata_path(&self) -> &str {
        &self.metadata_path
    }

    /// The Protected Resource Metadata document, as JSON.
    pub fn metadata(&self) -> &[u8] {
        &self.document
    }

    /// The scopes every request needs.
    pub fn required_scopes(&self) -> &[String] {
        &self.required
    }

    /// Authorizes one request from its method, headers and query string:
    /// finds the access token, checks the DPoP proof of a DPoP-bound one,
    /// verifies the token (or finds it among the tokens verified before),
    /// and checks the scopes every request needs.
    ///
    /// # Errors
    ///
    /// The [`Refusal`] to answer with: 400 for a malformed request (a
    /// token in the query string or a form body, two `Authorization`
    /// headers), 401 for a missing or bad token or DPoP proof (with a
    /// nonce to use, when the server asks for them), 403 for a token
    /// without the required scopes, 429 for a DPoP request whose
    /// principal holds its whole
    /// [share of the recorded proofs](ResourceServerBuilder::dpop_replay_share)
    /// (with the seconds to wait), 503 when tokens cannot be verified or
    /// proofs recorded now.
    pub async fn authorize(
        &self,
        method: &str,
        headers: &HeaderMap,
        query: Option<&str>,
    ) -> Result<Arc<Grant>, Refusal> {
        let now = SystemTime::now();
        let refusal = match self.check(method, headers, query, now).await {
            Ok(grant) => return Ok(grant),
            Err(refusal) => refusal,
        };
        // A client that is told to send DPoP proofs gets the nonce to put
        // in them at once.
        match &self.nonces {
            Some(nonces) if refusal.status() == 401 => {
                Err(refusal.with_nonce(nonces.current(seconds(now))))
            }
            _ => Err(refusal),
        }
    }

    async fn check(
        &self,
        method: &str,
        headers: &HeaderMap,
        query: Option<&str>,
        now: SystemTime,
    ) -> Result<Arc<Grant>, Refusal> {
        let (scheme, token) =
            bearer::token(headers, query).map_err(|problem| self.problem(problem))?;
        let schemes = match scheme {
            Scheme::Bearer => Schemes::BEARER,
            Scheme::Dpop => Schemes::DPOP,
        };
        let proof = match (scheme, self.dpop) {
            (Scheme::Dpop, DpopPolicy::BearerOnly) => return Err(self.problem(Problem::Missing)),
            (Scheme::Bearer, DpopPolicy::Required) => {
                return Err(self.refuse(
                    Schemes::DPOP,
                    Code::InvalidToken,
                    "this server takes DPoP-bound tokens only, in the DPoP scheme",
                ))
            }
            (Scheme::Bearer, _) => None,
            (Scheme::Dpop, _) => {
                let request = proof::Request {
                    method,
                    token: token.expose(),
                    now: seconds(now),
                };
                let checked = dpop::header(headers).and_then(|proof| {
                    proof::check(proof, &self.target, self.nonces.as_ref(), request)
                });
                Some(checked.map_err(|error| self.bad_proof(error))?)
            }
        };
        let grant = self.verified(token, schemes, now).await?;
        let bound = match (&proof, grant.jkt()) {
            (None, None) => true,
            (Some(proof), Some(jkt)) => proof.jkt == jkt,
            (None, Some(_)) => {
                return Err(self.refuse(
                    schemes,
                    Code::InvalidToken,
                    "the token is bound to a key: send it in the DPoP scheme with a proof made with that key",
                ))
            }
            (Some(_), None) => false,
        };
        if !bound {
            return Err(self.refuse(
                schemes,
                Code::InvalidToken,
                "the token is not bound to the DPoP proof's key",
            ));
        }
        if let Some(proof) = proof {
            // Recorded last, so that requests refused anyway fill nothing,
            // and within the principal's share, taken first, so that one
            // principal cannot fill the guard and have everyone refused.
            // The place is given back unless the proof is recorded.
            let place = self
                .shares
                .take(
                    &grant.shared_principal(),
                    proof.accepted_until,
                    seconds(now),
                )
                .map_err(|full| challenge::over_share(self.shares.share(), full.retry_after))?;
            let until = UNIX_EPOCH + Duration::from_secs(proof.accepted_until);
            match self
                .replay
                .record(DPOP_REPLAY, &proof.replay_id, until, now)
                .await
            {
                Ok(true) => place.keep(),
                Ok(false) => return Err(self.bad_proof(ProofError::Replayed)),
                Err(_) => return Err(challenge::unavailable()),
            }
        }
        self.check_required(grant)
    }

    /// The grant of `token`, from the cache or the verifier; a bad token
    /// is challenged for `schemes`.
    async fn verified(
        &self,
        token: AccessToken<'_>,
        schemes: Schemes,
        now: SystemTime,
    ) -> Result<Arc<Grant>, Refusal> {
        let digest = self.cache.enabled().then(|| Digest::of(token.expose()));
        if let Some(digest) = &digest {
            let cached = self.cache.get(digest, now);
            crate::observe::token_cache(cached.is_some());
            if let Some(grant) = cached {
                return Ok(grant);
            }
        }
        let grant = match self.verifier.verify(token).await {
            Ok(grant) => Arc::new(grant.with_rules(&self.rules)),
            Err(TokenError::Invalid(rejection)) => {
                return Err(self.refuse(schemes, Code::InvalidToken, &rejection.to_string()))
            }
            Err(TokenError::Unavailable(_)) => return Err(challenge::unavailable()),
        };
        if let Some(digest) = digest {
            self.cache.insert(digest, grant.clone(), now);
        }
        Ok(grant)
    }

    /// The schemes a request is challenged for when its own is not known
    /// or not accepted: `DPoP` alone when bearer tokens are refused.
    fn token_schemes(&self) -> Schemes {
        match self.dpop {
            DpopPolicy::Required => Schemes::DPOP,
            _ => Schemes::BEARER,
        }
    }

    fn refuse(&self, schemes: Schemes, code: Code, why: &str) -> Refusal {
        challenge::refuse(
            schemes,
            code,
            why,
            &self.challenge_scope,
            &self.metadata_url,
        )
    }

    fn bad_proof(&self, error: ProofError) -> Refusal {
        let code = match error {
            ProofError::Nonce => Code::UseDpopNonce,
            _ => Code::InvalidDpopProof,
        };
        self.refuse(Schemes::DPOP, code, &error.to_string())
    }

    fn problem(&self, problem: Problem) -> Refusal {
        match problem {
            Problem::Missing => {
                let schemes = match self.dpop {
                    DpopPolicy::BearerOnly => Schemes::BEARER,
                    DpopPolicy::Accepted => Schemes::BOTH,
                    DpopPolicy::Required => Schemes::DPOP,
                };
                challenge::missing(schemes, &self.challenge_scope, &self.metadata_url)
            }
            Problem::Request(why) => challenge::refuse(
                self.token_schemes(),
                Code::InvalidRequest,
                why,
                "",
                &self.metadata_url,
            ),
            Problem::Token(why) => self.refuse(self.token_schemes(), Code::InvalidToken, why),
        }
    }

    fn check_required(&self, grant: Arc<Grant>) -> Result<Arc<Grant>, Refusal> {
        match self.scope_needed(&grant, &[]) {
            None => Ok(grant),
            Some(scope) => Err(self.insufficient_scope(&grant, &scope)),
        }
    }

    /// `None` when `grant` has every required scope and every one of
    /// `scopes`; otherwise the `scope` to challenge for: all of them, in
    /// one challenge, so that one step-up suffices.
    pub(crate) fn scope_needed(&self, grant: &Grant, scopes: &[&str]) -> Option<String> {
        let required = self.required.iter().map(String::as_str);
        if required
            .clone()
            .chain(scopes.iter().copied())
            .all(|s| grant.allows(s))
        {
            return None;
        }
        Some(join(required.chain(scopes.iter().copied())))
    }

    /// The refusal of a call whose `grant` lacks `scope` (as
    /// [`ResourceServer::scope_needed`] spells it), in the scheme the
    /// grant's token came in.
    pub(crate) fn insufficient_scope(&self, grant: &Grant, scope: &str) -> Refusal {
        let schemes = match grant.jkt() {
            Some(_) => Schemes::DPOP,
            None => Schemes::BEARER,
        };
        challenge::insufficient_scope(schemes, scope, &self.metadata_url)
    }
}

/// Configures a [`ResourceServer`]; see [`ResourceServer::builder`].
pub struct ResourceServerBuilder {
    resource: String,
    authorization_servers: Vec<String>,
    scopes_supported: Vec<String>,
    required: Vec<String>,
    implies: Vec<(String, Vec<String>)>,
    resource_name: Option<String>,
    resource_documentation: Option<String>,
    verifier: Option<Arc<dyn TokenVerifier>>,
    cache_capacity: usize,
    cache_max_age: Duration,
    dpop: DpopPolicy,
    dpop_nonce: Option<Vec<u8>>,
    replay: Option<SharedReplayGuard>,
    dpop_replay_share: Option<usize>,
}

impl fmt::Debug for ResourceServerBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResourceServerBuilder")
            .field("resource", &self.resource)
            .field("authorization_servers", &self.authorization_servers)
            .finish_non_exhaustive()
    }
}

impl ResourceServerBuilder {
    /// The scopes the metadata lists in `scopes_supported`: the few a
    /// client needs for the basic use of the server (more are asked for
    /// by step-up, when a call needs them). Challenges without another
    /// scope to name ask for these.
    pub fn scopes_supported<S: Into<String>>(
        mut self,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        self.scopes_supported = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Scopes every request needs, whatever it calls. A token without
    /// them is refused with 403 `insufficient_scope` before its request is
    /// read; challenges for a missing token ask for them.
    pub fn require_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.required = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Declares that a token granted `broad` may also do what each of
    /// `narrower` allows (`notes:write` implies `notes:read`). Implication
    /// is transitive.
    pub fn implies<S: Into<String>>(
        mut self,
        broad: impl Into<String>,
        narrower: impl IntoIterator<Item = S>,
    ) -> Self {
        self.implies
            .push((broad.into(), narrower.into_iter().map(Into::into).collect()));
        self
    }

    /// A human-readable name for the metadata's `resource_name`.
    pub fn resource_name(mut self, name: impl Into<String>) -> Self {
        self.resource_name = Some(name.into());
        self
    }

    /// A page about the server, for the metadata's
    /// `resource_documentation`.
    pub fn resource_documentation(mut self, url: impl Into<String>) -> Self {
        self.resource_documentation = Some(url.into());
        self
    }

    /// Checks tokens with `verifier` instead of the default
    /// [`JwtVerifier`] (for example, one that introspects opaque tokens).
    pub fn verifier(mut self, verifier: impl TokenVerifier) -> Self {
        self.verifier = Some(Arc::new(verifier));
        self
    }

    /// How many verified tokens are remembered (default 10,000) and for
    /// how long at most (default 5 minutes; never past a token's expiry).
    /// A capacity of 0 turns the cache off, so every request is verified.
    pub fn token_cache(mut self, capacity: usize, max_age: Duration) -> Self {
        self.cache_capacity = capacity;
        self.cache_max_age = max_age;
        self
    }

    /// Whether DPoP-bound tokens (RFC 9449) are taken: not at all (the
    /// default), besides bearer tokens, or instead of them. A DPoP-bound
    /// token comes in `Authorization: DPoP`, with a proof in the `DPoP`
    /// header that the key named by the token's `cnf.jkt` made for this
    /// request: its method, the resource URL as `htu`, a hash of the
    /// token, a unique `jti`, and made within the last five minutes.
    /// Proofs may be signed with the algorithms access tokens may (never
    /// `none` or HMAC). Each `jti` is recorded in the
    /// [`replay_guard`](Self::replay_guard) until the proof expires,
    /// within the principal's [share](Self::dpop_replay_share) of it.
    pub fn dpop(mut self, policy: DpopPolicy) -> Self {
        self.dpop = policy;
        self
    }

    /// Asks for a server nonce in every DPoP proof (RFC 9449, section 9):
    /// a proof without the current one is answered with 401
    /// `use_dpop_nonce` and a `DPoP-Nonce` header to retry with. Nonces
    /// are an HMAC of the time under `secret` (at least 32 random bytes),
    /// so every replica given the same secret accepts those of the
    /// others; one lasts five to ten minutes.
    pub fn dpop_nonce(mut self, secret: impl Into<Vec<u8>>) -> Self {
        self.dpop_nonce = Some(secret.into());
        self
    }

    /// Where the `jti` of each DPoP proof is recorded, so that a proof is
    /// accepted once: a guard on a [`SharedStore`](crate::shared::SharedStore)
    /// every replica reaches (`RedisShared`, with the `redis` feature)
    /// refuses on every replica a proof one has seen. By default
    /// the record is in this process's memory, for 100,000 proofs.
    ///
    /// A full guard cannot record proofs, so every DPoP request is then
    /// refused with 503; each principal may fill only its
    /// [share](Self::dpop_replay_share) of it.
    pub fn replay_guard(mut self, guard: SharedReplayGuard) -> Self {
        self.replay = Some(guard);
        self
    }

    /// How many DPoP proofs one principal (the token's
    /// [`Grant::principal`]) may have recorded at once in the
    /// [replay guard](Self::replay_guard) by this replica; each stays
    /// recorded until the proof expires, five minutes after its `iat`. A
    /// DPoP request of a principal that holds its whole share is refused
    /// with 429 and `Retry-After` (the seconds until its oldest proof
    /// expires), and nothing is recorded for it, while the other
    /// principals are served: one principal sending many requests cannot
    /// fill the guard, which would refuse every DPoP request.
    ///
    /// By default a sixteenth of what the guard's store holds at most
    /// ([`SharedStore::capacity`](crate::shared::SharedStore::capacity)):
    /// 6,250 for the default guard of 100,000 proofs, 1,000 for a guard on
    /// `MemoryShared::new(16_000)`, and 6,250 too when the store has no
    /// bound of its own (Redis); at least 1. Give more to a principal that
    /// rightly sends more requests than that in five minutes through one
    /// replica (a busy service account), or less, with a small guard, to
    /// leave room for more principals; 0 is taken as 1. Shares are kept in
    /// this process's memory and counted per replica: with a guard the
    /// replicas share, a principal may fill its share on each of them, so
    /// size the guard for that, or lower the share.
    pub fn dpop_replay_share(mut self, proofs: usize) -> Self {
        self.dpop_replay_share = Some(proofs);
        self
    }

    /// The resource server.
    ///
    /// # Errors
    ///
    /// When the resource is not an absolute `https` URI (or `http` to a
    /// loopback address) without query, fragment or credentials; when
    /// there is no authorization server or one is not such a URL; when a
    /// scope is not an RFC 6749 scope token or is `offline_access`; when
    /// the DPoP nonce secret is shorter than 32 bytes; or when the
    /// default verifier cannot be built.
    pub fn build(self) -> Result<ResourceServer, ConfigError> {
        let resource_url = resource_url(&self.resource)?;
        let nonces = match &self.dpop_nonce {
            None => None,
            Some(secret) => Some(Nonces::new(secret).ok_or(ConfigError::DpopNonceSecret)?),
        };
        if self.authorization_servers.is_empty() {
            return Err(ConfigError::NoAuthorizationServer);
        }
        for server in &self.authorization_servers {
            usable(server).map_err(|why| ConfigError::AuthorizationServer(server.clone(), why))?;
        }
        let implied = self
            .implies
            .iter()
            .flat_map(|(broad, narrower)| std::iter::once(broad).chain(narrower));
        for scope in self
            .scopes_supported
            .iter()
            .chain(&self.required)
            .chain(implied)
        {
            if !is_scope_token(scope) {
                return Err(ConfigError::Scope(scope.clone()));
            }
            if scope == OFFLINE_ACCESS {
                return Err(ConfigError::OfflineAccess);
            }
        }
        let mut rules = ScopeRules::default();
        for (broad, narrower) in &self.implies {
            rules.add(broad, narrower);
        }
        let metadata_path = well_known_path(resource_url.path());
        let metadata_url = format!(
            "{}{metadata_path}",
            resource_url.origin().ascii_serialization()
        );
        let document = Document {
            resource: &self.resource,
            authorization_servers: &self.authorization_servers,
            scopes_supported: &self.scopes_supported,
            resource_name: self.resource_name.as_deref(),
            resource_documentation: self.resource_documentation.as_deref(),
            dpop: self.dpop,
        };
        // Encoding a `Value` cannot fail: its keys are strings.
        let document = serde_json::to_vec(&document.to_value()).unwrap_or_default();
        let challenge_scope = match self.required.is_empty() {
            false => join(self.required.iter().map(String::as_str)),
            true => join(self.scopes_supported.iter().map(String::as_str)),
        };
        let replay = self.replay.unwrap_or_else(|| {
            SharedReplayGuard::new(Arc::new(MemoryShared::new(DEFAULT_REPLAY_CAPACITY)))
        });
        let share = self.dpop_replay_share.unwrap_or_else(|| {
            replay.capacity().unwrap_or(DEFAULT_REPLAY_CAPACITY) / DEFAULT_SHARE_DIVISOR
        });
        let verifier = match self.verifier {
            Some(verifier) => verifier,
            None => Arc::new(JwtVerifier::new(
                self.resource.clone(),
                self.authorization_servers.iter().cloned(),
            )?),
        };
        Ok(ResourceServer {
            resource: self.resource,
            metadata_url,
            metadata_path,
            document,
            required: self.required,
            challenge_scope,
            rules,
            verifier,
            cache: TokenCache::new(self.cache_capacity, self.cache_max_age),
            dpop: self.dpop,
            target: Target::of(&resource_url),
            nonces,
            replay,
            shares: Shares::new(share),
        })
    }
}

/// Seconds since the epoch.
fn seconds(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// The resource URI, checked: absolute `https` (or `http` to loopback),
/// with a host, and nothing that cannot go into a quoted header value.
fn resource_url(resource: &str) -> Result<Url, ConfigError> {
    let refuse = |why| ConfigError::Resource(resource.to_owned(), why);
    if !resource
        .bytes()
        .all(|b| matches!(b, 0x21 | 0x23..=0x5b | 0x5d..=0x7e))
    {
        return Err(refuse("it holds spaces, quotes, backslashes or non-ASCII"));
    }
    let url = usable(resource).map_err(refuse)?;
    // The metadata is routed at a path made from this one: a segment the
    // router reads as a capture could not be served.
    if url
        .path()
        .split('/')
        .any(|segment| segment.starts_with(':') || segment.starts_with('*'))
    {
        return Err(refuse("a segment of its path starts with `:` or `*`"));
    }
    Ok(url)
}

/// Why a [`ResourceServer`] or [`JwtVerifier`] could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConfigError {
    /// The resource URI (given) cannot be used, for the reason given.
    Resource(String, &'static str),
    /// No authorization server was given.
    NoAuthorizationServer,
    /// An authorization server (given) cannot be used, for the reason
    /// given.
    AuthorizationServer(String, &'static str),
    /// A JWK Set URI (given) cannot be used, for the reason given.
    JwksUri(String, &'static str),
    /// A scope (given) is not an RFC 6749 scope token.
    Scope(String),
    /// `offline_access` was listed: it asks for a refresh token and grants
    /// nothing at a resource server, so it is neither advertised nor
    /// required.
    OfflineAccess,
    /// The HTTP client for fetching keys could not be built.
    Client(String),
    /// The secret for DPoP nonces is shorter than 32 bytes.
    DpopNonceSecret,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::Resource(uri, why) => {
                write!(f, "the resource `{uri}` cannot be used: {why}")
            }
            ConfigError::NoAuthorizationServer => f.write_str("no authorization server is given"),
            ConfigError::AuthorizationServer(url, why) => {
                write!(f, "the authorization server `{url}` cannot be used: {why}")
            }
            ConfigError::JwksUri(uri, why) => {
                write!(f, "the JWK Set URI `{uri}` cannot be used: {why}")
            }
            ConfigError::Scope(scope) => write!(f, "`{scope}` is not a scope token"),
            ConfigError::OfflineAccess => {
                f.write_str("`offline_access` grants nothing at a resource server; leave it out")
            }
            ConfigError::Client(why) => f.write_str(why),
            ConfigError::DpopNonceSecret => {
                f.write_str("the secret for DPoP nonces must be at least 32 bytes")
            }
        }
    }
}

impl std::error::Error for ConfigError {}

#[cfg(test)]
mod tests {
    use super::*;

    const AS: &str = "https://auth.example.com";

    #[test]
    fn metadata_location_follows_the_resource() {
        let table = [
            (
                "https://notes.example.com/mcp",
                "https://notes.example.com/.well-known/oauth-protected-resource/mcp",
            ),
            (
                "https://Notes.Example.com:8443/public/mcp",
                "https://notes.example.com:8443/.well-known/oauth-protected-resource/public/mcp",
            ),
            (
                "https://notes.example.com",
                "https://notes.example.com/.well-known/oauth-protected-resource",
            ),
            (
                "http://127.0.0.1:3000/mcp",
                "http://127.0.0.1:3000/.well-known/oauth-protected-resource/mcp",
            ),
        ];
        for (resource, url) in table {
            let server = ResourceServer::new(resource, [AS]).expect("builds");
            assert_eq!(server.metadata_url(), url);
            assert_eq!(server.resource(), resource, "kept as given");
        }
    }

    #[test]
    fn configuration_mistakes() {
        let kind = |error: ConfigError| match error {
            ConfigError::Resource(..) => "resource",
            ConfigError::NoAuthorizationServer => "no server",
            ConfigError::AuthorizationServer(..) => "server",
            ConfigError::Scope(_) => "scope",
            ConfigError::OfflineAccess => "offline_access",
            _ => "other",
        };
        let ok = "https://notes.example.com/mcp";
        // Resource, authorization servers, scopes, the mistake found.
        type Case = (
            &'static str,
            &'static [&'static str],
            &'static [&'static str],
            Option<&'static str>,
        );
        let table: [Case; 12] = [
            (ok, &[AS], &["notes:read"], None),
            ("notes.example.com", &[AS], &[], Some("resource")),
            ("http://notes.example.com/mcp", &[AS], &[], Some("resource")),
            (
                "https://notes.example.com/mcp#x",
                &[AS],
                &[],
                Some("resource"),
            ),
            (
                "https://notes.example.com/mcp?x=1",
                &[AS],
                &[],
                Some("resource"),
            ),
            (
                "https://notes.example.com/m\"cp",
                &[AS],
                &[],
                Some("resource"),
            ),
            (
                "https://notes.example.com/:mcp",
                &[AS],
                &[],
                Some("resource"),
            ),
            (ok, &[], &[], Some("no server")),
            (ok, &["http://auth.example.com"], &[], Some("server")),
            (ok, &["https://auth.example.com?x"], &[], Some("server")),
            (ok, &[AS], &["notes read"], Some("scope")),
            (ok, &[AS], &["offline_access"], Some("offline_access")),
        ];
        for (resource, servers, scopes, expected) in table {
            let built = ResourceServer::builder(resource, servers.iter().copied())
                .scopes_supported(scopes.iter().copied())
                .build();
            assert_eq!(
                built.err().map(kind),
                expected,
                "{resource} {servers:?} {scopes:?}"
            );
        }
        let implied = ResourceServer::builder(ok, [AS])
            .implies("a", ["b c"])
            .build()
            .err();
        assert_eq!(implied, Some(ConfigError::Scope("b c".into())));
    }

    #[test]
    fn scopes_needed_name_everything_the_call_needs() {
        let server = ResourceServer::builder("https://notes.example.com/mcp", [AS])
            .require_scopes(["notes:read"])
            .implies("notes:write", ["notes:read"])
            .build()
            .expect("builds");
        let reader = Grant::new(AS, "a")
            .with_scopes(["notes:read"])
            .with_rules(&server.rules);
        let writer = Grant::new(AS, "b")
            .with_scopes(["notes:write"])
            .with_rules(&server.rules);
        assert_eq!(server.scope_needed(&reader, &[]), None);
        assert_eq!(
            server.scope_needed(&reader, &["notes:write"]).as_deref(),
            Some("notes:read notes:write")
        );
        assert_eq!(
            server.scope_needed(&writer, &["notes:write", "notes:read"]),
            None
        );
        let nobody = Grant::new(AS, "c");
        assert_eq!(
            server.scope_needed(&nobody, &[]).as_deref(),
            Some("notes:read")
        );
    }

    #[test]
    fn the_dpop_replay_share_is_a_sixteenth_of_the_guard_unless_set() {
        let guard = |capacity| SharedReplayGuard::new(Arc::new(MemoryShared::new(capacity)));
        let share =
            |builder: ResourceServerBuilder| builder.build().expect("builds").shares.share();
        let builder = || ResourceServer::builder("https://notes.example.com/mcp", [AS]);
        assert_eq!(share(builder()), 6_250, "the default guard's");
        assert_eq!(share(builder().replay_guard(guard(16_000))), 1_000);
        assert_eq!(share(builder().replay_guard(guard(8))), 1, "at least 1");
        assert_eq!(share(builder().dpop_replay_share(3)), 3);
        assert_eq!(
            share(builder().replay_guard(guard(16_000)).dpop_replay_share(0)),
            1
        );
    }

    #[test]
    fn the_metadata_document() {
        let server = ResourceServer::builder("https://notes.example.com/mcp", [AS])
            .scopes_supported(["notes:read", "notes:write"])
            .resource_name("Notes")
            .build()
            .expect("builds");
        let document: serde_json::Value = serde_json::from_slice(server.metadata()).expect("JSON");
        assert_eq!(
            document,
            serde_json::json!({
                "resource": "https://notes.example.com/mcp",
                "authorization_servers": [AS],
                "scopes_supported": ["notes:read", "notes:write"],
                "bearer_methods_supported": ["header"],
                "resource_name": "Notes",
            })
        );
    }
}
