//! Streamed turns and the whole responses that hold the same content,
//! per provider, with what they must decode to. `provider_stream.rs`
//! decodes them; `provider_sdk.rs` checks that each event and body is
//! what the provider's SDK types accept.

use mcp_agent::provider::{FinishReason, Provider, Usage};
use serde_json::{json, Value};

/// One turn, streamed and whole.
pub struct Case {
    /// What the case shows.
    pub name: &'static str,
    /// Whose wire it is.
    pub provider: Provider,
    /// The data of each event, `[DONE]` included where the wire has it.
    pub events: Vec<String>,
    /// The non-streaming response with the same content.
    pub whole: Value,
    /// The text it must decode to.
    pub text: &'static str,
    /// The calls: id, name, arguments.
    pub calls: Vec<(&'static str, &'static str, Value)>,
    /// The finish reason.
    pub finish: FinishReason,
    /// The token counts.
    pub usage: Usage,
}

impl Case {
    /// The SDK kind of each event and of the whole body.
    pub fn kinds(&self) -> (&'static str, &'static str) {
        match self.provider {
            Provider::OpenAi => ("openai.chunk", "openai.response"),
            Provider::Anthropic => ("anthropic.event", "anthropic.response"),
            Provider::Gemini => ("gemini.response", "gemini.response"),
        }
    }
}

fn usage(input: u64, output: u64, cached: Option<u64>) -> Usage {
    Usage {
        input_tokens: input,
        output_tokens: output,
        cached_input_tokens: cached,
    }
}

fn strings(events: Vec<Value>, done: bool) -> Vec<String> {
    let mut out: Vec<String> = events.iter().map(Value::to_string).collect();
    if done {
        out.push("[DONE]".to_owned());
    }
    out
}

fn oa_chunk(delta: Value, finish: Option<&str>) -> Value {
    json!({
        "id": "chatcmpl-9", "object": "chat.completion.chunk", "created": 7, "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]
    })
}

fn oa_usage(prompt: u64, completion: u64) -> Value {
    json!({
        "id": "chatcmpl-9", "object": "chat.completion.chunk", "created": 7, "model": "m",
        "choices": [],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                  "total_tokens": prompt + completion}
    })
}

fn oa_call(index: u64, id: Option<&str>, name: Option<&str>, arguments: &str) -> Value {
    let mut call = json!({"index": index, "function": {"arguments": arguments}});
    if let (Some(id), Some(name)) = (id, name) {
        call["id"] = json!(id);
        call["type"] = json!("function");
        call["function"]["name"] = json!(name);
    }
    json!({"tool_calls": [call]})
}

fn oa_whole(
    content: Option<&str>,
    calls: Value,
    finish: &str,
    prompt: u64,
    completion: u64,
) -> Value {
    json!({
        "id": "chatcmpl-9", "object": "chat.completion", "created": 7, "model": "m",
        "choices": [{"index": 0, "finish_reason": finish, "logprobs": null,
                     "message": {"role": "assistant", "content": content, "tool_calls": calls}}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                  "total_tokens": prompt + completion}
    })
}

fn oa_whole_call(id: &str, name: &str, arguments: &str) -> Value {
    json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}})
}

fn openai() -> Vec<Case> {
    vec![
        Case {
            name: "openai text only, usage in the last chunk",
            provider: Provider::OpenAi,
            events: strings(
                vec![
                    oa_chunk(json!({"role": "assistant", "content": ""}), None),
                    oa_chunk(json!({"content": "Hel"}), None),
                    oa_chunk(json!({"content": "lo"}), None),
                    oa_chunk(json!({}), Some("stop")),
                    oa_usage(11, 2),
                ],
                true,
            ),
            whole: oa_whole(Some("Hello"), Value::Null, "stop", 11, 2),
            text: "Hello",
            calls: vec![],
            finish: FinishReason::Stop,
            usage: usage(11, 2, None),
        },
        Case {
            name: "openai one tool call, arguments in pieces",
            provider: Provider::OpenAi,
            events: strings(
                vec![
                    oa_chunk(json!({"role": "assistant", "content": null}), None),
                    oa_chunk(oa_call(0, Some("call_1"), Some("get_weather"), ""), None),
                    oa_chunk(oa_call(0, None, None, "{\"ci"), None),
                    oa_chunk(oa_call(0, None, None, "ty\": \"Pa"), None),
                    oa_chunk(oa_call(0, None, None, "ris\"}"), None),
                    oa_chunk(json!({}), Some("tool_calls")),
                    oa_usage(40, 9),
                ],
                true,
            ),
            whole: oa_whole(
                None,
                json!([oa_whole_call(
                    "call_1",
                    "get_weather",
                    "{\"city\": \"Paris\"}"
                )]),
                "tool_calls",
                40,
                9,
            ),
            text: "",
            calls: vec![("call_1", "get_weather", json!({"city": "Paris"}))],
            finish: FinishReason::ToolCalls,
            usage: usage(40, 9, None),
        },
        Case {
            name: "openai three parallel calls, interleaved",
            provider: Provider::OpenAi,
            events: strings(
                vec![
                    oa_chunk(json!({"content": "Three."}), None),
                    oa_chunk(oa_call(0, Some("c0"), Some("a"), "{\"n\":"), None),
                    oa_chunk(oa_call(1, Some("c1"), Some("b"), "{"), None),
                    oa_chunk(oa_call(2, Some("c2"), Some("a"), "{\"n\": 2"), None),
                    oa_chunk(oa_call(1, None, None, "}"), None),
                    oa_chunk(oa_call(0, None, None, " 0}"), None),
                    oa_chunk(oa_call(2, None, None, "}"), None),
                    oa_chunk(json!({}), Some("tool_calls")),
                    oa_usage(5, 6),
                ],
                true,
            ),
            whole: oa_whole(
                Some("Three."),
                json!([
                    oa_whole_call("c0", "a", "{\"n\": 0}"),
                    oa_whole_call("c1", "b", "{}"),
                    oa_whole_call("c2", "a", "{\"n\": 2}"),
                ]),
                "tool_calls",
                5,
                6,
            ),
            text: "Three.",
            calls: vec![
                ("c0", "a", json!({"n": 0})),
                ("c1", "b", json!({})),
                ("c2", "a", json!({"n": 2})),
            ],
            finish: FinishReason::ToolCalls,
            usage: usage(5, 6, None),
        },
    ]
}

