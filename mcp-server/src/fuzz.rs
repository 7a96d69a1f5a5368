//! Entry points for the fuzz targets in `fuzz/`: the request checks that
//! are otherwise private to the router. Not a stable API.

use mcp_types::jsonrpc::ErrorObject;
use serde_json::{Map, Value};

use crate::server::{parse, validate, Limits, RequestHeaders};

/// Reads the required `_meta` of a request's params; returns the version.
///
/// # Errors
///
/// The -32602 error the router would answer with.
pub fn request_meta(params: Option<&Map<String, Value>>) -> Result<String, ErrorObject> {
    validate::request_meta(params).map(|meta| meta.version)
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
    validate::headers(headers, method, params, meta_version)
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
