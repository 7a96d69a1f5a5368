//! The sans-IO stream decoders over whole event sequences: each streamed
//! turn assembles into exactly what the non-streaming decode of the same
//! content gives, whatever the chunking of the bytes, and hostile or
//! broken streams end in errors, never panics.

mod provider_common;

use mcp_agent::provider::{DecodeError, Limits, Provider, Response, StreamEvent, ToolCall};
use provider_common::{cases, sse};
use serde_json::{json, Value};

fn stream(
    provider: Provider,
    limits: Limits,
    chunks: &[&[u8]],
) -> (Vec<StreamEvent>, Result<Response, DecodeError>) {
    let mut decoder = provider.stream_decoder(limits);
    let mut events = Vec::new();
    for chunk in chunks {
        match decoder.push(chunk) {
            Ok(more) => events.extend(more),
            Err(e) => return (events, Err(e)),
        }
    }
    (events, decoder.finish())
}

fn calls(response: &Response) -> Vec<(&str, &str, Value)> {
    response
        .tool_calls
        .iter()
        .map(
            |ToolCall {
                 id,
                 name,
                 arguments,
                 ..
             }| { (id.as_str(), name.as_str(), arguments.to_object()) },
        )
        .collect()
}

#[test]
fn streamed_turns_assemble_as_their_whole_responses() {
    for case in cases::all() {
        let whole = case
            .provider
            .decode(case.whole.to_string().as_bytes(), &Limits::default())
            .unwrap_or_else(|e| panic!("{}: whole: {e}", case.name));
        let body = sse(&case.events);
        let (events, streamed) = stream(case.provider, Limits::default(), &[&body]);
        let streamed = streamed.unwrap_or_else(|e| panic!("{}: stream: {e}", case.name));
        assert_eq!(streamed, whole, "{}", case.name);
        assert_eq!(streamed.text, case.text, "{}", case.name);
        let expected: Vec<(&str, &str, Value)> = case.calls.clone();
        assert_eq!(calls(&streamed), expected, "{}", case.name);
        assert_eq!(streamed.finish, case.finish, "{}", case.name);
        assert_eq!(streamed.usage, case.usage, "{}", case.name);

        // The events tell the same turn as it happens.
        let mut text = String::new();
        let mut arguments: Vec<String> = Vec::new();
        let mut started = Vec::new();
        for event in &events {
            match event {
                StreamEvent::TextDelta(delta) => text.push_str(delta),
                StreamEvent::ToolCallStarted { index, id, name } => {
                    assert_eq!(*index, arguments.len(), "{}", case.name);
                    arguments.push(String::new());
                    started.push((id.clone(), name.clone()));
                }
                StreamEvent::ToolCallArgumentsDelta { index, delta } => {
                    arguments[*index].push_str(delta);
                }
                StreamEvent::Usage(_) | StreamEvent::Finished(_) => {}
            }
        }
        assert_eq!(text, case.text, "{}", case.name);
        let parsed: Vec<Value> = arguments
            .iter()
            .map(|a| serde_json::from_str(if a.is_empty() { "{}" } else { a }).expect("JSON"))
            .collect();
        let expected_args: Vec<Value> = case.calls.iter().map(|c| c.2.clone()).collect();
        assert_eq!(parsed, expected_args, "{}", case.name);
        let expected_started: Vec<(String, String)> = case
            .calls
            .iter()
            .map(|c| (c.0.to_owned(), c.1.to_owned()))
            .collect();
        assert_eq!(started, expected_started, "{}", case.name);
        let finished: Vec<&StreamEvent> = events
            .iter()
            .filter(|e| matches!(e, StreamEvent::Finished(_)))
            .collect();
        assert_eq!(
            finished,
            [&StreamEvent::Finished(case.finish.clone())],
            "{}",
            case.name
        );
    }
}

