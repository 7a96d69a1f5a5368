//! `add` and `remove`: a server entry written into, or taken out of, the
//! configuration file, the rest of the file kept as it was.

use std::path::Path;
use std::process::ExitCode;

use serde_json::json;

use mcp_host::config::edit::{self, NewServer, RemoteTransport};

/// The transport `add --url` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Transport {
    /// Streamable HTTP (`"type": "http"`).
    Http,
    /// The HTTP+SSE transport of 2024-11-05 (`"type": "sse"`).
    Sse,
}

/// What `add` was given.
#[derive(Debug, Clone, clap::Args)]
pub struct Add {
    /// The server's id: the key of its entry, and the prefix of its tools'
    /// names.
    pub name: String,
    /// The server's URL, for a remote server (instead of a command).
    #[arg(long, value_name = "URL", conflicts_with_all = ["command", "env"])]
    pub url: Option<String>,
    /// The transport at that URL; by default `sse` for a URL whose path
    /// ends in `/sse`, else `http`.
    #[arg(long, value_enum, requires = "url")]
    pub transport: Option<Transport>,
    /// A variable for the server's process (repeatable).
    #[arg(short, long, value_name = "KEY=VALUE", value_parser = env_pair)]
    pub env: Vec<(String, String)>,
    /// A header sent with every request to the URL (repeatable).
    #[arg(short = 'H', long, value_name = "NAME: VALUE", value_parser = header_pair, requires = "url")]
    pub header: Vec<(String, String)>,
    /// The command that starts the server and its arguments, after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

impl Add {
    fn entry(self) -> Result<(String, NewServer), String> {
        let server = match (self.url, self.command.split_first()) {
            (Some(url), None) => {
                let parsed = reqwest::Url::parse(&url).map_err(|e| format!("--url {url}: {e}"))?;
                if !matches!(parsed.scheme(), "http" | "https") {
                    return Err(format!("--url {url}: not an http or https URL"));
                }
                let transport = match self.transport {
                    Some(Transport::Sse) => RemoteTransport::Sse,
                    Some(Transport::Http) => RemoteTransport::Http,
                    None if parsed.path().trim_end_matches('/').ends_with("/sse") => {
                        RemoteTransport::Sse
                    }
                    None => RemoteTransport::Http,
                };
                NewServer::Remote {
                    transport,
                    url,
                    headers: self.header,
                }
            }
            (None, Some((command, args))) => NewServer::Stdio {
                command: command.clone(),
                args: args.to_vec(),
                env: self.env,
            },
            (None, None) => {
                return Err(String::from(
                    "give the server's command after `--`, or its --url",
                ))
            }
            (Some(_), Some(_)) => unreachable!("clap refuses --url with a command"),
        };
        Ok((self.name, server))
    }
}

fn env_pair(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key.to_owned(), value.to_owned())),
        _ => Err(String::from("expected KEY=VALUE")),
    }
}

fn header_pair(text: &str) -> Result<(String, String), String> {
    let (name, value) = text
        .split_once(':')
        .ok_or_else(|| String::from("expected NAME: VALUE"))?;
    let name = name.trim();
    let valid_name = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
    if !valid_name {
        return Err(format!("`{name}` is not a header name"));
    }
    let value = value.trim();
    if value.bytes().any(|b| b.is_ascii_control() && b != b'\t') {
        return Err(String::from(
            "a header value cannot hold control characters",
        ));
    }
    Ok((name.to_owned(), value.to_owned()))
}

/// `add`: the entry written into `path`, which is created (mode `0600`)
/// when missing.
pub fn add(path: &Path, add: Add) -> Result<ExitCode, String> {
    let (name, server) = add.entry()?;
    let text = read(path, true)?;
    let changed =
        edit::add(&text, &name, &server).map_err(|e| format!("{}: {e}", path.display()))?;
    write(path, &changed)?;
    super::print(&json!({ "added": name, "config": path.display().to_string() }));
    Ok(ExitCode::SUCCESS)
}

/// `remove`: the entry taken out of `path`.
pub fn remove(path: &Path, name: &str) -> Result<ExitCode, String> {
    let text = read(path, false)?;
    let changed = edit::remove(&text, name).map_err(|e| format!("{}: {e}", path.display()))?;
    write(path, &changed)?;
    super::print(&json!({ "removed": name, "config": path.display().to_string() }));
    Ok(ExitCode::SUCCESS)
}

/// The file's text; empty for a missing file when `may_be_new`.
fn read(path: &Path, may_be_new: bool) -> Result<String, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(text),
        Err(e) if may_be_new && e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

/// Replaces the file atomically. Entries often carry credentials in `env`
/// or `headers`, so the new file is readable by its owner alone.
fn write(path: &Path, text: &str) -> Result<(), String> {
    mcp_host::state::replace(path, text.as_bytes()).map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_are_checked() {
        assert_eq!(env_pair("A=b=c"), Ok(("A".into(), "b=c".into())));
        assert!(env_pair("=x").is_err() && env_pair("A").is_err());
        assert_eq!(
            header_pair("Authorization: Bearer x"),
            Ok(("Authorization".into(), "Bearer x".into()))
        );
        assert!(header_pair("No Colon").is_err());
        assert!(header_pair("Bad Name: x").is_err());
        assert!(header_pair("X: a\r\nInjected: y").is_err());
    }

    #[test]
    fn the_transport_follows_the_url() {
        let add = |url: &str, transport| Add {
            name: "s".into(),
            url: Some(url.into()),
            transport,
            env: vec![],
            header: vec![],
            command: vec![],
        };
        let kind = |a: Add| match a.entry().unwrap().1 {
            NewServer::Remote { transport, .. } => transport,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            kind(add("https://x.example/sse", None)),
            RemoteTransport::Sse
        );
        assert_eq!(
            kind(add("https://x.example/mcp", None)),
            RemoteTransport::Http
        );
        assert_eq!(
            kind(add("https://x.example/sse", Some(Transport::Http))),
            RemoteTransport::Http
        );
        assert!(add("file:///etc/passwd", None).entry().is_err());
    }
}