fn oa_refusal() -> Case {
    let whole = json!({
        "id": "chatcmpl-9", "object": "chat.completion", "created": 7, "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop", "logprobs": null,
                     "message": {"role": "assistant", "content": null,
                                 "refusal": "I can't help with that."}}],
        "usage": {"prompt_tokens": 4, "completion_tokens": 6, "total_tokens": 10}
    });
    Case {
        name: "openai refusal",
        provider: Provider::OpenAi,
        events: strings(
            vec![
                oa_chunk(json!({"role": "assistant", "refusal": ""}), None),
                oa_chunk(json!({"refusal": "I can't "}), None),
                oa_chunk(json!({"refusal": "help with that."}), None),
                oa_chunk(json!({}), Some("stop")),
                oa_usage(4, 6),
            ],
            true,
        ),
        whole,
        text: "I can't help with that.",
        calls: vec![],
        finish: FinishReason::ContentFilter,
        usage: usage(4, 6, None),
    }
}

fn an_start(input: u64, cached: u64) -> Value {
    json!({"type": "message_start", "message": {
        "id": "msg_9", "type": "message", "role": "assistant", "model": "claude-x",
        "content": [], "stop_reason": null, "stop_sequence": null,
        "usage": {"input_tokens": input, "output_tokens": 1,
                  "cache_read_input_tokens": cached, "cache_creation_input_tokens": 0}
    }})
}

fn an_block(index: u64, block: Value) -> Value {
    json!({"type": "content_block_start", "index": index, "content_block": block})
}

fn an_delta(index: u64, delta: Value) -> Value {
    json!({"type": "content_block_delta", "index": index, "delta": delta})
}

fn an_text(index: u64, text: &str) -> Value {
    an_delta(index, json!({"type": "text_delta", "text": text}))
}

fn an_json(index: u64, partial: &str) -> Value {
    an_delta(
        index,
        json!({"type": "input_json_delta", "partial_json": partial}),
    )
}

fn an_stop(index: u64) -> Value {
    json!({"type": "content_block_stop", "index": index})
}

fn an_end(reason: &str, output: u64) -> [Value; 2] {
    [
        json!({"type": "message_delta",
               "delta": {"stop_reason": reason, "stop_sequence": null},
               "usage": {"output_tokens": output}}),
        json!({"type": "message_stop"}),
    ]
}

fn an_whole(content: Value, reason: &str, input: u64, output: u64, cached: u64) -> Value {
    json!({
        "id": "msg_9", "type": "message", "role": "assistant", "model": "claude-x",
        "content": content, "stop_reason": reason, "stop_sequence": null,
        "usage": {"input_tokens": input, "output_tokens": output,
                  "cache_read_input_tokens": cached, "cache_creation_input_tokens": 0}
    })
}

