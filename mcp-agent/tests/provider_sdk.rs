//! Wire conformance against the providers' official Python SDKs, pinned
//! in `tests/sdk/requirements.txt` and installed (with `--no-deps`) into
//! the git-ignored `tests/sdk/.venv` the first time, and again only when
//! the requirements change. `tests/sdk/driver.py` validates our requests
//! strictly against the SDKs' request types (unknown fields refused) and
//! builds responses and stream events with the SDKs' own models for our
//! decoders to read.

mod common;
mod provider_common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use mcp_agent::provider::{
    Arguments, FinishReason, Limits, Provider, Response, StreamEvent, ToolChoice, Usage,
};
use provider_common::{full_request, object, plain_request, sse};
use serde_json::{json, Value};

fn sdk_dir() -> PathBuf {
    common::venv::tests_dir("sdk")
}

/// The venv's Python, with the pinned SDKs installed.
fn python() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| {
        let dir = sdk_dir();
        common::venv::Venv {
            requirements: dir.join("requirements.txt"),
            path: dir.join(".venv"),
            env: &[],
            pip_args: &[],
            needs: ": openai, anthropic, google-genai and their dependencies",
        }
        .python()
    })
}

/// One exchange with the driver.
fn driver(input: &Value) -> Value {
    let mut child = Command::new(python())
        .arg(sdk_dir().join("driver.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the driver starts");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.to_string().as_bytes())
        .expect("the driver reads its input");
    let output = child.wait_with_output().expect("the driver ends");
    assert!(
        output.status.success(),
        "the driver failed: {}",
        output.status
    );
    serde_json::from_slice(&output.stdout).expect("the driver answers JSON")
}

/// The driver's verdict on each `(kind, body)`: `None` for valid, the
/// error otherwise.
fn validate(items: &[(&str, Value)]) -> Vec<Option<String>> {
    let items: Vec<Value> = items
        .iter()
        .map(|(kind, body)| json!({"kind": kind, "body": body}))
        .collect();
    let answer = driver(&json!({"op": "validate", "items": items}));
    let verdicts: Vec<Option<String>> = answer["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| match r["valid"].as_bool() {
            Some(true) => None,
            _ => Some(r["error"].as_str().unwrap_or("no error text").to_owned()),
        })
        .collect();
    // One verdict per item, or a zip over them checks nothing: an empty
    // answer would pass every test.
    assert_eq!(
        verdicts.len(),
        items.len(),
        "the driver answered {} verdicts for {} items: {answer}",
        verdicts.len(),
        items.len()
    );
    assert!(!items.is_empty(), "nothing to validate");
    verdicts
}

/// The driver's kind of a request body. Gemini's streaming body is the
/// same as its whole one (the path differs).
fn kind(provider: Provider, stream: bool) -> String {
    let suffix = if stream && provider != Provider::Gemini {
        "stream_request"
    } else {
        "request"
    };
    format!("{}.{suffix}", provider.name())
}

const PROVIDERS: [Provider; 3] = [Provider::OpenAi, Provider::Anthropic, Provider::Gemini];

#[test]
fn every_encoded_request_validates_against_the_sdk_types() {
    let choices = [
        ToolChoice::Auto,
        ToolChoice::None,
        ToolChoice::Required,
        ToolChoice::Tool("get_time".to_owned()),
    ];
    let mut items = Vec::new();
    let mut labels = Vec::new();
    for provider in PROVIDERS {
        for stream in [false, true] {
            for choice in &choices {
                let request = full_request("gemini-2.5-flash", choice.clone());
                let wire = provider.encode(&request, stream).expect("encodes");
                labels.push(format!("{provider:?} stream={stream} {choice:?}"));
                items.push((kind(provider, stream), wire.body));
            }
            let wire = provider
                .encode(&plain_request("m-1"), stream)
                .expect("encodes");
            labels.push(format!("{provider:?} stream={stream} plain"));
            items.push((kind(provider, stream), wire.body));
        }
    }
    let items: Vec<(&str, Value)> = items.iter().map(|(k, b)| (k.as_str(), b.clone())).collect();
    for (label, verdict) in labels.iter().zip(validate(&items)) {
        assert_eq!(verdict, None, "{label}");
    }
}

/// A field renamed deep in each body: the driver must refuse it, or the
/// test above proves nothing.
#[test]
fn a_misspelled_field_is_refused() {
    let request = full_request("gemini-2.5-flash", ToolChoice::Auto);
    let mut openai = Provider::OpenAi
        .encode(&request, false)
        .expect("encodes")
        .body;
    rename(&mut openai["messages"][3], "tool_call_id", "tool_callid");
    let mut anthropic = Provider::Anthropic
        .encode(&request, false)
        .expect("encodes")
        .body;
    rename(&mut anthropic["tools"][0], "input_schema", "inputSchema");
    let mut gemini = Provider::Gemini
        .encode(&request, false)
        .expect("encodes")
        .body;
    rename(
        &mut gemini["tools"][0],
        "functionDeclarations",
        "functionDeclaration",
    );
    let mut openai_stream = Provider::OpenAi
        .encode(&request, true)
        .expect("encodes")
        .body;
    rename(&mut openai_stream, "stream_options", "streamOptions");
    let verdicts = validate(&[
        ("openai.request", openai),
        ("anthropic.request", anthropic),
        ("gemini.request", gemini),
        ("openai.stream_request", openai_stream),
    ]);
    for (verdict, field) in verdicts.iter().zip([
        "tool_callid",
        "inputSchema",
        "functionDeclaration",
        "streamOptions",
    ]) {
        let error = verdict
            .as_deref()
            .unwrap_or_else(|| panic!("{field} was accepted"));
        assert!(error.contains(field), "{field}: {error}");
    }
}

