//! The loop, with I/O: the model through a [`provider::http::Client`],
//! the tools through an [`mcp_host::Host`].
//!
//! One user turn: the model is asked, each tool call it makes is mapped
//! back to the host's tool and the arguments its original schema expects,
//! prepared by the host (which checks them against that schema and the
//! tool's pin), put to the flow policy (which may need a person's
//! endorsement), put to the host's approval gate, and sent; each result
//! goes back to the model in its envelope, and the model is asked again,
//! until it answers or a bound ends the turn.

use std::future::Future;

use mcp_host::client::{CallOptions, ClientError};
use mcp_host::types::v2026_07_28::{CallToolResult, ContentBlock};
use mcp_host::Host;
use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::flow::{
    Endorsement, Endorser, FlowDecision, FlowPolicy, FlowStore, HostText, Ledger, ProposedCall,
    ServerText,
};
use crate::provider::{self, Arguments, StreamEvent, ToolCall, ToolContent, ToolResult};

use super::core::{Conversation, Step, Stop};

mod view;
use super::offer::{Offer, Resolved, SearchAnswer, ToolInput};
pub use view::{for_the_views, ViewCallError};

/// What a turn reports as it goes, for a terminal or a JSON transcript.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "camelCase")]
pub enum Event {
    /// A request to the model is sent.
    #[serde(rename_all = "camelCase")]
    ModelRequest {
        /// The size of its JSON body, in bytes.
        bytes: usize,
        /// The tools offered.
        tools: usize,
        /// The messages sent.
        messages: usize,
        /// Whether the flow policy held the context tainted when it was
        /// sent: every byte of it was recorded in the ledger first.
        tainted: bool,
        /// The untrusted sources in the context then.
        untrusted: Vec<String>,
    },
    /// More of the model's text, as it streams.
    Text {
        /// The piece.
        delta: String,
    },
    /// The model's answer to one request is complete.
    #[serde(rename_all = "camelCase")]
    ModelAnswer {
        /// Its tool calls.
        tool_calls: usize,
        /// Input tokens of the request.
        input_tokens: u64,
        /// Output tokens of the answer.
        output_tokens: u64,
    },
    /// A tool call was decided, and sent or not.
    Call(CallRecord),
}

/// One tool call of the model, what was decided and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CallRecord {
    /// The name the model called.
    pub name: String,
    /// The host's qualified name, when the name is a host tool.
    pub qualified: Option<String>,
    /// The arguments sent to the server (after restoring), or the model's.
    pub arguments: Value,
    /// `sent`, `refused` (by the flow policy or the gate) or `failed`
    /// (the arguments or the name were wrong, or the call failed).
    pub decision: &'static str,
    /// Why, in words.
    pub reason: String,
    /// The SHA-256 of the result given to the model, hex.
    pub result_digest: Option<String>,
    /// The text of the result given to the model (images and other
    /// parts named, not carried), as the model read it: for a front end
    /// to show, folded. Not in the JSON transcript, which keeps the digest.
    #[serde(skip)]
    pub result: Option<String>,
    /// Whether the result is an error.
    pub is_error: bool,
    /// The server's `CallToolResult` as it sent it, as JSON, when the
    /// call was answered: for a front end that shows the tool's MCP Apps
    /// view, which takes the result whole. Not in the JSON transcript.
    #[serde(skip)]
    pub server_result: Option<Value>,
    /// The question put to a person, when the flow policy needed one: the
    /// whole arguments, the untrusted sources and the highlights.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub question: Option<Value>,
}

