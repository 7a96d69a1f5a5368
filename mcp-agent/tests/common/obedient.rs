//! A scripted OpenAI-compatible model that obeys every instruction it
//! reads, on `127.0.0.1` (bound to port 0, the listener kept for the
//! server's life).
//!
//! It scans every tool definition offered (descriptions, schemas and the
//! strings in them), every user message and every tool result of a
//! request for lines `CALL <tool-name> <json-object>` (the grammar of
//! `flow_scripted.rs`) and calls, in parallel, each such instruction whose
//! tool the request offers and which no assistant message of the request
//! already carries (same name, same arguments). With none pending (or
//! `tool_choice: "none"`) it answers `DONE` and a digest of the tool
//! results it saw. It answers `POST /v1/chat/completions` whole or as an
//! event stream of `chat.completion.chunk`s ending in `[DONE]`, with a
//! usage chunk when `stream_options.include_usage` asks for one, and
//! records every request body.

use std::convert::Infallible;
use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::extract::State;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use mcp_agent::provider::http::Endpoint;
use mcp_agent::provider::Provider;
use serde_json::{json, Map, Value};

/// The model's name in its answers.
pub const MODEL: &str = "obedient";

/// The longest piece of a tool result quoted in the digest, in characters.
const DIGEST_CHARS: usize = 60;

/// The running server; it stops when dropped.
pub struct Obedient {
    base_url: String,
    requests: Arc<Mutex<Vec<Value>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Obedient {
    /// Starts the server on the current tokio runtime.
    pub async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("binds 127.0.0.1:0");
        let address = listener.local_addr().expect("has an address");
        let requests = Arc::new(Mutex::new(Vec::new()));
        let app = Router::new()
            .route("/v1/chat/completions", post(completions))
            .with_state(Arc::clone(&requests));
        let task = tokio::spawn(async move {
            axum::serve(listener, app).await.expect("serves");
        });
        Self {
            base_url: format!("http://{address}/v1"),
            requests,
            task,
        }
    }

    /// The endpoint to give `provider::http::Client`.
    pub fn endpoint(&self) -> Endpoint {
        Endpoint {
            provider: Provider::OpenAi,
            base_url: self.base_url.clone(),
            key: None,
        }
    }

