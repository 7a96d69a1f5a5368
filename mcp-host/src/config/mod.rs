//! The host's configuration, in the common `mcpServers` JSON shape:
//!
//! ```json
//! {
//!   "mcpServers": {
//!     "notes": { "command": "notes-server", "args": ["--stdio"], "env": {"LOG": "1"}, "cwd": "/srv" },
//!     "search": { "url": "https://search.example/mcp", "headers": {"Authorization": "Bearer …"} }
//!   }
//! }
//! ```
//!
//! VS Code's shape, `{"servers": {...}, "inputs": [...]}`, is read too.
//! An entry's `type` is `stdio`, `http` (also `streamable-http`) for
//! Streamable HTTP, or `sse` for the deprecated HTTP+SSE transport of
//! 2024-11-05 (an `http` server that turns out to be one is found too; see
//! [`Target::Http`]). `serverUrl` is taken for `url`. `allowedTools`
//! keeps only the tools named, `disabledTools` leaves the named ones
//! out. In `command`, `args`, `env`, `envFile`, `url` and `headers`,
//! `${VAR}`, `${VAR:-default}`, `${env:VAR}`, `${userHome}`,
//! `${workspaceFolder}` and `${input:ID}` are expanded (see [`expand`]);
//! an unset variable without a default is an error naming the server and
//! the field.
//!
//! `${input:ID}` is the answer to the input `ID` of the top-level
//! `inputs` (see [`inputs`]): a `promptString` (with `password` for a
//! secret) or a `pickString`, asked of a [`Prompter`] the first time a
//! value uses it. [`HostConfig::from_json`] and [`HostConfig::load`] ask
//! nobody, so an input in use is an error there; the `mcp-host` command
//! asks at the terminal.
//!
//! `envFile` on a stdio entry names a dotenv file (`KEY=VALUE` lines;
//! relative to the entry's `cwd`, else to the current directory) whose
//! variables the server gets, under those of `env`.
//!
//! [`edit`] adds and removes entries in a file's text, keeping the rest
//! of it as it was (`mcp-host add` and `mcp-host remove`).
//!
//! The key of each entry is the server's [`ServerId`]. Three keys of our
//! own may appear in an entry: `"trusted": true` lets the server's tool
//! annotations relax the approval policy, `"legacy": true` skips the era
//! probe, and `"oauth"` configures how the host authorizes with an HTTP
//! server that asks for it (see [`OAuthConfig`]; `"oauth": false` turns
//! authorization off for the server). `"disabled": true` leaves the entry
//! out. Other keys are ignored, so configurations written for other hosts
//! load as they are.
//!
//! ```json
//! { "mcpServers": { "notes": {
//!     "url": "https://notes.example.com/mcp",
//!     "oauth": { "clientId": "my-host", "clientSecretEnv": "NOTES_SECRET", "scopes": ["notes:read"] }
//! } } }
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use crate::approval::Trust;
use crate::client::{ClientError, StdioCommand, Target};
use crate::names::ServerId;

mod dotenv;
pub mod edit;
pub mod expand;
pub mod inputs;

use expand::{Environment, Lookup};
use inputs::{Inputs, Prompter, Unattended};

/// One configured server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerConfig {
    /// Where it is.
    pub target: Target,
    /// Whether its annotations are trusted.
    pub trust: Trust,
    /// Whether to skip the probe and run `initialize`.
    pub legacy: bool,
    /// How to authorize, for an HTTP server.
    pub oauth: OAuthConfig,
    /// Which of its tools the host offers.
    pub tools: ToolFilter,
    /// For a lazy stdio server (`"lazy": true`), how long it may sit
    /// unused before the host stops it (`idleTimeout`, in seconds; 300 by
    /// default). A lazy server whose definitions are pinned is not started
    /// with the host: its catalogue is served from the pins until a
    /// request needs it. `None` for a server that runs as long as the
    /// host.
    pub idle: Option<std::time::Duration>,
}

/// How long a lazy server may sit unused by default.
pub const DEFAULT_IDLE: std::time::Duration = std::time::Duration::from_secs(300);

/// Which of a server's tools the host offers: `allowedTools` and
/// `disabledTools`, by the tool's own name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolFilter {
    /// Only these, when given.
    pub allowed: Option<Vec<String>>,
    /// Never these.
    pub disabled: Vec<String>,
}

impl ToolFilter {
    /// Whether the tool `name` is offered.
    pub fn admits(&self, name: &str) -> bool {
        self.allowed
            .as_ref()
            .is_none_or(|allowed| allowed.iter().any(|a| a == name))
            && !self.disabled.iter().any(|d| d == name)
    }
}

/// Where a secret comes from.
#[derive(Clone, PartialEq, Eq)]
pub enum SecretSource {
    /// Written in the configuration.
    Inline(String),
    /// The value of an environment variable, read when the host starts.
    Env(String),
}

impl std::fmt::Debug for SecretSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Inline(_) => f.write_str("Inline(<redacted>)"),
            Self::Env(name) => f.debug_tuple("Env").field(name).finish(),
        }
    }
}

impl SecretSource {
    /// The secret.
    ///
    /// # Errors
    ///
    /// [`ClientError::Config`] naming the variable when it is not set.
    pub fn resolve(&self) -> Result<String, ClientError> {
        match self {
            Self::Inline(text) => Ok(text.clone()),
            Self::Env(name) => std::env::var(name).map_err(|_| {
                ClientError::Config(format!("the environment variable `{name}` is not set"))
            }),
        }
    }
}

