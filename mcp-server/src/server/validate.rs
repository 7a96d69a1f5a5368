//! Checks every modern request must pass before it reaches a handler, in
//! the order the spec's error precedence implies: `_meta` (-32602), then the
//! HTTP headers against the body (-32020), then the version (-32022).

use std::sync::{Arc, Mutex};

use base64::Engine as _;
use mcp_types::jsonrpc::ErrorObject;
use mcp_types::meta;
use mcp_types::v2026_07_28::{ClientCapabilities, LoggingLevel, ProgressToken};
use serde::Deserialize as _;
use serde_json::{Map, Value};

use super::dispatch::RequestHeaders;

/// What the `_meta` of a modern request says.
#[derive(Debug)]
pub(crate) struct RequestMeta {
    pub(crate) version: String,
    pub(crate) capabilities: Arc<ClientCapabilities>,
    pub(crate) progress_token: Option<ProgressToken>,
    pub(crate) log_level: Option<LoggingLevel>,
}

/// The client capabilities of the last request, as sent and as read: a
/// client declares the same capabilities on request after request, so the
/// next request that sends the same JSON shares them instead of reading
/// them again, and what a request's context holds (a task's, for as long
/// as the task lives) is one copy. A request that finds the slot busy
/// reads its own: no request ever waits here.
#[derive(Debug, Default)]
pub(crate) struct LastCapabilities(Mutex<Option<(Value, Arc<ClientCapabilities>)>>);

impl LastCapabilities {
    /// The capabilities `sent`, read, or shared with the last request's.
    fn read(&self, sent: &Value) -> Result<Arc<ClientCapabilities>, serde_json::Error> {
        if let Ok(last) = self.0.try_lock() {
            if let Some((_, read)) = last.as_ref().filter(|(last_sent, _)| last_sent == sent) {
                return Ok(read.clone());
            }
        }
        let read = Arc::new(ClientCapabilities::deserialize(sent)?);
        if let Ok(mut last) = self.0.try_lock() {
            *last = Some((sent.clone(), read.clone()));
        }
        Ok(read)
    }
}

/// Reads the required `_meta` keys and checks the typed optional ones
/// (`clientInfo`, `progressToken`, `logLevel`); any problem is -32602.
/// Both eras pass their `_meta` through here, so the handlers' params can
/// be decoded without reading it again.
pub(crate) fn request_meta(
    params: Option<&Map<String, Value>>,
    last: Option<&LastCapabilities>,
) -> Result<RequestMeta, ErrorObject> {
    match params
        .and_then(|p| p.get("_meta"))
        .and_then(Value::as_object)
    {
        Some(meta_map) => meta(meta_map, last),
        None => Err(ErrorObject::invalid_params(
            "`params._meta` is required on every request",
        )),
    }
}

/// [`request_meta`] of the `_meta` object itself.
pub(crate) fn meta(
    meta_map: &Map<String, Value>,
    last: Option<&LastCapabilities>,
) -> Result<RequestMeta, ErrorObject> {
    meta_parts(
        meta_map.get(meta::PROTOCOL_VERSION),
        meta_map.get(meta::CLIENT_CAPABILITIES),
        meta_map,
        last,
    )
}

/// [`meta`] given the values of the protocol version and capabilities
/// keys, and a map holding the other members (the whole `_meta` will do).
/// The capabilities are shared with the last request's through `last`
/// when they are the same.
pub(crate) fn meta_parts(
    version: Option<&Value>,
    capabilities: Option<&Value>,
    meta_map: &Map<String, Value>,
    last: Option<&LastCapabilities>,
) -> Result<RequestMeta, ErrorObject> {
    let Some(version_str) = version.and_then(Value::as_str) else {
        let message = match version {
            Some(_) => format!("`{}` must be a string", meta::PROTOCOL_VERSION),
            None => format!("`_meta` lacks `{}`", meta::PROTOCOL_VERSION),
        };
        return Err(ErrorObject::invalid_params(message));
    };
    let read = |sent: &Value| match last {
        Some(last) => last.read(sent),
        None => ClientCapabilities::deserialize(sent).map(Arc::new),
    };
    let capabilities = match capabilities.map(read) {
        Some(Ok(capabilities)) => capabilities,
        Some(Err(e)) => {
            return Err(ErrorObject::invalid_params(format!(
                "`{}` is malformed: {e}",
                meta::CLIENT_CAPABILITIES
            )));
        }
        None => {
            return Err(ErrorObject::invalid_params(format!(
                "`_meta` lacks `{}`",
                meta::CLIENT_CAPABILITIES
            )));
        }
    };
    if let Some(Err(e)) = meta::client_info(meta_map) {
        return Err(ErrorObject::invalid_params(format!(
            "`{}` is malformed: {e}",
            meta::CLIENT_INFO
        )));
    }
    let progress_token = match meta::progress_token(meta_map) {
        Some(Ok(token)) => Some(token),
        Some(Err(_)) => {
            return Err(ErrorObject::invalid_params(
                "`progressToken` must be a string or an integer",
            ))
        }
        None => None,
    };
    let log_level = match meta::log_level(meta_map) {
        Some(Ok(level)) => Some(level),
        Some(Err(_)) => {
            return Err(ErrorObject::invalid_params(format!(
                "`{}` is not a log level",
                meta::LOG_LEVEL
            )))
        }
        None => None,
    };
    Ok(RequestMeta {
        version: version_str.to_owned(),
        capabilities,
        progress_token,
        log_level,
    })
}

