//! The commands that fetch content: `prompt` and `read`. Each prints what
//! the server answered as JSON: it is the command's output.

use std::collections::BTreeMap;
use std::process::ExitCode;

use serde_json::{json, Value};

use super::{object, print};
use mcp_host::{Host, ServerId};

/// `prompt NAME --args JSON`: gets a prompt; its arguments are strings.
pub(super) async fn prompt(host: &Host, name: &str, args: &str) -> Result<ExitCode, String> {
    let mut arguments = BTreeMap::new();
    for (key, value) in object(args)? {
        match value {
            Value::String(text) => arguments.insert(key, text),
            other => {
                return Err(format!(
                "--args: prompt arguments are strings, and `{key}` is {other}; write it as \"{}\"",
                other.to_string().replace('"', "\\\"")
            ))
            }
        };
    }
    let result = host
        .get_prompt(name, arguments)
        .await
        .map_err(|e| e.to_string())?;
    print(&json!(result.accept()));
    Ok(ExitCode::SUCCESS)
}

/// `read URI [--server ID]`: reads a resource, from the server named, or
/// else from the one server that lists it or has a template it matches.
pub(super) async fn read(host: &Host, uri: &str, server: Option<&str>) -> Result<ExitCode, String> {
    let server = match server {
        Some(id) => ServerId::new(id).map_err(|e| format!("--server: {e}"))?,
        None => only_server(host, uri).await?,
    };
    let result = host
        .read_resource(&server, uri)
        .await
        .map_err(|e| e.to_string())?;
    print(&json!(result.accept()));
    Ok(ExitCode::SUCCESS)
}

/// The one server that may serve `uri`, or why there is not exactly one.
async fn only_server(host: &Host, uri: &str) -> Result<ServerId, String> {
    let mut servers = host.resource_servers(uri);
    match servers.len() {
        1 => Ok(servers.remove(0)),
        0 => {
            let down: Vec<String> = host
                .servers()
                .await
                .into_iter()
                .filter(|s| s.error.is_some())
                .map(|s| format!("`{}`", s.id))
                .collect();
            let unknown = if down.is_empty() {
                String::new()
            } else {
                format!(" (not running: {})", down.join(", "))
            };
            Err(format!(
                "no server lists `{uri}` or has a resource template it matches{unknown}; name one with --server"
            ))
        }
        _ => {
            let names: Vec<String> = servers.iter().map(|s| format!("`{s}`")).collect();
            Err(format!(
                "`{uri}` may come from {}; name one with --server",
                names.join(" or ")
            ))
        }
    }
}
