//! The published 2026-07-28 examples as an external corpus.
//!
//! Each example decodes into the type its folder names, re-encodes to the
//! same JSON value, and the re-encoding validates against that definition of
//! the schema. Each example also decodes through every union that contains
//! its type (directly or through a nested union), lands on the right member,
//! and round-trips from there.

use std::collections::BTreeMap;

use mcp_tests::spec;
use mcp_types::v2026_07_28 as v;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

/// Decodes `json` as `T` and encodes it again.
fn round_trip<T: DeserializeOwned + Serialize>(json: &Value) -> Result<Value, String> {
    let decoded: T = serde_json::from_value(json.clone()).map_err(|e| format!("decode: {e}"))?;
    serde_json::to_value(&decoded).map_err(|e| format!("encode: {e}"))
}

macro_rules! by_name {
    ($name:expr, $json:expr, [$($ty:ident),* $(,)?]) => {
        match $name {
            $(stringify!($ty) => Some(round_trip::<v::$ty>($json)),)*
            _ => None,
        }
    };
}

fn round_trip_named(name: &str, json: &Value) -> Option<Result<Value, String>> {
    by_name!(
        name,
        json,
        [
            AudioContent,
            BlobResourceContents,
            BooleanSchema,
            CallToolRequest,
            CallToolRequestParams,
            CallToolResult,
            CallToolResultResponse,
            CancelledNotification,
            CancelledNotificationParams,
            ClientCapabilities,
            CompleteRequest,
            CompleteRequestParams,
            CompleteResult,
            CompleteResultResponse,
            CreateMessageRequest,
            CreateMessageRequestParams,
            CreateMessageResult,
            DiscoverRequest,
            DiscoverResult,
            DiscoverResultResponse,
            ElicitRequest,
            ElicitRequestFormParams,
            ElicitRequestURLParams,
            ElicitResult,
            EmbeddedResource,
            GetPromptRequest,
            GetPromptRequestParams,
            GetPromptResult,
            GetPromptResultResponse,
            HeaderMismatchError,
            ImageContent,
            InputRequests,
            InputRequiredResult,
            InputResponses,
            InternalError,
            InvalidParamsError,
            ListPromptsRequest,
            ListPromptsResult,
            ListPromptsResultResponse,
            ListResourceTemplatesRequest,
            ListResourceTemplatesResult,
            ListResourceTemplatesResultResponse,
            ListResourcesRequest,
            ListResourcesResult,
            ListResourcesResultResponse,
            ListRootsRequest,
            ListRootsResult,
            ListToolsRequest,
            ListToolsResult,
            ListToolsResultResponse,
            LoggingMessageNotification,
            LoggingMessageNotificationParams,
            MethodNotFoundError,
            MissingRequiredClientCapabilityError,
            ModelPreferences,
            NumberSchema,
            PaginatedRequestParams,
            ParseError,
            ProgressNotification,
            ProgressNotificationParams,
            PromptListChangedNotification,
            ReadResourceRequest,
            ReadResourceResult,
            ReadResourceResultResponse,
            Resource,
            ResourceLink,
            ResourceListChangedNotification,
            ResourceUpdatedNotification,
            ResourceUpdatedNotificationParams,
            Root,
            SamplingMessage,
            ServerCapabilities,
            StringSchema,
            SubscriptionsAcknowledgedNotification,
            SubscriptionsListenRequest,
            SubscriptionsListenResult,
            SubscriptionsListenResultResponse,
            TextContent,
            TextResourceContents,
            TitledMultiSelectEnumSchema,
            TitledSingleSelectEnumSchema,
            Tool,
            ToolListChangedNotification,
            ToolResultContent,
            ToolUseContent,
            UnsupportedProtocolVersionError,
            UntitledMultiSelectEnumSchema,
            UntitledSingleSelectEnumSchema,
        ]
    )
}

/// Decodes `json` through the union `union`: the member's schema name and
/// the re-encoding.
macro_rules! through_union {
    ($name:expr, $json:expr, [$($ty:ident),* $(,)?]) => {
        match $name {
            $(stringify!($ty) => Some(
                serde_json::from_value::<v::$ty>($json.clone())
                    .map_err(|e| e.to_string())
                    .and_then(|u| Ok((u.type_name(), serde_json::to_value(&u).map_err(|e| e.to_string())?)))
            ),)*
            _ => None,
        }
    };
}

fn decode_union(union: &str, json: &Value) -> Option<Result<(&'static str, Value), String>> {
    through_union!(
        union,
        json,
        [
            ClientRequest,
            ContentBlock,
            ElicitRequestParams,
            EnumSchema,
            InputRequest,
            InputResponse,
            JSONRPCMessage,
            JSONRPCResponse,
            MultiSelectEnumSchema,
            PrimitiveSchemaDefinition,
            SamplingMessageContentBlock,
            ServerNotification,
            ServerResult,
            SingleSelectEnumSchema,
        ]
    )
}

