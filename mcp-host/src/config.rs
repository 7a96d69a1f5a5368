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
//! The key of each entry is the server's [`ServerId`]. Two keys of our own
//! may appear in an entry: `"trusted": true` lets the server's tool
//! annotations relax the approval policy, and `"legacy": true` skips the
//! era probe. `"disabled": true` leaves the entry out. Other keys are
//! ignored, so configurations written for other hosts load as they are.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use crate::approval::Trust;
use crate::client::{ClientError, StdioCommand, Target};
use crate::names::ServerId;

/// One configured server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerConfig {
    /// Where it is.
    pub target: Target,
    /// Whether its annotations are trusted.
    pub trust: Trust,
    /// Whether to skip the probe and run `initialize`.
    pub legacy: bool,
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
    servers: BTreeMap<String, Value>,
}

#[derive(Deserialize)]
struct Entry {
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    cwd: Option<PathBuf>,
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    #[serde(default)]
    trusted: bool,
    #[serde(default)]
    legacy: bool,
    #[serde(default)]
    disabled: bool,
}

impl HostConfig {
    /// Reads a configuration from JSON text.
    ///
    /// # Errors
    ///
    /// [`ClientError::Config`] naming the entry at fault: not JSON, no
    /// `mcpServers`, an entry with both or neither of `command` and `url`,
    /// or a bad server id.
    pub fn from_json(text: &str) -> Result<Self, ClientError> {
        let file: File =
            serde_json::from_str(text).map_err(|e| ClientError::Config(e.to_string()))?;
        let mut servers = BTreeMap::new();
        for (key, value) in file.servers {
            let bad = |what: String| ClientError::Config(format!("server `{key}`: {what}"));
            let entry: Entry = serde_json::from_value(value).map_err(|e| bad(e.to_string()))?;
            if entry.disabled {
                continue;
            }
            let target = match (entry.command, entry.url) {
                (Some(command), None) => Target::Stdio(StdioCommand {
                    command,
                    args: entry.args,
                    env: entry.env.into_iter().collect(),
                    cwd: entry.cwd,
                    inherit_stderr: false,
                }),
                (None, Some(url)) => Target::Http {
                    url,
                    headers: entry.headers.into_iter().collect(),
                },
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
    fn names_the_faulty_entry() {
        for (text, needle) in [
            (r#"{"mcpServers": {"x": {}}}"#, "server `x`"),
            (
                r#"{"mcpServers": {"y": {"command": "a", "url": "b"}}}"#,
                "not both",
            ),
            (r#"{"mcpServers": {"z": {"command": 3}}}"#, "server `z`"),
            (r#"{"servers": {}}"#, "mcpServers"),
            ("not json", "expected"),
        ] {
            let error = HostConfig::from_json(text).expect_err(text).to_string();
            assert!(error.contains(needle), "{error}");
        }
    }
}
