//! The OAuth client of one MCP server: it holds the server's tokens, puts
//! the access token on every request, refreshes it before it expires, and
//! when the server refuses a request, finds out why and gets a token that
//! will do, by the rules of the sans-IO modules beside it.
//!
//! The transport calls it; nothing else does. Flows are serialised: when
//! several requests are refused at once, the first authorizes and the
//! others retry with its token.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::{SystemTime, UNIX_EPOCH};

use reqwest::Url;
use serde_json::json;

use super::assertion::AssertionKey;
use super::challenge::BearerChallenge;
use super::discovery::{self, UrlPolicy};
use super::dpop::{DpopKey, DpopUse};
use super::error::{neutral, AuthError};
use super::fetch::{Document, Fetcher, Lookup, SystemLookup};
use super::flow::{self, ClientAuth, ClientIdentity, Expected, TokenRequest};
use super::login::{Login, LoginPrompt};
use super::metadata::{
    ErrorResponse, RegistrationResponse, ResourceMetadata, ServerMetadata, TokenResponse,
};
use super::pkce::{random_text, Pkce};
use super::secret::Secret;
use super::source::TokenSource;
use super::store::{CredentialStore, RegisteredClient, Tokens};

/// How many authorizations one request may go through.
pub const MAX_AUTHORIZATIONS: usize = 3;

/// How many times one request may step up its scopes.
pub const MAX_STEP_UPS: usize = 2;

/// How many times one request is sent again with a nonce the MCP server
/// asked for (RFC 9449 §9).
pub const MAX_NONCE_RETRIES: usize = 2;

/// How long before its expiry an access token is refreshed, in seconds: a
/// minute, or a quarter of its lifetime when that is shorter.
const REFRESH_MARGIN: u64 = 60;

/// The shortest time between a token's issue and its first refresh, in
/// seconds: a server that gives tokens an `expires_in` of 0 (or a few
/// seconds) would otherwise have every request refresh first.
const MIN_REFRESH_INTERVAL: u64 = 5;

/// How long proactive refreshes pause after one failed, in seconds: 5,
/// doubling with each failure in a row, at most 5 minutes.
fn refresh_backoff(failures: u32) -> u64 {
    5u64.saturating_mul(1 << failures.min(6)).min(300)
}

/// How many step-ups for the same scopes the server may ask for within
/// [`STEP_UP_WINDOW`] before the client stops asking the person.
const MAX_STEP_UPS_PER_SCOPES: usize = 2;

/// The window of [`MAX_STEP_UPS_PER_SCOPES`], in seconds.
const STEP_UP_WINDOW: u64 = 600;

/// The step-ups asked for one set of scopes.
#[derive(Debug, Clone, Copy)]
struct StepUps {
    /// When the first of the window was made.
    since: u64,
    count: usize,
}

/// Whether `tokens` are due for a refresh at `now`.
fn due(tokens: &Tokens, now: u64) -> bool {
    let Some(expires) = tokens.expires_at else {
        return false;
    };
    if tokens
        .issued_at
        .is_some_and(|issued| now < issued.saturating_add(MIN_REFRESH_INTERVAL))
    {
        return false;
    }
    let lifetime = tokens
        .issued_at
        .map_or(u64::MAX, |issued| expires.saturating_sub(issued));
    let margin = REFRESH_MARGIN.min(lifetime / 4);
    expires <= now.saturating_add(margin)
}

/// How the client gets its tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Grant {
    /// A person authorizes in a browser (authorization code with PKCE).
    #[default]
    AuthorizationCode,
    /// The client acts in its own name with its credentials
    /// (`client_credentials`), for hosts that run without a person.
    ClientCredentials,
    /// The client presents a JWT its platform issued to it, such as a
    /// Kubernetes service account token (the JWT bearer grant of RFC 7523
    /// §2.1, for workload identity federation), from
    /// [`OAuthSettings::assertion`].
    JwtBearer,
    /// Enterprise-managed authorization: the person's ID token from the
    /// company's identity provider is exchanged there for an ID-JAG
    /// (RFC 8693), which the authorization server takes as a JWT bearer
    /// grant; see [`OAuthSettings::enterprise`].
    Enterprise,
}

/// The identity provider of enterprise-managed authorization, and the
/// host's credentials there.
#[derive(Debug, Clone)]
pub struct EnterpriseSettings {
    /// The identity provider's token endpoint, where the ID token is
    /// exchanged.
    pub token_endpoint: String,
    /// The host's client id at the identity provider.
    pub client_id: String,
    /// Its secret there, for a confidential client.
    pub client_secret: Option<Secret>,
    /// Where the person's ID token comes from (the host's single sign-on
    /// with the identity provider leaves it there).
    pub id_token: TokenSource,
}

/// How one server's OAuth client behaves. The defaults suit a host
/// with a person at it: no pre-registered client, so Client ID Metadata
/// Documents or dynamic registration are used, and scopes chosen by the
/// spec's strategy.
#[derive(Debug, Clone)]
pub struct OAuthSettings {
    /// A pre-registered client id, used before anything else.
    pub client_id: Option<String>,
    /// Its secret, for a confidential client.
    pub client_secret: Option<Secret>,
    /// The issuer the pre-registered client belongs to; when the server
    /// names another, the flow stops rather than present the credentials
    /// there. A client secret or an assertion key needs it:
    /// [`OAuthClient::new`] refuses them without an issuer, so that no
    /// server can have them sent to an authorization server of its
    /// choosing. A public pre-registered client id without an issuer is
    /// presented to whichever authorization server the server names.
    pub issuer: Option<String>,
    /// How a pre-registered client authenticates at the token endpoint;
    /// by default Basic or the form for a secret (as the server supports),
    /// an assertion for a key, none otherwise.
    pub auth_method: Option<ClientAuth>,
    /// The key of a `private_key_jwt` client.
    pub assertion_key: Option<Arc<AssertionKey>>,
    /// The HTTPS URL of the host's Client ID Metadata Document, used as
    /// the client id with servers that support such documents.
    pub client_metadata_url: Option<String>,
    /// Scopes to ask for besides those the server names.
    pub scopes: Vec<String>,
    /// How tokens are obtained.
    pub grant: Grant,
    /// The name shown on consent pages, sent in dynamic registration.
    pub client_name: String,
    /// Whether `http` to loopback addresses may be used for the flow's
    /// URLs; `None` allows it exactly when the MCP server itself is a
    /// loopback `http` URL.
    pub allow_loopback_http: Option<bool>,
    /// The redirect URI to use when none was registered before: for a
    /// pre-registered client whose redirect URI is fixed.
    pub redirect_uri: Option<String>,
    /// Hosts the flow may reach whatever address they resolve to, private
    /// ones included (see [`UrlPolicy::allowed_hosts`]).
    pub allowed_hosts: Vec<String>,
    /// How the flow resolves names; the system's resolver by default.
    pub lookup: Option<Arc<dyn Lookup>>,
    /// Whether a server that publishes no authorization metadata at all
    /// may be authorized at the 2025-03-26 default endpoints of its
    /// origin (`/authorize`, `/token`, `/register`). Off by default:
    /// without metadata nothing says the server supports PKCE, and the
    /// current spec has clients refuse then. A person who knows the
    /// server turns it on for that server alone.
    pub legacy_endpoint_fallback: bool,
    /// When tokens are bound to a key of the host's (DPoP, RFC 9449).
    pub dpop: DpopUse,
    /// The JWT of the [`Grant::JwtBearer`] grant.
    pub assertion: Option<TokenSource>,
    /// The identity provider of [`Grant::Enterprise`].
    pub enterprise: Option<EnterpriseSettings>,
}

