//! Property tests: arbitrary values of the generated types survive an
//! encode/decode round trip, through their own type and through the unions
//! that hold them.

use mcp_types::v2026_07_28 as v;
use proptest::prelude::*;
use serde_json::{Map, Value};

/// Arbitrary JSON, floats and `null` included (the schema's `JSONValue`
/// leaves them out; the protocol uses them).
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1.0e6f64..1.0e6).prop_map(Value::from),
        ".{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{1,6}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn object() -> impl Strategy<Value = Map<String, Value>> {
    prop::collection::btree_map("[a-zA-Z][a-zA-Z0-9_.-]{0,8}", json_value(), 0..4)
        .prop_map(|m| m.into_iter().collect())
}

fn request_id() -> impl Strategy<Value = v::RequestId> {
    prop_oneof![
        any::<i64>().prop_map(v::RequestId::Integer),
        ".{0,16}".prop_map(v::RequestId::String),
    ]
}

/// `_meta` of a request: the required keys plus arbitrary vendor keys.
fn request_meta() -> impl Strategy<Value = v::RequestMetaObject> {
    (object(), proptest::option::of("[a-z]{1,8}")).prop_map(|(vendor, name)| {
        let mut extra = Map::new();
        for (k, value) in vendor {
            extra.insert(format!("com.example/{k}"), value);
        }
        v::RequestMetaObject {
            protocol_version: "2026-07-28".to_owned(),
            client_capabilities: v::ClientCapabilities::default(),
            client_info: name.map(|name| v::Implementation {
                name,
                version: "1.0.0".to_owned(),
                description: None,
                icons: None,
                title: None,
                website_url: None,
                extra: Map::new(),
            }),
            log_level: None,
            progress_token: None,
            extra,
        }
    })
}

fn call_tool_request() -> impl Strategy<Value = v::CallToolRequest> {
    (
        request_id(),
        "[a-zA-Z0-9_.-]{1,32}",
        proptest::option::of(object()),
        request_meta(),
        proptest::option::of(".{0,40}"),
    )
        .prop_map(
            |(id, name, arguments, meta, request_state)| v::CallToolRequest {
                id,
                jsonrpc: v::Jsonrpc20,
                method: v::MethodToolsCall,
                params: v::CallToolRequestParams {
                    meta,
                    arguments,
                    input_responses: None,
                    name,
                    request_state,
                    extra: Map::new(),
                },
                extra: Map::new(),
            },
        )
}

fn text_content() -> impl Strategy<Value = v::TextContent> {
    (".{0,64}", object()).prop_map(|(text, extra)| v::TextContent {
        annotations: None,
        meta: None,
        text,
        type_: v::TypeText,
        extra: extra
            .into_iter()
            .filter(|(k, _)| !["annotations", "_meta", "text", "type"].contains(&k.as_str()))
            .collect(),
    })
}

fn round_trip<T>(value: &T) -> T
where
    T: serde::Serialize + serde::de::DeserializeOwned,
{
    let json = serde_json::to_value(value).expect("encodes");
    let back: T = serde_json::from_value(json.clone()).expect("decodes");
    assert_eq!(serde_json::to_value(&back).expect("encodes"), json);
    back
}

proptest! {
    #[test]
    fn call_tool_requests_round_trip(request in call_tool_request()) {
        prop_assert_eq!(&round_trip(&request), &request);
        let text = serde_json::to_string(&request).expect("encodes");
        let through_union: v::ClientRequest = serde_json::from_str(&text).expect("decodes as a client request");
        prop_assert_eq!(through_union.type_name(), "CallToolRequest");
        let message: v::JSONRPCMessage = serde_json::from_str(&text).expect("decodes as a message");
        prop_assert_eq!(message.type_name(), "JSONRPCRequest");
    }

    #[test]
    fn text_content_round_trips_through_content_block(text in text_content()) {
        prop_assert_eq!(&round_trip(&text), &text);
        let block = v::ContentBlock::from(text.clone());
        prop_assert_eq!(&round_trip(&block), &block);
        prop_assert_eq!(block.type_name(), "TextContent");
    }

    #[test]
    fn request_ids_round_trip(id in request_id()) {
        prop_assert_eq!(&round_trip(&id), &id);
    }

    #[test]
    fn arbitrary_json_survives_open_objects(extra in object()) {
        let json = serde_json::json!({"resultType": "complete", "content": [], "structuredContent": Value::Object(extra.clone())});
        let result: v::CallToolResult = serde_json::from_value(json.clone()).expect("decodes");
        prop_assert_eq!(serde_json::to_value(&result).expect("encodes"), json);
    }
}
