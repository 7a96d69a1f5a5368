//! What each encoder puts where: the mapping choices documented in each
//! provider module, checked field by field on one conversation that uses
//! every part of the neutral types. (That the bodies are valid at all is
//! `provider_sdk.rs`'s job.)

mod provider_common;

use mcp_agent::provider::{
    EncodeError, Limits, Message, Provider, ToolChoice, ToolContent, ToolResult,
};
use provider_common::{full_request, plain_request};
use serde_json::{json, Value};

fn body(provider: Provider, choice: ToolChoice) -> Value {
    let request = full_request("gemini-x", choice);
    provider.encode(&request, false).expect("encodes").body
}

#[test]
fn openai_places_results_and_images() {
    let body = body(Provider::OpenAi, ToolChoice::Auto);
    let messages = body["messages"].as_array().expect("messages");
    let roles: Vec<&str> = messages
        .iter()
        .map(|m| m["role"].as_str().unwrap_or("?"))
        .collect();
    assert_eq!(
        roles,
        [
            "system",
            "user",
            "assistant",
            "tool",
            "tool",
            "user",
            "assistant",
            "user"
        ]
    );
    assert_eq!(messages[0]["content"], "You are terse.");
    let calls = &messages[2]["tool_calls"];
    assert_eq!(calls[0]["function"]["arguments"], r#"{"city":"Paris"}"#);
    // Arguments that were not JSON go back as they came.
    assert_eq!(calls[1]["function"]["arguments"], r#"{"zone": "#);
    assert_eq!(calls[1]["id"], "call_2");
    assert_eq!(
        messages[3],
        json!({"role": "tool", "tool_call_id": "call_1", "content": "Sunny, 21°C"})
    );
    assert_eq!(messages[4]["content"], "error:\narguments are not JSON");
    assert_eq!(
        messages[5]["content"],
        json!([
            {"type": "text", "text": "The images returned by tool call call_1:"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
        ])
    );
    assert_eq!(body["tools"][0]["function"]["strict"], true);
    assert_eq!(body["tools"][1]["function"]["strict"], false);
    assert_eq!(
        body["tools"][0]["function"]["parameters"]["required"],
        json!(["city"])
    );
    assert_eq!(body["max_completion_tokens"], 512);
    assert_eq!(body["temperature"], 0.5);
}

#[test]
fn anthropic_places_results_and_images() {
    let wire = Provider::Anthropic
        .encode(&full_request("claude-x", ToolChoice::Auto), false)
        .expect("encodes");
    assert_eq!(wire.path, "/v1/messages");
    assert_eq!(wire.headers, [("anthropic-version", "2023-06-01")]);
    let body = wire.body;
    assert_eq!(body["system"], "You are terse.");
    assert_eq!(body["max_tokens"], 512);
    assert_eq!(body.get("temperature"), None);
    let messages = body["messages"].as_array().expect("messages");
    assert_eq!(
        messages[1]["content"],
        json!([
            {"type": "text", "text": "Looking."},
            {"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {"city": "Paris"}},
            {"type": "tool_use", "id": "call_2", "name": "get_time", "input": {}}
        ])
    );
    assert_eq!(
        messages[2],
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "call_1", "is_error": false, "content": [
                {"type": "text", "text": "Sunny, 21°C"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
            ]},
            {"type": "tool_result", "tool_use_id": "call_2", "is_error": true, "content": [
                {"type": "text", "text": "arguments are not JSON"}
            ]}
        ]})
    );
    assert_eq!(
        body["tools"][0]["input_schema"]["required"],
        json!(["city"])
    );
    assert_eq!(body["tools"][0]["strict"], true);
    assert_eq!(body["tools"][1].get("strict"), None);
    let plain = Provider::Anthropic
        .encode(&plain_request("m"), true)
        .expect("encodes")
        .body;
    assert_eq!(plain["max_tokens"], 4096);
    assert_eq!(plain["stream"], true);
    assert_eq!(plain.get("tools"), None);
}

#[test]
fn gemini_places_results_images_ids_and_signatures() {
    let wire = Provider::Gemini
        .encode(&full_request("models/gemini-x", ToolChoice::Auto), true)
        .expect("encodes");
    assert_eq!(
        wire.path,
        "/v1beta/models/gemini-x:streamGenerateContent?alt=sse"
    );
    let body = wire.body;
    assert_eq!(
        body["systemInstruction"],
        json!({"parts": [{"text": "You are terse."}]})
    );
    assert_eq!(
        body["generationConfig"],
        json!({"maxOutputTokens": 512, "temperature": 0.5})
    );
    let contents = body["contents"].as_array().expect("contents");
    assert_eq!(
        contents[1],
        json!({"role": "model", "parts": [
            {"text": "Looking."},
            {"functionCall": {"id": "call_1", "name": "get_weather", "args": {"city": "Paris"}},
             "thoughtSignature": "c2lnLWE="},
            {"functionCall": {"id": "call_2", "name": "get_time", "args": {}}}
        ]})
    );
    assert_eq!(
        contents[2],
        json!({"role": "user", "parts": [
            {"functionResponse": {"id": "call_1", "name": "get_weather", "response": {"output": "Sunny, 21°C"}}},
            {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}},
            {"functionResponse": {"id": "call_2", "name": "get_time", "response": {"error": "arguments are not JSON"}}}
        ]})
    );
    assert_eq!(
        body["tools"],
        json!([{"functionDeclarations": [
            {"name": "get_weather", "description": "The weather of a city.",
             "parameters": full_request("m", ToolChoice::Auto).tools[0].parameters},
            {"name": "get_time", "description": "The time in a zone.",
             "parameters": full_request("m", ToolChoice::Auto).tools[1].parameters}
        ]}])
    );
}