#[test]
fn every_split_of_the_bytes_gives_the_same_events() {
    for case in cases::all() {
        let body = sse(&case.events);
        let (reference, response) = stream(case.provider, Limits::default(), &[&body]);
        let response = response.expect("complete");
        for at in 0..=body.len() {
            let (head, tail) = body.split_at(at);
            let (events, split) = stream(case.provider, Limits::default(), &[head, tail]);
            assert_eq!(events, reference, "{} split at {at}", case.name);
            assert_eq!(split.as_ref(), Ok(&response), "{} split at {at}", case.name);
        }
        let bytes: Vec<&[u8]> = body.chunks(1).collect();
        let (events, one_by_one) = stream(case.provider, Limits::default(), &bytes);
        assert_eq!(events, reference, "{} byte by byte", case.name);
        assert_eq!(one_by_one, Ok(response), "{} byte by byte", case.name);
    }
}

fn oa(delta: Value) -> String {
    json!({"choices": [{"index": 0, "delta": delta}]}).to_string()
}

fn oa_finish(reason: &str) -> String {
    json!({"choices": [{"index": 0, "delta": {}, "finish_reason": reason}]}).to_string()
}

fn oa_call(index: u64, id: &str, arguments: &str) -> String {
    oa(
        json!({"tool_calls": [{"index": index, "id": id, "function": {"name": "f", "arguments": arguments}}]}),
    )
}

fn small() -> Limits {
    Limits {
        max_text_bytes: 8,
        max_argument_bytes: 8,
        max_tool_calls: 2,
        max_body_bytes: 64,
        max_event_bytes: 256,
    }
}

#[test]
fn broken_and_hostile_streams_are_errors() {
    let deep = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
    let text = |t: &str| oa(json!({"content": t}));
    type Check = fn(&DecodeError) -> bool;
    let table: Vec<(&str, Provider, Limits, Vec<String>, Check)> = vec![
        (
            "openai error object mid-stream, control characters escaped",
            Provider::OpenAi,
            Limits::default(),
            vec![text("Hi"), json!({"error": {"message": "boom\u{7}\nnext", "type": "server_error"}}).to_string()],
            |e| matches!(e, DecodeError::Provider { message } if message == "server_error: boom\\u{7}\\nnext"),
        ),
        (
            "anthropic error event",
            Provider::Anthropic,
            Limits::default(),
            vec![json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}).to_string()],
            |e| matches!(e, DecodeError::Provider { message } if message == "overloaded_error: Overloaded"),
        ),
        (
            "gemini error object",
            Provider::Gemini,
            Limits::default(),
            vec![json!({"error": {"code": 500, "message": "Internal", "status": "INTERNAL"}}).to_string()],
            |e| matches!(e, DecodeError::Provider { message } if message == "INTERNAL: Internal"),
        ),
        (
            "openai cut before [DONE]",
            Provider::OpenAi,
            Limits::default(),
            vec![text("Hi"), oa_finish("stop")],
            |e| matches!(e, DecodeError::Sequence { .. }),
        ),
        (
            "anthropic cut before message_stop",
            Provider::Anthropic,
            Limits::default(),
            vec![json!({"type": "message_start", "message": {"usage": {"input_tokens": 1}}}).to_string()],
            |e| matches!(e, DecodeError::Sequence { .. }),
        ),
        (
            "gemini cut before a finish reason",
            Provider::Gemini,
            Limits::default(),
            vec![json!({"candidates": [{"content": {"parts": [{"text": "Hi"}]}}]}).to_string()],
            |e| matches!(e, DecodeError::Sequence { .. }),
        ),
        (
            "an event after [DONE]",
            Provider::OpenAi,
            Limits::default(),
            vec!["[DONE]".to_owned(), text("late")],
            |e| matches!(e, DecodeError::Sequence { .. }),
        ),
        (
            "[DONE] on anthropic's wire",
            Provider::Anthropic,
            Limits::default(),
            vec!["[DONE]".to_owned()],
            |e| matches!(e, DecodeError::Shape { .. }),
        ),
        (
            "not JSON",
            Provider::OpenAi,
            Limits::default(),
            vec!["{\"choices\": [".to_owned()],
            |e| matches!(e, DecodeError::Json { .. }),
        ),
        (
            "JSON nested past the parser's depth",
            Provider::Gemini,
            Limits::default(),
            vec![deep],
            |e| matches!(e, DecodeError::Json { .. }),
        ),
        (
            "text past its cap",
            Provider::OpenAi,
            small(),
            vec![text("12345"), text("6789")],
            |e| matches!(e, DecodeError::TooLarge { what: "text", limit: 8 }),
        ),
        (
            "more tool calls than the cap",
            Provider::OpenAi,
            small(),
            vec![oa_call(0, "a", "{}"), oa_call(1, "b", "{}"), oa_call(2, "c", "{}")],
            |e| matches!(e, DecodeError::TooLarge { what: "tool calls", limit: 2 }),
        ),
        (
            "arguments past their cap",
            Provider::OpenAi,
            small(),
            vec![oa_call(0, "a", "{\"k\":"), oa_call(0, "a", "\"long\"}")],
            |e| matches!(e, DecodeError::TooLarge { what: "a tool call's arguments", limit: 8 }),
        ),
        (
            "one event past its cap",
            Provider::OpenAi,
            Limits { max_text_bytes: 1000, ..small() },
            vec![text(&"x".repeat(300))],
            |e| matches!(e, DecodeError::TooLarge { what: "one event of the stream", limit: 256 }),
        ),
        (
            "input_json_delta for a block that is not a tool call",
            Provider::Anthropic,
            Limits::default(),
            vec![
                json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}).to_string(),
                json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{"}}).to_string(),
            ],
            |e| matches!(e, DecodeError::Shape { .. }),
        ),
        (
            "a first tool call delta without an index or id",
            Provider::OpenAi,
            Limits::default(),
            vec![oa(json!({"tool_calls": [{"function": {"name": "f"}}]}))],
            |e| matches!(e, DecodeError::Shape { .. }),
        ),
        (
            "choices that are not a list",
            Provider::OpenAi,
            Limits::default(),
            vec![json!({"choices": {"0": {}}}).to_string()],
            |e| matches!(e, DecodeError::Shape { .. }),
        ),
        (
            "an anthropic event without a type",
            Provider::Anthropic,
            Limits::default(),
            vec![json!({"index": 0}).to_string()],
            |e| matches!(e, DecodeError::Shape { .. }),
        ),
    ];
    for (name, provider, limits, events, check) in table {
        let body = sse(&events);
        let (_, outcome) = stream(provider, limits, &[&body]);
        let error = outcome.expect_err(name);
        assert!(check(&error), "{name}: {error:?}");
    }
}

