//! The HTTP headers of a modern request, as pure functions: the
//! `=?base64?…?=` form for unsafe values, and the `x-mcp-header` rules that
//! decide which `Mcp-Param-*` headers a tool call carries and which tools an
//! HTTP client must drop.

use base64::Engine as _;
use serde_json::{Map, Value};

/// The schema keyword that mirrors an argument into a header.
pub const X_MCP_HEADER: &str = "x-mcp-header";

/// The largest integer a header may carry, 2^53 − 1.
const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

const SENTINEL_START: &str = "=?base64?";
const SENTINEL_END: &str = "?=";

/// A header value as sent: plain when it is safe, otherwise in the
/// `=?base64?…?=` form (non-ASCII, control characters, leading or trailing
/// whitespace, or text already shaped like the form).
pub fn encode_value(text: &str) -> String {
    let safe = text
        .bytes()
        .all(|b| b == b' ' || b == b'\t' || (0x21..0x7f).contains(&b))
        && !text.starts_with([' ', '\t'])
        && !text.ends_with([' ', '\t'])
        && !text.starts_with(SENTINEL_START);
    if safe {
        text.to_owned()
    } else {
        let encoded = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
        format!("{SENTINEL_START}{encoded}{SENTINEL_END}")
    }
}

/// Whether `c` may appear in an RFC 9110 token.
fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// One `x-mcp-header` of a tool: which argument goes into which header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderParam {
    /// The header is `Mcp-Param-{name}`.
    pub name: String,
    /// The path of `properties` keys from the schema's root to the argument.
    pub path: Vec<String>,
}

/// How a tool's `x-mcp-header` annotations break the rules; such a tool is
/// dropped by HTTP clients.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HeaderRuleError {
    /// The value is not a non-empty RFC 9110 token.
    #[error("`x-mcp-header` at {at} is not a header token")]
    NotAToken {
        /// Where, as a JSON pointer.
        at: String,
    },
    /// Two annotations name the same header, ignoring case.
    #[error("`x-mcp-header` `{0}` appears twice")]
    Duplicate(String),
    /// The annotated property is not a `string`, `integer` or `boolean`.
    #[error("`x-mcp-header` at {at} is on a property that is not a string, integer or boolean")]
    WrongType {
        /// Where, as a JSON pointer.
        at: String,
    },
    /// The annotation is not reached from the root through `properties`
    /// alone.
    #[error("`x-mcp-header` at {at} is not reached through `properties` alone")]
    NotReachable {
        /// Where, as a JSON pointer.
        at: String,
    },
}

/// The `Mcp-Param-*` headers a tool's input schema calls for.
///
/// # Errors
///
/// The first rule broken, in document order; the tool must then be dropped.
pub fn header_params(
    input_schema: &Map<String, Value>,
) -> Result<Vec<HeaderParam>, HeaderRuleError> {
    let mut found = Vec::new();
    walk(input_schema, &mut Vec::new(), true, &mut found)?;
    let mut seen = std::collections::BTreeSet::new();
    for param in &found {
        if !seen.insert(param.name.to_ascii_lowercase()) {
            return Err(HeaderRuleError::Duplicate(param.name.clone()));
        }
    }
    Ok(found)
}

fn pointer(path: &[String]) -> String {
    path.iter()
        .map(|p| format!("/{}", p.replace('~', "~0").replace('/', "~1")))
        .collect()
}

