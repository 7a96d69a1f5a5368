//! Invalid messages are refused, and the error says which field is wrong.

use mcp_types::{v2025_11_25 as legacy, v2026_07_28 as v};
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

fn refused<T: DeserializeOwned + std::fmt::Debug>(value: Value) -> String {
    match serde_json::from_value::<T>(value.clone()) {
        Ok(decoded) => panic!("{value} was accepted as {decoded:?}"),
        Err(error) => error.to_string(),
    }
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

#[test]
fn a_request_refuses_another_method() {
    let e = refused::<v::CallToolRequest>(json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta(), "name": "x"}
    }));
    assert!(
        e.contains("invalid `method`: expected \"tools/call\", found \"tools/list\""),
        "{e}"
    );
}

#[test]
fn a_request_refuses_another_jsonrpc_version() {
    let e = refused::<v::CallToolRequest>(json!({
        "jsonrpc": "1.0", "id": 1, "method": "tools/call", "params": {"_meta": meta(), "name": "x"}
    }));
    assert!(e.contains("invalid `jsonrpc`"), "{e}");
}

#[test]
fn missing_required_fields_are_named() {
    let e = refused::<v::CallToolRequest>(json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"_meta": meta()}
    }));
    assert!(e.contains("missing field `name`"), "{e}");
    let e = refused::<v::CallToolRequest>(json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x"}
    }));
    assert!(e.contains("missing field `_meta`"), "{e}");
    let e = refused::<v::DiscoverResult>(json!({"capabilities": {}, "resultType": "complete"}));
    assert!(e.contains("missing field `supportedVersions`"), "{e}");
    let e = refused::<legacy::InitializeRequest>(json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}
    }));
    assert!(e.contains("missing field `protocolVersion`"), "{e}");
}

#[test]
fn wrong_content_type_is_refused() {
    let e = refused::<v::TextContent>(json!({"type": "image", "text": "x"}));
    assert!(e.contains("invalid `type`: expected \"text\""), "{e}");
    let e = refused::<v::ContentBlock>(json!({"type": "video", "data": "AA=="}));
    assert!(e.contains("`type` is \"video\""), "{e}");
    assert!(e.contains("ContentBlock"), "{e}");
}

#[test]
fn an_unknown_method_names_the_union_and_the_method() {
    let e = refused::<v::ClientRequest>(json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/destroy", "params": {"_meta": meta()}
    }));
    assert!(e.contains("`method` is \"tools/destroy\""), "{e}");
    assert!(e.contains("ClientRequest"), "{e}");
}

#[test]
fn request_ids_are_strings_or_integers_never_null() {
    for id in [json!(null), json!(1.5), json!({"a": 1}), json!([1])] {
        let e = refused::<v::RequestId>(id.clone());
        assert!(e.contains("RequestId"), "{id}: {e}");
    }
    let e = refused::<v::JSONRPCRequest>(json!({"jsonrpc": "2.0", "id": null, "method": "ping"}));
    assert!(e.contains("RequestId"), "{e}");
}

#[test]
fn wrong_field_types_are_refused() {
    let e =
        refused::<v::CallToolResult>(json!({"content": "not an array", "resultType": "complete"}));
    assert!(e.contains("invalid type"), "{e}");
    let e = refused::<v::ListToolsResult>(
        json!({"tools": [], "ttlMs": "soon", "resultType": "complete"}),
    );
    assert!(e.contains("invalid type"), "{e}");
    let e = refused::<v::LoggingLevel>(json!("verbose"));
    assert!(e.contains("unknown variant `verbose`"), "{e}");
}

#[test]
fn an_error_response_checks_its_code() {
    let e = refused::<v::UnsupportedProtocolVersionError>(json!({
        "jsonrpc": "2.0", "id": 1,
        "error": {"code": -32021, "message": "m", "data": {"supported": ["2026-07-28"], "requested": "1999-01-01"}}
    }));
    assert!(
        e.contains("invalid `code`: expected -32022, found -32021"),
        "{e}"
    );
}
