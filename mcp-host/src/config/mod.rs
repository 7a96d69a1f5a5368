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
//! An entry's `type` is `stdio`, or `http` (also `streamable-http`) for
//! Streamable HTTP; `sse`, the legacy SSE transport, is refused with a
//! message saying so. `serverUrl` is taken for `url`. `allowedTools`
//! keeps only the tools named, `disabledTools` leaves the named ones
//! out. In `command`, `args`, `env`, `url` and `headers`, `${VAR}`,
//! `${VAR:-default}`, `${env:VAR}`, `${userHome}` and `${workspaceFolder}`
//! are expanded (see [`expand`]); an unset variable without a default is
//! an error naming the server and the field.
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

pub mod expand;

use expand::{Environment, Lookup};

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
}

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
/// `grant` (`authorization_code`, the default, or `client_credentials`
/// for a host without a person), `privateKeyFile` and `signingAlgorithm`
/// (for `private_key_jwt`), `tokenEndpointAuthMethod`, and
/// `redirectPort` (the loopback port of the redirect, for a client id
/// registered with a fixed redirect URI).
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
    /// A PKCS#8 PEM file with the `private_key_jwt` key.
    pub private_key_file: Option<PathBuf>,
    /// The algorithm of that key (`ES256` by default).
    pub signing_algorithm: Option<String>,
    /// How the client authenticates at the token endpoint.
    pub token_endpoint_auth_method: Option<String>,
    /// The loopback port of the redirect URI.
    pub redirect_port: Option<u16>,
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
        let client_secret = match (entry.client_secret, entry.client_secret_env) {
            (Some(_), Some(_)) => {
                return Err("`oauth`: give `clientSecret` or `clientSecretEnv`, not both".into())
            }
            (Some(text), None) => Some(SecretSource::Inline(text)),
            (None, Some(name)) => Some(SecretSource::Env(name)),
            (None, None) => None,
        };
        let client_credentials = match entry.grant.as_deref() {
            None | Some("authorization_code") => false,
            Some("client_credentials") => true,
            Some(other) => {
                return Err(format!(
                    "`oauth.grant`: `{other}` is not `authorization_code` or `client_credentials`"
                ))
            }
        };
        if client_credentials && entry.client_id.is_none() {
            return Err("`oauth`: the client_credentials grant needs a `clientId`".into());
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
            private_key_file: entry.private_key_file,
            signing_algorithm: entry.signing_algorithm,
            token_endpoint_auth_method: entry.token_endpoint_auth_method,
            redirect_port: entry.redirect_port,
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
    /// cannot be expanded, or a bad server id.
    pub fn from_json(text: &str) -> Result<Self, ClientError> {
        Self::from_json_with(text, &Environment)
    }

    /// As [`HostConfig::from_json`], looking variables up in `lookup`.
    ///
    /// # Errors
    ///
    /// As [`HostConfig::from_json`].
    pub fn from_json_with(text: &str, lookup: &dyn Lookup) -> Result<Self, ClientError> {
        let file: File =
            serde_json::from_str(text).map_err(|e| ClientError::Config(e.to_string()))?;
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
            let expanded = |field: &str, text: &str| {
                expand::expand(text, lookup).map_err(|e| bad(format!("`{field}`: {e}")))
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
                (Some("sse"), _, _) => {
                    return Err(bad(
                        "`type`: the legacy SSE transport is not supported; use the server's \
                         Streamable HTTP endpoint with `\"type\": \"http\"`"
                            .into(),
                    ))
                }
                (Some("http" | "streamable-http" | "streamableHttp"), Some(_), _) => {
                    return Err(bad(
                        "`type` is `http`, which takes a `url`, not a `command`".into(),
                    ))
                }
                (Some(other), _, _) => {
                    return Err(bad(format!("`type`: `{other}` is not `stdio` or `http`")))
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
                Some(value) => OAuthConfig::from_value(value).map_err(bad)?,
            };
            let target = match (entry.command, url) {
                (Some(command), None) => {
                    let command = expanded("command", &command)?;
                    let mut args = Vec::new();
                    for (n, arg) in entry.args.iter().enumerate() {
                        args.push(expanded(&format!("args[{n}]"), arg)?);
                    }
                    let mut env = Vec::new();
                    for (name, value) in &entry.env {
                        env.push((name.clone(), expanded(&format!("env.{name}"), value)?));
                    }
                    Target::Stdio(StdioCommand {
                        command,
                        args,
                        env,
                        cwd: entry.cwd,
                        inherit_stderr: false,
                    })
                }
                (None, Some(url)) => {
                    let url = expanded("url", &url)?;
                    let mut headers = Vec::new();
                    for (name, value) in &entry.headers {
                        headers.push((name.clone(), expanded(&format!("headers.{name}"), value)?));
                    }
                    Target::Http { url, headers }
                }
                (Some(_), Some(_)) => return Err(bad("give `command` or `url`, not both".into())),
                (None, None) => return Err(bad("give `command` (stdio) or `url` (HTTP)".into())),
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
                },
            );
        }
        Ok(Self { servers })
    }

    /// Reads a configuration file.
    ///
    /// # Errors
    ///
    /// When the file cannot be read, and as [`HostConfig::from_json`].
    pub fn load(path: &Path) -> Result<Self, ClientError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ClientError::Config(format!("{}: {e}", path.display())))?;
        Self::from_json(&text)
    }
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
                      "clientSecret": "inline-secret", "scopes": ["s"]}},
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
        assert!(!format!("{c:?}").contains("inline-secret"));
        assert_eq!(get("d"), OAuthConfig::default());
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
            (
                r#"{"mcpServers": {"h": {"url": "https://h/mcp", "oauth": {"clientID": "typo"}}}}"#,
                "unknown field `clientID`",
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
        ] {
            let error = HostConfig::from_json(text).expect_err(text).to_string();
            assert!(error.contains(needle), "{error}");
        }
    }

    struct Fixed;

    impl Lookup for Fixed {
        fn var(&self, name: &str) -> Option<String> {
            (name == "API_TOKEN").then(|| "t0k".to_owned())
        }

        fn workspace(&self) -> Option<String> {
            Some("/srv/project".into())
        }
    }

    fn read(text: &str) -> Result<HostConfig, String> {
        HostConfig::from_json_with(text, &Fixed).map_err(|e| e.to_string())
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
    fn names_the_entry_and_field_that_cannot_be_used() {
        for (text, needle) in [
            (
                r#"{"mcpServers": {"s": {"type": "sse", "url": "https://h/sse"}}}"#,
                "server `s`: `type`: the legacy SSE transport is not supported",
            ),
            (
                r#"{"mcpServers": {"s": {"type": "websocket", "url": "wss://h"}}}"#,
                "server `s`: `type`: `websocket` is not `stdio` or `http`",
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
                "VS Code inputs are not supported",
            ),
        ] {
            let error = read(text).expect_err(text);
            assert!(error.contains(needle), "{error}");
        }
    }
}
