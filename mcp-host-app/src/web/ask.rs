//! The person's questions, as dialogs: the host's approval gate, the flow
//! policy's endorsement, and servers' elicitations.
//!
//! Each question goes to the page as one event with its title, its text
//! (made visible first), what else to show (the untrusted sources, the
//! highlights, the fields of a form) and the choices it takes; the answer
//! comes back on `POST /answer` and must be one of those choices. A
//! question nobody answers is refused: nothing is allowed or endorsed by
//! default.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use mcp_agent::flow::{Answer, Endorser, FlowConfig, Origin, Question};
use mcp_host::approval::{ApprovalRequest, Approver, Decision};
use mcp_host::client::input::{accepted, cancelled, declined};
use mcp_host::client::InputHandler;
use mcp_host::untrusted::{safe_json, visible, Untrusted};
use mcp_types::v2026_07_28::{ElicitRequestParams, ElicitResult};
use serde_json::{json, Map, Value};
use tokio::sync::oneshot;

use super::{emit, Events};

/// What the person chose, and the form they filled, if any.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Reply {
    pub choice: String,
    pub content: Map<String, Value>,
}

/// A question waiting: where its answer goes, and the choices it takes.
struct Waiting {
    reply: oneshot::Sender<Reply>,
    choices: Vec<&'static str>,
}

/// The questions waiting for the person, by id.
pub(super) struct Questions {
    next: AtomicU64,
    waiting: Mutex<HashMap<u64, Waiting>>,
    events: Events,
}

/// Why an answer was not taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Unheard {
    /// No question with that id waits.
    Gone,
    /// The question does not take that choice.
    Choice,
}

impl Questions {
    pub(super) fn new(events: Events) -> Self {
        Self {
            next: AtomicU64::new(1),
            waiting: Mutex::new(HashMap::new()),
            events,
        }
    }

    /// Puts a question to the page: `question` holds its `kind`, `title`,
    /// `text` and whatever else the dialog shows, all made visible
    /// already; `choices` are the answers it takes, as
    /// `(choice, label)`. The reply arrives on the receiver, or it is
    /// dropped unanswered.
    pub(super) fn ask(
        &self,
        mut question: Value,
        choices: &[(&'static str, &str)],
    ) -> oneshot::Receiver<Reply> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        self.waiting
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(
                id,
                Waiting {
                    reply: tx,
                    choices: choices.iter().map(|(c, _)| *c).collect(),
                },
            );
        question["type"] = json!("question");
        question["id"] = json!(id);
        question["choices"] = choices
            .iter()
            .map(|(choice, label)| json!({"choice": choice, "label": label}))
            .collect();
        emit(&self.events, question);
        rx
    }

    /// Refuses every question still waiting: a cancelled turn does not
    /// stay blocked on a dialog nobody will answer.
    pub(super) fn refuse_all(&self) {
        let waiting: Vec<(u64, Waiting)> = self
            .waiting
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .drain()
            .collect();
        for (id, waiting) in waiting {
            emit(
                &self.events,
                json!({"type": "answered", "id": id, "choice": null}),
            );
            // Dropped unanswered: each asker reads that as a refusal.
            drop(waiting.reply);
        }
    }

    /// Takes the person's answer to question `id`.
    pub(super) fn answer(&self, id: u64, reply: Reply) -> Result<(), Unheard> {
        let mut waiting = self.waiting.lock().unwrap_or_else(PoisonError::into_inner);
        let takes = waiting
            .get(&id)
            .ok_or(Unheard::Gone)?
            .choices
            .contains(&reply.choice.as_str());
        if !takes {
            return Err(Unheard::Choice);
        }
        let question = waiting.remove(&id).ok_or(Unheard::Gone)?;
        drop(waiting);
        emit(
            &self.events,
            json!({"type": "answered", "id": id, "choice": reply.choice}),
        );
        question.reply.send(reply).map_err(|_| Unheard::Gone)
    }
}

/// The host's approval gate, asked in a dialog.
pub(super) struct WebApprover(pub Arc<Questions>);

impl Approver for WebApprover {
    fn decide<'a>(&'a self, request: &'a ApprovalRequest) -> mcp_host::BoxFuture<'a, Decision> {
        Box::pin(async move {
            let call = &request.call;
            let text = format!(
                "Tool `{}` of server `{}` ({}) needs approval ({:?}).",
                call.tool(),
                call.server(),
                call.qualified(),
                request.reason,
            );
            let question = json!({
                "kind": "approval",
                "title": "Run this tool?",
                "text": visible(&text),
                "arguments": safe_json(call.arguments()),
            });
            let asked = self
                .0
                .ask(question, &[("allow", "Allow once"), ("deny", "Deny")]);
            match asked.await {
                Ok(reply) if reply.choice == "allow" => Decision::Approve,
                Ok(_) => Decision::Deny(String::from("denied in the browser")),
                Err(_) => Decision::Deny(String::from("the question was not answered")),
            }
        })
    }