/// Walks a schema object. `reachable` says whether the object is reached
/// from the root through `properties` keys alone; `path` is the JSON path
/// of the object.
fn walk(
    schema: &Map<String, Value>,
    path: &mut Vec<String>,
    reachable: bool,
    found: &mut Vec<HeaderParam>,
) -> Result<(), HeaderRuleError> {
    if let Some(name) = schema.get(X_MCP_HEADER) {
        let at = pointer(path);
        // The root itself is no property.
        if !reachable || path.is_empty() {
            return Err(HeaderRuleError::NotReachable { at });
        }
        let Some(name) = name
            .as_str()
            .filter(|n| !n.is_empty() && n.bytes().all(is_tchar))
        else {
            return Err(HeaderRuleError::NotAToken { at });
        };
        if !matches!(
            schema.get("type").and_then(Value::as_str),
            Some("string" | "integer" | "boolean")
        ) {
            return Err(HeaderRuleError::WrongType { at });
        }
        let property_path = path
            .chunks(2)
            .filter_map(|pair| pair.get(1).cloned())
            .collect();
        found.push(HeaderParam {
            name: name.to_owned(),
            path: property_path,
        });
    }
    for (key, value) in schema {
        match value {
            Value::Object(child) if key == "properties" => {
                for (property, sub) in child {
                    if let Value::Object(sub) = sub {
                        path.push(key.clone());
                        path.push(property.clone());
                        walk(sub, path, reachable, found)?;
                        path.pop();
                        path.pop();
                    }
                }
            }
            Value::Object(child) => {
                path.push(key.clone());
                walk(child, path, false, found)?;
                path.pop();
            }
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    if let Value::Object(item) = item {
                        path.push(key.clone());
                        path.push(i.to_string());
                        walk(item, path, false, found)?;
                        path.pop();
                        path.pop();
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Why a header could not be built from an argument.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParamValueError {
    /// The argument's JSON type cannot go into a header.
    #[error("argument for header `{0}` is not a string, integer or boolean")]
    WrongType(String),
    /// An integer beyond ±(2^53 − 1).
    #[error("argument for header `{0}` is an integer out of the safe range")]
    OutOfRange(String),
}

/// The `Mcp-Param-*` headers of one call: `(header name, value)` for each
/// argument present and not `null`.
///
/// # Errors
///
/// When an argument's value cannot be carried in its header.
pub fn param_headers(
    params: &[HeaderParam],
    arguments: Option<&Map<String, Value>>,
) -> Result<Vec<(String, String)>, ParamValueError> {
    let mut headers = Vec::new();
    for param in params {
        let mut value = arguments.map(|a| Value::Object(a.clone()));
        for key in &param.path {
            value = value.and_then(|v| v.get(key).cloned());
        }
        let text = match value {
            None | Some(Value::Null) => continue,
            Some(Value::String(s)) => s,
            Some(Value::Bool(b)) => b.to_string(),
            Some(Value::Number(n)) => match n.as_i64() {
                Some(i) if (-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER).contains(&i) => i.to_string(),
                Some(_) => return Err(ParamValueError::OutOfRange(param.name.clone())),
                None if n.is_u64() => return Err(ParamValueError::OutOfRange(param.name.clone())),
                None => return Err(ParamValueError::WrongType(param.name.clone())),
            },
            Some(_) => return Err(ParamValueError::WrongType(param.name.clone())),
        };
        headers.push((format!("Mcp-Param-{}", param.name), encode_value(&text)));
    }
    Ok(headers)
}

/// The standard headers of a modern request: `MCP-Protocol-Version`,
/// `Mcp-Method`, and `Mcp-Name` for the three methods that name a target.
pub fn request_headers(
    version: &str,
    method: &str,
    params: Option<&Map<String, Value>>,
) -> Vec<(String, String)> {
    let mut headers = vec![
        ("MCP-Protocol-Version".to_owned(), version.to_owned()),
        ("Mcp-Method".to_owned(), encode_value(method)),
    ];
    let key = match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        // The tasks extension routes a task's requests by its id.
        "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
        _ => None,
    };
    if let Some(name) = key.and_then(|k| params?.get(k)?.as_str()) {
        headers.push(("Mcp-Name".to_owned(), encode_value(name)));
    }
    headers
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn object(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    #[test]
    fn safe_values_stay_plain() {
        assert_eq!(encode_value("get_weather"), "get_weather");
        assert_eq!(encode_value("a b"), "a b");
        assert_eq!(encode_value("file:///tmp/x?y=1"), "file:///tmp/x?y=1");
    }

    #[test]
    fn unsafe_values_use_the_base64_form() {
        assert_eq!(encode_value("Héllo"), "=?base64?SMOpbGxv?=");
        assert_eq!(encode_value(" lead"), "=?base64?IGxlYWQ=?=");
        assert_eq!(encode_value("trail "), "=?base64?dHJhaWwg?=");
        assert_eq!(encode_value("a\nb"), "=?base64?YQpi?=");
        assert_eq!(
            encode_value("=?base64?abc?="),
            "=?base64?PT9iYXNlNjQ/YWJjPz0=?="
        );
        assert_eq!(encode_value(""), "");
    }

    #[test]
    fn valid_annotations_give_params() {
        let schema = object(json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "opts": {"type": "object", "properties": {"n": {"type": "integer", "x-mcp-header": "Count"}}},
            "plain": {"type": "string"}}}));
        let params = header_params(&schema).expect("valid");
        assert_eq!(params.len(), 2);
        let headers = param_headers(
            &params,
            Some(&object(json!({"region": "eu-west", "opts": {"n": 5}}))),
        )
        .expect("headers");
        assert!(headers.contains(&("Mcp-Param-Region".into(), "eu-west".into())));
        assert!(headers.contains(&("Mcp-Param-Count".into(), "5".into())));
        let none = param_headers(&params, Some(&object(json!({"region": null})))).expect("ok");
        assert!(none.is_empty());
    }

    #[test]
    fn broken_annotations_are_refused() {
        let cases = [
            json!({"properties": {"a": {"type": "string", "x-mcp-header": ""}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": "has space"}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": "Bad\r\nX"}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": 7}}}),
            json!({"properties": {"a": {"type": "number", "x-mcp-header": "N"}}}),
            json!({"properties": {"a": {"type": "array", "x-mcp-header": "N"}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": "R"},
                                  "b": {"type": "string", "x-mcp-header": "r"}}}),
            json!({"properties": {"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "I"}}}}),
            json!({"anyOf": [{"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}]}),
            json!({"$defs": {"d": {"type": "string", "x-mcp-header": "D"}}}),
            json!({"type": "object", "x-mcp-header": "Root"}),
        ];
        for case in cases {
            assert!(header_params(&object(case.clone())).is_err(), "{case}");
        }
    }

    #[test]
    fn argument_values_are_checked() {
        let params = vec![HeaderParam {
            name: "N".into(),
            path: vec!["n".into()],
        }];
        let big = object(json!({"n": 9_007_199_254_740_992_i64}));
        assert_eq!(
            param_headers(&params, Some(&big)),
            Err(ParamValueError::OutOfRange("N".into()))
        );
        let float = object(json!({"n": 1.5}));
        assert_eq!(
            param_headers(&params, Some(&float)),
            Err(ParamValueError::WrongType("N".into()))
        );
        let flag = object(json!({"n": true}));
        assert_eq!(
            param_headers(&params, Some(&flag)),
            Ok(vec![("Mcp-Param-N".into(), "true".into())])
        );
    }

    #[test]
    fn standard_headers() {
        let params = object(json!({"name": "café"}));
        let headers = request_headers("2026-07-28", "tools/call", Some(&params));
        assert_eq!(
            headers,
            vec![
                ("MCP-Protocol-Version".into(), "2026-07-28".into()),
                ("Mcp-Method".into(), "tools/call".into()),
                ("Mcp-Name".into(), "=?base64?Y2Fmw6k=?=".into()),
            ]
        );
        let read = object(json!({"uri": "test://x"}));
        let headers = request_headers("2026-07-28", "resources/read", Some(&read));
        assert_eq!(headers[2], ("Mcp-Name".into(), "test://x".into()));
        assert_eq!(request_headers("2026-07-28", "tools/list", None).len(), 2);
        // A task's requests are routed by its id.
        let task = object(json!({"taskId": "task_abc"}));
        for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
            let headers = request_headers("2026-07-28", method, Some(&task));
            assert_eq!(
                headers[2],
                ("Mcp-Name".into(), "task_abc".into()),
                "{method}"
            );
        }
    }
}
