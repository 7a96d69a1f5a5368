//! The conversation loop of the app: one turn per message, each saved in
//! the state directory once it ends, and the saved ones reopened with
//! their labels.
//!
//! A reopened conversation is the saved one whole: its messages, and the
//! ledger of labels the flow policy reads, so a conversation that held
//! untrusted output holds it still (`mcp_agent::conversation::saved`
//! refuses a file that lost its labels). The page is shown the
//! conversation again from its messages, every text made visible.

use std::collections::HashMap;

use mcp_agent::conversation::{Agent, Bounds, Conversation, ConversationId, Conversations, Event};
use mcp_agent::provider::Message;
use mcp_host::untrusted::{safe_json, visible};
use serde_json::{json, Value};
use tokio::sync::{mpsc, watch};

use super::ask::WebEndorser;
use super::{Events, Pending};

/// What the page asks of the conversation loop.
#[derive(Debug)]
pub(super) enum Input {
    /// The person's next message.
    Say(String),
    /// Reopen the saved conversation with this id.
    Open(ConversationId),
    /// Start a new conversation.
    New,
}

/// The most characters of a title, taken from the first message.
const TITLE_CHARS: usize = 80;

/// The conversation under way, and where it is saved.
pub(super) struct Session {
    pub conversation: Conversation,
    pub id: ConversationId,
    pub title: String,
    pub system: Option<String>,
    pub bounds: Bounds,
    pub saved: Option<Conversations>,
    /// The page's events.
    pub events: Events,
}

impl Session {
    /// Saves the conversation; a failure is told to the page, not fatal.
    fn emit(&self, event: Value) {
        super::emit(&self.events, event);
    }

    fn save(&self) {
        let Some(saved) = &self.saved else {
            return;
        };
        if let Err(e) = saved.save(&self.id, &self.title, &self.conversation) {
            self.emit(
                json!({"type": "notice", "text": visible(&format!("the conversation was not saved: {e}"))}),
            );
        }
    }

    /// Replaces the conversation with the saved one `id`, and shows it.
    fn open(&mut self, id: ConversationId) {
        let Some(saved) = &self.saved else {
            return;
        };
        match saved.open(&id, self.bounds) {
            Ok((summary, conversation)) => {
                self.conversation = conversation;
                self.id = id;
                self.title = summary.title;
                super::reset(&self.events);
                replay(self.conversation.messages(), &|e| self.emit(e));
                self.emit(taint(&self.conversation));
            }
            Err(e) => self.emit(
                json!({"type": "notice", "text": visible(&format!("that conversation cannot be opened: {e}"))}),
            ),
        }
    }

    /// Starts a new conversation.
    fn new_conversation(&mut self) {
        match (
            Conversation::new(self.system.clone(), self.bounds),
            ConversationId::random(),
        ) {
            (Ok(conversation), Ok(id)) => {
                self.conversation = conversation;
                self.id = id;
                self.title = String::new();
                super::reset(&self.events);
                self.emit(taint(&self.conversation));
            }
            (Err(e), _) => self.emit(json!({"type": "notice", "text": visible(&e.to_string())})),
            (_, Err(e)) => self.emit(json!({"type": "notice", "text": visible(&e.to_string())})),
        }
    }
}

/// The taint of the conversation, as an event: whether untrusted output
/// entered it, and from whom.
fn taint(conversation: &Conversation) -> Value {
    let ledger = conversation.ledger();
    let sources: Vec<String> = ledger
        .untrusted_sources()
        .map(|(origin, n)| visible(&format!("{origin} ({n})")))
        .collect();
    json!({"type": "taint", "tainted": ledger.tainted(), "sources": sources})
}

/// The events that show `messages` again: each user message, the model's
/// text, and each tool call with the result the model read.
fn replay(messages: &[Message], emit: &impl Fn(Value)) {
    let results: HashMap<&str, (String, bool)> = messages
        .iter()
        .filter_map(|m| match m {
            Message::ToolResults(results) => Some(results),
            _ => None,
        })
        .flatten()
        .map(|r| (r.call_id.as_str(), (r.text(), r.is_error)))
        .collect();
    for message in messages {
        match message {
            Message::User { text } => emit(json!({"type": "user", "text": visible(text)})),
            Message::Assistant { text, tool_calls } => {
                if !text.is_empty() {
                    emit(json!({"type": "text", "text": visible(text)}));
                }
                for call in tool_calls {
                    let (result, is_error) = results
                        .get(call.id.as_str())
                        .map_or((None, false), |(t, e)| (Some(visible(t)), *e));
                    emit(json!({
                        "type": "call",
                        "name": visible(&call.name),
                        "arguments": safe_json(&call.arguments),
                        "decision": "earlier",
                        "reason": "in the saved conversation",
                        "result": result,
                        "isError": is_error,
                    }));
                }
            }
            Message::ToolResults(_) => {}
        }
    }
    emit(json!({"type": "end", "error": null}));
}

/// The conversation: one turn per message, its events to the page; saved
/// after each turn.
pub(super) async fn turns(
    agent: &mut Agent<'_>,
    session: &mut Session,
    mut inputs: mpsc::Receiver<Input>,
    cancelled: watch::Receiver<u64>,
    mut endorser: WebEndorser,
    pending: &Pending,
) {
    let events = session.events.clone();
    let emit = |event: Value| super::emit(&events, event);
    while let Some(input) = inputs.recv().await {
        let text = match input {
            Input::Say(text) => text,
            Input::Open(id) => {
                session.open(id);
                continue;
            }
            Input::New => {
                session.new_conversation();
                continue;
            }
        };
        pending.apply(agent.policy_mut());
        if session.title.is_empty() {
            session.title = text.chars().take(TITLE_CHARS).collect();
        }
        emit(json!({"type": "user", "text": visible(&text)}));
        let before = *cancelled.borrow();
        let wait = || {
            let mut rx = cancelled.clone();
            async move {
                if rx.wait_for(|n| *n != before).await.is_err() {
                    std::future::pending::<()>().await;
                }
            }
        };
        let outcome = agent
            .turn(
                &mut session.conversation,
                &text,
                &mut endorser,
                wait,
                &mut |event| match event {
                    Event::Text { delta } => emit(json!({"type": "text", "text": visible(&delta)})),
                    Event::Call(record) => emit(json!({
                        "type": "call",
                        "name": visible(record.qualified.as_deref().unwrap_or(&record.name)),
                        "arguments": safe_json(&record.arguments),
                        "decision": record.decision,
                        "reason": visible(&record.reason),
                        "result": record.result.as_deref().map(visible),
                        "isError": record.is_error,
                    })),
                    _ => {}
                },
            )
            .await;
        pending.apply(agent.policy_mut());
        session.save();
        emit(taint(&session.conversation));
        emit(json!({"type": "end", "error": outcome.err().map(|e| visible(&e.to_string()))}));
    }
}
