//! Entry points for the fuzz targets in `fuzz/`: the request checks that
//! are otherwise private to the router. Not a stable API.

use mcp_types::jsonrpc::{ErrorObject, Message};
use serde_json::{Map, Value};

use crate::server::{parse, validate, Limits, RequestHeaders};

/// Reads the required `_meta` of a request's params; returns the version.
///
/// # Errors
///
/// The -32602 error the router would answer with.
pub fn request_meta(params: Option<&Map<String, Value>>) -> Result<String, ErrorObject> {
    validate::request_meta(params, None).map(|meta| meta.version)
}

/// Checks the MCP headers against the body.
///
/// # Errors
///
/// The -32020 error the router would answer with.
pub fn headers(
    headers: &RequestHeaders,
    method: &str,
    params: Option<&Map<String, Value>>,
    meta_version: &str,
) -> Result<(), ErrorObject> {
    let body = |key: &str| params.and_then(|p| p.get(key)).and_then(Value::as_str);
    validate::headers(headers, method, body, meta_version)
}

/// Checks the `Mcp-Param-*` headers against a tool's arguments.
///
/// # Errors
///
/// The -32020 error the router would answer with.
pub fn param_headers(
    headers: &RequestHeaders,
    input_schema: &Map<String, Value>,
    arguments: Option<&Map<String, Value>>,
) -> Result<(), ErrorObject> {
    validate::param_headers(headers, input_schema, arguments)
}

/// Decodes a header value that may use the base64 form.
pub fn header_value(raw: &str) -> Option<String> {
    validate::header_value(raw)
}

/// Parses the bytes of one message as the transports do.
///
/// # Errors
///
/// The error the transport would answer with.
pub fn parse_message(bytes: &[u8], limits: &Limits) -> Result<Value, ErrorObject> {
    parse::message(bytes, limits).map_err(|refusal| refusal.error)
}

/// Holds the quick reader of `tools/call` and `tasks/get` to the general
/// path: whatever it reads, the general path reads into the same request.
/// Messages it leaves alone are not checked: they take the general path
/// anyway.
///
/// # Panics
///
/// When the two paths disagree.
pub fn quick_call(bytes: &[u8]) {
    let limits = Limits::default();
    let Ok(parse::Incoming::Quick(quick)) = parse::incoming(bytes, &limits) else {
        return;
    };
    let (method, mut read) = match quick.request {
        parse::QuickRequest::Call { name, arguments } => {
            let read = Map::from_iter([
                ("name".to_owned(), Value::String(name)),
                ("arguments".to_owned(), Value::Object(arguments)),
            ]);
            ("tools/call", read)
        }
        parse::QuickRequest::TaskGet { task_id } => {
            let read = Map::from_iter([("taskId".to_owned(), Value::String(task_id))]);
            ("tasks/get", read)
        }
    };
    let (id, meta) = (quick.id, quick.meta);
    read.insert("_meta".to_owned(), Value::Object(meta.into_json()));
    let value = parse::message(bytes, &limits).expect("the general path reads it too");
    let Ok(Message::Request {
        id: general_id,
        method: general_method,
        params: Some(mut params),
    }) = Message::from_value(value)
    else {
        panic!("the general path reads no request with params");
    };
    assert_eq!((general_id, general_method.as_str()), (id, method));
    // No arguments (absent or `null`) read as empty, on both paths.
    if method == "tools/call" {
        match params.get("arguments") {
            None | Some(Value::Null) => {
                params.insert("arguments".to_owned(), Value::Object(Map::new()));
            }
            Some(Value::Object(_)) => {}
            Some(other) => panic!("the general path reads arguments {other}"),
        }
    }
    assert_eq!(params, read, "the two paths read different params");
}