/// A call Gemini gave no id goes back without one, and its result too.
#[test]
fn gemini_made_up_ids_are_not_sent_back() {
    let answer = json!({"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"name": "get_time", "args": {"zone": "UTC"}}, "thoughtSignature": "c2ln"}
    ]}, "finishReason": "STOP"}]});
    let response = Provider::Gemini
        .decode(answer.to_string().as_bytes(), &Limits::default())
        .expect("decodes");
    let call = response.tool_calls[0].clone();
    assert!(call.id.starts_with("gemini-call-"), "{}", call.id);
    let mut request = plain_request("gemini-x");
    request.messages.push(Message::Assistant {
        text: String::new(),
        tool_calls: vec![call.clone()],
    });
    request.messages.push(Message::ToolResults(vec![ToolResult {
        call_id: call.id.clone(),
        name: call.name.clone(),
        content: vec![ToolContent::Text("12:00".to_owned())],
        is_error: false,
    }]));
    let body = Provider::Gemini
        .encode(&request, false)
        .expect("encodes")
        .body;
    assert_eq!(
        body["contents"][1]["parts"][0],
        json!({"functionCall": {"name": "get_time", "args": {"zone": "UTC"}}, "thoughtSignature": "c2ln"})
    );
    assert_eq!(
        body["contents"][2]["parts"][0],
        json!({"functionResponse": {"name": "get_time", "response": {"output": "12:00"}}})
    );
}

#[test]
fn tool_choices() {
    let table = [
        (
            ToolChoice::Auto,
            json!("auto"),
            json!({"type": "auto"}),
            json!({"mode": "AUTO"}),
        ),
        (
            ToolChoice::None,
            json!("none"),
            json!({"type": "none"}),
            json!({"mode": "NONE"}),
        ),
        (
            ToolChoice::Required,
            json!("required"),
            json!({"type": "any"}),
            json!({"mode": "ANY"}),
        ),
        (
            ToolChoice::Tool("get_time".to_owned()),
            json!({"type": "function", "function": {"name": "get_time"}}),
            json!({"type": "tool", "name": "get_time"}),
            json!({"mode": "ANY", "allowedFunctionNames": ["get_time"]}),
        ),
    ];
    for (choice, openai, anthropic, gemini) in table {
        assert_eq!(
            body(Provider::OpenAi, choice.clone())["tool_choice"],
            openai,
            "{choice:?}"
        );
        assert_eq!(
            body(Provider::Anthropic, choice.clone())["tool_choice"],
            anthropic,
            "{choice:?}"
        );
        assert_eq!(
            body(Provider::Gemini, choice.clone())["toolConfig"]["functionCallingConfig"],
            gemini,
            "{choice:?}"
        );
    }
    // Without tools there is no choice to make.
    for provider in [Provider::OpenAi, Provider::Anthropic] {
        let plain = provider
            .encode(&plain_request("m"), false)
            .expect("encodes")
            .body;
        assert_eq!(plain.get("tool_choice"), None, "{provider:?}");
    }
    let plain = Provider::Gemini
        .encode(&plain_request("m"), false)
        .expect("encodes")
        .body;
    assert_eq!(plain.get("toolConfig"), None);
    assert_eq!(plain.get("generationConfig"), None);
}

#[test]
fn gemini_model_names_must_fit_a_path() {
    let table = [
        (
            "gemini-2.5-flash",
            Ok("/v1beta/models/gemini-2.5-flash:generateContent"),
        ),
        (
            "models/gemini-x_1",
            Ok("/v1beta/models/gemini-x_1:generateContent"),
        ),
        ("../../admin", Err(())),
        ("gemini x", Err(())),
        ("gemini?key=1", Err(())),
        ("", Err(())),
        ("models/", Err(())),
    ];
    for (model, expected) in table {
        let got = Provider::Gemini.encode(&plain_request(model), false);
        match (got, expected) {
            (Ok(wire), Ok(path)) => assert_eq!(wire.path, path, "{model}"),
            (Err(EncodeError::ModelName(name)), Err(())) => assert_eq!(name, model),
            (got, expected) => panic!("{model}: {got:?}, expected {expected:?}"),
        }
    }
}
