//! Google Gemini (the Gemini Developer API):
//! `POST {base}/v1beta/models/{model}:generateContent`, and
//! `:streamGenerateContent?alt=sse` for a stream of
//! `GenerateContentResponse` chunks.
//!
//! Mapping choices:
//! - The REST body is camelCase (`systemInstruction`, `functionCall`,
//!   `generationConfig`).
//! - Tool results are `functionResponse` parts of one `user` turn, keyed
//!   by name (and by id where the call had one). The `response` object is
//!   `{"output": text}`, or `{"error": text}` for a failed call, as
//!   Gemini's documentation suggests; images go as `inlineData` parts
//!   right after their `functionResponse`.
//! - A `functionCall` without an `id` gets one made up from
//!   [`SYNTHETIC_ID_PREFIX`] and its position; such ids are not sent back.
//! - A call's `thoughtSignature` is kept in
//!   [`ToolCall::signature`](super::ToolCall::signature) and sent back on
//!   its part, as Gemini's thinking models require.
//! - Parts marked `thought` are the model's reasoning summary, not its
//!   answer, and are skipped.
//! - Each chunk of a stream holds whole parts; a chunk with a
//!   `finishReason` is the last. Usage is cumulative per chunk.

use serde_json::{json, Map, Value};

use super::stream::{array, count, shape, str_field, Assembler};
use super::{
    bounded, DecodeError, EncodeError, FinishReason, Limits, Message, Request, Response,
    ToolChoice, ToolContent, Usage, WireRequest,
};

/// The start of the ids this crate makes for calls Gemini gave none.
pub const SYNTHETIC_ID_PREFIX: &str = "gemini-call-";

/// The request body; the path names the model.
///
/// # Errors
///
/// [`EncodeError::ModelName`] for a model name with characters other than
/// letters, digits, `-`, `.` and `_` (a `models/` prefix is accepted).
pub fn encode(request: &Request, stream: bool) -> Result<WireRequest, EncodeError> {
    let model = request
        .model
        .strip_prefix("models/")
        .unwrap_or(&request.model);
    if model.is_empty()
        || !model
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_'))
    {
        return Err(EncodeError::ModelName(bounded(&request.model)));
    }
    let path = if stream {
        format!("/v1beta/models/{model}:streamGenerateContent?alt=sse")
    } else {
        format!("/v1beta/models/{model}:generateContent")
    };
    let mut body = Map::new();
    body.insert(
        "contents".into(),
        Value::Array(request.messages.iter().map(content).collect()),
    );
    if let Some(system) = &request.system {
        body.insert(
            "systemInstruction".into(),
            json!({ "parts": [{ "text": system }] }),
        );
    }
    if !request.tools.is_empty() {
        let declarations: Vec<Value> = request
            .tools
            .iter()
            .map(|tool| {
                json!({
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": tool.parameters,
                })
            })
            .collect();
        body.insert(
            "tools".into(),
            json!([{ "functionDeclarations": declarations }]),
        );
        let config = match &request.tool_choice {
            ToolChoice::Auto => json!({ "mode": "AUTO" }),
            ToolChoice::None => json!({ "mode": "NONE" }),
            ToolChoice::Required => json!({ "mode": "ANY" }),
            ToolChoice::Tool(name) => json!({ "mode": "ANY", "allowedFunctionNames": [name] }),
        };
        body.insert(
            "toolConfig".into(),
            json!({ "functionCallingConfig": config }),
        );
    }
    let mut generation = Map::new();
    if let Some(max) = request.max_output_tokens {
        generation.insert("maxOutputTokens".into(), json!(max));
    }
    if let Some(temperature) = request.temperature {
        generation.insert("temperature".into(), json!(temperature));
    }
    if !generation.is_empty() {
        body.insert("generationConfig".into(), Value::Object(generation));
    }
    Ok(WireRequest {
        path,
        headers: Vec::new(),
        body: Value::Object(body),
    })
}

fn call_id(id: &str) -> Option<&str> {
    Some(id).filter(|id| !id.starts_with(SYNTHETIC_ID_PREFIX) && !id.is_empty())
}