#[test]
fn a_failed_stream_refuses_more() {
    let mut decoder = Provider::OpenAi.stream_decoder(Limits::default());
    assert!(decoder.push(b"data: nope\n\n").is_err());
    let again = decoder.push(&sse([oa(json!({"content": "Hi"}))]));
    assert!(
        matches!(again, Err(DecodeError::Sequence { .. })),
        "{again:?}"
    );
    assert!(decoder.finish().is_err());
}

#[test]
fn whole_bodies_that_are_not_responses_are_errors() {
    type Check = fn(&DecodeError) -> bool;
    let table: &[(Provider, &str, Check)] = &[
        (Provider::OpenAi, r#"{"choices": []}"#, |e| {
            matches!(e, DecodeError::Shape { .. })
        }),
        (
            Provider::OpenAi,
            r#"{"error": {"message": "bad key", "type": "invalid_request_error"}}"#,
            |e| matches!(e, DecodeError::Provider { message } if message == "invalid_request_error: bad key"),
        ),
        (Provider::Anthropic, r#"{"type": "completion"}"#, |e| {
            matches!(e, DecodeError::Shape { .. })
        }),
        (Provider::Gemini, r#"[1]"#, |e| {
            matches!(e, DecodeError::Shape { .. })
        }),
        (Provider::Gemini, "", |e| {
            matches!(e, DecodeError::Json { .. })
        }),
        (
            Provider::Anthropic,
            r#"{"type": "message", "content": "text"}"#,
            |e| matches!(e, DecodeError::Shape { .. }),
        ),
    ];
    for (provider, body, check) in table {
        let error = provider
            .decode(body.as_bytes(), &Limits::default())
            .expect_err(body);
        assert!(check(&error), "{provider:?} {body}: {error:?}");
    }
}