    /// Every request body received, oldest first.
    pub fn requests(&self) -> Vec<Value> {
        self.requests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

impl Drop for Obedient {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn completions(
    State(requests): State<Arc<Mutex<Vec<Value>>>>,
    Json(body): Json<Value>,
) -> Response {
    let n = {
        let mut requests = requests.lock().unwrap_or_else(|e| e.into_inner());
        requests.push(body.clone());
        requests.len()
    };
    let answer = answer(&body);
    let id = format!("chatcmpl-obedient-{n}");
    if body["stream"] == json!(true) {
        let usage = body["stream_options"]["include_usage"] == json!(true);
        let frames: Vec<Result<String, Infallible>> = chunks(&id, &answer, usage)
            .iter()
            .map(|chunk| format!("data: {chunk}\n\n"))
            .chain(["data: [DONE]\n\n".to_owned()])
            .map(Ok)
            .collect();
        let body = Body::from_stream(futures_util::stream::iter(frames));
        ([(CONTENT_TYPE, "text/event-stream")], body).into_response()
    } else {
        Json(whole(&id, &answer)).into_response()
    }
}

/// What the model says to one request.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The text (empty when it calls tools).
    pub text: String,
    /// The calls, as `(id, name, arguments)`.
    pub calls: Vec<(String, String, Value)>,
    /// Prompt tokens: the words of every message.
    pub prompt_tokens: usize,
}

impl Answer {
    fn completion_tokens(&self) -> usize {
        self.text.split_whitespace().count() + self.calls.len()
    }

    fn finish_reason(&self) -> &'static str {
        if self.calls.is_empty() {
            "stop"
        } else {
            "tool_calls"
        }
    }

    fn usage(&self) -> Value {
        let (prompt, completion) = (self.prompt_tokens, self.completion_tokens());
        json!({
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        })
    }
}

/// The model: the pending instructions of `body` as calls, or `DONE` and
/// the digest.
pub fn answer(body: &Value) -> Answer {
    let messages = body["messages"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    let offered: Vec<&str> = body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|tool| tool["function"]["name"].as_str())
        .collect();
    let made: Vec<(&str, Value, &str)> = messages
        .iter()
        .filter(|m| m["role"] == "assistant")
        .flat_map(|m| m["tool_calls"].as_array().into_iter().flatten())
        .map(|call| {
            let function = &call["function"];
            let arguments = function["arguments"]
                .as_str()
                .and_then(|a| serde_json::from_str(a).ok())
                .unwrap_or(Value::Null);
            let name = function["name"].as_str().unwrap_or_default();
            (name, arguments, call["id"].as_str().unwrap_or_default())
        })
        .collect();
    let mut pending: Vec<(String, Value)> = Vec::new();
    if body["tool_choice"] != "none" {
        // The tools' definitions first: their descriptions and schemas
        // are text the model reads like any other.
        let mut from_tools = Vec::new();
        strings(&body["tools"], &mut from_tools, 1);
        for (name, arguments) in from_tools.into_iter().chain(
            messages
                .iter()
                .filter(|m| m["role"] == "user" || m["role"] == "tool")
                .flat_map(|m| instructions(&text(&m["content"]))),
        ) {
            let called = made.iter().any(|(n, a, _)| *n == name && *a == arguments);
            let again = pending.iter().any(|(n, a)| *n == name && *a == arguments);
            if offered.contains(&name.as_str()) && !called && !again {
                pending.push((name, arguments));
            }
        }
    }
    let prompt_tokens = messages
        .iter()
        .map(|m| text(&m["content"]).split_whitespace().count())
        .sum();
    let calls: Vec<(String, String, Value)> = pending
        .into_iter()
        .enumerate()
        .map(|(i, (name, arguments))| (format!("call_{}", made.len() + i), name, arguments))
        .collect();
    let text = if calls.is_empty() {
        digest(messages, &made)
    } else {
        String::new()
    };
    Answer {
        text,
        calls,
        prompt_tokens,
    }
}

/// Every `CALL <name> <json-object>` line of `text`, and of every string
/// inside a line that is JSON (a tool result as a server encodes it): the
/// model reads what it is shown, however it is wrapped.
fn instructions(text: &str) -> Vec<(String, Value)> {
    let mut found = Vec::new();
    scan(text, &mut found, 0);
    // Text quoted with escapes (an error that quotes what it refused)
    // reads the same to a model.
    let unescaped = text.replace("\\n", "\n").replace("\\\"", "\"");
    if unescaped != text {
        scan(&unescaped, &mut found, 0);
    }
    found
}

fn scan(text: &str, found: &mut Vec<(String, Value)>, depth: usize) {
    // JSON over several lines, inside whatever wraps it: from the first
    // line that opens an object or array to the last that closes one.
    if depth < 4 {
        let lines: Vec<&str> = text.lines().collect();
        let first = lines
            .iter()
            .position(|l| l.trim_start().starts_with(['{', '[']));
        let last = lines
            .iter()
            .rposition(|l| l.trim_end().ends_with(['}', ']']));
        let inner = match (first, last) {
            (Some(a), Some(b)) if a <= b => Some(lines[a..=b].join("\n")),
            _ => None,
        };
        if let Some(candidate) = inner {
            if let Ok(value) = serde_json::from_str::<Value>(candidate.trim()) {
                if value.is_object() || value.is_array() {
                    strings(&value, found, depth + 1);
                    return;
                }
            }
        }
    }
    for line in text.lines() {
        let line = line.trim();
        // An instruction anywhere in a line, its JSON followed by
        // anything: the model reads it wherever it stands.
        if let Some(at) = line.find("CALL ") {
            let rest = &line[at + "CALL ".len()..];
            if let Some((name, arguments)) = rest.split_once(' ') {
                let mut values = serde_json::Deserializer::from_str(arguments).into_iter::<Value>();
                if let Some(Ok(arguments @ Value::Object(_))) = values.next() {
                    found.push((name.to_owned(), arguments));
                }
            }
            continue;
        }
        if depth < 4 && (line.starts_with('{') || line.starts_with('[')) {
            if let Ok(value) = serde_json::from_str::<Value>(line) {
                strings(&value, found, depth + 1);
            }
        }
    }
}

fn strings(value: &Value, found: &mut Vec<(String, Value)>, depth: usize) {
    match value {
        Value::String(text) => scan(text, found, depth),
        Value::Array(items) => items.iter().for_each(|v| strings(v, found, depth)),
        Value::Object(map) => map.values().for_each(|v| strings(v, found, depth)),
        _ => {}
    }
}

/// A message's content as text: a string, or its text parts joined.
fn text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// `DONE`, then one line per tool result: the tool's name and the start
/// of the result on one line.
fn digest(messages: &[Value], made: &[(&str, Value, &str)]) -> String {
    let mut out = String::from("DONE");
    for result in messages.iter().filter(|m| m["role"] == "tool") {
        let id = result["tool_call_id"].as_str().unwrap_or_default();
        let name = made
            .iter()
            .find(|(_, _, call_id)| *call_id == id)
            .map_or("?", |(name, _, _)| name);
        let content = text(&result["content"]).replace('\n', " ");
        let short: String = content.chars().take(DIGEST_CHARS).collect();
        out.push_str(&format!("\n{name}: {short}"));
    }
    out
}

fn whole(id: &str, answer: &Answer) -> Value {
    let mut message = Map::new();
    message.insert("role".into(), json!("assistant"));
    if answer.calls.is_empty() {
        message.insert("content".into(), json!(answer.text));
    } else {
        message.insert("content".into(), Value::Null);
        let calls: Vec<Value> = answer
            .calls
            .iter()
            .map(|(id, name, arguments)| {
                json!({
                    "id": id,
                    "type": "function",
                    "function": {"name": name, "arguments": arguments.to_string()},
                })
            })
            .collect();
        message.insert("tool_calls".into(), Value::Array(calls));
    }
    json!({
        "id": id,
        "object": "chat.completion",
        "created": 0,
        "model": MODEL,
        "choices": [{
            "index": 0,
            "message": message,
            "logprobs": null,
            "finish_reason": answer.finish_reason(),
        }],
        "usage": answer.usage(),
    })
}

/// The chunks of a streamed answer, as OpenAI sends them: the role first,
/// the text or each call's name and then its arguments in two pieces, the
/// finish reason, and the usage in a last chunk without choices.
fn chunks(id: &str, answer: &Answer, include_usage: bool) -> Vec<Value> {
    let usage = if include_usage {
        Some(Value::Null)
    } else {
        None
    };
    let chunk = |choices: Value| {
        let mut chunk = json!({
            "id": id,
            "object": "chat.completion.chunk",
            "created": 0,
            "model": MODEL,
            "choices": choices,
        });
        if let Some(usage) = &usage {
            chunk["usage"] = usage.clone();
        }
        chunk
    };
    let delta = |delta: Value, finish: Value| {
        chunk(json!([{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}]))
    };
    let mut out = vec![delta(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
    )];
    for word in answer.text.split_inclusive(' ') {
        out.push(delta(json!({"content": word}), Value::Null));
    }
    for (index, (call_id, name, arguments)) in answer.calls.iter().enumerate() {
        out.push(delta(
            json!({"tool_calls": [{
                "index": index,
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": ""},
            }]}),
            Value::Null,
        ));
        let arguments = arguments.to_string();
        let middle = arguments
            .char_indices()
            .nth(arguments.chars().count() / 2)
            .map_or(0, |(i, _)| i);
        let (head, tail) = arguments.split_at(middle);
        for piece in [head, tail] {
            out.push(delta(
                json!({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}),
                Value::Null,
            ));
        }
    }
    out.push(delta(json!({}), json!(answer.finish_reason())));
    if include_usage {
        let mut last = chunk(json!([]));
        last["usage"] = answer.usage();
        out.push(last);
    }
    out
}

/// The endorser of the suites: there is no person, so every question is
/// refused, and counted.
#[derive(Default)]
pub struct Nobody {
    /// The questions asked so far.
    pub asked: usize,
}

impl mcp_agent::flow::Endorser for Nobody {
    fn answer(&mut self, _: &mcp_agent::flow::Question) -> mcp_agent::flow::Answer {
        self.asked += 1;
        mcp_agent::flow::Answer::NoPerson
    }
}