    fn label(&self) -> &'static str {
        "prompt"
    }
}

/// The flow rules that would let this call go ahead without a person:
/// one per untrusted server in the context that no rule lets in yet, from
/// it into exactly this tool. `None` when one of them cannot be written
/// as a rule that matches only that (a glob character in a name), or a
/// source is not a server.
pub(super) fn rules_for(question: &Question) -> Option<Vec<(String, String)>> {
    let literal = |name: &str| !name.is_empty() && !name.contains(['*', '?']);
    let to = format!("{}/{}", question.server(), question.tool());
    if !literal(question.server()) || !literal(question.tool()) {
        return None;
    }
    let mut rules = Vec::new();
    for source in question.sources().iter().filter(|s| s.rule.is_none()) {
        match &source.origin {
            Origin::Server(id) if literal(id) => rules.push((id.clone(), to.clone())),
            _ => return None,
        }
    }
    (!rules.is_empty()).then_some(rules)
}

/// The configuration file's text with `rules` added, checked by the flow
/// policy's parser: the new flow configuration, and the text to write.
pub(super) fn with_rules(
    text: &str,
    rules: &[(String, String)],
) -> Result<(FlowConfig, String), String> {
    let mut changed = text.to_owned();
    for (from, to) in rules {
        changed =
            mcp_host::config::edit::add_flow(&changed, from, to).map_err(|e| e.to_string())?;
    }
    let document: Value = serde_json::from_str(&changed).map_err(|e| e.to_string())?;
    let config = FlowConfig::from_host_json(&document).map_err(|e| e.to_string())?;
    Ok((config, changed))
}

/// The flow policy's endorsement question, asked in a dialog; the answer
/// may also write flow rules into the configuration (shown in the dialog
/// before they are written). The policy asks synchronously, from within
/// the turn: the worker thread waits for the answer outside the runtime's
/// scheduling.
pub(super) struct WebEndorser {
    pub questions: Arc<Questions>,
    /// The configuration file, where a flow rule is written.
    pub config: PathBuf,
    /// The flow configuration with the rules written this turn, for the
    /// policy to take between turns.
    pub written: Arc<Mutex<Option<FlowConfig>>>,
}

impl WebEndorser {
    fn write_rules(&self, rules: &[(String, String)]) -> Result<(), String> {
        let text = std::fs::read_to_string(&self.config)
            .map_err(|e| format!("{}: {e}", self.config.display()))?;
        let (config, changed) = with_rules(&text, rules)?;
        mcp_host::state::replace(&self.config, changed.as_bytes())
            .map_err(|e| format!("{}: {e}", self.config.display()))?;
        *self.written.lock().unwrap_or_else(PoisonError::into_inner) = Some(config);
        Ok(())
    }
}