impl Default for OAuthSettings {
    fn default() -> Self {
        Self {
            client_id: None,
            client_secret: None,
            issuer: None,
            auth_method: None,
            assertion_key: None,
            client_metadata_url: None,
            scopes: Vec::new(),
            grant: Grant::AuthorizationCode,
            client_name: String::from("mcp-host"),
            allow_loopback_http: None,
            redirect_uri: None,
            allowed_hosts: Vec::new(),
            lookup: None,
            legacy_endpoint_fallback: false,
            dpop: DpopUse::Auto,
            assertion: None,
            enterprise: None,
        }
    }
}

/// Why the server refused a request, as the transport saw it.
#[derive(Debug, Clone)]
pub struct Refusal {
    /// The status: 401, or 403 with `insufficient_scope`.
    pub status: u16,
    /// The server's `Bearer` challenge, if it sent one.
    pub challenge: BearerChallenge,
    /// Which token the request carried (see [`OAuthClient::credentials`]).
    pub(crate) generation: u64,
    /// The server's DPoP nonce, when it sent one.
    pub(crate) nonce: Option<String>,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = if self.status == 403 {
            "the token lacks a scope the request needs"
        } else {
            "the request needs authorization"
        };
        write!(f, "HTTP {}: {what}", self.status)?;
        if let Some(scope) = &self.challenge.scope {
            write!(f, " (scope `{}`)", neutral(scope))?;
        }
        Ok(())
    }
}

/// What one request has spent on authorization so far.
#[derive(Debug, Default)]
pub(crate) struct Budget {
    authorizations: usize,
    step_ups: usize,
    refreshed: bool,
    /// A token obtained for this very request was refused with 401.
    fresh: bool,
    /// Retries with a nonce the server asked for.
    nonces: usize,
}

/// Where the current flow authorizes.
#[derive(Debug, Clone)]
struct Target {
    /// The resource indicator to send.
    resource: String,
    /// The scopes the Protected Resource Metadata lists.
    resource_scopes: Option<Vec<String>>,
    /// The authorization server's validated metadata.
    metadata: ServerMetadata,
    /// Whether the metadata was taken by the 2025-03-26 fallback, with no
    /// issuer validated.
    fallback: bool,
    /// Whether the MCP server asks for DPoP-bound tokens.
    dpop: bool,
}

struct Current {
    tokens: Option<Tokens>,
    generation: u64,
    /// Proactive refreshes wait until then (seconds since the epoch),
    /// after this many failures in a row.
    refresh_paused: Option<(u64, u32)>,
}

/// The OAuth client of one MCP server.
pub struct OAuthClient {
    server: String,
    url: Url,
    key: String,
    settings: OAuthSettings,
    store: Arc<dyn CredentialStore>,
    login: Option<Arc<dyn Login>>,
    fetch: Fetcher,
    current: RwLock<Current>,
    flow: tokio::sync::Mutex<HashMap<String, ServerMetadata>>,
    /// Step-ups by the sorted scopes asked for, across requests.
    step_ups: std::sync::Mutex<HashMap<Vec<String>, StepUps>>,
    dpop: std::sync::Mutex<DpopState>,
}

/// The DPoP keys in use and the nonces servers gave.
#[derive(Default)]
struct DpopState {
    /// The key of each authorization server's tokens.
    keys: HashMap<String, Arc<DpopKey>>,
    /// The latest nonce of each authorization server's token endpoint.
    issuer_nonces: HashMap<String, String>,
    /// The latest nonce of the MCP server.
    server_nonce: Option<String>,
}

impl std::fmt::Debug for OAuthClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthClient")
            .field("server", &self.server)
            .field("url", &self.url.as_str())
            .field("grant", &self.settings.grant)
            .finish_non_exhaustive()
    }
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

impl OAuthClient {
    /// The OAuth client of the MCP server `server` (the host's id for it)
    /// at `url`, keeping credentials in `store` and sending people to log
    /// in through `login` (without one, a server that needs a login gets
    /// [`AuthError::LoginRequired`]). Tokens stored earlier for the server
    /// are loaded.
    ///
    /// # Errors
    ///
    /// When `url` is not an absolute URL, or the store cannot be read.
    pub fn new(
        server: impl Into<String>,
        url: &str,
        settings: OAuthSettings,
        store: Arc<dyn CredentialStore>,
        login: Option<Arc<dyn Login>>,
    ) -> Result<Self, AuthError> {
        let url = Url::parse(url).map_err(|_| AuthError::InsecureUrl {
            what: "server URL",
            url: neutral(url),
            reason: "not an absolute URL",
        })?;
        let server = server.into();
        if settings.issuer.is_none() {
            let credential = if settings.client_secret.is_some() {
                Some("a client secret")
            } else if settings.assertion_key.is_some() {
                Some("a private key")
            } else {
                None
            };
            if let Some(credential) = credential {
                return Err(AuthError::UnboundCredentials { server, credential });
            }
        }
        let mut policy = UrlPolicy::for_server(&url);
        if let Some(allow) = settings.allow_loopback_http {
            policy.allow_loopback_http = allow;
            policy.allow_loopback |= allow;
        }
        policy.allowed_hosts = settings
            .allowed_hosts
            .iter()
            .map(|h| h.to_ascii_lowercase())
            .collect();
        let lookup = settings
            .lookup
            .clone()
            .unwrap_or_else(|| Arc::new(SystemLookup));
        if settings.issuer.is_none() {
            let credential = match settings.grant {
                Grant::JwtBearer => Some("a workload token"),
                Grant::Enterprise => Some("an identity assertion"),
                _ => None,
            };
            if let Some(credential) = credential {
                return Err(AuthError::UnboundCredentials { server, credential });
            }
        }
        let key = discovery::canonical_resource(&url);
        let tokens = store.tokens(&key)?;
        Ok(Self {
            server,
            url,
            key,
            settings,
            store,
            login,
            fetch: Fetcher::new(policy, lookup)?,
            current: RwLock::new(Current {
                tokens,
                generation: 0,
                refresh_paused: None,
            }),
            flow: tokio::sync::Mutex::new(HashMap::new()),
            step_ups: std::sync::Mutex::new(HashMap::new()),
            dpop: std::sync::Mutex::new(DpopState::default()),
        })
    }

