//! Anthropic Messages (`POST {base}/v1/messages`).
//!
//! Mapping choices:
//! - `max_tokens` is required; a request without a cap sends
//!   [`DEFAULT_MAX_TOKENS`].
//! - Tool results are `tool_result` blocks of one `user` message, each
//!   with its text and images as content blocks (base64 `image` blocks)
//!   and `is_error`.
//! - [`ToolChoice::Required`] is `{"type":"any"}`.
//! - The current Messages API has no sampling parameters (the SDK's
//!   request type refuses `temperature`), so [`Request::temperature`] is
//!   not sent.
//! - Usage: Anthropic counts cache reads and writes apart from
//!   `input_tokens`; the neutral `input_tokens` is their sum, and
//!   `cached_input_tokens` the reads.

use serde_json::{json, Map, Value};

use super::stream::{array, shape, str_field, Assembler};
use super::{
    bounded, DecodeError, FinishReason, Limits, Message, Request, Response, ToolChoice,
    ToolContent, Usage, WireRequest,
};

/// The path of Messages after the base URL.
pub const PATH: &str = "/v1/messages";

/// The API version this module speaks, sent as `anthropic-version`.
pub const VERSION: &str = "2023-06-01";

/// The `max_tokens` sent when the request has no cap.
pub const DEFAULT_MAX_TOKENS: u32 = 4096;

