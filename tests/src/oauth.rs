//! A real OAuth 2.1 authorization server for end-to-end tests, and a stand-in
//! for the person who signs in to it.
//!
//! [`AuthServer::start`] runs the `oidc-provider` package pinned in
//! `tests/oauth/package-lock.json` on the Node pinned beside it, through
//! `tests/oauth/provider.mjs`, on a free loopback port; dropping the
//! [`AuthServer`] kills it. [`drive_login`] does in plain HTTP what a person
//! does in a browser at the provider's development login and consent pages,
//! and hands back the redirect to the client's callback.
//!
//! ```no_run
//! # async fn example() -> Result<(), String> {
//! use mcp_tests::oauth::{self, AuthServer};
//!
//! let server = AuthServer::start()?;
//! let discovery = format!("{}/.well-known/openid-configuration", server.issuer());
//! // Register a client at the discovered `registration_endpoint` and build
//! // an authorization URL with PKCE and `resource`, as an MCP host does.
//! # let authorization_url = discovery;
//! let callback = oauth::drive_login(&authorization_url, "alice").await?;
//! assert!(callback.contains("code="));
//! # Ok(())
//! # }
//! ```
//!
//! The server, as `provider.mjs` configures it:
//! - discovery at `/.well-known/openid-configuration` only (no RFC 8414
//!   document), with `registration_endpoint`, `code_challenge_methods_supported`
//!   and `authorization_response_iss_parameter_supported: true`;
//! - the authorization code grant, PKCE S256 required, `iss` in every
//!   authorization response (RFC 9207);
//! - resource indicators (RFC 8707): any absolute http(s) URL is a resource
//!   with the scopes `notes:read` and `notes:write`, and a token asked for with
//!   `resource` is a JWT (RFC 9068) whose `aud` is that URL, signed with a key
//!   made at start and published at the `jwks_uri`;
//! - a refresh token from every code exchange by a client registered with
//!   the `refresh_token` grant;
//! - open dynamic client registration: native clients with loopback
//!   redirect URIs on any port, public (`none`) and confidential clients;
//! - the client credentials grant, with one confidential client registered
//!   at start ([`AuthServer::confidential_client_id`]);
//! - DPoP (RFC 9449): a token request carrying a DPoP proof (ES256 or
//!   EdDSA, no nonce asked for) gets a token of type `DPoP` whose JWT has
//!   `cnf.jkt`, the thumbprint of the proof's key; one without a proof
//!   gets a bearer token;
//! - development login and consent pages that accept any login name.

mod cookies;
mod form;
mod login;

use std::fmt;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

pub use login::{drive_login, drive_login_until};

/// Longest the provider may take from spawn to its ready line.
const START_DEADLINE: Duration = Duration::from_secs(60);

/// Most of the provider's stderr kept for [`AuthServer::log`].
const LOG_LIMIT: usize = 64 * 1024;

/// The confidential client registered at start.
const CONFIDENTIAL_CLIENT_ID: &str = "mcp-tests-service";

/// `tests/oauth`: the package pins and `provider.mjs`.
fn oauth_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("oauth")
}

/// The algorithm of every JWT the server signs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SigningAlg {
    /// ECDSA with P-256 and SHA-256.
    #[default]
    Es256,
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    Rs256,
}

impl SigningAlg {
    /// The JOSE name, as in a JWT header's `alg`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Es256 => "ES256",
            Self::Rs256 => "RS256",
        }
    }
}

/// How to start an [`AuthServer`].
#[derive(Debug, Clone)]
pub struct Settings {
    /// Lifetime of access tokens, in whole seconds and at least one; short
    /// ones let a test see a token expire and refresh it. Default 300 s.
    pub access_token_ttl: Duration,
    /// Algorithm of the signing key. Default ES256.
    pub signing_alg: SigningAlg,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            access_token_ttl: Duration::from_secs(300),
            signing_alg: SigningAlg::default(),
        }
    }
}

/// A running `oidc-provider` on loopback, killed and reaped on drop.
pub struct AuthServer {
    child: Child,
    /// Held so that the provider, which exits when its stdin closes, dies
    /// with this process even when `Drop` never runs.
    _stdin: Option<ChildStdin>,
    issuer: String,
    client_secret: String,
    log: Arc<Mutex<String>>,
}

impl AuthServer {
    /// Starts a server with the default [`Settings`].
    ///
    /// # Errors
    ///
    /// As [`AuthServer::start_with`].
    pub fn start() -> Result<Self, String> {
        Self::start_with(&Settings::default())
    }