    /// The key its tokens are stored under: the server's canonical URI.
    pub fn resource_key(&self) -> &str {
        &self.key
    }

    /// Whether it holds an access token.
    pub fn has_token(&self) -> bool {
        self.current
            .read()
            .map(|c| c.tokens.is_some())
            .unwrap_or(false)
    }

    /// The scopes granted to the current token.
    pub fn granted_scopes(&self) -> Vec<String> {
        self.current
            .read()
            .ok()
            .and_then(|c| c.tokens.as_ref().map(|t| t.granted.clone()))
            .unwrap_or_default()
    }

    /// Forgets the server's tokens, here and in the store; the client
    /// registration is kept.
    ///
    /// # Errors
    ///
    /// When the store cannot be written.
    pub fn logout(&self) -> Result<(), AuthError> {
        self.store.set_tokens(&self.key, None)?;
        if let Ok(mut current) = self.current.write() {
            current.tokens = None;
            current.generation += 1;
        }
        Ok(())
    }

    /// Whether tokens may travel to the MCP server: over `https`, or
    /// plain `http` to a loopback address only.
    fn secure_transport(&self) -> bool {
        self.url.scheme() == "https"
            || (self.url.scheme() == "http" && discovery::is_loopback(&self.url))
    }

    fn refresh_paused(&self, now: u64) -> bool {
        self.current
            .read()
            .is_ok_and(|c| c.refresh_paused.is_some_and(|(until, _)| now < until))
    }

    fn note_refresh(&self, failed: bool, now: u64) {
        if let Ok(mut current) = self.current.write() {
            current.refresh_paused = if failed {
                let failures = current.refresh_paused.map_or(0, |(_, n)| n) + 1;
                Some((now.saturating_add(refresh_backoff(failures - 1)), failures))
            } else {
                None
            };
        }
    }

    /// Counts a step-up to `scopes` at `now`; refuses when the same
    /// scopes were asked for too often within the window, however many
    /// requests that took.
    fn step_up_allowed(&self, scopes: &[String], now: u64) -> Result<(), AuthError> {
        let mut key = scopes.to_vec();
        key.sort();
        let Ok(mut step_ups) = self.step_ups.lock() else {
            return Ok(());
        };
        let entry = step_ups.entry(key).or_insert(StepUps {
            since: now,
            count: 0,
        });
        if now >= entry.since.saturating_add(STEP_UP_WINDOW) {
            *entry = StepUps {
                since: now,
                count: 0,
            };
        }
        if entry.count >= MAX_STEP_UPS_PER_SCOPES {
            return Err(AuthError::StepUpPaused {
                server: self.server.clone(),
                scopes: scopes.iter().map(|s| neutral(s)).collect(),
                times: entry.count,
                minutes: entry
                    .since
                    .saturating_add(STEP_UP_WINDOW)
                    .saturating_sub(now)
                    / 60
                    + 1,
            });
        }
        entry.count += 1;
        Ok(())
    }

    fn snapshot(&self) -> (Option<Tokens>, u64) {
        self.current
            .read()
            .map(|c| (c.tokens.clone(), c.generation))
            .unwrap_or((None, 0))
    }

    fn publish(&self, tokens: Option<Tokens>) -> Result<(), AuthError> {
        self.store.set_tokens(&self.key, tokens.as_ref())?;
        if let Ok(mut current) = self.current.write() {
            current.tokens = tokens;
            current.generation += 1;
        }
        Ok(())
    }

    /// The tokens to present, refreshed first when the access token is
    /// about to expire, and the generation they belong to (for
    /// [`Refusal`]).
    async fn present(&self) -> (Option<Tokens>, u64) {
        let (tokens, generation) = self.snapshot();
        let Some(tokens) = tokens.filter(|_| self.secure_transport()) else {
            return (None, generation);
        };
        if due(&tokens, now()) && tokens.refresh_token.is_some() && !self.refresh_paused(now()) {
            let mut cache = self.flow.lock().await;
            let (again, latest) = self.snapshot();
            if latest == generation {
                if let Some(tokens) = again {
                    // A failed refresh leaves the old token (the server's
                    // refusal of it then starts a full authorization) and
                    // pauses proactive refreshes for a while.
                    let failed = self.refresh_with(&mut cache, &tokens, None).await.is_err();
                    self.note_refresh(failed, now());
                }
            }
            drop(cache);
            return self.snapshot();
        }
        (Some(tokens), generation)
    }

    /// What a request with `method` to `url` presents: the value of its
    /// `Authorization` header (`Bearer`, or `DPoP` for a bound token) and,
    /// for a bound token, a fresh proof for the `DPoP` header; and the
    /// generation of the token (for [`Refusal`]).
    pub(crate) async fn credentials(&self, method: &str, url: &str) -> (Option<Presented>, u64) {
        let (tokens, generation) = self.present().await;
        let Some(tokens) = tokens else {
            return (None, generation);
        };
        let Some(stored) = &tokens.dpop_key else {
            let authorization = Secret::new(format!("Bearer {}", tokens.access_token.expose()));
            return (
                Some(Presented {
                    authorization,
                    proof: None,
                }),
                generation,
            );
        };
        // A bound token without a proof is refused anyway; one whose key
        // is unusable is not sent at all.
        let proof = self.key_for(&tokens.issuer, Some(stored)).and_then(|key| {
            let nonce = self.dpop.lock().ok().and_then(|d| d.server_nonce.clone());
            key.proof(method, url, Some(&tokens.access_token), nonce.as_deref())
        });
        match proof {
            Ok(proof) => (
                Some(Presented {
                    authorization: Secret::new(format!("DPoP {}", tokens.access_token.expose())),
                    proof: Some(proof),
                }),
                generation,
            ),
            Err(_) => (None, generation),
        }
    }

    /// Records the MCP server's latest DPoP nonce (RFC 9449 §9), which
    /// the next proofs carry.
    pub(crate) fn note_server_nonce(&self, nonce: &str) {
        if let (Some(nonce), Ok(mut state)) = (super::dpop::nonce(nonce), self.dpop.lock()) {
            state.server_nonce = Some(nonce);
        }
    }

    /// The DPoP key for `issuer`'s tokens: the one `stored` with a token,
    /// else the one in use, else a new one.
    fn key_for(&self, issuer: &str, stored: Option<&Secret>) -> Result<Arc<DpopKey>, AuthError> {
        let mut state = self
            .dpop
            .lock()
            .map_err(|_| AuthError::Key(String::from("DPoP state poisoned")))?;
        if let Some(key) = state.keys.get(issuer) {
            if stored.is_none_or(|s| s == key.pkcs8()) {
                return Ok(key.clone());
            }
        }
        let key = Arc::new(match stored {
            Some(pkcs8) => DpopKey::from_pkcs8(pkcs8)?,
            None => DpopKey::generate()?,
        });
        state.keys.insert(issuer.to_owned(), key.clone());
        Ok(key)
    }