#[test]
fn a_blocked_gemini_prompt_is_a_content_filter_finish() {
    let body = json!({"promptFeedback": {"blockReason": "SAFETY"}}).to_string();
    let response = Provider::Gemini
        .decode(body.as_bytes(), &Limits::default())
        .expect("decodes");
    assert_eq!(
        response.finish,
        mcp_agent::provider::FinishReason::ContentFilter
    );
    assert!(response.text.is_empty() && response.tool_calls.is_empty());
    // The same chunk in a stream ends it.
    let (_, streamed) = stream(Provider::Gemini, Limits::default(), &[&sse([body])]);
    assert_eq!(streamed, Ok(response));
}

#[test]
fn gemini_thought_parts_are_not_the_answer() {
    let body = json!({"candidates": [{"content": {"parts": [
        {"text": "let me think", "thought": true},
        {"text": "42"}
    ]}, "finishReason": "STOP"}]})
    .to_string();
    let response = Provider::Gemini
        .decode(body.as_bytes(), &Limits::default())
        .expect("decodes");
    assert_eq!(response.text, "42");
    assert_eq!(response.tool_calls.len(), 0);
}

#[test]
fn openai_chunks_of_another_choice_are_not_ours() {
    let events = [
        json!({"choices": [{"index": 1, "delta": {"content": "other"}}]}).to_string(),
        json!({"choices": [{"index": 0, "delta": {"content": "ours"}}]}).to_string(),
        oa_finish("stop"),
        "[DONE]".to_owned(),
    ];
    let (_, response) = stream(Provider::OpenAi, Limits::default(), &[&sse(events)]);
    assert_eq!(response.expect("complete").text, "ours");
}

#[test]
fn a_gemini_chunk_after_the_finish_is_taken() {
    let events = [
        json!({"candidates": [{"content": {"parts": [{"text": "Hi"}]}, "finishReason": "STOP"}]})
            .to_string(),
        json!({"usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 1}}).to_string(),
    ];
    let (_, response) = stream(Provider::Gemini, Limits::default(), &[&sse(events)]);
    let response = response.expect("complete");
    assert_eq!(response.text, "Hi");
    assert_eq!(
        (response.usage.input_tokens, response.usage.output_tokens),
        (3, 1)
    );
}

/// An event that arrives in pieces is refused as it grows past the cap,
/// before it is complete.
#[test]
fn an_event_growing_past_its_cap_is_refused_early() {
    let limits = Limits {
        max_text_bytes: 1 << 20,
        ..small()
    };
    let body = sse([oa(json!({"content": "x".repeat(1000)}))]);
    let mut decoder = Provider::OpenAi.stream_decoder(limits);
    let mut refused_at = None;
    for (at, byte) in body.iter().enumerate() {
        if let Err(error) = decoder.push(std::slice::from_ref(byte)) {
            assert!(
                matches!(
                    error,
                    DecodeError::TooLarge {
                        what: "one event of the stream",
                        limit: 256
                    }
                ),
                "{error:?}"
            );
            refused_at = Some(at);
            break;
        }
    }
    let at = refused_at.expect("refused");
    assert!(at <= 257, "refused only at byte {at}");
}

/// Some OpenAI-compatible servers leave out the index of tool call
/// deltas: a new id is a new call, a delta without one continues the last.
#[test]
fn openai_tool_call_deltas_without_an_index() {
    let call = |id: Option<&str>, name: Option<&str>, args: &str| {
        let mut call = json!({"function": {"arguments": args}});
        if let Some(id) = id {
            call["id"] = json!(id);
        }
        if let Some(name) = name {
            call["function"]["name"] = json!(name);
        }
        oa(json!({"tool_calls": [call]}))
    };
    let events = [
        call(Some("a"), Some("f"), "{\"n\":"),
        call(None, None, " 1}"),
        call(Some("b"), Some("g"), "{}"),
        call(Some("a"), None, ""),
        oa_finish("tool_calls"),
        "[DONE]".to_owned(),
    ];
    let (_, response) = stream(Provider::OpenAi, Limits::default(), &[&sse(events)]);
    let response = response.expect("complete");
    assert_eq!(
        calls(&response),
        [("a", "f", json!({"n": 1})), ("b", "g", json!({}))]
    );
}