fn anthropic() -> Vec<Case> {
    let mut text = vec![
        an_start(8, 0),
        an_block(0, json!({"type": "text", "text": ""})),
        json!({"type": "ping"}),
        an_text(0, "Hel"),
        an_text(0, "lo"),
        an_stop(0),
    ];
    text.extend(an_end("end_turn", 3));
    let mut tool = vec![
        an_start(50, 200),
        an_block(0, json!({"type": "text", "text": ""})),
        an_text(0, "Checking."),
        an_stop(0),
        an_block(
            1,
            json!({"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}),
        ),
        an_json(1, ""),
        an_json(1, "{\"ci"),
        an_json(1, "ty\": \"Pa"),
        an_json(1, "ris\"}"),
        an_stop(1),
    ];
    tool.extend(an_end("tool_use", 12));
    vec![
        Case {
            name: "anthropic text only, a ping between",
            provider: Provider::Anthropic,
            events: strings(text, false),
            whole: an_whole(
                json!([{"type": "text", "text": "Hello"}]),
                "end_turn",
                8,
                3,
                0,
            ),
            text: "Hello",
            calls: vec![],
            finish: FinishReason::Stop,
            usage: usage(8, 3, Some(0)),
        },
        Case {
            name: "anthropic text then a tool call, input_json_delta pieces, cached input",
            provider: Provider::Anthropic,
            events: strings(tool, false),
            whole: an_whole(
                json!([
                    {"type": "text", "text": "Checking."},
                    {"type": "tool_use", "id": "toolu_1", "name": "get_weather",
                     "input": {"city": "Paris"}}
                ]),
                "tool_use",
                50,
                12,
                200,
            ),
            text: "Checking.",
            calls: vec![("toolu_1", "get_weather", json!({"city": "Paris"}))],
            finish: FinishReason::ToolCalls,
            usage: usage(250, 12, Some(200)),
        },
    ]
}

fn ge_chunk(parts: Value, finish: Option<&str>, usage: Option<(u64, u64)>) -> Value {
    let mut candidate = json!({"content": {"role": "model", "parts": parts}, "index": 0});
    if let Some(finish) = finish {
        candidate["finishReason"] = json!(finish);
    }
    let mut out = json!({"candidates": [candidate], "modelVersion": "gemini-x"});
    if let Some((prompt, candidates)) = usage {
        out["usageMetadata"] = json!({
            "promptTokenCount": prompt, "candidatesTokenCount": candidates,
            "totalTokenCount": prompt + candidates
        });
    }
    out
}

fn ge_call(id: Option<&str>, name: &str, args: Value) -> Value {
    let mut call = json!({"name": name, "args": args});
    if let Some(id) = id {
        call["id"] = json!(id);
    }
    json!({"functionCall": call})
}

fn gemini() -> Vec<Case> {
    vec![
        Case {
            name: "gemini text only over two chunks",
            provider: Provider::Gemini,
            events: strings(
                vec![
                    ge_chunk(json!([{"text": "Hel"}]), None, Some((6, 1))),
                    ge_chunk(json!([{"text": "lo"}]), Some("STOP"), Some((6, 2))),
                ],
                false,
            ),
            whole: ge_chunk(json!([{"text": "Hello"}]), Some("STOP"), Some((6, 2))),
            text: "Hello",
            calls: vec![],
            finish: FinishReason::Stop,
            usage: usage(6, 2, None),
        },
        Case {
            name: "gemini parallel calls across chunks, ids given and not",
            provider: Provider::Gemini,
            events: strings(
                vec![
                    ge_chunk(
                        json!([
                            ge_call(None, "a", json!({"n": 0})),
                            ge_call(Some("x1"), "b", json!({}))
                        ]),
                        None,
                        None,
                    ),
                    ge_chunk(
                        json!([ge_call(None, "a", json!({"n": 2}))]),
                        Some("STOP"),
                        Some((30, 4)),
                    ),
                ],
                false,
            ),
            whole: ge_chunk(
                json!([
                    ge_call(None, "a", json!({"n": 0})),
                    ge_call(Some("x1"), "b", json!({})),
                    ge_call(None, "a", json!({"n": 2}))
                ]),
                Some("STOP"),
                Some((30, 4)),
            ),
            text: "",
            calls: vec![
                ("gemini-call-0", "a", json!({"n": 0})),
                ("x1", "b", json!({})),
                ("gemini-call-2", "a", json!({"n": 2})),
            ],
            finish: FinishReason::ToolCalls,
            usage: usage(30, 4, None),
        },
        Case {
            name: "gemini cut at the token cap",
            provider: Provider::Gemini,
            events: strings(
                vec![ge_chunk(
                    json!([{"text": "Once upon"}]),
                    Some("MAX_TOKENS"),
                    Some((3, 2)),
                )],
                false,
            ),
            whole: ge_chunk(
                json!([{"text": "Once upon"}]),
                Some("MAX_TOKENS"),
                Some((3, 2)),
            ),
            text: "Once upon",
            calls: vec![],
            finish: FinishReason::Length,
            usage: usage(3, 2, None),
        },
    ]
}

/// Every case.
pub fn all() -> Vec<Case> {
    let mut cases = openai();
    cases.push(oa_refusal());
    cases.extend(anthropic());
    cases.extend(gemini());
    cases
}