    /// The key new tokens from `target` are bound to, if they are to be.
    fn binding(&self, target: &Target) -> Result<Option<Arc<DpopKey>>, AuthError> {
        let algorithms = target
            .metadata
            .dpop_signing_alg_values_supported
            .as_deref()
            .unwrap_or_default();
        if self.settings.dpop.binds(target.dpop, algorithms) {
            self.key_for(&target.metadata.issuer, None).map(Some)
        } else {
            Ok(None)
        }
    }

    /// Makes the server's refusal of a request good, so that the request
    /// can be sent again: refreshes the token, authorizes anew, or steps
    /// up its scopes, within the request's `budget`.
    ///
    /// # Errors
    ///
    /// When no token that could do can be had, or the budget is spent.
    pub(crate) async fn on_refusal(
        &self,
        refusal: &Refusal,
        budget: &mut Budget,
    ) -> Result<(), AuthError> {
        if !self.secure_transport() {
            return Err(AuthError::Cleartext {
                server: self.server.clone(),
            });
        }
        if refusal.challenge.wants_nonce() && refusal.status == 401 {
            // The proof lacked the server's fresh nonce: send it again
            // with the nonce, a bounded number of times.
            if let Some(nonce) = refusal
                .nonce
                .as_deref()
                .filter(|_| budget.nonces < MAX_NONCE_RETRIES)
            {
                budget.nonces += 1;
                self.note_server_nonce(nonce);
                return Ok(());
            }
        }
        let mut cache = self.flow.lock().await;
        let (tokens, generation) = self.snapshot();
        if generation != refusal.generation {
            // Another request got a new token meanwhile: try that one.
            return Ok(());
        }
        let challenge = &refusal.challenge;
        let step_up = refusal.status == 403 && challenge.is_insufficient_scope();
        let spent = || AuthError::StillRefused {
            attempts: budget.authorizations,
            scopes: challenge.scopes(),
        };
        if step_up {
            if budget.step_ups >= MAX_STEP_UPS || budget.authorizations >= MAX_AUTHORIZATIONS {
                return Err(spent());
            }
        } else if budget.fresh || budget.authorizations >= MAX_AUTHORIZATIONS {
            return Err(spent());
        }
        let target = self.target(&mut cache, challenge).await?;
        let issuer = target.metadata.issuer.clone();
        let same_issuer = tokens.as_ref().filter(|t| t.issuer == issuer);
        if !step_up && !budget.refreshed {
            if let Some(tokens) = same_issuer.filter(|t| t.refresh_token.is_some()) {
                budget.refreshed = true;
                if self
                    .refresh_with(&mut cache, tokens, Some(&target))
                    .await
                    .is_ok()
                {
                    return Ok(());
                }
            }
        }
        let before = same_issuer.map(|t| t.requested.clone()).unwrap_or_default();
        let scopes = if step_up {
            let scopes = flow::union(&before, &challenge.scopes());
            self.step_up_allowed(&scopes, now())?;
            budget.step_ups += 1;
            scopes
        } else {
            flow::initial_scopes(
                &challenge.scopes(),
                target.resource_scopes.as_deref(),
                &self.settings.scopes,
                &before,
            )
        };
        budget.authorizations += 1;
        let tokens = self.authorize(&target, &scopes).await?;
        self.publish(Some(tokens))?;
        budget.fresh = !step_up;
        Ok(())
    }

    /// Finds where to authorize: the Protected Resource Metadata (in the
    /// spec's order, checked to be about this server), the authorization
    /// server it names, and that server's metadata (checked). A server
    /// with no such metadata at all is taken for a 2025-03-26 one, whose
    /// authorization server sits at its origin.
    async fn target(
        &self,
        cache: &mut HashMap<String, ServerMetadata>,
        challenge: &BearerChallenge,
    ) -> Result<Target, AuthError> {
        let from_challenge = match &challenge.resource_metadata {
            Some(url) => Some(self.fetch.policy.check("resource metadata URL", url)?),
            None => None,
        };
        let mut found = None;
        let mut statuses = Vec::new();
        for url in discovery::resource_metadata_urls(&self.url, from_challenge) {
            match self
                .fetch
                .document::<ResourceMetadata>("protected resource metadata", &url)
                .await?
            {
                Document::Found(metadata) => {
                    discovery::check_resource(&self.url, &metadata)?;
                    found = Some(metadata);
                    break;
                }
                Document::Missing(status) => statuses.push(status.to_string()),
            }
        }
        let Some(resource) = found else {
            let mut target = self.fallback_target(cache).await?;
            target.dpop = challenge.dpop;
            return Ok(target);
        };
        let issuer = match &self.settings.issuer {
            Some(configured) if resource.authorization_servers.contains(configured) => {
                configured.clone()
            }
            _ => resource.authorization_servers[0].clone(),
        };
        let metadata = self.server_metadata(cache, &issuer).await?;
        Ok(Target {
            dpop: challenge.dpop || resource.asks_for_dpop(),
            resource: resource.resource,
            resource_scopes: resource.scopes_supported,
            metadata,
            fallback: false,
        })
    }

    async fn fallback_target(
        &self,
        cache: &mut HashMap<String, ServerMetadata>,
    ) -> Result<Target, AuthError> {
        let issuer = discovery::fallback_issuer(&self.url);
        let (metadata, fallback) = match self.server_metadata(cache, &issuer).await {
            Ok(metadata) => (metadata, false),
            Err(AuthError::NoServerMetadata(_)) if self.settings.legacy_endpoint_fallback => {
                (discovery::default_server_metadata(&self.url), true)
            }
            Err(AuthError::NoServerMetadata(_)) => {
                return Err(AuthError::NoMetadataAtAll {
                    server: self.server.clone(),
                })
            }
            Err(other) => return Err(other),
        };
        Ok(Target {
            resource: self.key.clone(),
            resource_scopes: None,
            metadata,
            fallback,
            dpop: false,
        })
    }

    /// The validated metadata of `issuer`, fetched once per client.
    async fn server_metadata(
        &self,
        cache: &mut HashMap<String, ServerMetadata>,
        issuer: &str,
    ) -> Result<ServerMetadata, AuthError> {
        if let Some(metadata) = cache.get(issuer) {
            return Ok(metadata.clone());
        }
        for url in discovery::server_metadata_urls(issuer)? {
            match self
                .fetch
                .document::<ServerMetadata>("authorization server metadata", &url)
                .await?
            {
                Document::Found(metadata) => {
                    discovery::check_server_metadata(issuer, &metadata)?;
                    cache.insert(issuer.to_owned(), metadata.clone());
                    return Ok(metadata);
                }
                Document::Missing(_) => {}
            }
        }
        Err(AuthError::NoServerMetadata(neutral(issuer)))
    }

