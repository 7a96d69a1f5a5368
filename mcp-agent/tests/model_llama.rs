//! `provider::http::Client` against a real model: SmolLM2-135M-Instruct
//! behind llama.cpp's OpenAI-compatible server (`common/llama.rs`, which
//! installs it the first time). A plain turn, a forced tool call whose
//! arguments must fit the schema compiled for OpenAI, whole and streamed,
//! and a second turn with the tool's result.

mod common;

use common::llama::{Llama, MODEL};
use mcp_agent::provider::http::Client;
use mcp_agent::provider::{
    Arguments, FinishReason, Message, Request, Response, ToolCall, ToolChoice, ToolContent,
    ToolDeclaration, ToolResult,
};
use mcp_agent::schema::{compile, Compiled, Target};
use serde_json::{json, Value};

const TOOL: &str = "get_weather";

/// An MCP tool's `inputSchema`, compiled for OpenAI.
fn weather() -> Compiled {
    let input = json!({
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "The city's name."},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}
        },
        "required": ["city"]
    });
    compile(&input, Target::OpenAi).expect("the schema compiles")
}

fn request(messages: Vec<Message>, tools: Vec<ToolDeclaration>, choice: ToolChoice) -> Request {
    Request {
        model: MODEL.to_owned(),
        system: Some("You are a helpful assistant. Answer in one short sentence.".to_owned()),
        messages,
        tools,
        tool_choice: choice,
        max_output_tokens: Some(48),
        temperature: Some(0.0),
    }
}

fn ask() -> Message {
    Message::User {
        text: "What is the weather in Paris?".to_owned(),
    }
}

fn declaration(compiled: &Compiled) -> ToolDeclaration {
    ToolDeclaration {
        name: TOOL.to_owned(),
        description: "The current weather in a city.".to_owned(),
        parameters: compiled.parameters.clone(),
        strict: compiled.strict,
    }
}

/// A forced call of the tool, whole or streamed; checks it is one call of
/// that tool with arguments valid against the compiled schema.
async fn forced_call(client: &Client, compiled: &Compiled, streamed: bool) -> ToolCall {
    let request = request(
        vec![ask()],
        vec![declaration(compiled)],
        ToolChoice::Tool(TOOL.to_owned()),
    );
    let response = if streamed {
        let mut events = Vec::new();
        let response = client
            .stream(&request, std::future::pending(), |e| events.push(e))
            .await
            .expect("the streamed turn completes");
        assert!(!events.is_empty());
        response
    } else {
        client.complete(&request).await.expect("the turn completes")
    };
    let [call] = response.tool_calls.as_slice() else {
        panic!("not one tool call: {response:?}");
    };
    assert_eq!(call.name, TOOL);
    assert_eq!(response.finish, FinishReason::ToolCalls, "{response:?}");
    let Arguments::Object(arguments) = &call.arguments else {
        panic!("the arguments are not an object: {:?}", call.arguments);
    };
    let arguments = Value::Object(arguments.clone());
    let validator = jsonschema::validator_for(&compiled.parameters).expect("a valid schema");
    if let Err(e) = validator.validate(&arguments) {
        panic!("{arguments} does not fit {}: {e}", compiled.parameters);
    }
    call.clone()
}

fn client(server: &Llama) -> Client {
    Client::new(server.endpoint()).expect("client")
}

#[tokio::test]
async fn a_plain_completion_has_text_and_usage() {
    let server = Llama::start();
    let response: Response = client(&server)
        .complete(&request(vec![ask()], vec![], ToolChoice::Auto))
        .await
        .expect("the turn completes");
    assert!(!response.text.trim().is_empty(), "{response:?}");
    assert!(response.tool_calls.is_empty(), "{response:?}");
    assert!(response.usage.input_tokens > 0, "{response:?}");
    assert!(response.usage.output_tokens > 0, "{response:?}");
    assert!(
        matches!(response.finish, FinishReason::Stop | FinishReason::Length),
        "{response:?}"
    );
}

#[tokio::test]
async fn a_forced_tool_call_fits_the_compiled_schema() {
    let server = Llama::start();
    forced_call(&client(&server), &weather(), false).await;
}

#[tokio::test]
async fn a_forced_tool_call_streamed_fits_the_compiled_schema() {
    let server = Llama::start();
    forced_call(&client(&server), &weather(), true).await;
}

#[tokio::test]
async fn a_turn_with_the_tool_result_completes() {
    let server = Llama::start();
    let client = client(&server);
    let compiled = weather();
    let call = forced_call(&client, &compiled, false).await;
    let messages = vec![
        ask(),
        // Tool calls alone, as models send them: the encoder writes an
        // empty `content` beside them, which llama-cpp-python's
        // `chatml-function-calling` template needs (without it, or with
        // `null`, a 500).
        // The template renders no `tool` message's content, so the model
        // never sees the result: this turn shows the conversation goes
        // through, not that it is read.
        Message::Assistant {
            text: String::new(),
            tool_calls: vec![call.clone()],
        },
        Message::ToolResults(vec![ToolResult {
            call_id: call.id.clone(),
            name: call.name.clone(),
            content: vec![ToolContent::Text("Sunny, 21 degrees Celsius.".to_owned())],
            is_error: false,
        }]),
    ];
    let response = client
        .complete(&request(
            messages,
            vec![declaration(&compiled)],
            ToolChoice::None,
        ))
        .await
        .expect("the second turn completes");
    assert!(!response.text.trim().is_empty(), "{response:?}");
    assert!(response.tool_calls.is_empty(), "{response:?}");
}
