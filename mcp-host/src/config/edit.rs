//! Adding and removing a server entry, or adding a flow rule, in a
//! configuration file's text,
//! keeping every other byte as it was: the other entries, their key
//! order, the indentation, and comments in a VS Code (JSONC) file.
//!
//! Pure text in, text out; `mcp-host add` and `mcp-host remove` read and
//! write the file around it.
//!
//! ```
//! use mcp_host::config::edit::{add, remove, NewServer};
//!
//! let text = "{\n  \"mcpServers\": {\n    \"a\": { \"command\": \"a-server\" }\n  }\n}\n";
//! let new = NewServer::Stdio {
//!     command: "notes-server".into(),
//!     args: vec!["--stdio".into()],
//!     env: vec![],
//! };
//! let added = add(text, "notes", &new)?;
//! assert!(added.starts_with("{\n  \"mcpServers\": {\n    \"a\": { \"command\": \"a-server\" },"));
//! assert_eq!(remove(&added, "notes")?, text);
//! # Ok::<(), mcp_host::config::edit::EditError>(())
//! ```

use jsonc_parser::cst::{CstInputValue, CstObject, CstRootNode};
use jsonc_parser::ParseOptions;

use crate::names::ServerId;

/// The entry [`add`] writes.
#[derive(Clone, PartialEq, Eq)]
pub enum NewServer {
    /// A server the host starts: `command`, `args`, `env`.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables set for it, in the order given.
        env: Vec<(String, String)>,
    },
    /// A server at a URL: `type`, `url`, `headers`.
    Remote {
        /// The transport: Streamable HTTP, or the legacy HTTP+SSE.
        transport: RemoteTransport,
        /// The endpoint.
        url: String,
        /// Headers sent with every request, in the order given.
        headers: Vec<(String, String)>,
    },
}

// `env` and `headers` values are often credentials.
impl std::fmt::Debug for NewServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names = |pairs: &[(String, String)]| -> Vec<String> {
            pairs
                .iter()
                .map(|(k, _)| format!("{k}=<redacted>"))
                .collect()
        };
        match self {
            Self::Stdio { command, args, env } => f
                .debug_struct("Stdio")
                .field("command", command)
                .field("args", args)
                .field("env", &names(env))
                .finish(),
            Self::Remote {
                transport,
                url,
                headers,
            } => f
                .debug_struct("Remote")
                .field("transport", transport)
                .field("url", url)
                .field("headers", &names(headers))
                .finish(),
        }
    }
}

/// The transport of a [`NewServer::Remote`] entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RemoteTransport {
    /// `"type": "http"`: Streamable HTTP.
    Http,
    /// `"type": "sse"`: the HTTP+SSE transport of 2024-11-05.
    Sse,
}

impl NewServer {
    /// Whether the entry carries values that may be secrets (`env` or
    /// `headers`).
    pub fn carries_values(&self) -> bool {
        match self {
            Self::Stdio { env, .. } => !env.is_empty(),
            Self::Remote { headers, .. } => !headers.is_empty(),
        }
    }

    fn input(&self, vscode: bool) -> CstInputValue {
        let text = |s: &str| CstInputValue::String(s.to_owned());
        let map = |pairs: &[(String, String)]| {
            CstInputValue::Object(pairs.iter().map(|(k, v)| (k.clone(), text(v))).collect())
        };
        let mut fields = Vec::new();
        match self {
            Self::Stdio { command, args, env } => {
                // VS Code requires `type`; the `mcpServers` hosts take a
                // `command` as stdio without it.
                if vscode {
                    fields.push(("type".to_owned(), text("stdio")));
                }
                fields.push(("command".to_owned(), text(command)));
                if !args.is_empty() {
                    fields.push((
                        "args".to_owned(),
                        CstInputValue::Array(args.iter().map(|a| text(a)).collect()),
                    ));
                }
                if !env.is_empty() {
                    fields.push(("env".to_owned(), map(env)));
                }
            }
            Self::Remote {
                transport,
                url,
                headers,
            } => {
                let kind = match transport {
                    RemoteTransport::Http => "http",
                    RemoteTransport::Sse => "sse",
                };
                fields.push(("type".to_owned(), text(kind)));
                fields.push(("url".to_owned(), text(url)));
                if !headers.is_empty() {
                    fields.push(("headers".to_owned(), map(headers)));
                }
            }
        }
        CstInputValue::Object(fields)
    }
}