    fn endpoint<'m>(
        metadata: &'m ServerMetadata,
        which: &'static str,
    ) -> Result<&'m str, AuthError> {
        let endpoint = match which {
            "authorization endpoint" => &metadata.authorization_endpoint,
            "token endpoint" => &metadata.token_endpoint,
            _ => &metadata.registration_endpoint,
        };
        endpoint
            .as_deref()
            .ok_or_else(|| AuthError::MissingEndpoint {
                issuer: metadata.issuer.clone(),
                endpoint: which,
            })
    }

    /// Refreshes `tokens` (RFC 6749 §6), keeping the refresh token when
    /// the response brings none. A refused refresh forgets the tokens.
    async fn refresh_with(
        &self,
        cache: &mut HashMap<String, ServerMetadata>,
        tokens: &Tokens,
        target: Option<&Target>,
    ) -> Result<(), AuthError> {
        let Some(refresh) = &tokens.refresh_token else {
            return Err(AuthError::Login(String::from("no refresh token")));
        };
        let metadata = match target {
            Some(target) => target.metadata.clone(),
            None => self.server_metadata(cache, &tokens.issuer).await?,
        };
        let resource = target.map_or_else(|| self.key.clone(), |t| t.resource.clone());
        let Some(client) = self.known_identity(&metadata)? else {
            return Err(AuthError::NoRegistration(metadata.issuer.clone()));
        };
        let request = flow::refresh_request(refresh, &resource, &client);
        // A bound token's refresh is bound to the same key (RFC 9449 §5).
        let key = match &tokens.dpop_key {
            Some(stored) => Some(self.key_for(&tokens.issuer, Some(stored))?),
            None => None,
        };
        match self
            .redeem(
                &metadata,
                request,
                &tokens.requested,
                Some(refresh.clone()),
                key.as_deref(),
            )
            .await
        {
            Ok(fresh) => self.publish(Some(fresh)),
            Err(
                error @ AuthError::Token {
                    status: 400..=401, ..
                },
            ) => {
                self.publish(None)?;
                Err(error)
            }
            Err(other) => Err(other),
        }
    }

    /// Sends a token request and reads its answer; with a DPoP key, the
    /// request carries a proof, sent again once with the server's nonce
    /// when it asks for one (RFC 9449 §8).
    async fn redeem(
        &self,
        metadata: &ServerMetadata,
        request: TokenRequest,
        requested: &[String],
        previous: Option<Secret>,
        dpop: Option<&DpopKey>,
    ) -> Result<Tokens, AuthError> {
        let endpoint = Self::endpoint(metadata, "token endpoint")?;
        let issuer = &metadata.issuer;
        let mut retried = false;
        let (status, body) = loop {
            let proof = match dpop {
                Some(key) => {
                    let nonce = self
                        .dpop
                        .lock()
                        .ok()
                        .and_then(|d| d.issuer_nonces.get(issuer).cloned());
                    Some(key.proof("POST", endpoint, None, nonce.as_deref())?)
                }
                None => None,
            };
            let (status, body, nonce) = self
                .fetch
                .token("token endpoint", endpoint, &request, proof.as_ref())
                .await?;
            let fresh_nonce = nonce.is_some() && dpop.is_some();
            if let (Some(nonce), Some(_), Ok(mut state)) = (nonce, dpop, self.dpop.lock()) {
                state.issuer_nonces.insert(issuer.clone(), nonce);
            }
            if status == 400 && fresh_nonce && !retried {
                let error: Option<ErrorResponse> = serde_json::from_slice(&body).ok();
                if error.is_some_and(|e| e.error == super::dpop::USE_NONCE) {
                    retried = true;
                    continue;
                }
            }
            break (status, body);
        };
        let response: TokenResponse = token_body(status, &body)?;
        flow::accept_tokens(
            response,
            &metadata.issuer,
            requested,
            previous,
            now(),
            dpop.map(DpopKey::pkcs8),
        )
    }

    /// The client identity with `metadata`'s server that needs no
    /// registration now: the pre-registered one, the metadata document
    /// URL, or a client registered earlier.
    fn known_identity(
        &self,
        metadata: &ServerMetadata,
    ) -> Result<Option<ClientIdentity>, AuthError> {
        if let Some(identity) = self.preregistered(metadata)? {
            return Ok(Some(identity));
        }
        if let Some(url) = self.metadata_document(metadata) {
            return Ok(Some(ClientIdentity {
                client_id: url,
                secret: None,
                auth: ClientAuth::None,
                assertion: None,
            }));
        }
        Ok(self
            .store
            .client(&metadata.issuer)?
            .and_then(|c| identity_of(&c)))
    }

    fn preregistered(
        &self,
        metadata: &ServerMetadata,
    ) -> Result<Option<ClientIdentity>, AuthError> {
        let Some(client_id) = &self.settings.client_id else {
            return Ok(None);
        };
        if let Some(configured) = &self.settings.issuer {
            if configured != &metadata.issuer {
                return Err(AuthError::WrongServerForCredentials {
                    configured: configured.clone(),
                    found: neutral(&metadata.issuer),
                });
            }
        }
        let auth = self.settings.auth_method.unwrap_or_else(|| {
            if self.settings.assertion_key.is_some() {
                ClientAuth::PrivateKeyJwt
            } else {
                ClientAuth::for_secret(
                    self.settings.client_secret.is_some(),
                    &metadata.auth_methods(),
                )
            }
        });
        // The assertion's audience is this issuer, and it goes with every
        // token request to it: code, refresh and client credentials.
        let assertion = match (auth, &self.settings.assertion_key) {
            (ClientAuth::PrivateKeyJwt, Some(key)) => {
                Some(key.assertion(client_id, &metadata.issuer)?)
            }
            (ClientAuth::PrivateKeyJwt, None) => {
                return Err(AuthError::Key(String::from(
                    "private_key_jwt needs a private key (`privateKeyFile`)",
                )))
            }
            _ => None,
        };
        Ok(Some(ClientIdentity {
            client_id: client_id.clone(),
            secret: self.settings.client_secret.clone(),
            auth,
            assertion,
        }))
    }

    fn metadata_document(&self, metadata: &ServerMetadata) -> Option<String> {
        self.settings
            .client_metadata_url
            .clone()
            .filter(|_| metadata.client_id_metadata_document_supported)
    }

    /// Gets a token for `scopes` at the target's authorization server.
    async fn authorize(&self, target: &Target, scopes: &[String]) -> Result<Tokens, AuthError> {
        match self.settings.grant {
            Grant::ClientCredentials => self.client_credentials(target, scopes).await,
            Grant::AuthorizationCode => self.authorization_code(target, scopes).await,
            Grant::JwtBearer | Grant::Enterprise => self.jwt_bearer(target, scopes).await,
        }
    }

    /// The JWT bearer grant: with the workload's own token, or, for
    /// enterprise-managed authorization, with the ID-JAG the identity
    /// provider gives for the person's ID token. A refusal is final: the
    /// same token would be refused again, and no other grant is tried.
    async fn jwt_bearer(&self, target: &Target, scopes: &[String]) -> Result<Tokens, AuthError> {
        let metadata = &target.metadata;
        let Some(client) = self.preregistered(metadata)? else {
            return Err(AuthError::NoRegistration(metadata.issuer.clone()));
        };
        let assertion = match (&self.settings.grant, &self.settings.enterprise) {
            (Grant::Enterprise, Some(enterprise)) => {
                self.id_jag(enterprise, target, scopes).await?
            }
            (Grant::Enterprise, None) => {
                return Err(AuthError::TokenSource(String::from(
                    "enterprise-managed authorization needs its identity provider (`enterprise`)",
                )))
            }
            _ => match &self.settings.assertion {
                Some(source) => source.read().await?,
                None => return Err(AuthError::TokenSource(String::from(
                    "the JWT bearer grant needs a token (`assertionFile` or `assertionCommand`)",
                ))),
            },
        };
        let request = flow::jwt_bearer_request(assertion, scopes, &target.resource, &client);
        let key = self.binding(target)?;
        self.redeem(metadata, request, scopes, None, key.as_deref())
            .await
    }

    /// Exchanges the person's ID token at the identity provider for an
    /// ID-JAG naming the authorization server and the MCP server.
    async fn id_jag(
        &self,
        enterprise: &EnterpriseSettings,
        target: &Target,
        scopes: &[String],
    ) -> Result<Secret, AuthError> {
        let client = ClientIdentity {
            client_id: enterprise.client_id.clone(),
            secret: enterprise.client_secret.clone(),
            auth: if enterprise.client_secret.is_some() {
                ClientAuth::SecretBasic
            } else {
                ClientAuth::None
            },
            assertion: None,
        };
        let id_token = enterprise.id_token.read().await?;
        let request = flow::id_jag_request(
            id_token,
            &target.metadata.issuer,
            &target.resource,
            scopes,
            &client,
        );
        let what = "identity provider's token endpoint";
        let (status, body, _) = self
            .fetch
            .token(what, &enterprise.token_endpoint, &request, None)
            .await?;
        let exchanged: ExchangeResponse = token_body(status, &body)?;
        if exchanged
            .issued_token_type
            .as_deref()
            .is_some_and(|t| t != flow::ID_JAG_TYPE)
        {
            return Err(AuthError::Token {
                status,
                error: String::from("invalid_response"),
                description: Some(String::from(
                    "the identity provider issued something other than an ID-JAG",
                )),
            });
        }
        Ok(exchanged.access_token)
    }

    async fn client_credentials(
        &self,
        target: &Target,
        scopes: &[String],
    ) -> Result<Tokens, AuthError> {
        let metadata = &target.metadata;
        let Some(client) = self.preregistered(metadata)? else {
            return Err(AuthError::NoRegistration(metadata.issuer.clone()));
        };
        let request = flow::client_credentials_request(scopes, &target.resource, &client);
        let key = self.binding(target)?;
        self.redeem(metadata, request, scopes, None, key.as_deref())
            .await
    }

    async fn authorization_code(
        &self,
        target: &Target,
        scopes: &[String],
    ) -> Result<Tokens, AuthError> {
        let metadata = &target.metadata;
        let login = self
            .login
            .as_ref()
            .ok_or_else(|| AuthError::LoginRequired(self.server.clone()))?;
        let stored = self.store.client(&metadata.issuer)?;
        // A configured redirect URI (a client registered with a fixed
        // port) comes first, then the one registered earlier.
        let wanted = self.settings.redirect_uri.as_deref().or(stored
            .as_ref()
            .and_then(|c| c.redirect_uris.first().map(String::as_str)));
        let redirect = login.prepare(wanted).await?;
        let redirect_uri = redirect.uri().to_owned();
        if let Some(fixed) = &self.settings.redirect_uri {
            if fixed != &redirect_uri {
                return Err(AuthError::Login(format!(
                    "the configured redirect URI {} cannot be listened on (is its port taken?)",
                    neutral(fixed)
                )));
            }
        }
        self.fetch
            .policy
            .check("redirect URI", &redirect_uri)
            .or_else(|e| {
                // A loopback redirect is always fine: it never leaves the machine.
                let url = Url::parse(&redirect_uri).map_err(|_| e.clone())?;
                if discovery::is_loopback(&url) {
                    Ok(url)
                } else {
                    Err(e)
                }
            })?;
        let client = match self.preregistered(metadata)? {
            Some(client) => client,
            None => match self.metadata_document(metadata) {
                Some(url) => ClientIdentity {
                    client_id: url,
                    secret: None,
                    auth: ClientAuth::None,
                    assertion: None,
                },
                None => match stored
                    .filter(|c| c.redirect_uris.contains(&redirect_uri) && !secret_expired(c))
                    .and_then(|c| identity_of(&c))
                {
                    Some(client) => client,
                    None => self.register(metadata, &redirect_uri).await?,
                },
            },
        };
        let scopes = flow::with_offline_access(scopes.to_vec(), metadata, true);
        let pkce = Pkce::new()?;
        let state = random_text(32)?;
        let endpoint = self.fetch.policy.check(
            "authorization endpoint",
            Self::endpoint(metadata, "authorization endpoint")?,
        )?;
        let url = flow::authorization_url(
            &endpoint,
            &flow::AuthorizationRequest {
                client_id: &client.client_id,
                redirect_uri: &redirect_uri,
                scopes: &scopes,
                resource: &target.resource,
                state: &state,
                code_challenge: &pkce.challenge,
            },
        );
        let expected = Expected {
            state: Secret::new(state.clone()),
            issuer: (!target.fallback).then(|| metadata.issuer.clone()),
            iss_required: metadata.authorization_response_iss_parameter_supported,
        };
        let prompt = LoginPrompt {
            server: self.server.clone(),
            issuer: metadata.issuer.clone(),
            url,
            state,
        };
        let back = redirect.wait(prompt).await?;
        let code = flow::read_redirect(&back, &expected)?;
        let request = flow::code_request(
            code,
            &pkce.verifier,
            &redirect_uri,
            &target.resource,
            &client,
        );
        let key = self.binding(target)?;
        self.redeem(metadata, request, &scopes, None, key.as_deref())
            .await
    }

    /// Registers a client dynamically (RFC 7591), as a native application
    /// with the one loopback redirect URI, and remembers it for the issuer.
    async fn register(
        &self,
        metadata: &ServerMetadata,
        redirect_uri: &str,
    ) -> Result<ClientIdentity, AuthError> {
        let endpoint = metadata
            .registration_endpoint
            .as_deref()
            .ok_or_else(|| AuthError::NoRegistration(metadata.issuer.clone()))?;
        let wanted = ClientAuth::to_register(&metadata.auth_methods());
        let native = Url::parse(redirect_uri).is_ok_and(|u| discovery::is_loopback(&u));
        let body = json!({
            "client_name": self.settings.client_name,
            "redirect_uris": [redirect_uri],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": wanted.name(),
            "application_type": if native { "native" } else { "web" },
        });
        let (status, reply) = self
            .fetch
            .post_json("registration endpoint", endpoint, &body)
            .await?;
        let refused = |reason: String| AuthError::Registration {
            issuer: metadata.issuer.clone(),
            reason,
        };
        if !(200..300).contains(&status) {
            let error: Option<ErrorResponse> = serde_json::from_slice(&reply).ok();
            return Err(refused(match error {
                Some(e) => format!(
                    "{} ({status}){}",
                    neutral(&e.error),
                    e.error_description
                        .map(|d| format!(": {}", neutral(&d)))
                        .unwrap_or_default()
                ),
                None => format!("HTTP {status}"),
            }));
        }
        let response: RegistrationResponse = serde_json::from_slice(&reply)
            .map_err(|e| refused(format!("unreadable response: {}", neutral(&e.to_string()))))?;
        let auth = match response.token_endpoint_auth_method.as_deref() {
            Some(name) => ClientAuth::from_name(name).ok_or_else(|| {
                refused(format!("unknown authentication method `{}`", neutral(name)))
            })?,
            None if response.client_secret.is_some() && wanted == ClientAuth::None => {
                ClientAuth::for_secret(true, &metadata.auth_methods())
            }
            None => wanted,
        };
        let registered = RegisteredClient {
            client_id: response.client_id,
            client_secret: response.client_secret,
            secret_expires_at: response.client_secret_expires_at.filter(|t| *t != 0),
            auth_method: auth.name().to_owned(),
            redirect_uris: vec![redirect_uri.to_owned()],
        };
        self.store.set_client(&metadata.issuer, Some(&registered))?;
        identity_of(&registered).ok_or_else(|| refused(String::from("unusable registration")))
    }
}