/// Decodes a header value that may use the `=?base64?...?=` form for
/// values that are not safe as plain header text.
///
/// Returns `None` when the form is used but its payload is not valid base64
/// of UTF-8 text. A value that merely resembles the form (no closing `?=`)
/// is taken literally.
pub(crate) fn header_value(raw: &str) -> Option<String> {
    let raw = raw.trim();
    match raw
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
    {
        Some(encoded) => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(encoded)
                .ok()?;
            String::from_utf8(bytes).ok()
        }
        None => Some(raw.to_owned()),
    }
}

/// The value a header must carry for the JSON value of an argument: strings
/// as they are, integers in decimal, booleans as `true`/`false`.
fn header_form(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) if n.is_i64() || n.is_u64() => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// The member of the params of `method` that the `Mcp-Name` header
/// mirrors, and that names what the request is about: the tool or prompt,
/// the resource's URI, or the task.
pub(crate) fn name_key(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        // The tasks extension routes its methods by task.
        "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
        _ => None,
    }
}

/// Longest piece of a header value a refusal quotes, in characters.
const QUOTED: usize = 64;

/// `value` as a refusal may quote it: at most [`QUOTED`] characters.
pub(crate) fn quoted(value: &str) -> String {
    let mut out: String = value.chars().take(QUOTED).collect();
    if value.chars().nth(QUOTED).is_some() {
        out.push('…');
    }
    out
}

/// Checks the routing headers a legacy request carries against its body:
/// none is required in that era, but each one present must agree, as in
/// the modern era, so that a gateway routing on them and the server see
/// the same request.
#[cfg(feature = "http")]
pub(crate) fn present_headers(
    headers: &RequestHeaders,
    message: &Value,
) -> Result<(), ErrorObject> {
    let Some(method) = message.get("method").and_then(Value::as_str) else {
        return Ok(());
    };
    if let Some(value) = headers.method.as_deref().map(str::trim) {
        if value != method {
            return Err(ErrorObject::header_mismatch(format!(
                "the Mcp-Method header says `{}` but the body's method is `{}`",
                quoted(value),
                quoted(method)
            )));
        }
    }
    if let (Some(key), Some(raw)) = (name_key(method), headers.name.as_deref()) {
        let body = message
            .get("params")
            .and_then(|p| p.get(key))
            .and_then(Value::as_str);
        if header_value(raw).as_deref() != body {
            return Err(ErrorObject::header_mismatch(format!(
                "the Mcp-Name header does not match `params.{key}`"
            )));
        }
    }
    Ok(())
}

/// Checks `Mcp-Method`, `Mcp-Name` and the protocol-version header against
/// the body; any difference is -32020.
///
/// `body` gives the string member of the params the `Mcp-Name` header
/// mirrors (`name` or `uri`).
pub(crate) fn headers<'a>(
    headers: &RequestHeaders,
    method: &str,
    body: impl FnOnce(&str) -> Option<&'a str>,
    meta_version: &str,
) -> Result<(), ErrorObject> {
    match headers.protocol_version.as_deref().map(str::trim) {
        Some(version) if version == meta_version => {}
        Some(version) => {
            return Err(ErrorObject::header_mismatch(format!(
                "the MCP-Protocol-Version header says `{}` but `_meta` says `{}`",
                quoted(version),
                quoted(meta_version)
            )))
        }
        None => {
            return Err(ErrorObject::header_mismatch(
                "the MCP-Protocol-Version header is missing",
            ))
        }
    }
    match headers.method.as_deref().map(str::trim) {
        Some(value) if value == method => {}
        Some(value) => {
            return Err(ErrorObject::header_mismatch(format!(
                "the Mcp-Method header says `{}` but the body's method is `{}`",
                quoted(value),
                quoted(method)
            )))
        }
        None => {
            return Err(ErrorObject::header_mismatch(
                "the Mcp-Method header is missing",
            ))
        }
    }
    if let Some(key) = name_key(method) {
        let body = body(key);
        let header = headers.name.as_deref().map(header_value);
        match (header, body) {
            (Some(Some(header)), Some(body)) if header == body => {}
            (None, _) => {
                return Err(ErrorObject::header_mismatch(
                    "the Mcp-Name header is missing",
                ))
            }
            _ => {
                return Err(ErrorObject::header_mismatch(format!(
                    "the Mcp-Name header does not match `params.{key}`"
                )))
            }
        }
    }
    Ok(())
}