impl Endorser for WebEndorser {
    fn answer(&mut self, question: &Question) -> Answer {
        let rules = rules_for(question);
        let shown_rules: Vec<Value> = rules
            .iter()
            .flatten()
            .map(|(from, to)| json!({"from": visible(from), "to": visible(to)}))
            .collect();
        let highlights: Vec<Value> = question
            .highlights()
            .found
            .iter()
            .map(|h| {
                let from: Vec<String> = h.sources.iter().map(|o| visible(&o.to_string())).collect();
                json!({
                    "pointer": visible(&h.pointer),
                    "fragment": visible(&h.fragment),
                    "whole": h.whole,
                    "from": from,
                })
            })
            .collect();
        let sources: Vec<String> = question
            .sources()
            .iter()
            .map(|s| visible(&format!("{} ({} items)", s.origin, s.items)))
            .collect();
        let payload = json!({
            "kind": "endorsement",
            "title": "Untrusted text may have shaped this call. Endorse it?",
            "text": visible(&question.summary()),
            "arguments": safe_json(question.arguments()),
            "sources": sources,
            "highlights": highlights,
            "rules": shown_rules,
            "config": visible(&self.config.display().to_string()),
        });
        let mut choices = vec![("allow", "Allow once"), ("deny", "Deny")];
        if rules.is_some() {
            choices.push(("rule", "Allow, and make this a flow rule…"));
        }
        let rx = self.questions.ask(payload, &choices);
        let handle = tokio::runtime::Handle::current();
        let reply = tokio::task::block_in_place(|| handle.block_on(rx));
        match reply {
            Ok(reply) if reply.choice == "allow" => Answer::Endorse,
            Ok(reply) if reply.choice == "rule" => {
                if let Err(e) = rules.as_deref().map_or(Ok(()), |r| self.write_rules(r)) {
                    emit(
                        &self.questions.events,
                        json!({"type": "notice", "text": visible(&format!("the flow rule was not written: {e}"))}),
                    );
                }
                Answer::Endorse
            }
            Ok(_) => Answer::Decline,
            Err(_) => Answer::NoPerson,
        }
    }
}

/// Servers' elicitations, asked in a dialog: a form of the fields the
/// server asks for, or a URL to open by hand (shown as text, never as a
/// link).
pub(super) struct WebInput(pub Arc<Questions>);

impl InputHandler for WebInput {
    /// Elicitation, as the terminal; and MCP Apps, whose views this front
    /// end shows: the extension with the one view type it renders.
    fn capabilities(&self) -> mcp_types::v2026_07_28::ClientCapabilities {
        let mut capabilities = crate::terminal::elicitation_capabilities();
        let apps = json!({ "mimeTypes": [mcp_types::meta::APPS_MIME_TYPE] });
        if let Value::Object(apps) = apps {
            capabilities
                .extensions
                .get_or_insert_with(Default::default)
                .insert(mcp_types::meta::APPS_EXTENSION.to_owned(), apps);
        }
        capabilities
    }

    fn elicit<'a>(
        &'a self,
        request: Untrusted<ElicitRequestParams>,
    ) -> mcp_host::BoxFuture<'a, ElicitResult> {
        Box::pin(async move {
            let choices = [
                ("accept", "Send"),
                ("decline", "Decline"),
                ("cancel", "Cancel"),
            ];
            let (question, schema) = match request.accept_ref() {
                ElicitRequestParams::URL(url) => (
                    json!({
                        "kind": "elicitation",
                        "title": "A server asks you to open a page yourself",
                        "text": visible(&url.message),
                        "url": visible(&url.url),
                    }),
                    None,
                ),
                ElicitRequestParams::Form(form) => {
                    let schema = serde_json::to_value(&form.requested_schema).unwrap_or_default();
                    (
                        json!({
                            "kind": "elicitation",
                            "title": "A server asks you for information",
                            "text": visible(&form.message),
                            "fields": fields(&schema),
                        }),
                        Some(schema),
                    )
                }
            };
            match self.0.ask(question, &choices).await {
                Ok(reply) if reply.choice == "accept" => match schema {
                    Some(schema) => accepted(typed(&schema, reply.content)),
                    None => accepted(Map::new()),
                },
                Ok(reply) if reply.choice == "decline" => declined(),
                _ => cancelled(),
            }
        })
    }
}

