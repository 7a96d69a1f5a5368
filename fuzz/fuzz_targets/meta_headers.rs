//! The request checks: `_meta` and the HTTP headers against the body, and
//! the server's own message parser.
//!
//! Input: header lines (`Name: value`), an empty line, then the body. The
//! names read are `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and
//! `Mcp-Param-*`.

#![no_main]

use base64::Engine as _;
use libfuzzer_sys::fuzz_target;
use mcp_server::__fuzz;
use mcp_server::{Limits, RequestHeaders};
use serde_json::{json, Value};

/// Splits the input at its first empty line into headers and a body.
fn split(data: &[u8]) -> (RequestHeaders, &[u8]) {
    let (block, body) = match data.windows(2).position(|w| w == b"\n\n") {
        Some(end) => (&data[..end], &data[end + 2..]),
        None => (&data[..0], data),
    };
    let mut headers = RequestHeaders::default();
    for line in String::from_utf8_lossy(block).lines() {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim().to_owned();
        match name.trim().to_ascii_lowercase().as_str() {
            "mcp-protocol-version" => headers.protocol_version = Some(value),
            "mcp-method" => headers.method = Some(value),
            "mcp-name" => headers.name = Some(value),
            other => {
                if let Some(param) = other.strip_prefix("mcp-param-") {
                    headers.params.push((param.to_owned(), value));
                }
            }
        }
    }
    (headers, body)
}

fuzz_target!(|data: &[u8]| {
    let (headers, body) = split(data);
    let parsed = __fuzz::parse_message(body, &Limits::default());
    if let Ok(value) = &parsed {
        // What the strict parser accepts, serde_json reads the same way.
        assert_eq!(
            Some(value),
            serde_json::from_slice::<Value>(body).ok().as_ref()
        );
    }
    let Ok(Value::Object(message)) = parsed else {
        return;
    };
    let params = message.get("params").and_then(Value::as_object);
    let method = message.get("method").and_then(Value::as_str).unwrap_or("");
    match __fuzz::request_meta(params) {
        Ok(version) => {
            let in_meta = params
                .and_then(|p| p.get("_meta"))
                .and_then(|m| m.get("io.modelcontextprotocol/protocolVersion"))
                .and_then(Value::as_str);
            assert_eq!(in_meta, Some(version.as_str()));
            match __fuzz::headers(&headers, method, params, &version) {
                Ok(()) => {
                    assert_eq!(headers.method.as_deref().map(str::trim), Some(method));
                    assert_eq!(
                        headers.protocol_version.as_deref().map(str::trim),
                        Some(version.as_str())
                    );
                }
                Err(e) => assert_eq!(e.code, -32020),
            }
        }
        Err(e) => assert_eq!(e.code, -32602),
    }
    let schema = json!({"type": "object", "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"},
        "count": {"type": "integer", "x-mcp-header": "Count"},
        "flag": {"type": "boolean", "x-mcp-header": "Flag"},
    }});
    let arguments = params
        .and_then(|p| p.get("arguments"))
        .and_then(Value::as_object);
    if let (Some(schema), Err(e)) = (
        schema.as_object(),
        schema
            .as_object()
            .map_or(Ok(()), |s| __fuzz::param_headers(&headers, s, arguments)),
    ) {
        assert!(!schema.is_empty());
        assert_eq!(e.code, -32020);
    }
    for (_, value) in &headers.params {
        let _ = __fuzz::header_value(value);
        // Any text survives the base64 form.
        let encoded = base64::engine::general_purpose::STANDARD.encode(value);
        assert_eq!(
            __fuzz::header_value(&format!("=?base64?{encoded}?=")).as_deref(),
            Some(value.as_str())
        );
    }
});