/// Checks the `Mcp-Param-*` headers of a `tools/call` against the
/// arguments, for each property of the tool's input schema that carries
/// `x-mcp-header`; any difference is -32020.
pub(crate) fn param_headers(
    headers: &RequestHeaders,
    input_schema: &Map<String, Value>,
    arguments: Option<&Map<String, Value>>,
) -> Result<(), ErrorObject> {
    let Some(properties) = input_schema.get("properties").and_then(Value::as_object) else {
        return Ok(());
    };
    for (property, schema) in properties {
        let Some(name) = schema.get("x-mcp-header").and_then(Value::as_str) else {
            continue;
        };
        let body = arguments
            .and_then(|a| a.get(property))
            .filter(|v| !v.is_null());
        let header = headers
            .params
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| header_value(v));
        let matches = match (body.and_then(header_form), header) {
            (None, None) => true,
            (Some(body), Some(Some(header))) => body == header,
            _ => false,
        };
        if !matches {
            return Err(ErrorObject::header_mismatch(format!(
                "the Mcp-Param-{name} header does not match argument `{property}`"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn base64_header_values() {
        assert_eq!(
            header_value("=?base64?SGVsbG8=?="),
            Some("Hello".to_owned())
        );
        assert_eq!(header_value("=?base64?SGVsbG8?="), None);
        assert_eq!(header_value("=?base64?SGVs!!!bG8=?="), None);
        assert_eq!(header_value("SGVsbG8="), Some("SGVsbG8=".to_owned()));
        assert_eq!(
            header_value("=?base64?SGVsbG8="),
            Some("=?base64?SGVsbG8=".to_owned())
        );
        assert_eq!(header_value("  spaced  "), Some("spaced".to_owned()));
    }

    #[test]
    fn meta_keys_are_required() {
        let params = json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}});
        let e = request_meta(params.as_object(), None).expect_err("capabilities missing");
        assert_eq!(e.code, -32602);
        let params = json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}, "io.modelcontextprotocol/logLevel": "loud"}});
        assert_eq!(
            request_meta(params.as_object(), None)
                .expect_err("bad level")
                .code,
            -32602
        );
        assert_eq!(
            request_meta(None, None).expect_err("no params").code,
            -32602
        );
    }

    fn body<'a>(params: &'a Value) -> impl FnOnce(&str) -> Option<&'a str> {
        |key| params.get(key).and_then(Value::as_str)
    }

    #[test]
    fn headers_must_match_the_body() {
        let good = RequestHeaders {
            protocol_version: Some("2026-07-28".into()),
            method: Some("tools/call".into()),
            name: Some(" add ".into()),
            params: vec![("Region".into(), "eu".into())],
        };
        let params = json!({"name": "add", "arguments": {"region": "eu"}});
        assert!(headers(&good, "tools/call", body(&params), "2026-07-28").is_ok());
        let mut wrong = good.clone();
        wrong.method = Some("TOOLS/CALL".into());
        assert_eq!(
            headers(&wrong, "tools/call", body(&params), "2026-07-28")
                .expect_err("case")
                .code,
            -32020
        );
        let mut missing = good.clone();
        missing.name = None;
        assert!(headers(&missing, "tools/call", body(&params), "2026-07-28").is_err());
        let schema =
            json!({"properties": {"region": {"type": "string", "x-mcp-header": "Region"}}});
        let arguments = json!({"region": "eu"});
        assert!(param_headers(
            &good,
            schema.as_object().unwrap_or(&Map::new()),
            arguments.as_object()
        )
        .is_ok());
        let arguments = json!({"region": "us"});
        assert!(param_headers(
            &good,
            schema.as_object().unwrap_or(&Map::new()),
            arguments.as_object()
        )
        .is_err());
    }
}
