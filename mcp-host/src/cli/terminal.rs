//! The terminal as approver and input handler: approval questions and
//! elicitation forms, asked only when stdin is a terminal.

use std::io::{BufRead, IsTerminal, Write};

use mcp_types::v2026_07_28::{ElicitRequestParams, ElicitResult, ElicitResultAction};
use serde_json::{json, Map, Value};

use crate::approval::{ApprovalRequest, Approver, AskReason, Decision};
use crate::client::input::{accepted, cancelled, declined};
use crate::client::InputHandler;
use crate::untrusted::Untrusted;
use crate::BoxFuture;

/// Asks at the terminal: approvals and elicitations.
#[derive(Debug, Clone, Copy)]
pub struct Terminal;

/// What came back from a question put to the terminal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Answer {
    /// Stdin is not a terminal: nobody was asked.
    NoTerminal,
    /// The input ended (Ctrl-D) before an answer.
    Ended,
    /// A line, trimmed.
    Line(String),
}

/// Puts `prompt` to the terminal and reads one line. Nothing is shown
/// when stdin is not a terminal. Only a line is a choice: no terminal, or
/// the end of input, denies an approval and cancels an elicitation.
pub(super) async fn ask_line(prompt: String) -> Answer {
    tokio::task::spawn_blocking(move || {
        let stdin = std::io::stdin();
        if !stdin.is_terminal() {
            return Answer::NoTerminal;
        }
        eprint!("{}", crate::untrusted::visible(&prompt));
        let _ = std::io::stderr().flush();
        let mut line = String::new();
        match stdin.lock().read_line(&mut line) {
            Ok(0) | Err(_) => Answer::Ended,
            Ok(_) => Answer::Line(line.trim().to_owned()),
        }
    })
    .await
    .unwrap_or(Answer::Ended)
}

pub(super) fn yes(answer: &str) -> bool {
    matches!(answer, "y" | "Y" | "yes" | "Yes")
}

/// The question that ends every elicitation prompt.
const CHOICE: &str = "Accept (y), decline (N) or cancel (c)? ";

/// What the person chose at [`CHOICE`]: Enter declines, and no answer at
/// all cancels.
fn choice(answer: &Answer) -> ElicitResultAction {
    match answer {
        Answer::Line(line) if yes(line) || matches!(line.as_str(), "a" | "accept") => {
            ElicitResultAction::Accept
        }
        Answer::Line(line) if matches!(line.as_str(), "c" | "C" | "cancel") => {
            ElicitResultAction::Cancel
        }
        Answer::Line(_) => ElicitResultAction::Decline,
        Answer::NoTerminal | Answer::Ended => ElicitResultAction::Cancel,
    }
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
            let tool = Untrusted::new(call.server().clone(), call.tool()).render();
            let arguments = crate::untrusted::safe_json(call.arguments());
            let mut text = format!(
                "\nTool `{}` of server `{}` ({}) needs approval because {why}.\nArguments:\n{arguments}\n",
                tool.text(),
                call.server(),
                call.qualified()
            );
            if let Some(annotations) = call.annotations() {
                text.push_str(&format!("Annotations: {}\n", annotations.render()));
            }
            if !call.findings().is_empty() {
                text.push_str("Warning, the poisoning checks flag this tool's definition:\n");
                for finding in call.findings() {
                    text.push_str(&format!("  - {finding}\n"));
                }
            }
            text.push_str("Run it? [y/N] ");
            match ask_line(text).await {
                Answer::Line(line) if yes(&line) => Decision::Approve,
                Answer::NoTerminal => {
                    Decision::Deny(String::from("no terminal to ask at (use --yes in scripts)"))
                }
                Answer::Line(_) | Answer::Ended => {
                    Decision::Deny(String::from("not approved at the terminal"))
                }
            }
        })
    }

    fn label(&self) -> &'static str {
        "prompt"
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
                        "\n{message}\nThe server asks you to open this URL yourself:\n{link}\n{CHOICE}"
                    ))
                    .await;
                    match choice(&answer) {
                        ElicitResultAction::Accept => accepted(Map::new()),
                        ElicitResultAction::Cancel => cancelled(),
                        ElicitResultAction::Decline => declined(),
                    }
                }
                ElicitRequestParams::Form(form) => {
                    let message = Untrusted::new(origin.clone(), form.message).render();
                    let answer = ask_line(format!("\n{message}\n{CHOICE}")).await;
                    match choice(&answer) {
                        ElicitResultAction::Accept => {
                            let schema =
                                serde_json::to_value(&form.requested_schema).unwrap_or_default();
                            match fill_form(&origin, &schema).await {
                                Some(content) => accepted(content),
                                None => cancelled(),
                            }
                        }
                        ElicitResultAction::Cancel => cancelled(),
                        ElicitResultAction::Decline => declined(),
                    }
                }
            }
        })
    }
}

