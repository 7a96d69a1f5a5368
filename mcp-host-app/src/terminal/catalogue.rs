//! The listing commands: `tools`, `prompts` and `resources`. Each prints
//! the catalogue as JSON, with every text a server wrote rendered through
//! the untrusted renderer, and warns on stderr of every server that is
//! not running, which makes the exit status 1.

use std::process::ExitCode;

use serde_json::{json, Value};

use super::print;
use mcp_host::untrusted::neutralise;
use mcp_host::Host;

/// `text`, written by a server, as it may be shown: every hidden
/// character made visible (the entry names the server).
fn shown(text: &str) -> Value {
    json!(neutralise(text))
}

/// [`shown`] for text a server may leave out.
fn shown_optional(text: Option<&String>) -> Value {
    text.map_or(Value::Null, |text| shown(text))
}

/// Prints `list` and says, on stderr, which servers are not running;
/// the exit status says whether any is not.
async fn listed(host: &Host, list: Value) -> ExitCode {
    print(&list);
    let mut down = false;
    for status in host.servers().await {
        if let Some(error) = status.error {
            eprintln!(
                "warning: server `{}` is not running: {}",
                status.id,
                mcp_host::untrusted::visible(&error)
            );
            down = true;
        }
    }
    if down {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// `tools`: every tool under its qualified name.
pub(super) async fn tools(host: &Host) -> ExitCode {
    for excluded in host.excluded_tools() {
        eprintln!(
            "warning: dropped tool {} of server `{}`: {}",
            excluded.name.render().text(),
            excluded.name.origin(),
            excluded.error
        );
    }
    let mut tools = host.tools();
    tools.extend(host.quarantined_tools());
    tools.sort_by(|a, b| a.qualified.cmp(&b.qualified));
    let list: Vec<Value> = tools
        .into_iter()
        .map(|t| {
            let tool = t.tool.accept_ref();
            let mut entry = json!({
                "name": t.qualified,
                "server": t.server.as_str(),
                "tool": shown(&tool.name),
                "description": shown_optional(tool.description.as_ref()),
                "readOnlyHint": tool.annotations.as_ref().and_then(|a| a.read_only_hint),
                "callable": t.quarantine.is_none(),
            });
            if let Some(reason) = &t.quarantine {
                entry["quarantined"] = json!(reason.to_string());
            }
            if !t.findings.is_empty() {
                let findings: Vec<String> = t.findings.iter().map(ToString::to_string).collect();
                entry["findings"] = json!(findings);
            }
            entry
        })
        .collect();
    listed(host, Value::Array(list)).await
}

/// `prompts`: every prompt under its qualified name, with its arguments.
pub(super) async fn prompts(host: &Host) -> ExitCode {
    let list: Vec<Value> = host
        .prompts()
        .into_iter()
        .map(|p| {
            let prompt = p.prompt.accept_ref();
            let arguments: Vec<Value> = prompt
                .arguments
                .iter()
                .flatten()
                .map(|a| {
                    json!({
                        "name": shown(&a.name),
                        "description": shown_optional(a.description.as_ref()),
                        "required": a.required.unwrap_or(false),
                    })
                })
                .collect();
            json!({
                "name": p.qualified,
                "server": p.server.as_str(),
                "prompt": shown(&prompt.name),
                "description": shown_optional(prompt.description.as_ref()),
                "arguments": arguments,
            })
        })
        .collect();
    listed(host, Value::Array(list)).await
}

/// `resources`: every resource and resource template, with its server.
pub(super) async fn resources(host: &Host) -> ExitCode {
    let resources: Vec<Value> = host
        .resources()
        .into_iter()
        .map(|r| {
            let resource = r.resource.accept_ref();
            json!({
                "server": r.server.as_str(),
                "uri": shown(&resource.uri),
                "name": shown(&resource.name),
                "description": shown_optional(resource.description.as_ref()),
                "mimeType": shown_optional(resource.mime_type.as_ref()),
            })
        })
        .collect();
    let templates: Vec<Value> = host
        .resource_templates()
        .into_iter()
        .map(|t| {
            let template = t.template.accept_ref();
            json!({
                "server": t.server.as_str(),
                "uriTemplate": shown(&template.uri_template),
                "name": shown(&template.name),
                "description": shown_optional(template.description.as_ref()),
                "mimeType": shown_optional(template.mime_type.as_ref()),
            })
        })
        .collect();
    listed(
        host,
        json!({ "resources": resources, "templates": templates }),
    )
    .await
}
