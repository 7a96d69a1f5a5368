//! OpenAI Chat Completions (`POST {base}/chat/completions`), which
//! OpenAI-compatible servers (Ollama, vLLM, llama.cpp's server, LM
//! Studio, OpenRouter) speak too. The base URL ends in `/v1`, as the
//! official SDKs take it.
//!
//! Mapping choices:
//! - The system prompt is a `system` message (every compatible server
//!   knows it; OpenAI reads it as `developer` for reasoning models).
//! - The answer cap is `max_completion_tokens`, the field OpenAI's
//!   reasoning models require (`max_tokens` is deprecated there).
//! - Streaming requests ask for `stream_options.include_usage`, so the
//!   last chunk carries the token counts.
//! - Tool results are `tool` messages, one per call. A `tool` message
//!   takes text only, so the error flag becomes a leading `error:` line,
//!   and the images of all results follow in one `user` message of
//!   `image_url` data URLs, each set introduced by a text part naming its
//!   call.
//! - A `refusal` is the answer's text, and makes the finish
//!   [`FinishReason::ContentFilter`].
//! - Tool call arguments arrive as a JSON string; text that is not a JSON
//!   object becomes [`Arguments::Invalid`](super::Arguments::Invalid), and
//!   goes back to the provider as it came.

use serde_json::{json, Map, Value};

use super::stream::{array, count, shape, str_field, Assembler};
use super::{
    bounded, DecodeError, FinishReason, Limits, Message, Request, ToolChoice, ToolResult, Usage,
    WireRequest,
};

/// The path of Chat Completions after the base URL.
pub const PATH: &str = "/chat/completions";