/// Why a turn ended without an answer.
#[derive(Debug, thiserror::Error)]
pub enum TurnError {
    /// A bound was reached.
    #[error(transparent)]
    Stopped(#[from] Stop),
    /// The model could not be reached or answered wrongly.
    #[error("the model: {0}")]
    Model(#[from] provider::http::Error),
}

/// The model side of a host: the loop between one model and every server
/// of a [`Host`].
#[derive(Debug)]
pub struct Agent<'a> {
    host: &'a Host,
    model: &'a provider::http::Client,
    model_name: String,
    policy: FlowPolicy,
    offer: Offer,
    call_options: CallOptions,
    store: Option<FlowStore>,
}

/// The host's catalogue as the offer takes it: every tool the model may
/// see. A tool that MCP Apps makes visible to its server's views alone
/// (see [`for_the_model`]) is left out.
pub fn catalogue(host: &Host) -> Vec<ToolInput> {
    host.tools()
        .into_iter()
        .filter(|t| for_the_model(t.tool.accept_ref().meta.as_ref()))
        .map(|t| {
            let tool = t.tool.accept();
            let digest = serde_json::to_value(&tool)
                .map(|v| mcp_digest::digest(&v))
                .unwrap_or_default();
            ToolInput {
                digest,
                server: t.server.as_str().to_owned(),
                qualified: t.qualified,
                description: tool.description.unwrap_or_default(),
                input_schema: serde_json::to_value(&tool.input_schema).unwrap_or_default(),
                tool: tool.name,
            }
        })
        .collect()
}

/// Whether a tool with this `_meta` may be offered to the model. MCP
/// Apps (`io.modelcontextprotocol/ui`) lets a server mark a tool for its
/// views alone: `_meta.ui.visibility` without `"model"` keeps it from the
/// model; a tool without the key is the model's, as the extension says. A
/// `visibility` that is not a list of strings fails closed.
///
/// ```
/// use mcp_agent::conversation::run::for_the_model;
/// use serde_json::json;
///
/// let meta = |v: serde_json::Value| v.as_object().cloned();
/// assert!(for_the_model(None));
/// assert!(for_the_model(meta(json!({"ui": {"resourceUri": "ui://a/b"}})).as_ref()));
/// assert!(for_the_model(meta(json!({"ui": {"visibility": ["app", "model"]}})).as_ref()));
/// assert!(!for_the_model(meta(json!({"ui": {"visibility": ["app"]}})).as_ref()));
/// assert!(!for_the_model(meta(json!({"ui": {"visibility": "model"}})).as_ref()));
/// ```
pub fn for_the_model(meta: Option<&serde_json::Map<String, Value>>) -> bool {
    visible_to(meta, "model")
}

/// Whether `_meta.ui.visibility` lets `who` (`"model"` or `"app"`) see
/// the tool: yes without the key, no when it is not a list of strings.
fn visible_to(meta: Option<&serde_json::Map<String, Value>>, who: &str) -> bool {
    let Some(visibility) = meta
        .and_then(|m| m.get("ui"))
        .and_then(|ui| ui.get("visibility"))
    else {
        return true;
    };
    visibility
        .as_array()
        .is_some_and(|v| v.iter().any(|item| item.as_str() == Some(who)))
}

impl<'a> Agent<'a> {
    /// The loop between `model` (called `model_name` at its provider) and
    /// the tools of `host`, offered as `offer` has them, under `policy`.
    pub fn new(
        host: &'a Host,
        model: &'a provider::http::Client,
        model_name: impl Into<String>,
        policy: FlowPolicy,
        offer: Offer,
    ) -> Self {
        Self {
            host,
            model,
            model_name: model_name.into(),
            policy,
            offer,
            call_options: CallOptions::default(),
            store: None,
        }
    }

    /// Keeps what servers hold in `store`, so that it outlives the
    /// process: written, merged with other processes' records, before
    /// each call that gives a server untrusted data is sent.
    #[must_use]
    pub fn with_store(mut self, store: FlowStore) -> Self {
        self.store = Some(store);
        self
    }

    /// Sends every tool call with `options`: a progress callback, a
    /// timeout of its own.
    #[must_use]
    pub fn with_call_options(mut self, options: CallOptions) -> Self {
        self.call_options = options;
        self
    }

    /// The host whose tools the model uses.
    pub fn host(&self) -> &Host {
        self.host
    }

    /// The flow policy, with the holdings recorded so far.
    pub fn policy(&self) -> &FlowPolicy {
        &self.policy
    }

    /// The flow policy, to change (a review during a conversation).
    pub fn policy_mut(&mut self) -> &mut FlowPolicy {
        &mut self.policy
    }

    /// The tools offered.
    pub fn offer(&self) -> &Offer {
        &self.offer
    }

    /// Runs one user turn to its answer. The model's answers stream;
    /// `events` hears them and every decision. `endorser` is asked when
    /// the flow policy needs a person. A turn `cancel`led (for instance by
    /// Ctrl-C) ends with [`provider::http::Error::Cancelled`].
    ///
    /// # Errors
    ///
    /// [`TurnError`] when a bound ends the turn or the model fails.
    pub async fn turn<C, F>(
        &mut self,
        conversation: &mut Conversation,
        text: &str,
        endorser: &mut dyn Endorser,
        cancel: C,
        events: &mut dyn FnMut(Event),
    ) -> Result<String, TurnError>
    where
        C: Fn() -> F,
        F: Future<Output = ()>,
    {
        conversation.user(text);
        self.respond(conversation, endorser, cancel, events).await
    }