/// What a request presents (see [`OAuthClient::credentials`]).
pub(crate) struct Presented {
    /// The `Authorization` header's value.
    pub(crate) authorization: Secret,
    /// The `DPoP` header's value, for a bound token.
    pub(crate) proof: Option<Secret>,
}

/// A token exchange's answer (RFC 8693 §2.2.1).
#[derive(serde::Deserialize)]
struct ExchangeResponse {
    access_token: Secret,
    issued_token_type: Option<String>,
}

/// The body of a token endpoint's answer, read as `T` when the status is
/// a success and as the endpoint's refusal otherwise.
fn token_body<T: serde::de::DeserializeOwned>(status: u16, body: &[u8]) -> Result<T, AuthError> {
    if !(200..300).contains(&status) {
        let error: Option<ErrorResponse> = serde_json::from_slice(body).ok();
        return Err(AuthError::Token {
            status,
            error: error
                .as_ref()
                .map_or_else(|| String::from("(no error code)"), |e| neutral(&e.error)),
            description: error.and_then(|e| e.error_description).map(|d| neutral(&d)),
        });
    }
    serde_json::from_slice(body).map_err(|e| AuthError::Token {
        status,
        error: String::from("invalid_response"),
        description: Some(neutral(&e.to_string())),
    })
}