/// How the host authorizes with an HTTP server that asks for it. Every
/// field is optional: by default the host registers itself (by a client
/// metadata document or dynamically) and asks for the scopes the server
/// names.
///
/// The JSON keys are `clientId`, `clientSecret` or `clientSecretEnv`,
/// `issuer` (the authorization server the client id belongs to),
/// `scopes` (an array or a space-separated string), `clientMetadataUrl`,
/// `grant` (`authorization_code`, the default; `client_credentials` for a
/// host without a person; `jwt_bearer` for a workload that presents the
/// JWT its platform issued it, read from `assertionFile` or printed by
/// `assertionCommand` (an array: program and arguments) for every token
/// request; `enterprise` for enterprise-managed authorization, with an
/// `enterprise` object naming the identity provider's `tokenEndpoint`,
/// the host's `clientId` there and its `clientSecret` or
/// `clientSecretEnv`, and where the person's ID token is, `idTokenFile`
/// or `idTokenCommand`), `dpop` (`true` to bind tokens with DPoP whenever
/// the authorization server can, `false` never to; by default only when
/// the MCP server asks for it), `privateKeyFile` and `signingAlgorithm`
/// (for `private_key_jwt`), `tokenEndpointAuthMethod`, and
/// `redirectPort` (the loopback port of the redirect, for a client id
/// registered with a fixed redirect URI), and `allowHosts` (host names the
/// flow may reach at private or loopback addresses, for an authorization
/// server inside a company network; everything else a server's metadata
/// names must be a public address), and `legacyEndpointFallback` (for a
/// 2025-03-26 server that publishes no metadata at all: use the default
/// endpoints at its origin, although nothing says they support PKCE).
///
/// A client secret, a private key, a workload token or an identity
/// assertion needs `issuer`: it is only ever presented to that
/// authorization server, and a configuration that gives one without the
/// other is refused when it is read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OAuthConfig {
    /// Authorization is off: a refusal is an error.
    pub disabled: bool,
    /// A pre-registered client id.
    pub client_id: Option<String>,
    /// Its secret.
    pub client_secret: Option<SecretSource>,
    /// The issuer the client id belongs to.
    pub issuer: Option<String>,
    /// Scopes to ask for besides those the server names.
    pub scopes: Vec<String>,
    /// The host's Client ID Metadata Document URL.
    pub client_metadata_url: Option<String>,
    /// Whether to use the client-credentials grant.
    pub client_credentials: bool,
    /// For the JWT bearer grant (`"grant": "jwt_bearer"`): where the
    /// workload's token is.
    pub assertion: Option<TokenFrom>,
    /// For enterprise-managed authorization (`"grant": "enterprise"`).
    pub enterprise: Option<EnterpriseConfig>,
    /// Whether tokens are bound with DPoP: always (`true`), never
    /// (`false`), or when the server asks for it (unset).
    pub dpop: Option<bool>,
    /// A PKCS#8 PEM file with the `private_key_jwt` key.
    pub private_key_file: Option<PathBuf>,
    /// The algorithm of that key (`ES256` by default).
    pub signing_algorithm: Option<String>,
    /// How the client authenticates at the token endpoint.
    pub token_endpoint_auth_method: Option<String>,
    /// The loopback port of the redirect URI.
    pub redirect_port: Option<u16>,
    /// Hosts the flow may reach at private addresses.
    pub allow_hosts: Vec<String>,
    /// Whether the 2025-03-26 default endpoints may be used for a server
    /// that publishes no metadata.
    pub legacy_endpoint_fallback: bool,
}

/// Where a token the host presents is read from, for every token
/// request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenFrom {
    /// A file (`…File`), such as a projected service account token.
    File(PathBuf),
    /// A program and its arguments (`…Command`), run without a shell;
    /// its standard output is the token.
    Command(Vec<String>),
}

impl TokenFrom {
    fn pick(
        file: Option<PathBuf>,
        command: Option<Vec<String>>,
        keys: (&str, &str),
    ) -> Result<Option<Self>, String> {
        match (file, command) {
            (Some(_), Some(_)) => Err(format!("give `{}` or `{}`, not both", keys.0, keys.1)),
            (Some(path), None) => Ok(Some(Self::File(path))),
            (None, Some(argv)) if argv.is_empty() => Err(format!("`{}` is empty", keys.1)),
            (None, Some(argv)) => Ok(Some(Self::Command(argv))),
            (None, None) => Ok(None),
        }
    }
}

/// The identity provider of enterprise-managed authorization.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnterpriseConfig {
    /// Its token endpoint, where the ID token is exchanged for an ID-JAG.
    pub token_endpoint: String,
    /// The host's client id there.
    pub client_id: String,
    /// Its secret there.
    pub client_secret: Option<SecretSource>,
    /// Where the person's ID token is.
    pub id_token: TokenFrom,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct EnterpriseEntry {
    token_endpoint: String,
    client_id: String,
    client_secret: Option<String>,
    client_secret_env: Option<String>,
    id_token_file: Option<PathBuf>,
    id_token_command: Option<Vec<String>>,
}