    /// Runs the model on the conversation as it stands to its answer: a
    /// turn that starts with something other than the user's words (a
    /// view's message, [`Conversation::view_message`]). Otherwise as
    /// [`turn`](Self::turn).
    ///
    /// # Errors
    ///
    /// [`TurnError`] when a bound ends the turn or the model fails.
    pub async fn respond<C, F>(
        &mut self,
        conversation: &mut Conversation,
        endorser: &mut dyn Endorser,
        cancel: C,
        events: &mut dyn FnMut(Event),
    ) -> Result<String, TurnError>
    where
        C: Fn() -> F,
        F: Future<Output = ()>,
    {
        loop {
            let request = conversation.request(&self.model_name, &self.offer, &self.policy)?;
            let bytes = self
                .offer
                .provider()
                .encode(&request, true)
                .map(|w| w.body.to_string().len())
                .unwrap_or(0);
            let ledger = conversation.ledger();
            events(Event::ModelRequest {
                bytes,
                tools: request.tools.len(),
                messages: request.messages.len(),
                tainted: ledger.tainted(),
                untrusted: ledger
                    .untrusted_sources()
                    .map(|(origin, _)| origin.to_string())
                    .collect(),
            });
            let response = self
                .model
                .stream(&request, cancel(), |event| {
                    if let StreamEvent::TextDelta(delta) = event {
                        events(Event::Text { delta });
                    }
                })
                .await?;
            events(Event::ModelAnswer {
                tool_calls: response.tool_calls.len(),
                input_tokens: response.usage.input_tokens,
                output_tokens: response.usage.output_tokens,
            });
            let calls = match conversation.answer(response)? {
                Step::Answer(text) => return Ok(text),
                Step::Calls(calls) => calls,
            };
            let mut results = Vec::with_capacity(calls.len());
            for call in &calls {
                let (result, record) = self.run_call(conversation, call, endorser).await;
                events(Event::Call(record));
                results.push(result);
            }
            conversation.results(results);
        }
    }

