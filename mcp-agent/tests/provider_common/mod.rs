//! Pieces shared by the provider tests: a conversation that uses every
//! part of the neutral types, and SSE framing.

#![allow(dead_code)]

use mcp_agent::provider::{
    Arguments, Message, Request, ToolCall, ToolChoice, ToolContent, ToolDeclaration, ToolResult,
};
use serde_json::{json, Value};

/// A conversation with a system prompt, parallel tool calls (one with
/// arguments that are not JSON), results with text, images and an error,
/// two tools (one strict), and `choice`.
pub fn full_request(model: &str, choice: ToolChoice) -> Request {
    Request {
        model: model.to_owned(),
        system: Some("You are terse.".to_owned()),
        messages: vec![
            Message::User {
                text: "Weather in Paris, and the time?".to_owned(),
            },
            Message::Assistant {
                text: "Looking.".to_owned(),
                tool_calls: vec![
                    ToolCall {
                        id: "call_1".to_owned(),
                        name: "get_weather".to_owned(),
                        arguments: object(json!({"city": "Paris"})),
                        signature: Some("c2lnLWE=".to_owned()),
                    },
                    ToolCall {
                        id: "call_2".to_owned(),
                        name: "get_time".to_owned(),
                        arguments: Arguments::parse("{\"zone\": "),
                        signature: None,
                    },
                ],
            },
            Message::ToolResults(vec![
                ToolResult {
                    call_id: "call_1".to_owned(),
                    name: "get_weather".to_owned(),
                    content: vec![
                        ToolContent::Text("Sunny, 21°C".to_owned()),
                        ToolContent::Image {
                            mime_type: "image/png".to_owned(),
                            data: "iVBORw0KGgo=".to_owned(),
                        },
                    ],
                    is_error: false,
                },
                ToolResult {
                    call_id: "call_2".to_owned(),
                    name: "get_time".to_owned(),
                    content: vec![ToolContent::Text("arguments are not JSON".to_owned())],
                    is_error: true,
                },
            ]),
            Message::Assistant {
                text: "Sunny; I could not get the time.".to_owned(),
                tool_calls: vec![],
            },
            Message::User {
                text: "Thanks.".to_owned(),
            },
        ],
        tools: vec![
            ToolDeclaration {
                name: "get_weather".to_owned(),
                description: "The weather of a city.".to_owned(),
                parameters: json!({
                    "type": "object",
                    "properties": {"city": {"type": "string"}},
                    "required": ["city"],
                    "additionalProperties": false
                }),
                strict: true,
            },
            ToolDeclaration {
                name: "get_time".to_owned(),
                description: "The time in a zone.".to_owned(),
                parameters: json!({
                    "type": "object",
                    "properties": {"zone": {"type": "string"}}
                }),
                strict: false,
            },
        ],
        tool_choice: choice,
        max_output_tokens: Some(512),
        temperature: Some(0.5),
    }
}

/// Arguments from a JSON object literal.
pub fn object(value: Value) -> Arguments {
    match value {
        Value::Object(map) => Arguments::Object(map),
        _ => unreachable!("an object literal"),
    }
}

/// A request of one user message and nothing else.
pub fn plain_request(model: &str) -> Request {
    Request {
        model: model.to_owned(),
        system: None,
        messages: vec![Message::User {
            text: "Hi".to_owned(),
        }],
        tools: vec![],
        tool_choice: ToolChoice::Auto,
        max_output_tokens: None,
        temperature: None,
    }
}

/// Events as an SSE body: each a `data:` line and a blank line.
pub fn sse<I: IntoIterator<Item = S>, S: AsRef<str>>(events: I) -> Vec<u8> {
    let mut body = Vec::new();
    for event in events {
        body.extend_from_slice(b"data: ");
        body.extend_from_slice(event.as_ref().as_bytes());
        body.extend_from_slice(b"\n\n");
    }
    body
}

pub mod cases;