fn schema() -> Value {
    let path = spec::spec_dir().join(spec::SCHEMA_2026);
    serde_json::from_str(&std::fs::read_to_string(&path).expect("schema readable"))
        .expect("schema is JSON")
}

fn load(path: &std::path::Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_example_round_trips_through_its_type_and_validates() {
    let schema = schema();
    let mut failures = Vec::new();
    let examples = spec::examples_2026();
    assert_eq!(examples.len(), 129, "the corpus should hold 129 examples");
    for (name, path) in &examples {
        let json = load(path);
        let Some(result) = round_trip_named(name, &json) else {
            failures.push(format!(
                "{}: no type `{name}` is listed in this test",
                path.display()
            ));
            continue;
        };
        match result {
            Ok(out) if out == json => {}
            Ok(out) => failures.push(format!(
                "{}: round trip changed the value\n  in:  {json}\n  out: {out}",
                path.display()
            )),
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
        let mut root = schema.clone();
        root["$ref"] = Value::String(format!("#/$defs/{name}"));
        let validator = jsonschema::draft202012::new(&root).expect("the schema compiles");
        if let Err(error) = validator.validate(&json) {
            failures.push(format!(
                "{}: does not validate as {name}: {error}",
                path.display()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} examples failed:\n{}",
        failures.len(),
        examples.len(),
        failures.join("\n")
    );
}

/// The unions of the schema: `anyOf` definitions and their `$ref` members.
fn unions(schema: &Value) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    for (name, def) in schema["$defs"].as_object().expect("$defs") {
        let Some(members) = def.get("anyOf").and_then(Value::as_array) else {
            continue;
        };
        let refs: Vec<String> = members
            .iter()
            .filter_map(|m| m.get("$ref").and_then(Value::as_str))
            .map(|r| r.trim_start_matches("#/$defs/").to_owned())
            .collect();
        if !refs.is_empty() {
            out.insert(name.clone(), refs);
        }
    }
    out
}

/// The member of `union` through which `ty` is reached, if any.
fn member_for<'u>(
    unions: &'u BTreeMap<String, Vec<String>>,
    union: &str,
    ty: &str,
    depth: usize,
) -> Option<&'u str> {
    if depth > 8 {
        return None;
    }
    unions.get(union)?.iter().find_map(|m| {
        (m == ty || member_for(unions, m, ty, depth + 1).is_some()).then_some(m.as_str())
    })
}

#[test]
fn every_union_picks_the_right_member() {
    let unions = unions(&schema());
    let mut cases = 0;
    let mut failures = Vec::new();
    for (name, path) in spec::examples_2026() {
        let json = load(&path);
        for union in unions.keys() {
            let Some(expected) = member_for(&unions, union, &name, 0) else {
                continue;
            };
            if union == "JSONValue" {
                continue; // a serde_json::Value, not an enum: see the schema note in mcp-types
            }
            cases += 1;
            match decode_union(union, &json) {
                None => failures.push(format!("{union} is not listed in this test")),
                Some(Ok((got, out))) => {
                    if got != expected {
                        failures.push(format!(
                            "{} through {union}: landed on {got}, expected {expected}",
                            path.display()
                        ));
                    }
                    if out != json {
                        failures.push(format!(
                            "{} through {union}: round trip changed the value",
                            path.display()
                        ));
                    }
                }
                Some(Err(e)) => failures.push(format!("{} through {union}: {e}", path.display())),
            }
        }
    }
    assert_eq!(cases, 73, "the corpus should give 73 union cases");
    assert!(
        failures.is_empty(),
        "{} of {cases} union cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Whole JSON-RPC messages among the examples classify as the right kind of
/// message through `JSONRPCMessage`.
#[test]
fn whole_messages_classify_by_kind() {
    let mut checked = 0;
    for (name, path) in spec::examples_2026() {
        let json = load(&path);
        if json.get("jsonrpc").is_none() {
            continue;
        }
        let expected = if json.get("error").is_some() {
            "JSONRPCErrorResponse"
        } else if json.get("result").is_some() {
            "JSONRPCResultResponse"
        } else if json.get("id").is_some() {
            "JSONRPCRequest"
        } else {
            "JSONRPCNotification"
        };
        let message: v::JSONRPCMessage = serde_json::from_value(json.clone())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(message.type_name(), expected, "{} ({name})", path.display());
        assert_eq!(
            serde_json::to_value(&message).expect("encodes"),
            json,
            "{}",
            path.display()
        );
        checked += 1;
    }
    assert_eq!(checked, 32, "the corpus holds 32 whole JSON-RPC messages");
}
