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

use crate::flow::{Endorser, FlowDecision, FlowPolicy, ProposedCall};
use crate::provider::{self, Arguments, StreamEvent, ToolCall, ToolContent, ToolResult};

use super::core::{Conversation, Step, Stop};
use super::offer::{Offer, Resolved, ToolInput};

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
    /// Whether the result is an error.
    pub is_error: bool,
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
}

/// The host's catalogue as the offer takes it.
pub fn catalogue(host: &Host) -> Vec<ToolInput> {
    host.tools()
        .into_iter()
        .map(|t| {
            let tool = t.tool.accept();
            ToolInput {
                server: t.server.as_str().to_owned(),
                qualified: t.qualified,
                description: tool.description.unwrap_or_default(),
                input_schema: serde_json::to_value(&tool.input_schema).unwrap_or_default(),
                tool: tool.name,
            }
        })
        .collect()
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
        }
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
        loop {
            let request = conversation.request(&self.model_name, &self.offer)?;
            let bytes = self
                .offer
                .provider()
                .encode(&request, true)
                .map(|w| w.body.to_string().len())
                .unwrap_or(0);
            events(Event::ModelRequest {
                bytes,
                tools: request.tools.len(),
                messages: request.messages.len(),
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
            is_error: true,
        };
        let arguments = match &call.arguments {
            Arguments::Object(map) => map.clone(),
            Arguments::Invalid(invalid) => {
                let message = invalid.message();
                return self.finish_host(conversation, call, record, message, "invalid arguments");
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
                let text = self.offer.search(&query);
                record.decision = "sent";
                record.is_error = false;
                let result = conversation.host_result(call, &text, false);
                record.reason = String::from("the host's tool search");
                record.result_digest = Some(digest(&result));
                return (result, record);
            }
            Resolved::Error(message) => {
                return self.finish_host(conversation, call, record, message, "unknown tool");
            }
        };
        record.qualified = Some(qualified.clone());
        record.arguments = Value::Object(arguments.clone());
        // The original schema and the pin, before anything else.
        let prepared = match self.host.prepare(&qualified, arguments).await {
            Ok(prepared) => prepared,
            Err(error) => {
                let message = format!("the call was not sent: {error}");
                return self.finish_host(conversation, call, record, message, "not prepared");
            }
        };
        let arguments_value = record.arguments.clone();
        let proposed = ProposedCall {
            server: &server,
            tool: &tool,
            arguments: &arguments_value,
            read_only_by_trusted_server: prepared.read_only_by_trusted_server(),
        };
        match self.policy.check(conversation.ledger(), &proposed) {
            FlowDecision::Free { reason, .. } => record.reason = reason,
            FlowDecision::Endorsed(endorsement) => record.reason = endorsement.reason().to_owned(),
            FlowDecision::NeedsEndorsement(question) => {
                let answer = endorser.answer(&question);
                match question.answer(answer) {
                    Ok(endorsement) if endorsement.covers(&proposed) => {
                        record.reason = endorsement.reason().to_owned();
                    }
                    Ok(_) => {
                        record.decision = "refused";
                        let message = String::from("the endorsement does not cover this call");
                        return self.finish_host(conversation, call, record, message, "refused");
                    }
                    Err(refusal) => {
                        record.decision = "refused";
                        record.reason = refusal.reason().to_owned();
                        let message = refusal.model_message();
                        let reason = record.reason.clone();
                        return self.finish_host(conversation, call, record, message, &reason);
                    }
                }
            }
        }
        // The host's approval gate: rules, pins' findings, the approver.
        let approval = match self.host.authorize(&prepared).await {
            Ok(approval) => approval,
            Err(denied) => {
                record.decision = "refused";
                let message = format!("the call was not approved: {denied}");
                return self.finish_host(conversation, call, record, message, "denied");
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
                let is_error = result.is_error == Some(true);
                let content = content_of(&result);
                conversation.server_output(&self.policy, call, &server, &tool, &content, is_error)
            }
            // The server's own error words are its output, like a result.
            Err(ClientError::Rpc(error)) => {
                let error = error.accept();
                let text = format!("error {}: {}", error.code, error.message);
                let content = [ToolContent::Text(text)];
                conversation.server_output(&self.policy, call, &server, &tool, &content, true)
            }
            Err(error) => {
                conversation.host_result(call, &format!("the call failed: {error}"), true)
            }
        };
        record.is_error = result.is_error;
        record.result_digest = Some(digest(&result));
        (result, record)
    }

    fn finish_host(
        &self,
        conversation: &mut Conversation,
        call: &ToolCall,
        mut record: CallRecord,
        message: String,
        reason: &str,
    ) -> (ToolResult, CallRecord) {
        let result = conversation.host_result(call, &message, true);
        if record.reason.is_empty() {
            record.reason = reason.to_owned();
        }
        record.is_error = true;
        record.result_digest = Some(digest(&result));
        (result, record)
    }
}

/// A tool result's blocks as the model can take them: text and images as
/// they are, anything else (audio, links, embedded resources) as its JSON,
/// and the structured content when there is no other.
fn content_of(result: &CallToolResult) -> Vec<ToolContent> {
    let mut out = Vec::new();
    for block in &result.content {
        match block {
            ContentBlock::TextContent(text) => out.push(ToolContent::Text(text.text.clone())),
            ContentBlock::ImageContent(image) => out.push(ToolContent::Image {
                mime_type: image.mime_type.clone(),
                data: image.data.clone(),
            }),
            other => out.push(ToolContent::Text(
                serde_json::to_string(other).unwrap_or_default(),
            )),
        }
    }
    if out.is_empty() {
        if let Some(structured) = &result.structured_content {
            out.push(ToolContent::Text(structured.to_string()));
        }
    }
    out
}

/// The SHA-256 of what the model got back, hex.
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