    /// Installs the pinned packages with `npm ci` when `tests/oauth/node_modules`
    /// is missing or differs from the lock file, starts the provider on a
    /// free loopback port and waits for it to listen.
    ///
    /// # Errors
    ///
    /// Says what is missing and how to get it when the packages are not
    /// installed and `npm` cannot install them; says why, with the
    /// provider's stderr, when it exits or stays silent past a minute.
    pub fn start_with(settings: &Settings) -> Result<Self, String> {
        let dir = oauth_dir();
        let node = crate::npm::node(&dir)?;
        let client_secret = random_secret()?;
        let mut child = Command::new(&node)
            .current_dir(&dir)
            .arg("provider.mjs")
            .arg("0")
            .env(
                "ACCESS_TOKEN_TTL",
                settings.access_token_ttl.as_secs().to_string(),
            )
            .env("SIGNING_ALG", settings.signing_alg.as_str())
            .env("CONFIDENTIAL_CLIENT_ID", CONFIDENTIAL_CLIENT_ID)
            .env("CONFIDENTIAL_CLIENT_SECRET", &client_secret)
            .env("EXIT_WITH_STDIN", "1")
            // oidc-provider's debug output would show tokens.
            .env_remove("DEBUG")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot run {}: {e}", node.display()))?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");
        let mut server = Self {
            _stdin: child.stdin.take(),
            child,
            issuer: String::new(),
            client_secret,
            log: Arc::default(),
        };
        collect(stderr, Arc::clone(&server.log));
        server.issuer = server.wait_ready(stdout)?;
        Ok(server)
    }

    /// Reads stdout until the `READY <issuer>` line, then keeps draining it.
    fn wait_ready(&mut self, stdout: impl Read + Send + 'static) -> Result<String, String> {
        let (ready, issuer) = mpsc::channel();
        thread::spawn(move || {
            let mut ready = Some(ready);
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let (Some(url), Some(sender)) = (line.strip_prefix("READY "), ready.take()) {
                    let _ = sender.send(url.trim().to_owned());
                }
            }
        });
        match issuer.recv_timeout(START_DEADLINE) {
            Ok(issuer) => Ok(issuer),
            Err(RecvTimeoutError::Timeout) => Err(format!(
                "the authorization server printed no READY line within {START_DEADLINE:?}; \
                 its stderr:\n{}",
                self.log()
            )),
            Err(RecvTimeoutError::Disconnected) => {
                let status = self.child.wait().map_err(|e| e.to_string())?;
                Err(format!(
                    "the authorization server exited ({status}) before it was ready; \
                     its stderr:\n{}",
                    self.log()
                ))
            }
        }
    }

    /// The issuer identifier, `http://127.0.0.1:<port>`, which is also the
    /// base of every endpoint.
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// The provider's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The client registered at start for the client credentials grant; it
    /// authenticates with `client_secret_basic`.
    pub fn confidential_client_id(&self) -> &str {
        CONFIDENTIAL_CLIENT_ID
    }

    /// The secret of [`AuthServer::confidential_client_id`], new each start.
    pub fn confidential_client_secret(&self) -> &str {
        &self.client_secret
    }

    /// What the provider wrote to stderr so far: start-up warnings, and one
    /// line per failed request naming the event and the OAuth error code.
    pub fn log(&self) -> String {
        self.log.lock().map(|log| log.clone()).unwrap_or_default()
    }
}

/// Leaves out the client secret.
impl fmt::Debug for AuthServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuthServer")
            .field("pid", &self.child.id())
            .field("issuer", &self.issuer)
            .finish_non_exhaustive()
    }
}

impl Drop for AuthServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Appends `stream`'s lines to `log`, up to [`LOG_LIMIT`], on a thread that
/// ends with the stream.
fn collect(stream: impl Read + Send + 'static, log: Arc<Mutex<String>>) {
    thread::spawn(move || {
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { break };
            let Ok(mut log) = log.lock() else { break };
            if log.len() + line.len() < LOG_LIMIT {
                log.push_str(&line);
                log.push('\n');
            }
        }
    });
}

/// 32 random hex digits.
fn random_secret() -> Result<String, String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| format!("no randomness for a client secret: {e}"))?;
    Ok(bytes.iter().map(|byte| format!("{byte:02x}")).collect())
}