    /// One tool call, from the model's words to the result it gets back.
    ///
    /// Every text the model gets back is either the host's own
    /// ([`HostText`]: templates and numbers) or what a server wrote
    /// ([`ServerText`], labelled and enveloped): results, the server's
    /// errors, errors that quote it (an undecodable result, a task's
    /// status message, a failed start's standard error, a schema's
    /// words), and the tool search's answer built from definitions.
    async fn run_call(
        &mut self,
        conversation: &mut Conversation,
        call: &ToolCall,
        endorser: &mut dyn Endorser,
    ) -> (ToolResult, CallRecord) {
        let mut record = CallRecord {
            name: call.name.clone(),
            qualified: None,
            arguments: call.arguments.to_object(),
            decision: "failed",
            reason: String::new(),
            result_digest: None,
            result: None,
            is_error: true,
            server_result: None,
            question: None,
        };
        let arguments = match &call.arguments {
            Arguments::Object(map) => map.clone(),
            Arguments::Invalid(invalid) => {
                record.reason = invalid.message();
                let message = HostText::new(
                    "the arguments of this call are not a JSON object; call the tool again \
                     with a JSON object as its arguments",
                );
                return self.finish_host(conversation, call, record, &message, "invalid arguments");
            }
        };
        let (server, tool, qualified, arguments) = match self.offer.resolve(&call.name, &arguments)
        {
            Resolved::Tool {
                server,
                tool,
                qualified,
                arguments,
            } => (server, tool, qualified, arguments),
            Resolved::Search(query) => {
                let result = match self.offer.search(&query) {
                    SearchAnswer::Nothing(text) => conversation.host_result(call, &text, false),
                    SearchAnswer::Found(text) => {
                        conversation.server_output(&self.policy, call, &text, Vec::new(), false)
                    }
                };
                record.decision = "sent";
                record.is_error = false;
                record.reason = String::from("the host's tool search");
                record.result_digest = Some(digest(&result));
                record.result = Some(shown(&result));
                return (result, record);
            }
            Resolved::Error(message) => {
                return self.finish_host(conversation, call, record, &message, "unknown tool");
            }
        };
        record.qualified = Some(qualified.clone());
        record.arguments = Value::Object(arguments.clone());
        // The original schema and the pin, before anything else.
        let prepared = match self.host.prepare(&qualified, arguments).await {
            Ok(prepared) => prepared,
            Err(error) => {
                record.reason = format!("not prepared: {error}");
                // Its words come from the tool's schema (its definition)
                // or from the server (its name list, its standard error,
                // a quarantined definition's changes): labelled so.
                let text = format!("the call was not sent: {error}");
                let output = match (&error, self.offer.offered(&call.name)) {
                    (ClientError::InvalidArguments(_), Some(offered)) => {
                        ServerText::definitions(vec![offered.source()], &tool, text)
                    }
                    _ => ServerText::error(&server, &tool, text),
                };
                let result =
                    conversation.server_output(&self.policy, call, &output, Vec::new(), true);
                record.result_digest = Some(digest(&result));
                record.result = Some(shown(&result));
                return (result, record);
            }
        };
        let arguments_value = record.arguments.clone();
        let proposed = ProposedCall {
            server: &server,
            tool: &tool,
            arguments: &arguments_value,
            read_only_closed_world: prepared.read_only_closed_world_by_trusted_server(),
        };
        let endorsement = match self.policy.check(conversation.ledger(), &proposed) {
            FlowDecision::Free { reason, .. } => {
                self.audit(&prepared, "free", &reason, conversation, None);
                record.reason = reason;
                None
            }
            FlowDecision::Endorsed(endorsement) => {
                record.reason = endorsement.reason().to_owned();
                Some(endorsement)
            }
            FlowDecision::NeedsEndorsement(question) => {
                record.question = serde_json::to_value(&question).ok();
                let answer = endorser.answer(&question);
                match question.answer(answer) {
                    Ok(endorsement) if endorsement.covers(&proposed) => {
                        record.reason = endorsement.reason().to_owned();
                        Some(endorsement)
                    }
                    Ok(_) => {
                        record.decision = "refused";
                        let reason = "the endorsement does not cover this call";
                        self.audit(&prepared, "refused", reason, conversation, None);
                        let message = HostText::new("the endorsement does not cover this call");
                        return self.finish_host(conversation, call, record, &message, reason);
                    }
                    Err(refusal) => {
                        record.decision = "refused";
                        record.reason = refusal.reason().to_owned();
                        self.audit(&prepared, "refused", refusal.reason(), conversation, None);
                        let message = refusal.model_message();
                        let reason = record.reason.clone();
                        return self.finish_host(conversation, call, record, &message, &reason);
                    }
                }
            }
        };
        if let Some(endorsement) = &endorsement {
            self.audit(
                &prepared,
                "endorsed",
                endorsement.reason(),
                conversation,
                Some(endorsement),
            );
            // The server is about to be given the untrusted sources' data:
            // it holds it from now on, recorded before the call is sent.
            if self.policy.hold(endorsement) {
                if let Err(error) = self.persist_holdings() {
                    record.decision = "refused";
                    record.reason = format!("what the server holds could not be recorded: {error}");
                    let message = HostText::new(
                        "the call was not made: the host could not record what the server would \
                         hold",
                    );
                    let reason = record.reason.clone();
                    return self.finish_host(conversation, call, record, &message, &reason);
                }
            }
        }
        // The host's approval gate: rules, pins' findings, the approver.
        let approval = match self.host.authorize(&prepared).await {
            Ok(approval) => approval,
            Err(denied) => {
                record.decision = "refused";
                record.reason = format!("denied at the host's gate: {denied}");
                let message = HostText::new("the call was not approved at the host's gate");
                let reason = record.reason.clone();
                return self.finish_host(conversation, call, record, &message, &reason);
            }
        };
        let outcome = self
            .host
            .call_tool(prepared, approval, &self.call_options)
            .await;
        record.decision = "sent";
        let result = match outcome {
            Ok(result) => {
                let result = result.accept();
                record.server_result = serde_json::to_value(&result).ok();
                let is_error = result.is_error == Some(true);
                let (text, images) = content_of(&result);
                let output = ServerText::result(&server, &tool, text);
                conversation.server_output(&self.policy, call, &output, images, is_error)
            }
            // The server's own error words are its output, like a result.
            Err(ClientError::Rpc(error)) => {
                let error = error.accept();
                let text = format!("error {}: {}", error.code, error.message);
                let output = ServerText::error(&server, &tool, text);
                conversation.server_output(&self.policy, call, &output, Vec::new(), true)
            }
            // Any other failure may quote the server (an undecodable
            // result, a task's status message, what it wrote on standard
            // error): its words, labelled as its output.
            Err(error) => {
                let output = ServerText::error(&server, &tool, format!("the call failed: {error}"));
                conversation.server_output(&self.policy, call, &output, Vec::new(), true)
            }
        };
        record.is_error = result.is_error;
        record.result_digest = Some(digest(&result));
        record.result = Some(shown(&result));
        (result, record)
    }