/// The fields of a form, as the dialog builds them: the name, the type,
/// whether it is required, the description and the choices of an enum,
/// each made visible.
fn fields(schema: &Value) -> Vec<Value> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    properties
        .iter()
        .map(|(name, field)| {
            let text = |key: &str| field.get(key).and_then(Value::as_str).map(visible);
            let options: Vec<String> = field
                .get("enum")
                .and_then(Value::as_array)
                .map(|e| e.iter().filter_map(Value::as_str).map(visible).collect())
                .unwrap_or_default();
            json!({
                "name": visible(name),
                "kind": text("type").unwrap_or_else(|| String::from("string")),
                "title": text("title"),
                "description": text("description"),
                "required": required.contains(&name.as_str()),
                "options": options,
            })
        })
        .collect()
}

/// The person's answers, typed as the schema's fields are; fields the
/// schema does not name are dropped, and so are empty ones.
fn typed(schema: &Value, content: Map<String, Value>) -> Map<String, Value> {
    let properties = schema.get("properties").and_then(Value::as_object);
    let mut out = Map::new();
    for (name, value) in content {
        // The page shows names made visible; the schema's own name is the
        // one whose visible form matches.
        let Some((name, field)) =
            properties.and_then(|p| p.iter().find(|(n, _)| visible(n) == name))
        else {
            continue;
        };
        let kind = field
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("string");
        let value = match value {
            Value::String(line) if line.is_empty() => continue,
            Value::String(line) => crate::terminal::field_value(kind, &line),
            other => other,
        };
        out.insert(name.clone(), value);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn questions() -> Questions {
        let (tx, _) = tokio::sync::broadcast::channel(16);
        Questions::new(Arc::new(Mutex::new((Vec::new(), tx))))
    }

    #[test]
    fn an_answer_must_be_one_of_the_questions_choices() {
        let questions = questions();
        let mut rx = questions.ask(
            json!({"kind": "approval"}),
            &[("allow", "Allow once"), ("deny", "Deny")],
        );
        let reply = |choice: &str| Reply {
            choice: choice.to_owned(),
            content: Map::new(),
        };
        assert_eq!(questions.answer(1, reply("rule")), Err(Unheard::Choice));
        assert_eq!(questions.answer(2, reply("allow")), Err(Unheard::Gone));
        assert!(rx.try_recv().is_err(), "still waiting");
        assert_eq!(questions.answer(1, reply("deny")), Ok(()));
        assert_eq!(rx.try_recv().map(|r| r.choice), Ok(String::from("deny")));
        assert_eq!(questions.answer(1, reply("allow")), Err(Unheard::Gone));
    }

    #[test]
    fn a_cancelled_question_is_a_refusal() {
        let questions = questions();
        let mut rx = questions.ask(json!({}), &[("allow", "Allow once")]);
        questions.refuse_all();
        assert!(matches!(
            rx.try_recv(),
            Err(oneshot::error::TryRecvError::Closed)
        ));
    }

    #[test]
    fn a_rule_is_checked_by_the_policys_parser_before_it_is_written() {
        let text = "{\n  \"mcpServers\": {}\n}\n";
        let rules = [(String::from("tickets"), String::from("mail/send"))];
        let (config, changed) = with_rules(text, &rules).expect("a good rule");
        assert_eq!(config.flows().len(), 1);
        assert!(changed.contains("\"mail/send\""), "{changed}");
        // A configuration whose flow section the policy refuses is not
        // written to.
        let bad = "{\"mcpServers\": {}, \"flow\": {\"egress\": [\"no-slash\"]}}";
        assert!(with_rules(bad, &rules).is_err());
    }

    #[test]
    fn form_answers_are_typed_by_the_schema_and_unknown_fields_dropped() {
        let schema = json!({"type": "object", "properties": {
            "age": {"type": "integer"}, "ok": {"type": "boolean"}, "name": {"type": "string"}
        }});
        let content: Map<String, Value> = serde_json::from_value(json!({
            "age": "42", "ok": true, "name": "", "extra": "x"
        }))
        .unwrap();
        let out = typed(&schema, content);
        assert_eq!(Value::Object(out), json!({"age": 42, "ok": true}));
    }
}
