//! The terminal as approver and input handler: approval questions and
//! elicitation forms, asked only when stdin is a terminal.

use std::io::{BufRead, IsTerminal, Write};

use mcp_types::v2026_07_28::{
    ElicitRequestParams, ElicitResult, ElicitResultAction, ElicitResultContentValue,
};
use serde_json::{json, Map, Value};

use crate::approval::{ApprovalRequest, Approver, AskReason, Decision};
use crate::client::input::declined;
use crate::client::InputHandler;
use crate::untrusted::Untrusted;
use crate::BoxFuture;

/// Asks at the terminal: approvals and elicitations.
#[derive(Debug, Clone, Copy)]
pub struct Terminal;

/// One line from stdin, trimmed; `None` when stdin is not a terminal or
/// has ended (Ctrl-D). `None` denies an approval and cancels an
/// elicitation: nobody made a choice.
async fn ask_line(prompt: String) -> Option<String> {
    tokio::task::spawn_blocking(move || {
        let stdin = std::io::stdin();
        if !stdin.is_terminal() {
            return None;
        }
        eprint!("{prompt}");
        let _ = std::io::stderr().flush();
        let mut line = String::new();
        match stdin.lock().read_line(&mut line) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(line.trim().to_owned()),
        }
    })
    .await
    .ok()
    .flatten()
}

fn yes(answer: Option<&str>) -> bool {
    matches!(answer, Some("y" | "Y" | "yes" | "Yes"))
}

impl Approver for Terminal {
    fn decide<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, Decision> {
        Box::pin(async move {
            let call = &request.call;
            let why = match &request.reason {
                AskReason::MayWrite => String::from("the tool may change things"),
                AskReason::Rule(pattern) => format!("the policy's rule `{pattern}` asks"),
                AskReason::CrossServer(from) => format!(
                    "the arguments carry data from {}",
                    from.iter()
                        .map(|s| format!("`{s}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            let arguments = serde_json::to_string_pretty(call.arguments()).unwrap_or_default();
            let mut text = format!(
                "\nTool `{}` of server `{}` ({}) needs approval because {why}.\nArguments:\n{arguments}\n",
                call.tool(),
                call.server(),
                call.qualified()
            );
            if let Some(annotations) = call.annotations() {
                text.push_str(&format!("Annotations: {}\n", annotations.render()));
            }
            text.push_str("Run it? [y/N] ");
            if yes(ask_line(text).await.as_deref()) {
                Decision::Approve
            } else {
                Decision::Deny(String::from(
                    "not approved at the terminal (use --yes in scripts)",
                ))
            }
        })
    }
}

impl InputHandler for Terminal {
    fn capabilities(&self) -> mcp_types::v2026_07_28::ClientCapabilities {
        serde_json::from_value(json!({ "elicitation": { "form": {}, "url": {} } }))
            .unwrap_or_default()
    }

    fn elicit<'a>(
        &'a self,
        request: Untrusted<ElicitRequestParams>,
    ) -> BoxFuture<'a, ElicitResult> {
        Box::pin(async move {
            let origin = request.origin().clone();
            match request.accept() {
                ElicitRequestParams::URL(url) => {
                    let message = Untrusted::new(origin.clone(), url.message).render();
                    let link = Untrusted::new(origin, url.url).render();
                    let answer = ask_line(format!(
                        "\n{message}\nThe server asks you to open this URL yourself:\n{link}\nGo ahead? [y/N] "
                    ))
                    .await;
                    match answer.as_deref() {
                        None => cancelled(),
                        a if yes(a) => accepted(None),
                        _ => declined(),
                    }
                }
                ElicitRequestParams::Form(form) => {
                    let message = Untrusted::new(origin.clone(), form.message).render();
                    let answer = ask_line(format!("\n{message}\nAnswer? [y/N/c] ")).await;
                    match answer.as_deref() {
                        None | Some("c" | "C") => cancelled(),
                        a if yes(a) => {
                            let schema =
                                serde_json::to_value(&form.requested_schema).unwrap_or_default();
                            match fill_form(&origin, &schema).await {
                                Some(content) => accepted(Some(content)),
                                None => cancelled(),
                            }
                        }
                        _ => declined(),
                    }
                }
            }
        })
    }
}

fn result(action: ElicitResultAction, content: Option<Map<String, Value>>) -> ElicitResult {
    let content = content.map(|c| {
        c.into_iter()
            .filter_map(|(k, v)| {
                Some((
                    k,
                    serde_json::from_value::<ElicitResultContentValue>(v).ok()?,
                ))
            })
            .collect()
    });
    ElicitResult {
        action,
        content,
        extra: Map::new(),
    }
}

fn accepted(content: Option<Map<String, Value>>) -> ElicitResult {
    result(ElicitResultAction::Accept, content)
}

fn cancelled() -> ElicitResult {
    result(ElicitResultAction::Cancel, None)
}

/// Asks each field of a flat form; `None` if the terminal goes away.
async fn fill_form(origin: &crate::ServerId, schema: &Value) -> Option<Map<String, Value>> {
    let mut content = Map::new();
    let properties = schema.get("properties").and_then(Value::as_object)?;
    for (name, field) in properties {
        let kind = field
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("string");
        let label = Untrusted::new(origin.clone(), name.clone()).render();
        let hint = field
            .get("description")
            .and_then(Value::as_str)
            .map(|d| format!(" – {}", Untrusted::new(origin.clone(), d).render().text()))
            .unwrap_or_default();
        let line = ask_line(format!("{} ({kind}){hint}: ", label.text())).await?;
        if line.is_empty() {
            continue;
        }
        let value = match kind {
            "boolean" => json!(yes(Some(&line)) || line == "true"),
            "integer" => line.parse::<i64>().map(Value::from).unwrap_or(json!(line)),
            "number" => line.parse::<f64>().map(Value::from).unwrap_or(json!(line)),
            "array" => json!(line.split(',').map(str::trim).collect::<Vec<_>>()),
            _ => json!(line),
        };
        content.insert(name.clone(), value);
    }
    Some(content)
}