fn content(message: &Message) -> Value {
    match message {
        Message::User { text } => json!({ "role": "user", "parts": [{ "text": text }] }),
        Message::Assistant { text, tool_calls } => {
            let mut parts = Vec::new();
            if !text.is_empty() {
                parts.push(json!({ "text": text }));
            }
            for call in tool_calls {
                let mut function = json!({ "name": call.name, "args": call.arguments.to_object() });
                if let Some(id) = call_id(&call.id) {
                    function["id"] = json!(id);
                }
                let mut part = json!({ "functionCall": function });
                if let Some(signature) = &call.signature {
                    part["thoughtSignature"] = json!(signature);
                }
                parts.push(part);
            }
            json!({ "role": "model", "parts": parts })
        }
        Message::ToolResults(results) => {
            let mut parts = Vec::new();
            for result in results {
                let key = if result.is_error { "error" } else { "output" };
                let mut function = json!({
                    "name": result.name,
                    "response": { key: result.text() },
                });
                if let Some(id) = call_id(&result.call_id) {
                    function["id"] = json!(id);
                }
                parts.push(json!({ "functionResponse": function }));
                for part in &result.content {
                    if let ToolContent::Image { mime_type, data } = part {
                        parts
                            .push(json!({ "inlineData": { "mimeType": mime_type, "data": data } }));
                    }
                }
            }
            json!({ "role": "user", "parts": parts })
        }
    }
}

/// Decodes a `GenerateContentResponse`.
///
/// # Errors
///
/// [`DecodeError`] when it is not one or exceeds `limits`.
pub fn decode(value: &Value, limits: &Limits) -> Result<Response, DecodeError> {
    let mut asm = Assembler::new(*limits);
    chunk(value, &mut asm)?;
    Ok(asm.into_response())
}

/// Decodes one `GenerateContentResponse` of a stream into `asm`.
///
/// # Errors
///
/// [`DecodeError`] for a chunk not shaped as one, or past the limits.
pub fn chunk(value: &Value, asm: &mut Assembler) -> Result<(), DecodeError> {
    if !value.is_object() {
        return Err(shape("a response that is not an object"));
    }
    let candidates = array(value, "candidates")?;
    if let Some(candidate) = candidates.first() {
        let parts = match candidate.get("content") {
            Some(content) => array(content, "parts")?,
            None => &[],
        };
        for part in parts {
            if part.get("thought").and_then(Value::as_bool) == Some(true) {
                continue;
            }
            if let Some(text) = str_field(part, "text") {
                asm.text(text)?;
            }
            if let Some(call) = part.get("functionCall") {
                let id = match str_field(call, "id") {
                    Some(id) if !id.is_empty() => id.to_owned(),
                    _ => format!("{SYNTHETIC_ID_PREFIX}{}", asm.call_count()),
                };
                let name = str_field(call, "name").unwrap_or_default();
                let signature = str_field(part, "thoughtSignature");
                let index = asm.start_call(&id, name, signature)?;
                if let Some(args) = call.get("args").filter(|a| !a.is_null()) {
                    asm.arguments(index, &args.to_string())?;
                }
            }
        }
    }
    if let Some(usage) = value.get("usageMetadata").filter(|u| u.is_object()) {
        asm.usage(Usage {
            input_tokens: count(usage, "promptTokenCount"),
            output_tokens: count(usage, "candidatesTokenCount")
                + count(usage, "thoughtsTokenCount"),
            cached_input_tokens: usage.get("cachedContentTokenCount").and_then(Value::as_u64),
        });
    }
    let reason = candidates
        .first()
        .and_then(|c| str_field(c, "finishReason"));
    if let Some(reason) = reason {
        asm.finish(finish(reason));
    } else if candidates.is_empty() {
        // A prompt blocked before any answer: no candidates, a reason in
        // `promptFeedback`.
        let feedback = value.get("promptFeedback").unwrap_or(&Value::Null);
        if str_field(feedback, "blockReason").is_some() {
            asm.finish(FinishReason::ContentFilter);
        }
    }
    Ok(())
}

fn finish(reason: &str) -> FinishReason {
    match reason {
        "STOP" => FinishReason::Stop,
        "MAX_TOKENS" => FinishReason::Length,
        "SAFETY"
        | "RECITATION"
        | "BLOCKLIST"
        | "PROHIBITED_CONTENT"
        | "SPII"
        | "IMAGE_SAFETY"
        | "IMAGE_PROHIBITED_CONTENT"
        | "IMAGE_RECITATION" => FinishReason::ContentFilter,
        other => FinishReason::Other(bounded(other)),
    }
}