fn identity_of(client: &RegisteredClient) -> Option<ClientIdentity> {
    Some(ClientIdentity {
        client_id: client.client_id.clone(),
        secret: client.client_secret.clone(),
        auth: ClientAuth::from_name(&client.auth_method)?,
        assertion: None,
    })
}

fn secret_expired(client: &RegisteredClient) -> bool {
    client.secret_expires_at.is_some_and(|at| at <= now())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(issued: Option<u64>, expires: Option<u64>) -> Tokens {
        Tokens {
            issuer: "i".into(),
            access_token: Secret::new("a"),
            refresh_token: Some(Secret::new("r")),
            expires_at: expires,
            issued_at: issued,
            requested: Vec::new(),
            granted: Vec::new(),
            dpop_key: None,
        }
    }

    #[test]
    fn refresh_is_due_a_minute_or_a_quarter_lifetime_before_expiry() {
        // An hour-long token: a minute before.
        let hour = tokens(Some(0), Some(3600));
        assert!(!due(&hour, 3539));
        assert!(due(&hour, 3540));
        // A 20 s token: 5 s before, not at once.
        let short = tokens(Some(100), Some(120));
        assert!(!due(&short, 114));
        assert!(due(&short, 115));
        // Unknown issue time: a minute; unknown expiry: never.
        assert!(due(&tokens(None, Some(1000)), 940));
        assert!(!due(&tokens(Some(0), None), u64::MAX));
    }

    #[test]
    fn a_token_without_lifetime_is_not_refreshed_on_every_request() {
        // `expires_in: 0`: due only once the floor has passed.
        let instant = tokens(Some(100), Some(100));
        assert!(!due(&instant, 100));
        assert!(!due(&instant, 104));
        assert!(due(&instant, 105));
        // Failed refreshes back off: 5 s, doubling, at most 5 minutes.
        let table = [(0, 5), (1, 10), (2, 20), (5, 160), (6, 300), (40, 300)];
        for (failures, wait) in table {
            assert_eq!(refresh_backoff(failures), wait, "{failures}");
        }
        let oauth =
            client("https://mcp.example.com/mcp", OAuthSettings::default()).expect("client");
        assert!(!oauth.refresh_paused(1000));
        oauth.note_refresh(true, 1000);
        assert!(oauth.refresh_paused(1004));
        assert!(!oauth.refresh_paused(1005));
        oauth.note_refresh(true, 1005);
        assert!(oauth.refresh_paused(1014));
        assert!(!oauth.refresh_paused(1015));
        oauth.note_refresh(false, 1015);
        assert!(!oauth.refresh_paused(1015));
    }

    #[test]
    fn step_ups_for_the_same_scopes_are_counted_across_requests() {
        let oauth =
            client("https://mcp.example.com/mcp", OAuthSettings::default()).expect("client");
        let ab = vec![String::from("a"), String::from("b")];
        let ba = vec![String::from("b"), String::from("a")];
        assert!(oauth.step_up_allowed(&ab, 0).is_ok());
        // The same set in another order is the same set.
        assert!(oauth.step_up_allowed(&ba, 10).is_ok());
        let error = oauth.step_up_allowed(&ab, 20).expect_err("paused");
        assert_eq!(
            error.to_string(),
            "server `s` asked 2 times for the scopes `a b` and still refused; not asking again for 10 min"
        );
        // Other scopes are asked for as usual.
        assert!(oauth.step_up_allowed(&[String::from("c")], 20).is_ok());
        // After the window, the server may ask again.
        assert!(oauth.step_up_allowed(&ab, 600).is_ok());
    }

    fn client(url: &str, settings: OAuthSettings) -> Result<OAuthClient, AuthError> {
        OAuthClient::new(
            "s",
            url,
            settings,
            Arc::new(crate::auth::MemoryStore::new()),
            None,
        )
    }

    #[test]
    fn a_secret_or_key_without_its_issuer_is_refused() {
        let secret = OAuthSettings {
            client_id: Some("c".into()),
            client_secret: Some(Secret::new("s3cret")),
            ..OAuthSettings::default()
        };
        let error = client("https://mcp.example.com/mcp", secret.clone()).expect_err("unbound");
        assert_eq!(
            error,
            AuthError::UnboundCredentials {
                server: "s".into(),
                credential: "a client secret"
            }
        );
        assert!(!error.to_string().contains("s3cret"));
        let bound = OAuthSettings {
            issuer: Some("https://as.example.com".into()),
            ..secret
        };
        assert!(client("https://mcp.example.com/mcp", bound).is_ok());
        // A public client id is no secret: it may go to any issuer.
        let public = OAuthSettings {
            client_id: Some("c".into()),
            ..OAuthSettings::default()
        };
        assert!(client("https://mcp.example.com/mcp", public).is_ok());
    }

    #[tokio::test]
    async fn tokens_never_travel_in_clear_off_loopback() {
        let store = Arc::new(crate::auth::MemoryStore::new());
        let stored = Tokens {
            expires_at: None,
            ..tokens(Some(0), None)
        };
        // A client of `url` whose store holds a token for it.
        let with_token = |url: &str| {
            let key = discovery::canonical_resource(&Url::parse(url).expect("url"));
            store.set_tokens(&key, Some(&stored)).expect("store");
            OAuthClient::new("s", url, OAuthSettings::default(), store.clone(), None)
                .expect("client")
        };
        for url in ["http://mcp.example.com/mcp", "http://10.0.0.1/mcp"] {
            let oauth = with_token(url);
            // A stored token is not attached...
            assert!(oauth.credentials("POST", url).await.0.is_none(), "{url}");
            // ...and a request for authorization is refused before any
            // metadata is fetched.
            let refusal = Refusal {
                status: 401,
                challenge: BearerChallenge::default(),
                generation: 0,
                nonce: None,
            };
            let error = oauth
                .on_refusal(&refusal, &mut Budget::default())
                .await
                .expect_err("cleartext");
            assert_eq!(error, AuthError::Cleartext { server: "s".into() });
        }
        // Loopback and https carry it.
        for url in ["http://127.0.0.1:9/mcp", "https://mcp.example.com/mcp"] {
            let oauth = with_token(url);
            assert!(oauth.credentials("POST", url).await.0.is_some(), "{url}");
        }
    }

    fn claims(proof: &Secret) -> serde_json::Value {
        use base64::Engine;
        let part = proof.expose().split('.').nth(1).unwrap_or_default();
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(part)
            .unwrap_or_default();
        serde_json::from_slice(&bytes).unwrap_or_default()
    }

    #[tokio::test]
    async fn a_stored_bound_token_is_presented_with_a_proof_of_its_own_key() {
        let store = Arc::new(crate::auth::MemoryStore::new());
        let key = DpopKey::generate().expect("key");
        let url = "https://mcp.example.com/mcp";
        let resource = discovery::canonical_resource(&Url::parse(url).expect("url"));
        let bound = Tokens {
            expires_at: None,
            dpop_key: Some(key.pkcs8().clone()),
            ..tokens(Some(0), None)
        };
        store.set_tokens(&resource, Some(&bound)).expect("store");
        // A new process: the key comes back from the store with the token.
        let oauth = OAuthClient::new("s", url, OAuthSettings::default(), store.clone(), None)
            .expect("client");
        let (presented, _) = oauth
            .credentials("DELETE", "https://mcp.example.com/mcp?x=1")
            .await;
        let presented = presented.expect("presented");
        assert_eq!(presented.authorization.expose(), "DPoP a");
        let proof = presented.proof.expect("a proof");
        let header: serde_json::Value = {
            use base64::Engine;
            let part = proof.expose().split('.').next().unwrap_or_default();
            serde_json::from_slice(
                &base64::engine::general_purpose::URL_SAFE_NO_PAD
                    .decode(part)
                    .unwrap_or_default(),
            )
            .unwrap_or_default()
        };
        assert_eq!(header["jwk"], key.jwk());
        let first = claims(&proof);
        assert_eq!(first["htm"], "DELETE");
        assert_eq!(first["htu"], url);
        assert_eq!(
            first["ath"],
            crate::auth::dpop::access_token_hash(&Secret::new("a"))
        );
        assert!(first.get("nonce").is_none());
        // The server's nonce goes into the next proofs; each is fresh.
        oauth.note_server_nonce("n-7");
        oauth.note_server_nonce("bad\nonce");
        let (again, _) = oauth.credentials("POST", url).await;
        let second = claims(&again.and_then(|p| p.proof).expect("proof"));
        assert_eq!(second["nonce"], "n-7");
        assert_ne!(first["jti"], second["jti"]);
        // An unbound token stays a Bearer token without a proof.
        store
            .set_tokens(&resource, Some(&tokens(Some(0), None)))
            .expect("store");
        let plain =
            OAuthClient::new("s", url, OAuthSettings::default(), store, None).expect("client");
        let presented = plain.credentials("POST", url).await.0.expect("presented");
        assert_eq!(presented.authorization.expose(), "Bearer a");
        assert!(presented.proof.is_none());
    }

    #[tokio::test]
    async fn a_nonce_refusal_is_answered_a_bounded_number_of_times() {
        // Loopback, with nothing listening: the refusal that is no longer
        // answered with a nonce looks for metadata there, and fails.
        let url = "http://127.0.0.1:9/mcp";
        let oauth = OAuthClient::new(
            "s",
            url,
            OAuthSettings::default(),
            Arc::new(crate::auth::MemoryStore::new()),
            None,
        )
        .expect("client");
        let refusal = Refusal {
            status: 401,
            challenge: BearerChallenge::from_headers([r#"DPoP error="use_dpop_nonce""#])
                .expect("challenge"),
            generation: 0,
            nonce: Some(String::from("n")),
        };
        let mut budget = Budget::default();
        for _ in 0..MAX_NONCE_RETRIES {
            oauth
                .on_refusal(&refusal, &mut budget)
                .await
                .expect("retry");
        }
        assert_eq!(
            oauth
                .dpop
                .lock()
                .ok()
                .and_then(|d| d.server_nonce.clone())
                .as_deref(),
            Some("n")
        );
        // Then the refusal is treated as any other: here, with no metadata
        // to be had, an error rather than another free retry.
        assert!(oauth.on_refusal(&refusal, &mut budget).await.is_err());
    }

    #[test]
    fn workload_and_enterprise_grants_need_their_issuer() {
        for grant in [Grant::JwtBearer, Grant::Enterprise] {
            let settings = OAuthSettings {
                client_id: Some(String::from("c")),
                grant,
                assertion: Some(TokenSource::Inline(Secret::new("w.j.t"))),
                ..OAuthSettings::default()
            };
            let refused = client("https://mcp.example.com/mcp", settings.clone());
            assert!(
                matches!(refused, Err(AuthError::UnboundCredentials { .. })),
                "{grant:?}"
            );
            let settings = OAuthSettings {
                issuer: Some(String::from("https://as.example")),
                ..settings
            };
            assert!(client("https://mcp.example.com/mcp", settings).is_ok());
        }
    }
}