/// The request body.
pub fn encode(request: &Request, stream: bool) -> WireRequest {
    let mut messages = Vec::new();
    if let Some(system) = &request.system {
        messages.push(json!({ "role": "system", "content": system }));
    }
    for message in &request.messages {
        match message {
            Message::User { text } => messages.push(json!({ "role": "user", "content": text })),
            Message::Assistant { text, tool_calls } => {
                let mut out = Map::new();
                out.insert("role".into(), json!("assistant"));
                // `content` is always there, as text (empty beside tool
                // calls alone): servers that speak OpenAI's API read it
                // unguarded (llama.cpp's server's chat templates), and some
                // refuse `null` (its request types).
                out.insert("content".into(), json!(text));
                if !tool_calls.is_empty() {
                    let calls: Vec<Value> = tool_calls
                        .iter()
                        .map(|call| {
                            json!({
                                "id": call.id,
                                "type": "function",
                                "function": {
                                    "name": call.name,
                                    "arguments": call.arguments.to_json_string(),
                                },
                            })
                        })
                        .collect();
                    out.insert("tool_calls".into(), Value::Array(calls));
                }
                messages.push(Value::Object(out));
            }
            Message::ToolResults(results) => tool_results(results, &mut messages),
        }
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(request.model));
    body.insert("messages".into(), Value::Array(messages));
    if !request.tools.is_empty() {
        let tools: Vec<Value> = request
            .tools
            .iter()
            .map(|tool| {
                json!({
                    "type": "function",
                    "function": {
                        "name": tool.name,
                        "description": tool.description,
                        "parameters": tool.parameters,
                        "strict": tool.strict,
                    },
                })
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
        let choice = match &request.tool_choice {
            ToolChoice::Auto => json!("auto"),
            ToolChoice::None => json!("none"),
            ToolChoice::Required => json!("required"),
            ToolChoice::Tool(name) => json!({ "type": "function", "function": { "name": name } }),
        };
        body.insert("tool_choice".into(), choice);
    }
    if let Some(max) = request.max_output_tokens {
        body.insert("max_completion_tokens".into(), json!(max));
    }
    if let Some(temperature) = request.temperature {
        body.insert("temperature".into(), json!(temperature));
    }
    if stream {
        body.insert("stream".into(), json!(true));
        body.insert("stream_options".into(), json!({ "include_usage": true }));
    }
    WireRequest {
        path: PATH.to_owned(),
        headers: Vec::new(),
        body: Value::Object(body),
    }
}

fn tool_results(results: &[ToolResult], messages: &mut Vec<Value>) {
    let mut images = Vec::new();
    for result in results {
        let text = result.text();
        let content = if result.is_error {
            format!("error:\n{text}")
        } else {
            text
        };
        messages.push(json!({
            "role": "tool",
            "tool_call_id": result.call_id,
            "content": content,
        }));
        let mut first = true;
        for (mime_type, data) in result.images() {
            if first {
                images.push(json!({
                    "type": "text",
                    "text": format!("The images returned by tool call {}:", result.call_id),
                }));
                first = false;
            }
            images.push(json!({
                "type": "image_url",
                "image_url": { "url": format!("data:{mime_type};base64,{data}") },
            }));
        }
    }
    if !images.is_empty() {
        messages.push(json!({ "role": "user", "content": images }));
    }
}

/// Decodes a `chat.completion` object.
///
/// # Errors
///
/// [`DecodeError`] when it has no choice or exceeds `limits`.
pub fn decode(value: &Value, limits: &Limits) -> Result<super::Response, DecodeError> {
    let mut asm = Assembler::new(*limits);
    let choice = value
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .ok_or_else(|| shape("a chat completion without choices"))?;
    let message = choice
        .get("message")
        .ok_or_else(|| shape("a choice without a message"))?;
    let refused = text(message, &mut asm)?;
    for call in array(message, "tool_calls")? {
        let function = call.get("function").unwrap_or(&Value::Null);
        let id = str_field(call, "id").unwrap_or_default();
        let index = asm.start_call(id, str_field(function, "name").unwrap_or_default(), None)?;
        asm.arguments(index, str_field(function, "arguments").unwrap_or_default())?;
    }
    if let Some(usage) = value.get("usage").filter(|u| u.is_object()) {
        asm.usage(self::usage(usage));
    }
    if let Some(reason) = str_field(choice, "finish_reason") {
        asm.finish(finish(reason, refused));
    }
    Ok(asm.into_response())
}

/// The bookkeeping of a Chat Completions stream: which of our tool calls
/// each of the provider's tool call deltas continues, and whether the
/// model refused.
#[derive(Debug, Default)]
pub struct StreamState {
    calls: Vec<Known>,
    refused: bool,
}

/// A tool call of the stream: the provider's index and id, our slot.
#[derive(Debug)]
struct Known {
    index: Option<u64>,
    id: String,
    slot: usize,
}

impl StreamState {
    /// The slot a delta continues: the call of its index; without an
    /// index (some compatible servers leave it out), the call of its id,
    /// or with neither the last call. `None` for a new call.
    fn slot(&self, call: &Value) -> Option<usize> {
        let known = match (
            call.get("index").and_then(Value::as_u64),
            str_field(call, "id"),
        ) {
            (Some(index), _) => self.calls.iter().find(|k| k.index == Some(index)),
            (None, Some(id)) => self.calls.iter().find(|k| k.id == id),
            (None, None) => self.calls.last(),
        };
        known.map(|k| k.slot)
    }
}

/// Decodes one `chat.completion.chunk`.
///
/// # Errors
///
/// [`DecodeError`] for a chunk not shaped as one, or past the limits.
pub fn chunk(
    value: &Value,
    state: &mut StreamState,
    asm: &mut Assembler,
) -> Result<(), DecodeError> {
    if !value.is_object() {
        return Err(shape("a chunk that is not an object"));
    }
    // Only the first choice is asked for (no `n`); a chunk of another is
    // not ours.
    let first = |c: &&Value| c.get("index").and_then(Value::as_u64).unwrap_or(0) == 0;
    if let Some(choice) = array(value, "choices")?.iter().find(first) {
        let delta = choice.get("delta").unwrap_or(&Value::Null);
        state.refused |= text(delta, asm)?;
        for call in array(delta, "tool_calls")? {
            let function = call.get("function").unwrap_or(&Value::Null);
            let slot = match state.slot(call) {
                Some(slot) => slot,
                None => {
                    let index = call.get("index").and_then(Value::as_u64);
                    let id = match (str_field(call, "id"), index) {
                        (Some(id), _) => id.to_owned(),
                        (None, Some(index)) => format!("call_{index}"),
                        (None, None) => {
                            return Err(shape("a tool call delta without an index or id"))
                        }
                    };
                    let name = str_field(function, "name").unwrap_or_default();
                    let slot = asm.start_call(&id, name, None)?;
                    state.calls.push(Known { index, id, slot });
                    slot
                }
            };
            asm.arguments(slot, str_field(function, "arguments").unwrap_or_default())?;
        }
        if let Some(reason) = str_field(choice, "finish_reason") {
            asm.finish(finish(reason, state.refused));
        }
    }
    if let Some(usage) = value.get("usage").filter(|u| u.is_object()) {
        asm.usage(self::usage(usage));
    }
    Ok(())
}

fn usage(usage: &Value) -> Usage {
    Usage {
        input_tokens: count(usage, "prompt_tokens"),
        output_tokens: count(usage, "completion_tokens"),
        cached_input_tokens: usage
            .get("prompt_tokens_details")
            .and_then(|d| d.get("cached_tokens"))
            .and_then(Value::as_u64),
    }
}

/// The text of a message or delta, its `refusal` included; whether
/// there was a refusal.
fn text(message: &Value, asm: &mut Assembler) -> Result<bool, DecodeError> {
    if let Some(text) = str_field(message, "content") {
        asm.text(text)?;
    }
    match str_field(message, "refusal") {
        Some(refusal) if !refusal.is_empty() => {
            asm.text(refusal)?;
            Ok(true)
        }
        _ => Ok(false),
    }
}

fn finish(reason: &str, refused: bool) -> FinishReason {
    if refused {
        return FinishReason::ContentFilter;
    }
    match reason {
        "stop" => FinishReason::Stop,
        "length" => FinishReason::Length,
        "tool_calls" | "function_call" => FinishReason::ToolCalls,
        "content_filter" => FinishReason::ContentFilter,
        other => FinishReason::Other(bounded(other)),
    }
}
