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
use std::sync::Arc;

use mcp_agent::conversation::ViewCallError;
use mcp_agent::flow::ServerText;
use tokio::sync::{mpsc, oneshot, watch};

use super::ask::WebEndorser;
use super::views::{tools_with_views, Instance, Views};
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
    /// A tool call of an MCP Apps view of `server` (its URI `uri`),
    /// answered on `reply`.
    ViewCall {
        server: String,
        uri: String,
        tool: String,
        arguments: serde_json::Map<String, Value>,
        reply: oneshot::Sender<Result<Value, ViewCallError>>,
    },
    /// A view's message for the conversation (`ui/message`): it starts a
    /// turn, labelled as the server's output.
    ViewMessage {
        server: String,
        uri: String,
        text: String,
    },
    /// The context view `view` keeps for the model
    /// (`ui/update-model-context`), given with the next turn.
    ViewContext {
        view: String,
        server: String,
        uri: String,
        text: String,
    },
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
    /// The MCP Apps views shown.
    pub views: Arc<Views>,
    /// The latest context of each view, by view id, for the next turn:
    /// `(view, server, uri, text)`.
    pub contexts: Vec<(String, String, String, String)>,
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
                self.views.clear();
                self.contexts.clear();
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
                self.views.clear();
                self.contexts.clear();
                super::reset(&self.events);
                self.emit(taint(&self.conversation));
            }
            (Err(e), _) => self.emit(json!({"type": "notice", "text": visible(&e.to_string())})),
            (_, Err(e)) => self.emit(json!({"type": "notice", "text": visible(&e.to_string())})),
        }
    }
}

impl Session {
    /// Gives the conversation the latest context each view keeps for
    /// the model, labelled as its server's output, once.
    fn give_contexts(&mut self, policy: &mcp_agent::flow::FlowPolicy) {
        for (_, server, uri, text) in std::mem::take(&mut self.contexts) {
            let output = ServerText::view(&server, &uri, format!("the view's context: {text}"));
            self.conversation.view_message(policy, &output);
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
            Input::Say(text) => Some(text),
            Input::Open(id) => {
                session.open(id);
                continue;
            }
            Input::New => {
                session.new_conversation();
                continue;
            }
            Input::ViewCall {
                server,
                uri,
                tool,
                arguments,
                reply,
            } => {
                pending.apply(agent.policy_mut());
                let ledger = session.conversation.ledger().clone();
                let answer = agent
                    .view_call(&ledger, &server, &uri, &tool, arguments, &mut endorser)
                    .await;
                let _ = reply.send(answer);
                continue;
            }
            Input::ViewContext {
                view,
                server,
                uri,
                text,
            } => {
                session.contexts.retain(|(v, ..)| *v != view);
                session.contexts.push((view, server, uri, text));
                continue;
            }
            Input::ViewMessage { server, uri, text } => {
                pending.apply(agent.policy_mut());
                emit(
                    json!({"type": "user", "text": visible(&text), "from": visible(&format!("the view of server {server} ({uri})"))}),
                );
                session.give_contexts(agent.policy());
                let output = ServerText::view(&server, &uri, text);
                session.conversation.view_message(agent.policy(), &output);
                None
            }
        };
        let with_views = tools_with_views(agent.host());
        if let Some(text) = &text {
            pending.apply(agent.policy_mut());
            if session.title.is_empty() {
                session.title = text.chars().take(TITLE_CHARS).collect();
            }
            emit(json!({"type": "user", "text": visible(text)}));
            session.give_contexts(agent.policy());
        }
        let before = *cancelled.borrow();
        let wait = || {
            let mut rx = cancelled.clone();
            async move {
                if rx.wait_for(|n| *n != before).await.is_err() {
                    std::future::pending::<()>().await;
                }
            }
        };
        let views = session.views.clone();
        let mut on_event = |event: Event| match event {
            Event::Text { delta } => emit(json!({"type": "text", "text": visible(&delta)})),
            Event::Call(record) => {
                emit(json!({
                    "type": "call",
                    "name": visible(record.qualified.as_deref().unwrap_or(&record.name)),
                    "arguments": safe_json(&record.arguments),
                    "decision": record.decision,
                    "reason": visible(&record.reason),
                    "result": record.result.as_deref().map(visible),
                    "isError": record.is_error,
                }));
                // A tool with a view, answered: the view is shown with
                // the arguments and the result.
                let viewed = record.qualified.as_ref().and_then(|q| with_views.get(q));
                if let (Some((server, uri, definition)), Some(result)) =
                    (viewed, record.server_result)
                {
                    let instance = Instance {
                        server: server.clone(),
                        uri: uri.clone(),
                        arguments: record.arguments.clone(),
                        result,
                        definition: definition.clone(),
                        policy: None,
                    };
                    if let Some(id) = views.add(instance) {
                        emit(json!({
                            "type": "view",
                            "id": id,
                            "proxy": views.proxy_url(&id),
                            "server": visible(server),
                            "uri": visible(uri),
                        }));
                    }
                }
            }
            _ => {}
        };
        let outcome = match &text {
            Some(text) => {
                agent
                    .turn(
                        &mut session.conversation,
                        text,
                        &mut endorser,
                        wait,
                        &mut on_event,
                    )
                    .await
            }
            None => {
                agent
                    .respond(
                        &mut session.conversation,
                        &mut endorser,
                        wait,
                        &mut on_event,
                    )
                    .await
            }
        };
        pending.apply(agent.policy_mut());
        session.save();
        emit(taint(&session.conversation));
        emit(json!({"type": "end", "error": outcome.err().map(|e| visible(&e.to_string()))}));
    }
}