fn secret_source(
    inline: Option<String>,
    env: Option<String>,
) -> Result<Option<SecretSource>, String> {
    match (inline, env) {
        (Some(_), Some(_)) => Err("give `clientSecret` or `clientSecretEnv`, not both".into()),
        (Some(text), None) => Ok(Some(SecretSource::Inline(text))),
        (None, Some(name)) => Ok(Some(SecretSource::Env(name))),
        (None, None) => Ok(None),
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Scopes {
    List(Vec<String>),
    Text(String),
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct OAuthEntry {
    client_id: Option<String>,
    client_secret: Option<String>,
    client_secret_env: Option<String>,
    issuer: Option<String>,
    scopes: Option<Scopes>,
    client_metadata_url: Option<String>,
    grant: Option<String>,
    private_key_file: Option<PathBuf>,
    signing_algorithm: Option<String>,
    token_endpoint_auth_method: Option<String>,
    redirect_port: Option<u16>,
    #[serde(default)]
    allow_hosts: Vec<String>,
    #[serde(default)]
    legacy_endpoint_fallback: bool,
    assertion_file: Option<PathBuf>,
    assertion_command: Option<Vec<String>>,
    enterprise: Option<EnterpriseEntry>,
    dpop: Option<bool>,
}

impl OAuthConfig {
    fn from_value(value: Value) -> Result<Self, String> {
        if value == Value::Bool(false) {
            return Ok(Self {
                disabled: true,
                ..Self::default()
            });
        }
        if value == Value::Bool(true) {
            return Ok(Self::default());
        }
        let entry: OAuthEntry =
            serde_json::from_value(value).map_err(|e| format!("`oauth`: {e}"))?;
        let client_secret = secret_source(entry.client_secret, entry.client_secret_env)
            .map_err(|e| format!("`oauth`: {e}"))?;
        let assertion = TokenFrom::pick(
            entry.assertion_file,
            entry.assertion_command,
            ("assertionFile", "assertionCommand"),
        )
        .map_err(|e| format!("`oauth`: {e}"))?;
        let enterprise = match entry.enterprise {
            Some(e) => {
                let fail = |what: String| format!("`oauth.enterprise`: {what}");
                Some(EnterpriseConfig {
                    token_endpoint: e.token_endpoint,
                    client_id: e.client_id,
                    client_secret: secret_source(e.client_secret, e.client_secret_env)
                        .map_err(fail)?,
                    id_token: TokenFrom::pick(
                        e.id_token_file,
                        e.id_token_command,
                        ("idTokenFile", "idTokenCommand"),
                    )
                    .map_err(fail)?
                    .ok_or_else(|| fail("give `idTokenFile` or `idTokenCommand`".into()))?,
                })
            }
            None => None,
        };
        // A secret or key is issued by one authorization server; without
        // the issuer, a server could name any authorization server and
        // have the host present it there.
        if entry.issuer.is_none() {
            let given = [
                (
                    "clientSecret",
                    matches!(client_secret, Some(SecretSource::Inline(_))),
                ),
                (
                    "clientSecretEnv",
                    matches!(client_secret, Some(SecretSource::Env(_))),
                ),
                ("privateKeyFile", entry.private_key_file.is_some()),
                (
                    "assertionFile",
                    matches!(assertion, Some(TokenFrom::File(_))),
                ),
                (
                    "assertionCommand",
                    matches!(assertion, Some(TokenFrom::Command(_))),
                ),
                ("enterprise", enterprise.is_some()),
            ];
            if let Some((key, _)) = given.iter().find(|(_, set)| *set) {
                return Err(format!(
                    "`oauth.{key}` needs `oauth.issuer`: add the issuer URL of the authorization server that issued it, so that it is never sent to another"
                ));
            }
        }
        let grant = entry.grant.as_deref().unwrap_or("authorization_code");
        let client_credentials = match grant {
            "authorization_code" | "jwt_bearer" | "enterprise" => false,
            "client_credentials" => true,
            other => {
                return Err(format!(
                    "`oauth.grant`: `{other}` is not `authorization_code`, `client_credentials`, `jwt_bearer` or `enterprise`"
                ))
            }
        };
        if grant != "authorization_code" && entry.client_id.is_none() {
            return Err(format!("`oauth`: the {grant} grant needs a `clientId`"));
        }
        if assertion.is_some() != (grant == "jwt_bearer") {
            return Err(if assertion.is_some() {
                "`oauth`: `assertionFile` and `assertionCommand` go with the jwt_bearer grant only"
                    .into()
            } else {
                "`oauth`: the jwt_bearer grant needs `assertionFile` or `assertionCommand`".into()
            });
        }
        if enterprise.is_some() != (grant == "enterprise") {
            return Err(if enterprise.is_some() {
                "`oauth`: `enterprise` goes with the enterprise grant only".into()
            } else {
                "`oauth`: the enterprise grant needs an `enterprise` object".into()
            });
        }
        let scopes = match entry.scopes {
            None => Vec::new(),
            Some(Scopes::List(list)) => list,
            Some(Scopes::Text(text)) => text.split_whitespace().map(str::to_owned).collect(),
        };
        Ok(Self {
            disabled: false,
            client_id: entry.client_id,
            client_secret,
            issuer: entry.issuer,
            scopes,
            client_metadata_url: entry.client_metadata_url,
            client_credentials,
            assertion,
            enterprise,
            dpop: entry.dpop,
            private_key_file: entry.private_key_file,
            signing_algorithm: entry.signing_algorithm,
            token_endpoint_auth_method: entry.token_endpoint_auth_method,
            redirect_port: entry.redirect_port,
            allow_hosts: entry.allow_hosts,
            legacy_endpoint_fallback: entry.legacy_endpoint_fallback,
        })
    }
}

/// The configured servers by id.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostConfig {
    /// The servers, ordered by id.
    pub servers: BTreeMap<ServerId, ServerConfig>,
}

#[derive(Deserialize)]
struct File {
    #[serde(rename = "mcpServers")]
    servers: Option<BTreeMap<String, Value>>,
    /// VS Code's name for the same.
    #[serde(rename = "servers")]
    vscode: Option<BTreeMap<String, Value>>,
    /// VS Code's inputs, for `${input:ID}`.
    inputs: Option<Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Entry {
    #[serde(rename = "type")]
    kind: Option<String>,
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    cwd: Option<PathBuf>,
    env_file: Option<String>,
    url: Option<String>,
    server_url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    allowed_tools: Option<Vec<String>>,
    #[serde(default)]
    disabled_tools: Vec<String>,
    #[serde(default)]
    trusted: bool,
    #[serde(default)]
    legacy: bool,
    #[serde(default)]
    disabled: bool,
    oauth: Option<Value>,
    #[serde(default)]
    lazy: bool,
    idle_timeout: Option<f64>,
}

impl HostConfig {
    /// Reads a configuration from JSON text, expanding variables from the
    /// process's environment.
    ///
    /// # Errors
    ///
    /// [`ClientError::Config`] naming the entry and field at fault: not
    /// JSON, no `mcpServers` (or `servers`), an entry with both or neither
    /// of `command` and `url`, a `type` that does not fit, a variable that
    /// cannot be expanded, an input that is malformed or used (nobody is
    /// asked), an `envFile` that cannot be read, or a bad server id.
    pub fn from_json(text: &str) -> Result<Self, ClientError> {
        Self::from_json_with(text, &Environment, &Unattended)
    }

    /// As [`HostConfig::from_json`], looking variables and files up in
    /// `lookup` and asking `prompter` for the inputs used.
    ///
    /// # Errors
    ///
    /// As [`HostConfig::from_json`], and when an input gets no answer.
    pub fn from_json_with(
        text: &str,
        lookup: &dyn Lookup,
        prompter: &dyn Prompter,
    ) -> Result<Self, ClientError> {
        let file: File =
            serde_json::from_str(text).map_err(|e| ClientError::Config(e.to_string()))?;
        let mut inputs = Inputs::parse(file.inputs, prompter).map_err(ClientError::Config)?;
        let entries = match (file.servers, file.vscode) {
            (Some(servers), None) | (None, Some(servers)) => servers,
            (Some(_), Some(_)) => {
                return Err(ClientError::Config(
                    "give `mcpServers` or VS Code's `servers`, not both".into(),
                ))
            }
            (None, None) => {
                return Err(ClientError::Config(
                    "no `mcpServers` (or VS Code `servers`) object".into(),
                ))
            }
        };
        let mut servers = BTreeMap::new();
        for (key, value) in entries {
            let bad = |what: String| ClientError::Config(format!("server `{key}`: {what}"));
            let entry: Entry = serde_json::from_value(value).map_err(|e| bad(e.to_string()))?;
            if entry.disabled {
                continue;
            }
            let mut expanded = |field: &str, text: &str| {
                expand::expand(text, lookup, &mut inputs)
                    .map_err(|e| bad(format!("`{field}`: {e}")))
            };
            let url = match (entry.url, entry.server_url) {
                (Some(_), Some(_)) => {
                    return Err(bad("give `url` or `serverUrl`, not both".into()))
                }
                (url, server_url) => url.or(server_url),
            };
            match (entry.kind.as_deref(), &entry.command, &url) {
                (None | Some("stdio"), _, _)
                | (Some("http" | "streamable-http" | "streamableHttp"), None, _) => {}
                (Some("sse"), None, _) => {}
                (Some("sse"), Some(_), _) => {
                    return Err(bad(
                        "`type` is `sse`, which takes a `url`, not a `command`".into()
                    ))
                }
                (Some("http" | "streamable-http" | "streamableHttp"), Some(_), _) => {
                    return Err(bad(
                        "`type` is `http`, which takes a `url`, not a `command`".into(),
                    ))
                }
                (Some(other), _, _) => {
                    return Err(bad(format!(
                        "`type`: `{other}` is not `stdio`, `http` or `sse`"
                    )))
                }
            }
            if entry.kind.as_deref() == Some("stdio") && url.is_some() {
                return Err(bad(
                    "`type` is `stdio`, which takes a `command`, not a `url`".into(),
                ));
            }
            let oauth = match entry.oauth {
                None => OAuthConfig::default(),
                Some(_) if entry.command.is_some() => return Err(bad(
                    "`oauth` is for HTTP servers; a stdio server takes its credentials from `env`"
                        .into(),
                )),
                Some(_) if entry.kind.as_deref() == Some("sse") => {
                    return Err(bad(
                        "`oauth` is not offered over the deprecated SSE transport; give the token \
                     in `headers`, or use the server's Streamable HTTP endpoint"
                            .into(),
                    ))
                }
                Some(value) => OAuthConfig::from_value(value).map_err(bad)?,
            };
            let target = match (entry.command, url) {
                (Some(command), None) => {
                    let command = expanded("command", &command)?;
                    let mut args = Vec::new();
                    for (n, arg) in entry.args.iter().enumerate() {
                        args.push(expanded(&format!("args[{n}]"), arg)?);
                    }
                    let mut env = BTreeMap::new();
                    if let Some(file) = &entry.env_file {
                        let path = expanded("envFile", file)?;
                        let path = match &entry.cwd {
                            Some(cwd) => cwd.join(path),
                            None => PathBuf::from(path),
                        };
                        env.extend(
                            env_file(&path, lookup)
                                .map_err(|e| bad(format!("`envFile`: {}: {e}", path.display())))?,
                        );
                    }
                    for (name, value) in &entry.env {
                        env.insert(name.clone(), expanded(&format!("env.{name}"), value)?);
                    }
                    let written = entry.args.iter().any(|a| a.contains("${"));
                    Target::Stdio(StdioCommand {
                        command,
                        args,
                        shown_args: written.then(|| entry.args.clone()),
                        env: env.into_iter().collect(),
                        cwd: entry.cwd,
                        inherit_stderr: false,
                    })
                }
                (None, Some(_)) if entry.env_file.is_some() => {
                    return Err(bad(
                        "`envFile` is for stdio servers; an HTTP server takes `headers`".into(),
                    ))
                }
                (None, Some(url)) => {
                    let url = expanded("url", &url)?;
                    let mut headers = Vec::new();
                    for (name, value) in &entry.headers {
                        headers.push((name.clone(), expanded(&format!("headers.{name}"), value)?));
                    }
                    if entry.kind.as_deref() == Some("sse") {
                        Target::Sse { url, headers }
                    } else {
                        Target::Http { url, headers }
                    }
                }
                (Some(_), Some(_)) => return Err(bad("give `command` or `url`, not both".into())),
                (None, None) => return Err(bad("give `command` (stdio) or `url` (HTTP)".into())),
            };
            let idle =
                match (entry.lazy, entry.idle_timeout) {
                    (false, None) => None,
                    (false, Some(_)) => {
                        return Err(bad("`idleTimeout` goes with `\"lazy\": true`".into()))
                    }
                    (true, _) if !matches!(target, Target::Stdio(_)) => return Err(bad(
                        "`lazy` is for stdio servers; an HTTP server costs nothing while unused"
                            .into(),
                    )),
                    (true, None) => Some(DEFAULT_IDLE),
                    (true, Some(seconds)) => Some(
                        std::time::Duration::try_from_secs_f64(seconds)
                            .ok()
                            .filter(|d| !d.is_zero())
                            .ok_or_else(|| {
                                bad(format!(
                                    "`idleTimeout`: {seconds} is not a positive number of seconds"
                                ))
                            })?,
                    ),
                };
            let id = ServerId::new(key.clone()).map_err(|e| bad(e.to_string()))?;
            let trust = if entry.trusted {
                Trust::Trusted
            } else {
                Trust::Untrusted
            };
            servers.insert(
                id,
                ServerConfig {
                    target,
                    trust,
                    legacy: entry.legacy,
                    oauth,
                    tools: ToolFilter {
                        allowed: entry.allowed_tools,
                        disabled: entry.disabled_tools,
                    },
                    idle,
                },
            );
        }
        Ok(Self { servers })
    }

    /// Reads a configuration file; an input in use is an error, as
    /// nobody is asked.
    ///
    /// # Errors
    ///
    /// When the file cannot be read, and as [`HostConfig::from_json`].
    pub fn load(path: &Path) -> Result<Self, ClientError> {
        Self::load_with(path, &Unattended)
    }

    /// Reads a configuration file, asking `prompter` for the inputs used.
    ///
    /// # Errors
    ///
    /// As [`HostConfig::load`], and when an input gets no answer.
    pub fn load_with(path: &Path, prompter: &dyn Prompter) -> Result<Self, ClientError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ClientError::Config(format!("{}: {e}", path.display())))?;
        Self::from_json_with(&text, &Environment, prompter)
    }
}

/// The variables of the `envFile` at `path`, read through `lookup`; what
/// is wrong, never a value.
fn env_file(path: &Path, lookup: &dyn Lookup) -> Result<Vec<(String, String)>, String> {
    let text = lookup.read_file(path).map_err(|e| e.to_string())?;
    dotenv::parse(&text).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_both_kinds() {
        let config = HostConfig::from_json(
            r#"{"mcpServers": {
                "notes": {"command": "notes", "args": ["--stdio"], "env": {"A": "1"}, "cwd": "/tmp", "trusted": true},
                "web": {"type": "http", "url": "http://127.0.0.1:1/mcp", "headers": {"X-Key": "k"}, "legacy": true},
                "off": {"command": "x", "disabled": true}
            }}"#,
        )
        .expect("valid");
        assert_eq!(config.servers.len(), 2);
        let notes = &config.servers[&ServerId::new("notes").expect("id")];
        assert_eq!(notes.trust, Trust::Trusted);
        match &notes.target {
            Target::Stdio(c) => {
                assert_eq!(c.args, ["--stdio"]);
                assert_eq!(c.env, [("A".to_owned(), "1".to_owned())]);
                assert_eq!(c.cwd.as_deref(), Some(Path::new("/tmp")));
            }
            other => panic!("{other:?}"),
        }
        let web = &config.servers[&ServerId::new("web").expect("id")];
        assert!(web.legacy);
        assert_eq!(web.trust, Trust::Untrusted);
        assert!(matches!(&web.target, Target::Http { headers, .. } if headers.len() == 1));
    }

    #[test]
    fn reads_oauth() {
        let config = HostConfig::from_json(
            r#"{"mcpServers": {
                "a": {"url": "https://a.example/mcp", "oauth": {"clientId": "c", "clientSecretEnv": "A_SECRET",
                      "scopes": "x y", "issuer": "https://as.example", "redirectPort": 8765}},
                "b": {"url": "https://b.example/mcp", "oauth": false},
                "c": {"url": "https://c.example/mcp", "oauth": {"grant": "client_credentials", "clientId": "svc",
                      "clientSecret": "inline-secret", "scopes": ["s"], "issuer": "https://as.example",
                      "allowHosts": ["sso.corp.example"]}},
                "w": {"url": "https://w.example/mcp", "oauth": {"grant": "jwt_bearer", "clientId": "wl",
                      "issuer": "https://as.example", "assertionFile": "/var/run/token", "dpop": true}},
                "e": {"url": "https://e.example/mcp", "oauth": {"grant": "enterprise", "clientId": "mcp",
                      "clientSecretEnv": "E_SECRET", "issuer": "https://as.example",
                      "enterprise": {"tokenEndpoint": "https://idp.example/token", "clientId": "host",
                                     "idTokenCommand": ["idp-login", "--print"]}}},
                "d": {"url": "https://d.example/mcp"}
            }}"#,
        )
        .expect("valid");
        let get = |id: &str| {
            config.servers[&ServerId::new(id).expect("id")]
                .oauth
                .clone()
        };
        let a = get("a");
        assert_eq!(a.client_id.as_deref(), Some("c"));
        assert_eq!(a.client_secret, Some(SecretSource::Env("A_SECRET".into())));
        assert_eq!(a.scopes, ["x", "y"]);
        assert_eq!(a.redirect_port, Some(8765));
        assert!(get("b").disabled);
        let c = get("c");
        assert!(c.client_credentials);
        assert_eq!(c.scopes, ["s"]);
        assert_eq!(c.allow_hosts, ["sso.corp.example"]);
        assert!(!format!("{c:?}").contains("inline-secret"));
        assert_eq!(get("d"), OAuthConfig::default());
        let w = get("w");
        assert_eq!(w.assertion, Some(TokenFrom::File("/var/run/token".into())));
        assert_eq!(w.dpop, Some(true));
        let e = get("e").enterprise.expect("enterprise");
        assert_eq!(e.token_endpoint, "https://idp.example/token");
        assert_eq!(e.client_id, "host");
        assert_eq!(
            e.id_token,
            TokenFrom::Command(vec!["idp-login".into(), "--print".into()])
        );
        assert!(SecretSource::Env("MCP_HOST_TEST_UNSET_VARIABLE".into())
            .resolve()
            .expect_err("unset")
            .to_string()
            .contains("MCP_HOST_TEST_UNSET_VARIABLE"));
    }

    #[test]
    fn names_the_faulty_oauth_field() {
        for (text, needle) in [
            (
                r#"{"mcpServers": {"s": {"command": "x", "oauth": {}}}}"#,
                "stdio server",
            ),
            (
                r#"{"mcpServers": {"h": {"url": "https://h/mcp", "oauth": {"clientSecret": "a", "clientSecretEnv": "B"}}}}"#,
                "not both",
            ),
            (
                r#"{"mcpServers": {"h": {"url": "https://h/mcp", "oauth": {"grant": "implicit"}}}}"#,
                "oauth.grant",
            ),
            (
                r#"{"mcpServers": {"h": {"url": "https://h/mcp", "oauth": {"grant": "client_credentials"}}}}"#,
                "needs a `clientId`",
            ),
            // Credentials without the issuer they belong to.
            (
                r#"{"mcpServers": {"h": {"url": "https://h/mcp", "oauth": {"grant": "client_credentials", "clientId": "c", "clientSecretEnv": "S"}}}}"#,
                "`oauth.clientSecretEnv` needs `oauth.issuer`: add the issuer URL",
            ),
            (
                r#"{"mcpServers": {"h": {"url": "https://h/mcp", "oauth": {"clientId": "c", "clientSecret": "s"}}}}"#,
                "`oauth.clientSecret` needs `oauth.issuer`",
            ),
            (
                r#"{"mcpServers": {"h": {"url": "https://h/mcp", "oauth": {"clientId": "c", "privateKeyFile": "k.pem"}}}}"#,
                "`oauth.privateKeyFile` needs `oauth.issuer`",
            ),
            (
                r#"{"mcpServers": {"h": {"url": "https://h/mcp", "oauth": {"clientID": "typo"}}}}"#,
                "unknown field `clientID`",
            ),
            (
                r#"{"mcpServers": {"h": {"url": "https://h/mcp", "oauth": {"grant": "jwt_bearer", "clientId": "c", "issuer": "https://as"}}}}"#,
                "needs `assertionFile` or `assertionCommand`",
            ),
            (
                r#"{"mcpServers": {"h": {"url": "https://h/mcp", "oauth": {"grant": "jwt_bearer", "clientId": "c", "assertionFile": "t"}}}}"#,
                "`oauth.assertionFile` needs `oauth.issuer`",
            ),
            (
                r#"{"mcpServers": {"h": {"url": "https://h/mcp", "oauth": {"clientId": "c", "issuer": "https://as", "assertionCommand": ["x"]}}}}"#,
                "go with the jwt_bearer grant only",
            ),
            (
                r#"{"mcpServers": {"h": {"url": "https://h/mcp", "oauth": {"grant": "jwt_bearer", "clientId": "c", "issuer": "https://as", "assertionFile": "t", "assertionCommand": ["x"]}}}}"#,
                "not both",
            ),
            (
                r#"{"mcpServers": {"h": {"url": "https://h/mcp", "oauth": {"grant": "enterprise", "clientId": "c", "issuer": "https://as"}}}}"#,
                "needs an `enterprise` object",
            ),
            (
                r#"{"mcpServers": {"h": {"url": "https://h/mcp", "oauth": {"grant": "enterprise", "clientId": "c", "issuer": "https://as", "enterprise": {"tokenEndpoint": "https://idp/token", "clientId": "h"}}}}}"#,
                "give `idTokenFile` or `idTokenCommand`",
            ),
        ] {
            let error = HostConfig::from_json(text).expect_err(text).to_string();
            assert!(error.contains(needle), "{error}");
            assert!(error.contains("server `"), "{error}");
        }
    }

    #[test]
    fn names_the_faulty_entry() {
        for (text, needle) in [
            (r#"{"mcpServers": {"x": {}}}"#, "server `x`"),
            (
                r#"{"mcpServers": {"y": {"command": "a", "url": "b"}}}"#,
                "not both",
            ),
            (r#"{"mcpServers": {"z": {"command": 3}}}"#, "server `z`"),
            (r#"{"other": {}}"#, "mcpServers"),
            (r#"{"mcpServers": {}, "servers": {}}"#, "not both"),
            ("not json", "expected"),
            (
                r#"{"mcpServers": {"h": {"url": "https://h/mcp", "lazy": true}}}"#,
                "`lazy` is for stdio servers",
            ),
            (
                r#"{"mcpServers": {"s": {"command": "x", "idleTimeout": 5}}}"#,
                "goes with `\"lazy\": true`",
            ),
            (
                r#"{"mcpServers": {"s": {"command": "x", "lazy": true, "idleTimeout": 0}}}"#,
                "not a positive number of seconds",
            ),
            (
                r#"{"mcpServers": {"s": {"command": "x", "lazy": true, "idleTimeout": -1}}}"#,
                "not a positive number of seconds",
            ),
        ] {
            let error = HostConfig::from_json(text).expect_err(text).to_string();
            assert!(error.contains(needle), "{error}");
        }
    }

    #[test]
    fn reads_lazy_servers() {
        let config = HostConfig::from_json(
            r#"{"mcpServers": {
                "a": {"command": "x", "lazy": true},
                "b": {"command": "x", "lazy": true, "idleTimeout": 1.5},
                "c": {"command": "x"}
            }}"#,
        )
        .expect("valid");
        let idle = |id: &str| config.servers[&ServerId::new(id).expect("id")].idle;
        assert_eq!(idle("a"), Some(DEFAULT_IDLE));
        assert_eq!(idle("b"), Some(std::time::Duration::from_millis(1500)));
        assert_eq!(idle("c"), None);
    }

    struct Fixed;

    impl Lookup for Fixed {
        fn var(&self, name: &str) -> Option<String> {
            (name == "API_TOKEN").then(|| "t0k".to_owned())
        }

        fn workspace(&self) -> Option<String> {
            Some("/srv/project".into())
        }

        fn read_file(&self, path: &Path) -> std::io::Result<String> {
            match path.to_str() {
                Some("/srv/project/.env") => {
                    Ok("# for the server\nA=from-file\nexport B='kept'\n".into())
                }
                Some("/srv/cwd/rel.env") => Ok("R=relative".into()),
                Some("rel.env") => Ok("R=current".into()),
                Some("/srv/bad.env") => Ok("A=1\n\nTOKEN \"s3cret\"\n".into()),
                _ => Err(std::io::ErrorKind::NotFound.into()),
            }
        }
    }

    fn read(text: &str) -> Result<HostConfig, String> {
        HostConfig::from_json_with(text, &Fixed, &Unattended).map_err(|e| e.to_string())
    }

    /// The stdio command of server `id`.
    fn command(config: &HostConfig, id: &str) -> StdioCommand {
        match &config.servers[&ServerId::new(id).expect("id")].target {
            Target::Stdio(command) => command.clone(),
            other => panic!("{other:?}"),
        }
    }

    /// `(name, value)` pairs, owned.
    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|&(k, v)| (k.to_owned(), v.to_owned()))
            .collect()
    }

    const INPUTS: &str = r#""inputs": [
        {"type": "promptString", "id": "key", "description": "API key", "password": true},
        {"type": "pickString", "id": "mode", "options": ["--stdio", "--verbose"], "default": "--stdio"},
        {"type": "promptString", "id": "never"},
        {"type": "command", "id": "picked", "command": "extension.pick"}
    ]"#;

    #[test]
    fn expanded_secrets_never_show_in_debug_or_reports() {
        let prompter = inputs::tests::Fixed::new(&[("key", "s3cret"), ("mode", "2")]);
        let text = format!(
            r#"{{{INPUTS}, "servers": {{
                "a": {{"command": "srv", "args": ["--key", "${{input:key}}", "--token=${{API_TOKEN}}"],
                       "env": {{"KEY": "${{input:key}}"}}}},
                "b": {{"url": "https://h.example/mcp?key=${{API_TOKEN}}",
                       "headers": {{"Authorization": "Bearer ${{input:key}}"}}}}
            }}}}"#
        );
        let config = HostConfig::from_json_with(&text, &Fixed, &prompter).expect("valid");
        let a = command(&config, "a");
        // The process gets the values...
        assert_eq!(a.args, ["--key", "s3cret", "--token=t0k"]);
        // ...reports and Debug show what the configuration wrote.
        assert_eq!(
            a.command_line(),
            "srv --key ${input:key} --token=${API_TOKEN}"
        );
        let debug = format!("{config:?}");
        for secret in ["s3cret", "t0k"] {
            assert!(!debug.contains(secret), "{secret} in {debug}");
        }
        assert!(
            debug.contains("\"KEY\"") && debug.contains("\"Authorization\""),
            "{debug}"
        );
        assert!(debug.contains("https://h.example/mcp?…"), "{debug}");
        // A command without variables shows as it is.
        let plain = read(r#"{"mcpServers": {"p": {"command": "srv", "args": ["--stdio"]}}}"#)
            .expect("valid");
        assert_eq!(command(&plain, "p").command_line(), "srv --stdio");
    }

    #[test]
    fn each_input_is_asked_once_and_fills_every_field_that_uses_it() {
        let prompter = inputs::tests::Fixed::new(&[("key", "s3cret"), ("mode", "2")]);
        let text = format!(
            r#"{{{INPUTS}, "servers": {{
                "a": {{"command": "srv", "args": ["${{input:mode}}"], "env": {{"KEY": "${{input:key}}"}}}},
                "b": {{"url": "https://h.example/${{input:mode}}", "headers": {{"Authorization": "Bearer ${{input:key}}"}}}},
                "c": {{"command": "${{input:never}}", "disabled": true}}
            }}}}"#
        );
        let config = HostConfig::from_json_with(&text, &Fixed, &prompter).expect("valid");
        assert_eq!(*prompter.asked.borrow(), ["mode", "key"]);
        let a = command(&config, "a");
        assert_eq!(a.args, ["--verbose"]);
        assert_eq!(a.env, pairs(&[("KEY", "s3cret")]));
        let b = &config.servers[&ServerId::new("b").expect("id")].target;
        assert_eq!(
            b,
            &Target::Http {
                url: "https://h.example/--verbose".into(),
                headers: pairs(&[("Authorization", "Bearer s3cret")]),
            }
        );
    }

    #[test]
    fn an_input_that_cannot_be_answered_names_the_server_field_and_input() {
        let answer = |text: &str| {
            let prompter = inputs::tests::Fixed::new(&[("key", "s3cret")]);
            let text = format!(r#"{{{INPUTS}, "servers": {{"s": {text}}}}}"#);
            HostConfig::from_json_with(&text, &Fixed, &prompter)
                .map(|_| ())
                .map_err(|e| e.to_string())
        };
        for (entry, expected) in [
            (
                r#"{"command": "x", "args": ["${input:nope}"]}"#,
                "server `s`: `args[0]`: `${input:nope}`: `inputs` declares no input `nope`",
            ),
            (
                r#"{"command": "x", "env": {"K": "${input:never}"}}"#,
                "server `s`: `env.K`: `${input:never}`: the terminal's input ended before an answer",
            ),
            (
                r#"{"url": "https://h/${input:picked}"}"#,
                "server `s`: `url`: `${input:picked}` runs the VS Code command `extension.pick`",
            ),
            (
                r#"{"command": "x", "args": ["${input:key}"], "envFile": "/srv/${input:nope}"}"#,
                "server `s`: `envFile`: `${input:nope}`",
            ),
        ] {
            let error = answer(entry).expect_err(entry);
            assert!(error.contains(expected), "{error}");
            assert!(!error.contains("s3cret"), "{error}");
        }
        // Asking nobody, the error says an input needs a terminal.
        let text = format!(
            r#"{{{INPUTS}, "servers": {{"s": {{"command": "x", "env": {{"K": "${{input:key}}"}}}}}}}}"#
        );
        let error = HostConfig::from_json(&text)
            .expect_err("unattended")
            .to_string();
        assert!(
            error.contains(
                "server `s`: `env.K`: `${input:key}`: it needs an answer typed at a terminal"
            ),
            "{error}"
        );
        assert!(error.contains("`${env:NAME}`"), "{error}");
        // A malformed input is an error even when nothing uses it.
        let error =
            read(r#"{"inputs": [{"type": "promptString"}], "servers": {}}"#).expect_err("no id");
        assert!(error.ends_with(": `inputs[0]`: no `id`"), "{error}");
    }

    #[test]
    fn an_env_file_gives_the_server_variables_under_those_of_env() {
        let config = read(
            r#"{"servers": {
                "both": {"command": "x", "envFile": "${workspaceFolder}/.env", "env": {"A": "from-env", "C": "c"}},
                "in-cwd": {"command": "x", "cwd": "/srv/cwd", "envFile": "rel.env"},
                "here": {"command": "x", "envFile": "rel.env"},
                "absolute": {"command": "x", "cwd": "/srv/cwd", "envFile": "/srv/project/.env"}
            }}"#,
        )
        .expect("valid");
        assert_eq!(
            command(&config, "both").env,
            pairs(&[("A", "from-env"), ("B", "kept"), ("C", "c")])
        );
        assert_eq!(command(&config, "in-cwd").env, pairs(&[("R", "relative")]));
        assert_eq!(command(&config, "here").env, pairs(&[("R", "current")]));
        assert_eq!(
            command(&config, "absolute").env,
            pairs(&[("A", "from-file"), ("B", "kept")])
        );
    }

    #[test]
    fn an_env_file_that_cannot_be_used_names_the_server_path_and_line() {
        for (entry, expected) in [
            (
                r#"{"command": "x", "envFile": "/srv/missing.env"}"#,
                "server `s`: `envFile`: /srv/missing.env: entity not found",
            ),
            (
                r#"{"command": "x", "envFile": "/srv/bad.env"}"#,
                "server `s`: `envFile`: /srv/bad.env: line 3: expected `KEY=VALUE`",
            ),
            (
                r#"{"command": "x", "envFile": "${NOPE}/.env"}"#,
                "server `s`: `envFile`: the variable `NOPE` is not set",
            ),
            (
                r#"{"url": "https://h/mcp", "envFile": "/srv/project/.env"}"#,
                "server `s`: `envFile` is for stdio servers; an HTTP server takes `headers`",
            ),
        ] {
            let error = read(&format!(r#"{{"servers": {{"s": {entry}}}}}"#)).expect_err(entry);
            assert!(error.contains(expected), "{error}");
            assert!(!error.contains("s3cret"), "{error}");
        }
    }

    #[test]
    fn reads_the_shapes_other_hosts_write() {
        let claude = read(
            r#"{"mcpServers": {
                "local": {"type": "stdio", "command": "${workspaceFolder}/bin/srv", "args": ["--token", "${API_TOKEN}"],
                          "env": {"LEVEL": "${LOG_LEVEL:-info}"}, "disabledTools": ["delete"]},
                "remote": {"type": "http", "serverUrl": "https://h.example/mcp",
                           "headers": {"Authorization": "Bearer ${env:API_TOKEN}"}, "allowedTools": ["search"]}
            }}"#,
        )
        .expect("valid");
        let local = &claude.servers[&ServerId::new("local").expect("id")];
        let Target::Stdio(command) = &local.target else {
            panic!("{local:?}")
        };
        assert_eq!(command.command, "/srv/project/bin/srv");
        assert_eq!(command.args, ["--token", "t0k"]);
        assert_eq!(command.env, [("LEVEL".to_owned(), "info".to_owned())]);
        assert!(local.tools.admits("search") && !local.tools.admits("delete"));
        let remote = &claude.servers[&ServerId::new("remote").expect("id")];
        let Target::Http { url, headers } = &remote.target else {
            panic!("{remote:?}")
        };
        assert_eq!(url, "https://h.example/mcp");
        assert_eq!(
            headers,
            &[("Authorization".to_owned(), "Bearer t0k".to_owned())]
        );
        assert!(remote.tools.admits("search") && !remote.tools.admits("other"));

        let vscode = read(
            r#"{"inputs": [{"type": "promptString", "id": "k", "password": true}],
                "servers": {"notes": {"type": "stdio", "command": "notes", "args": ["--stdio"]}}}"#,
        )
        .expect("valid");
        assert_eq!(vscode.servers.len(), 1);
    }

    #[test]
    fn an_sse_entry_is_the_legacy_transport() {
        let config = read(
            r#"{"mcpServers": {"old": {"type": "sse", "url": "http://127.0.0.1:9/sse",
                "headers": {"Authorization": "Bearer t"}}}}"#,
        )
        .expect("valid");
        let old = config.servers.values().next().expect("one server");
        let Target::Sse { url, headers } = &old.target else {
            panic!("not the SSE transport: {:?}", old.target);
        };
        assert_eq!(url, "http://127.0.0.1:9/sse");
        assert_eq!(headers[0].0, "Authorization");
        // The header's value stays out of `Debug`.
        assert!(!format!("{:?}", old.target).contains("Bearer"));
    }

    #[test]
    fn names_the_entry_and_field_that_cannot_be_used() {
        for (text, needle) in [
            (
                r#"{"mcpServers": {"s": {"type": "sse", "command": "x"}}}"#,
                "server `s`: `type` is `sse`, which takes a `url`",
            ),
            (
                r#"{"mcpServers": {"s": {"type": "sse", "url": "https://h/sse", "oauth": {}}}}"#,
                "server `s`: `oauth` is not offered over the deprecated SSE transport",
            ),
            (
                r#"{"mcpServers": {"s": {"type": "websocket", "url": "wss://h"}}}"#,
                "server `s`: `type`: `websocket` is not `stdio`, `http` or `sse`",
            ),
            (
                r#"{"mcpServers": {"s": {"type": "http", "command": "x"}}}"#,
                "takes a `url`",
            ),
            (
                r#"{"mcpServers": {"s": {"type": "stdio", "url": "https://h/mcp"}}}"#,
                "takes a `command`",
            ),
            (
                r#"{"mcpServers": {"s": {"url": "https://a", "serverUrl": "https://b"}}}"#,
                "not both",
            ),
            (
                r#"{"mcpServers": {"s": {"command": "x", "args": ["a", "${NOPE}"]}}}"#,
                "server `s`: `args[1]`: the variable `NOPE` is not set and has no default",
            ),
            (
                r#"{"mcpServers": {"s": {"command": "x", "env": {"K": "${env:NOPE}"}}}}"#,
                "`env.K`: the variable `NOPE`",
            ),
            (
                r#"{"mcpServers": {"s": {"url": "https://h/${NOPE}"}}}"#,
                "`url`: the variable `NOPE`",
            ),
            (
                r#"{"mcpServers": {"s": {"url": "https://h", "headers": {"X": "${X"}}}}"#,
                "`headers.X`: `${` without",
            ),
            (
                r#"{"servers": {"s": {"command": "x", "env": {"K": "${input:k}"}}}}"#,
                "server `s`: `env.K`: `${input:k}`: `inputs` declares no input `k`",
            ),
        ] {
            let error = read(text).expect_err(text);
            assert!(error.contains(needle), "{error}");
        }
    }
}