/// Why a configuration could not be changed.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum EditError {
    /// The text is not JSON (comments and trailing commas allowed).
    #[error("not a JSON configuration: {0}")]
    Syntax(String),
    /// The text is JSON, but not an object of server entries.
    #[error("{0}")]
    Shape(String),
    /// `add` of a name the file already has.
    #[error("a server `{0}` is already configured; `mcp-host remove {0}` first")]
    Exists(String),
    /// `remove` of a name the file does not have.
    #[error("no server `{0}` is configured")]
    Missing(String),
    /// A name that cannot be a server id.
    #[error("`{0}` cannot name a server: it is empty or has control characters")]
    BadName(String),
}

/// `text` with the server `name` added as the last entry of its
/// `mcpServers` (or VS Code `servers`) object. Empty text (a new file)
/// becomes a configuration with that one entry.
///
/// # Errors
///
/// [`EditError`] when the text is not a configuration, the name is taken
/// or cannot be a server id.
pub fn add(text: &str, name: &str, server: &NewServer) -> Result<String, EditError> {
    ServerId::new(name).map_err(|_| EditError::BadName(name.to_owned()))?;
    let text = if text.trim().is_empty() {
        "{\n  \"mcpServers\": {}\n}\n"
    } else {
        text
    };
    let root = parse(text)?;
    let (servers, vscode) = servers(&root, true)?;
    if servers.get(name).is_some() {
        return Err(EditError::Exists(name.to_owned()));
    }
    servers.ensure_multiline();
    servers.append(name, server.input(vscode));
    Ok(root.to_string())
}

/// `text` without the server `name`.
///
/// # Errors
///
/// [`EditError`] when the text is not a configuration or has no such
/// server.
pub fn remove(text: &str, name: &str) -> Result<String, EditError> {
    let root = parse(text)?;
    let (servers, _) = servers(&root, false)?;
    let entry = servers
        .get(name)
        .ok_or_else(|| EditError::Missing(name.to_owned()))?;
    entry.remove();
    Ok(root.to_string())
}

/// `text` with the flow rule `{"from": from, "to": to}` appended to its
/// `flow.flows` array (both made when missing). A rule already there is
/// not written twice. The patterns are checked by the flow policy when
/// the file is read; this only writes them.
///
/// ```
/// use mcp_host::config::edit::add_flow;
///
/// let text = "{\n  \"mcpServers\": {}\n}\n";
/// let added = add_flow(text, "tickets", "mail/send")?;
/// let value: serde_json::Value = serde_json::from_str(&added).unwrap();
/// assert_eq!(value["flow"]["flows"][0]["to"], "mail/send");
/// assert_eq!(add_flow(&added, "tickets", "mail/send")?, added);
/// # Ok::<(), mcp_host::config::edit::EditError>(())
/// ```
///
/// # Errors
///
/// [`EditError`] when the text is not a JSON object, or its `flow` or
/// `flow.flows` has another shape.
pub fn add_flow(text: &str, from: &str, to: &str) -> Result<String, EditError> {
    let root = parse(text)?;
    let object = root
        .object_value()
        .ok_or_else(|| EditError::Shape("the configuration is not a JSON object".into()))?;
    let flow = match object.get("flow") {
        None => object.object_value_or_set("flow"),
        Some(prop) => prop
            .object_value()
            .ok_or_else(|| EditError::Shape("`flow` is not an object".into()))?,
    };
    let flows = match flow.get("flows") {
        None => flow.array_value_or_set("flows"),
        Some(prop) => prop
            .array_value()
            .ok_or_else(|| EditError::Shape("`flow.flows` is not an array".into()))?,
    };
    let text_of = |rule: &CstObject, key: &str| {
        rule.get(key)
            .and_then(|p| p.value())
            .and_then(|v| v.as_string_lit())
            .and_then(|s| s.decoded_value().ok())
    };
    let present = flows.elements().iter().any(|rule| {
        rule.as_object().is_some_and(|rule| {
            text_of(&rule, "from").as_deref() == Some(from)
                && text_of(&rule, "to").as_deref() == Some(to)
        })
    });
    if !present {
        flows.ensure_multiline();
        flows.append(CstInputValue::Object(vec![
            ("from".to_owned(), CstInputValue::String(from.to_owned())),
            ("to".to_owned(), CstInputValue::String(to.to_owned())),
        ]));
    }
    Ok(root.to_string())
}