fn rename(value: &mut Value, from: &str, to: &str) {
    let map = value.as_object_mut().expect("an object");
    let taken = map.remove(from).unwrap_or_else(|| panic!("no {from}"));
    map.insert(to.to_owned(), taken);
}

fn fixtures() -> &'static Value {
    static FIXTURES: OnceLock<Value> = OnceLock::new();
    FIXTURES.get_or_init(|| driver(&json!({"op": "fixtures"})))
}

fn decode_whole(provider: Provider) -> Response {
    let body = fixtures()[format!("{}.whole", provider.name())].to_string();
    provider
        .decode(body.as_bytes(), &Limits::default())
        .expect("decodes")
}

fn decode_stream(provider: Provider) -> (Vec<StreamEvent>, Response) {
    let events = fixtures()[format!("{}.stream", provider.name())]
        .as_array()
        .expect("a list of events")
        .iter()
        .map(Value::to_string);
    let mut data: Vec<String> = events.collect();
    if provider == Provider::OpenAi {
        data.push("[DONE]".to_owned());
    }
    let mut decoder = provider.stream_decoder(Limits::default());
    let events = decoder.push(&sse(&data)).expect("decodes");
    (events, decoder.finish().expect("complete"))
}

/// The three SDK fixtures hold the same turn: this text, two calls, and
/// these counts (Anthropic's 20 uncached and 100 cached input tokens
/// summed; Gemini's 25 answer and 5 thinking tokens summed).
const USAGE: Usage = Usage {
    input_tokens: 120,
    output_tokens: 30,
    cached_input_tokens: Some(100),
};

#[test]
fn sdk_built_responses_decode() {
    for provider in PROVIDERS {
        let response = decode_whole(provider);
        assert_eq!(response.text, "Let me look.", "{provider:?}");
        // Gemini says STOP; the calls make it a tool-call finish.
        assert_eq!(response.finish, FinishReason::ToolCalls, "{provider:?}");
        assert_eq!(response.usage, USAGE, "{provider:?}");
        let names: Vec<&str> = response
            .tool_calls
            .iter()
            .map(|c| c.name.as_str())
            .collect();
        assert_eq!(names, ["get_weather", "get_time"], "{provider:?}");
        assert_eq!(
            response.tool_calls[0].arguments,
            object(json!({"city": "Paris"})),
            "{provider:?}"
        );
    }

    let openai = decode_whole(Provider::OpenAi);
    let ids: Vec<&str> = openai.tool_calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["call_a", "call_b"]);
    match &openai.tool_calls[1].arguments {
        Arguments::Invalid(invalid) => {
            assert_eq!(invalid.raw, "{\"zone\":\"UTC\"");
            let message = invalid.message();
            assert!(message.contains("not a JSON object"), "{message}");
        }
        other => panic!("truncated JSON parsed as {other:?}"),
    }

    let anthropic = decode_whole(Provider::Anthropic);
    assert_eq!(anthropic.tool_calls[1].id, "toolu_b");
    assert_eq!(
        anthropic.tool_calls[1].arguments,
        object(json!({"zone": "UTC"}))
    );

    let gemini = decode_whole(Provider::Gemini);
    let ids: Vec<&str> = gemini.tool_calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["gemini-call-0", "fc_b"]);
    assert_eq!(gemini.tool_calls[0].signature.as_deref(), Some("c2lnLWE="));
}

#[test]
fn sdk_built_streams_assemble_as_the_whole_responses() {
    for provider in PROVIDERS {
        let (events, streamed) = decode_stream(provider);
        assert_eq!(streamed, decode_whole(provider), "{provider:?}");
        let started: Vec<&str> = events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::ToolCallStarted { name, .. } => Some(name.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(started, ["get_weather", "get_time"], "{provider:?}");
        let last_usage = events.iter().rev().find_map(|e| match e {
            StreamEvent::Usage(usage) => Some(*usage),
            _ => None,
        });
        assert_eq!(last_usage, Some(streamed.usage), "{provider:?}");
    }
}

#[test]
fn streaming_openai_requests_ask_for_usage() {
    let body = Provider::OpenAi
        .encode(&plain_request("m"), true)
        .expect("encodes")
        .body;
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
    let body = Provider::OpenAi
        .encode(&plain_request("m"), false)
        .expect("encodes")
        .body;
    assert_eq!(body.get("stream_options"), None);
}

/// The hand-written turns of the stream tests are shapes the SDKs take:
/// every event and every whole body.
#[test]
fn the_stream_test_cases_are_sdk_shapes() {
    let mut items = Vec::new();
    let mut labels = Vec::new();
    for case in provider_common::cases::all() {
        let (event_kind, whole_kind) = case.kinds();
        for (n, event) in case.events.iter().enumerate() {
            if event == "[DONE]" {
                continue;
            }
            let body: Value = serde_json::from_str(event).expect("JSON");
            labels.push(format!("{} event {n}", case.name));
            items.push((event_kind, body));
        }
        labels.push(format!("{} whole", case.name));
        items.push((whole_kind, case.whole.clone()));
    }
    for (label, verdict) in labels.iter().zip(validate(&items)) {
        assert_eq!(verdict, None, "{label}");
    }
}