    /// The flow decision on `call`, in the host's audit log beside the
    /// gate's: the untrusted sources in the context, and who endorsed it.
    fn audit(
        &self,
        call: &mcp_host::approval::ToolCall,
        decision: &str,
        reason: &str,
        conversation: &Conversation,
        endorsement: Option<&Endorsement>,
    ) {
        self.audit_ledger(
            call,
            decision,
            reason,
            conversation.ledger(),
            endorsement,
            None,
        );
    }

    /// [`audit`](Self::audit) with the ledger the decision read, and who
    /// asked when it was not the model (a view, by its `ui://` URI).
    fn audit_ledger(
        &self,
        call: &mcp_host::approval::ToolCall,
        decision: &str,
        reason: &str,
        ledger: &Ledger,
        endorsement: Option<&Endorsement>,
        view: Option<&str>,
    ) {
        let sources: Vec<Value> = ledger
            .untrusted_sources()
            .map(|(origin, items)| serde_json::json!({"origin": origin, "items": items}))
            .collect();
        let mut flow = serde_json::json!({ "sources": sources });
        if let Some(view) = view {
            flow["requestedBy"] = serde_json::json!({ "view": view });
        }
        if let Some(endorsement) = endorsement {
            flow["endorsedBy"] = serde_json::to_value(endorsement.kind()).unwrap_or_default();
        }
        self.host.audit_flow(call, decision, reason, flow);
    }

    /// Writes what servers hold to the store, merged with what other host
    /// processes wrote, and takes the merged book.
    fn persist_holdings(&mut self) -> Result<(), crate::flow::StoreError> {
        let Some(store) = &self.store else {
            return Ok(());
        };
        let mine = self.policy.holdings().clone();
        let ((), merged) = store.update_holdings(|book| book.merge(&mine))?;
        let policy = std::mem::take(&mut self.policy);
        self.policy = policy.with_holdings(merged);
        Ok(())
    }

    fn finish_host(
        &self,
        conversation: &mut Conversation,
        call: &ToolCall,
        mut record: CallRecord,
        message: &HostText,
        reason: &str,
    ) -> (ToolResult, CallRecord) {
        let result = conversation.host_result(call, message, true);
        if record.reason.is_empty() {
            record.reason = reason.to_owned();
        }
        record.is_error = true;
        record.result_digest = Some(digest(&result));
        record.result = Some(shown(&result));
        (result, record)
    }
}

/// A tool result's blocks as the model can take them: the text of text
/// blocks, and of anything else but images (audio, links, embedded
/// resources) its JSON, joined by lines; the structured content when
/// there is no other; and the images apart.
fn content_of(result: &CallToolResult) -> (String, Vec<ToolContent>) {
    let mut text = Vec::new();
    let mut images = Vec::new();
    for block in &result.content {
        match block {
            ContentBlock::TextContent(t) => text.push(t.text.clone()),
            ContentBlock::ImageContent(image) => images.push(ToolContent::Image {
                mime_type: image.mime_type.clone(),
                data: image.data.clone(),
            }),
            other => text.push(serde_json::to_string(other).unwrap_or_default()),
        }
    }
    if text.is_empty() && images.is_empty() {
        if let Some(structured) = &result.structured_content {
            text.push(structured.to_string());
        }
    }
    (text.join("\n"), images)
}

/// The SHA-256 of what the model got back, hex.
/// The text of `result` as the model reads it, each image named by its
/// type.
fn shown(result: &ToolResult) -> String {
    let parts: Vec<String> = result
        .content
        .iter()
        .map(|part| match part {
            ToolContent::Text(text) => text.clone(),
            ToolContent::Image { mime_type, .. } => format!("[image {mime_type}]"),
        })
        .collect();
    parts.join("\n")
}

fn digest(result: &ToolResult) -> String {
    let mut hasher = Sha256::new();
    for part in &result.content {
        match part {
            ToolContent::Text(text) => hasher.update(text.as_bytes()),
            ToolContent::Image { data, .. } => hasher.update(data.as_bytes()),
        }
    }
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