fn parse(text: &str) -> Result<CstRootNode, EditError> {
    let options = ParseOptions {
        allow_comments: true,
        allow_trailing_commas: true,
        allow_loose_object_property_names: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        ..ParseOptions::default()
    };
    CstRootNode::parse(text, &options).map_err(|e| EditError::Syntax(e.to_string()))
}

/// The object of server entries, and whether it is VS Code's `servers`.
/// With `create`, a file with neither gets `mcpServers`.
fn servers(root: &CstRootNode, create: bool) -> Result<(CstObject, bool), EditError> {
    let object = root
        .object_value()
        .ok_or_else(|| EditError::Shape("the configuration is not a JSON object".into()))?;
    let entries = |key: &str| -> Result<Option<CstObject>, EditError> {
        match object.get(key) {
            None => Ok(None),
            Some(prop) => prop
                .object_value()
                .map(Some)
                .ok_or_else(|| EditError::Shape(format!("`{key}` is not an object"))),
        }
    };
    match (entries("mcpServers")?, entries("servers")?) {
        (Some(_), Some(_)) => Err(EditError::Shape(
            "the configuration has both `mcpServers` and VS Code's `servers`".into(),
        )),
        (Some(servers), None) => Ok((servers, false)),
        (None, Some(servers)) => Ok((servers, true)),
        (None, None) if create => Ok((object.object_value_or_set("mcpServers"), false)),
        (None, None) => Err(EditError::Shape(
            "no `mcpServers` (or VS Code `servers`) object".into(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stdio() -> NewServer {
        NewServer::Stdio {
            command: "npx".into(),
            args: vec!["-y".into(), "@scope/server".into()],
            env: vec![("TOKEN".into(), "s3cr\"et".into())],
        }
    }

    fn remote(transport: RemoteTransport) -> NewServer {
        NewServer::Remote {
            transport,
            url: "https://example.com/mcp".into(),
            headers: vec![("Authorization".into(), "Bearer x".into())],
        }
    }

    #[test]
    fn a_flow_rule_joins_the_flow_section_once() {
        let before =
            "{\n  // keep me\n  \"mcpServers\": {},\n  \"flow\": {\"egress\": [\"mail/*\"]}\n}\n";
        let after = add_flow(before, "tickets", "mail/send").unwrap();
        assert!(after.contains("// keep me"), "{after}");
        let value: serde_json::Value = without_comments(&after);
        assert_eq!(value["flow"]["egress"], serde_json::json!(["mail/*"]));
        assert_eq!(
            value["flow"]["flows"],
            serde_json::json!([{"from": "tickets", "to": "mail/send"}])
        );
        assert_eq!(add_flow(&after, "tickets", "mail/send").unwrap(), after);
        let second = add_flow(&after, "notes", "mail/send").unwrap();
        assert_eq!(
            without_comments(&second)["flow"]["flows"][1]["from"],
            "notes"
        );
        assert!(matches!(
            add_flow("{\"flow\": 3}", "a", "b/c"),
            Err(EditError::Shape(_))
        ));
        assert!(matches!(
            add_flow("{\"flow\": {\"flows\": {}}}", "a", "b/c"),
            Err(EditError::Shape(_))
        ));
    }

    /// The value of a JSONC text, comments dropped.
    fn without_comments(text: &str) -> serde_json::Value {
        let body: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect();
        serde_json::from_str(&body).unwrap()
    }

    #[test]
    fn a_new_file_gets_one_entry() {
        let text = add("", "fs", &stdio()).unwrap();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            value,
            serde_json::json!({"mcpServers": {"fs": {
                "command": "npx",
                "args": ["-y", "@scope/server"],
                "env": {"TOKEN": "s3cr\"et"}
            }}})
        );
    }

    #[test]
    fn everything_else_is_kept_byte_for_byte() {
        let before = "{\n  \"zeta\": 1,\n  \"mcpServers\": {\n    \"b\": {\"url\": \"https://b/mcp\"},\n    \"a\": {\"command\": \"a\"}\n  },\n  \"alpha\": [1, 2]\n}\n";
        let after = add(before, "new", &remote(RemoteTransport::Sse)).unwrap();
        let value: serde_json::Value = serde_json::from_str(&after).unwrap();
        assert_eq!(
            value["mcpServers"]["new"],
            serde_json::json!({
                "type": "sse", "url": "https://example.com/mcp",
                "headers": {"Authorization": "Bearer x"}
            })
        );
        // The keys keep their order: the new entry comes last.
        let order: Vec<usize> = ["\"zeta\"", "\"b\"", "\"a\"", "\"new\"", "\"alpha\""]
            .iter()
            .map(|k| after.find(k).unwrap())
            .collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{after}");
        assert_eq!(remove(&after, "new").unwrap(), before);
    }

    #[test]
    fn vs_code_files_keep_their_comments_and_get_a_type() {
        let before = "{\n  // mine\n  \"servers\": {\n    \"a\": {\"type\": \"stdio\", \"command\": \"a\"}, // first\n  },\n}\n";
        let after = add(before, "fs", &stdio()).unwrap();
        assert!(
            after.contains("// mine") && after.contains("// first"),
            "{after}"
        );
        let servers = |text: &str| {
            let (servers, vscode) = servers(&parse(text).unwrap(), false).unwrap();
            assert!(vscode);
            servers
        };
        let fs = servers(&after).object_value("fs").unwrap();
        let kind = fs.get("type").unwrap().value().unwrap();
        assert_eq!(
            kind.as_string_lit().unwrap().decoded_value().unwrap(),
            "stdio"
        );
        assert!(parse(&after)
            .unwrap()
            .object_value()
            .unwrap()
            .get("mcpServers")
            .is_none());
        let removed = remove(&after, "a").unwrap();
        assert!(removed.contains("// mine"), "{removed}");
        let names: Vec<_> = servers(&removed)
            .properties()
            .iter()
            .filter_map(|p| p.decoded_name())
            .collect();
        assert_eq!(names, ["fs"]);
    }

    #[test]
    fn a_file_without_servers_gets_mcp_servers() {
        let after = add("{\"other\": true}", "x", &remote(RemoteTransport::Http)).unwrap();
        let value: serde_json::Value = serde_json::from_str(&after).unwrap();
        assert_eq!(value["other"], true);
        assert_eq!(value["mcpServers"]["x"]["type"], "http");
    }

    #[test]
    fn refusals_name_what_is_wrong() {
        let text = add("", "fs", &stdio()).unwrap();
        assert_eq!(
            add(&text, "fs", &stdio()),
            Err(EditError::Exists("fs".into()))
        );
        assert_eq!(
            remove(&text, "nope"),
            Err(EditError::Missing("nope".into()))
        );
        assert_eq!(
            add(&text, "a\u{7}b", &stdio()),
            Err(EditError::BadName("a\u{7}b".into()))
        );
        assert!(matches!(
            add("[1]", "x", &stdio()),
            Err(EditError::Shape(_))
        ));
        assert!(matches!(
            add("{\"mcpServers\": [] }", "x", &stdio()),
            Err(EditError::Shape(_))
        ));
        assert!(matches!(
            add("{\"mcpServers\": {}, \"servers\": {}}", "x", &stdio()),
            Err(EditError::Shape(_))
        ));
        assert!(matches!(
            add("{\"a\": ", "x", &stdio()),
            Err(EditError::Syntax(_))
        ));
        assert!(matches!(remove("{}", "x"), Err(EditError::Shape(_))));
    }

    #[test]
    fn values_do_not_show_in_debug() {
        let shown = format!("{:?} {:?}", stdio(), remote(RemoteTransport::Http));
        assert!(
            !shown.contains("s3cr") && !shown.contains("Bearer"),
            "{shown}"
        );
        assert!(shown.contains("TOKEN=<redacted>"), "{shown}");
    }
}