/// The line that asks for one field: its name, its type and what it is
/// for, all as the server wrote them, rendered, and a colon. A
/// description's own closing `.` or `:` is dropped, so the line never
/// ends in `.:`.
fn field_prompt(
    origin: &crate::ServerId,
    name: &str,
    kind: &str,
    description: Option<&str>,
) -> String {
    let shown = |text: &str| {
        Untrusted::new(origin.clone(), text)
            .render()
            .text()
            .to_owned()
    };
    let hint = description
        .map(|d| {
            shown(d)
                .trim_end_matches(['.', ':', ' ', '\t', '\n'])
                .to_owned()
        })
        .filter(|d| !d.is_empty())
        .map(|d| format!(" – {d}"))
        .unwrap_or_default();
    format!("{} ({}){hint}: ", shown(name), shown(kind))
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
        let description = field.get("description").and_then(Value::as_str);
        let prompt = field_prompt(origin, name, kind, description);
        let Answer::Line(line) = ask_line(prompt).await else {
            return None;
        };
        if line.is_empty() {
            continue;
        }
        let value = match kind {
            "boolean" => json!(yes(&line) || line == "true"),
            "integer" => line.parse::<i64>().map(Value::from).unwrap_or(json!(line)),
            "number" => line.parse::<f64>().map(Value::from).unwrap_or(json!(line)),
            "array" => json!(line.split(',').map(str::trim).collect::<Vec<_>>()),
            _ => json!(line),
        };
        content.insert(name.clone(), value);
    }
    Some(content)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_line_never_ends_in_a_period_and_a_colon() {
        let origin = crate::ServerId::new("notes").expect("id");
        let line = |d| field_prompt(&origin, "delete", "boolean", d);
        assert_eq!(
            line(Some("Tick to delete the note for good.")),
            "delete (boolean) – Tick to delete the note for good: "
        );
        assert_eq!(line(Some("Why: ")), "delete (boolean) – Why: ");
        assert_eq!(line(Some(" . ")), "delete (boolean): ");
        assert_eq!(line(None), "delete (boolean): ");
        let hostile = field_prompt(&origin, "x\u{1b}[2J", "string\u{202e}", Some("go\u{7}."));
        assert!(
            !hostile.contains(['\u{1b}', '\u{202e}', '\u{7}']),
            "{hostile:?}"
        );
    }

    #[test]
    fn only_a_line_is_a_choice() {
        let line = |s: &str| Answer::Line(s.to_owned());
        assert_eq!(choice(&line("y")), ElicitResultAction::Accept);
        assert_eq!(choice(&line("accept")), ElicitResultAction::Accept);
        assert_eq!(choice(&line("")), ElicitResultAction::Decline);
        assert_eq!(choice(&line("n")), ElicitResultAction::Decline);
        assert_eq!(choice(&line("c")), ElicitResultAction::Cancel);
        assert_eq!(choice(&Answer::Ended), ElicitResultAction::Cancel);
        assert_eq!(choice(&Answer::NoTerminal), ElicitResultAction::Cancel);
    }
}