/// The request body.
pub fn encode(request: &Request, stream: bool) -> WireRequest {
    let messages: Vec<Value> = request.messages.iter().map(message).collect();
    let mut body = Map::new();
    body.insert("model".into(), json!(request.model));
    body.insert(
        "max_tokens".into(),
        json!(request.max_output_tokens.unwrap_or(DEFAULT_MAX_TOKENS)),
    );
    if let Some(system) = &request.system {
        body.insert("system".into(), json!(system));
    }
    body.insert("messages".into(), Value::Array(messages));
    if !request.tools.is_empty() {
        let tools: Vec<Value> = request
            .tools
            .iter()
            .map(|tool| {
                let mut out = json!({
                    "name": tool.name,
                    "description": tool.description,
                    "input_schema": tool.parameters,
                });
                if tool.strict {
                    out["strict"] = json!(true);
                }
                out
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
        let choice = match &request.tool_choice {
            ToolChoice::Auto => json!({ "type": "auto" }),
            ToolChoice::None => json!({ "type": "none" }),
            ToolChoice::Required => json!({ "type": "any" }),
            ToolChoice::Tool(name) => json!({ "type": "tool", "name": name }),
        };
        body.insert("tool_choice".into(), choice);
    }
    if stream {
        body.insert("stream".into(), json!(true));
    }
    WireRequest {
        path: PATH.to_owned(),
        headers: vec![("anthropic-version", VERSION)],
        body: Value::Object(body),
    }
}

fn message(message: &Message) -> Value {
    match message {
        Message::User { text } => json!({ "role": "user", "content": text }),
        Message::Assistant { text, tool_calls } => {
            let mut blocks = Vec::new();
            if !text.is_empty() {
                blocks.push(json!({ "type": "text", "text": text }));
            }
            for call in tool_calls {
                blocks.push(json!({
                    "type": "tool_use",
                    "id": call.id,
                    "name": call.name,
                    "input": call.arguments.to_object(),
                }));
            }
            json!({ "role": "assistant", "content": blocks })
        }
        Message::ToolResults(results) => {
            let blocks: Vec<Value> = results
                .iter()
                .map(|result| {
                    let content: Vec<Value> = result
                        .content
                        .iter()
                        .map(|part| match part {
                            ToolContent::Text(text) => json!({ "type": "text", "text": text }),
                            ToolContent::Image { mime_type, data } => json!({
                                "type": "image",
                                "source": { "type": "base64", "media_type": mime_type, "data": data },
                            }),
                        })
                        .collect();
                    json!({
                        "type": "tool_result",
                        "tool_use_id": result.call_id,
                        "content": content,
                        "is_error": result.is_error,
                    })
                })
                .collect();
            json!({ "role": "user", "content": blocks })
        }
    }
}

/// Decodes a `message` object.
///
/// # Errors
///
/// [`DecodeError`] when it is not a message or exceeds `limits`.
pub fn decode(value: &Value, limits: &Limits) -> Result<Response, DecodeError> {
    if str_field(value, "type") != Some("message") {
        return Err(shape("an object that is not a message"));
    }
    let mut asm = Assembler::new(*limits);
    for block in array(value, "content")? {
        block_start(block, &mut asm)?;
    }
    asm.usage(usage(value.get("usage").unwrap_or(&Value::Null), None));
    if let Some(reason) = str_field(value, "stop_reason") {
        asm.finish(finish(reason));
    }
    Ok(asm.into_response())
}

/// Starts a content block; returns the tool call index of a `tool_use`.
fn block_start(block: &Value, asm: &mut Assembler) -> Result<Option<usize>, DecodeError> {
    match str_field(block, "type") {
        Some("text") => {
            asm.text(str_field(block, "text").unwrap_or_default())?;
            Ok(None)
        }
        Some("tool_use") => {
            let id = str_field(block, "id").unwrap_or_default();
            let name = str_field(block, "name").unwrap_or_default();
            let index = asm.start_call(id, name, None)?;
            // A stream starts the block with `{}` and sends the input as
            // deltas; a whole message has it here.
            match block.get("input") {
                Some(Value::Object(map)) if map.is_empty() => {}
                Some(input) => asm.arguments(index, &input.to_string())?,
                None => {}
            }
            Ok(Some(index))
        }
        // Thinking and server-tool blocks carry nothing of ours.
        _ => Ok(None),
    }
}

/// The bookkeeping of a Messages stream: the usage so far and which
/// tool call each content block index is.
#[derive(Debug, Default)]
pub struct StreamState {
    usage: Option<Value>,
    blocks: Vec<(u64, usize)>,
}

/// Decodes one stream event; returns whether it ended the stream
/// (`message_stop`).
///
/// # Errors
///
/// [`DecodeError`] for an event not shaped as one, or past the limits.
pub fn event(
    value: &Value,
    state: &mut StreamState,
    asm: &mut Assembler,
) -> Result<bool, DecodeError> {
    match str_field(value, "type") {
        Some("message_start") => {
            let message = value.get("message").unwrap_or(&Value::Null);
            let start = message.get("usage").cloned().unwrap_or(Value::Null);
            asm.usage(usage(&start, None));
            state.usage = Some(start);
        }
        Some("content_block_start") => {
            let index = block_index(value)?;
            let block = value
                .get("content_block")
                .ok_or_else(|| shape("content_block_start without a block"))?;
            if let Some(slot) = block_start(block, asm)? {
                state.blocks.push((index, slot));
            }
        }
        Some("content_block_delta") => {
            let index = block_index(value)?;
            let delta = value.get("delta").unwrap_or(&Value::Null);
            match str_field(delta, "type") {
                Some("text_delta") => asm.text(str_field(delta, "text").unwrap_or_default())?,
                Some("input_json_delta") => {
                    let slot = state
                        .blocks
                        .iter()
                        .find(|(i, _)| *i == index)
                        .map(|(_, slot)| *slot)
                        .ok_or_else(|| {
                            shape("input_json_delta for a block that is not tool_use")
                        })?;
                    asm.arguments(slot, str_field(delta, "partial_json").unwrap_or_default())?;
                }
                _ => {}
            }
        }
        Some("message_delta") => {
            if let Some(delta_usage) = value.get("usage") {
                asm.usage(usage(delta_usage, state.usage.as_ref()));
            }
            if let Some(reason) = value.get("delta").and_then(|d| str_field(d, "stop_reason")) {
                asm.finish(finish(reason));
            }
        }
        Some("message_stop") => return Ok(true),
        // `content_block_stop`, `ping`, and types added later.
        Some(_) => {}
        None => return Err(shape("an event without a type")),
    }
    Ok(false)
}

fn block_index(value: &Value) -> Result<u64, DecodeError> {
    value
        .get("index")
        .and_then(Value::as_u64)
        .ok_or_else(|| shape("a content block event without an index"))
}

/// The neutral usage of `usage`, its absent counts taken from `start`
/// (a `message_delta` repeats only some of `message_start`'s).
fn usage(usage: &Value, start: Option<&Value>) -> Usage {
    let get = |key: &str| {
        usage
            .get(key)
            .and_then(Value::as_u64)
            .or_else(|| start.and_then(|s| s.get(key)).and_then(Value::as_u64))
    };
    let read = get("cache_read_input_tokens");
    Usage {
        input_tokens: get("input_tokens").unwrap_or(0)
            + read.unwrap_or(0)
            + get("cache_creation_input_tokens").unwrap_or(0),
        output_tokens: get("output_tokens").unwrap_or(0),
        cached_input_tokens: read,
    }
}

fn finish(reason: &str) -> FinishReason {
    match reason {
        "end_turn" | "stop_sequence" => FinishReason::Stop,
        "max_tokens" | "model_context_window_exceeded" => FinishReason::Length,
        "tool_use" => FinishReason::ToolCalls,
        "refusal" => FinishReason::ContentFilter,
        other => FinishReason::Other(bounded(other)),
    }
}
