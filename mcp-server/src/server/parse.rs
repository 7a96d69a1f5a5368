//! Turning the bytes of one incoming message into JSON, within the limits:
//! a size cap, a nesting cap checked before any parsing, and a parser that
//! refuses duplicate object keys, so that the server never reads a message
//! differently from a proxy or log that kept the first of two keys.

use std::fmt;

use mcp_types::jsonrpc::{ErrorObject, JSONRPC_VERSION};
use mcp_types::v2026_07_28::RequestId;
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::map::Entry;
use serde_json::{Map, Value};

use super::Limits;

/// Why the bytes of a message were refused before they reached the router.
#[derive(Debug)]
pub(crate) struct Refusal {
    /// The HTTP status: 413 for an oversized message, 400 otherwise.
    pub(crate) status: u16,
    /// The error to answer with (no id: the message was never read).
    pub(crate) error: ErrorObject,
}

/// Parses one message: at most `max_message_bytes`, nested at most
/// `max_depth` deep, and without duplicate keys in any object.
pub(crate) fn message(bytes: &[u8], limits: &Limits) -> Result<Value, Refusal> {
    within_limits(bytes, limits)?;
    strict(bytes)
}

/// A message as the router takes it: a `tools/call` or a `tasks/get` read
/// by [`quick`], or any message as JSON.
#[derive(Debug)]
pub(crate) enum Incoming {
    Quick(Quick),
    Json(Value),
}

/// Parses one message as [`message`] does, reading the usual shape of a
/// modern `tools/call` or `tasks/get` without building a `Value` for all
/// of it.
pub(crate) fn incoming(bytes: &[u8], limits: &Limits) -> Result<Incoming, Refusal> {
    within_limits(bytes, limits)?;
    match quick(bytes) {
        Some(read) => Ok(Incoming::Quick(read)),
        None => strict(bytes).map(Incoming::Json),
    }
}

/// Refuses a message over the size or the nesting limit.
fn within_limits(bytes: &[u8], limits: &Limits) -> Result<(), Refusal> {
    if bytes.len() > limits.max_message_bytes {
        return Err(too_large(Some(bytes.len()), limits.max_message_bytes));
    }
    if let Some(offset) = too_deep(bytes, limits.max_depth) {
        return Err(Refusal {
            status: 400,
            error: ErrorObject::invalid_request(format!(
                "the message nests arrays and objects deeper than {} levels (at byte {offset})",
                limits.max_depth
            )),
        });
    }
    Ok(())
}

/// Parses JSON, refusing repeated keys.
fn strict(bytes: &[u8]) -> Result<Value, Refusal> {
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let value = StrictValue
        .deserialize(&mut deserializer)
        .and_then(|value| deserializer.end().map(|()| value));
    value.map_err(|e| Refusal {
        status: 400,
        error: ErrorObject::parse_error(format!("Parse error: {e}")),
    })
}

/// Parses a JSON document that is not a message (a token's header or
/// claims, a key set, server metadata): nested at most `max_depth` deep,
/// without repeated keys. `None` when it is not such a document.
#[cfg(feature = "auth")]
pub(crate) fn strict_document(bytes: &[u8], max_depth: usize) -> Option<Value> {
    if too_deep(bytes, max_depth).is_some() {
        return None;
    }
    strict(bytes).ok()
}

/// The refusal of a message of `len` bytes (when known) over `limit`.
pub(crate) fn too_large(len: Option<usize>, limit: usize) -> Refusal {
    let size = len.map_or_else(String::new, |len| format!(" of {len} bytes"));
    Refusal {
        status: 413,
        error: ErrorObject::invalid_request(format!(
            "message{size} exceeds the limit of {limit} bytes"
        )),
    }
}

/// The offset of the first `[` or `{` that opens level `max + 1`, if any.
///
/// A plain scan that skips string contents, so that it costs one pass and no
/// recursion however deep the input; it does not check syntax, which the
/// parser does next.
pub(crate) fn too_deep(bytes: &[u8], max: usize) -> Option<usize> {
    // Depth can exceed `max` only if more than `max` brackets open at all:
    // a count the compiler vectorises, which settles most messages without
    // the byte-by-byte walk below.
    // `[` is 0x5b and `{` is 0x7b: they differ only in bit 0x20. Counted
    // in bytes, a chunk at a time, which vectorises to a byte per lane.
    let opening: usize = bytes
        .chunks(255)
        .map(|chunk| {
            let count = chunk
                .iter()
                .fold(0u8, |count, &b| count + u8::from(b | 0x20 == b'{'));
            usize::from(count)
        })
        .sum();
    if opening <= max {
        return None;
    }
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (offset, &byte) in bytes.iter().enumerate() {
        if in_string {
            match (escaped, byte) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return Some(offset);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// A modern `tools/call` or `tasks/get` request in its usual shape, read
/// by [`quick`].
#[derive(Debug, PartialEq)]
pub(crate) struct Quick {
    pub(crate) id: RequestId,
    pub(crate) request: QuickRequest,
    pub(crate) meta: QuickMeta,
}

/// The params of a [`Quick`] request besides `_meta`.
#[derive(Debug, PartialEq)]
pub(crate) enum QuickRequest {
    /// `tools/call`.
    Call {
        name: String,
        /// The arguments; none (absent or `null`) reads as empty.
        arguments: Map<String, Value>,
    },
    /// `tasks/get` (of the tasks extension), which a client polls while
    /// its task runs.
    TaskGet { task_id: String },
}

/// The `_meta` of a quick call, with the two members every request
/// carries read out of it.
#[derive(Debug, PartialEq)]
pub(crate) struct QuickMeta {
    /// The value of the protocol version key, which is present.
    pub(crate) version: Value,
    /// The value of the client capabilities key.
    pub(crate) capabilities: Option<Value>,
    /// The other members.
    pub(crate) others: Map<String, Value>,
}

impl QuickMeta {
    /// The `_meta` object the general path reads.
    pub(crate) fn into_json(self) -> Map<String, Value> {
        let mut meta = self.others;
        meta.insert(mcp_types::meta::PROTOCOL_VERSION.to_owned(), self.version);
        if let Some(capabilities) = self.capabilities {
            meta.insert(
                mcp_types::meta::CLIENT_CAPABILITIES.to_owned(),
                capabilities,
            );
        }
        meta
    }
}

/// Reads the bytes of a modern `tools/call` or `tasks/get` in its usual
/// shape straight into its parts, without a `Value` for the envelope, the
/// params or `_meta`'s keys: most requests a server sees are calls like
/// this (and the polls of the calls that became tasks), and building,
/// searching and dropping those maps costs more than the call.
///
/// The shape: one object with exactly `jsonrpc` (`"2.0"`), an integer or
/// string `id`, `method` (`"tools/call"` or `"tasks/get"`) and `params`;
/// params with an object `_meta` holding the protocol version key and,
/// for `tools/call`, a string `name` and optionally `arguments` (an
/// object or `null`), for `tasks/get` a string `taskId` and nothing else;
/// no key repeated, no other key, nothing after the object, and no escapes
/// in the keys and fixed strings. Values inside `arguments` and `_meta`
/// are read as [`message`] reads them.
///
/// Anything else is `None`, bad input included: such messages take the
/// general path, which reads the shape above into the same parts (the
/// `quick_call` fuzz target and the tests below hold the two to that) and
/// words the errors. The caller checks the limits first.
pub(crate) fn quick(bytes: &[u8]) -> Option<Quick> {
    // Read as a map, which refuses an array (a batch) as the general path
    // does.
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let read = de::Deserializer::deserialize_map(&mut deserializer, QuickEnvelope).ok()?;
    deserializer.end().ok()?;
    Some(read)
}

/// Any failure of the quick reader: the message goes the general way.
fn fallback<E: de::Error>() -> E {
    E::custom("not the quick shape")
}

/// The methods the quick reader takes.
#[derive(Clone, Copy, PartialEq)]
enum QuickMethod {
    Call,
    TaskGet,
}

/// The top level of a quick request.
struct QuickEnvelope;

impl<'de> Visitor<'de> for QuickEnvelope {
    type Value = Quick;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a tools/call or tasks/get request")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Quick, A::Error> {
        let (mut version, mut id, mut method, mut params) = (false, None, None, None);
        while let Some(key) = access.next_key::<&str>()? {
            // Whether the key repeats one already read, or is unknown.
            let refused = match key {
                "jsonrpc" => {
                    if access.next_value::<&str>()? != JSONRPC_VERSION {
                        return Err(fallback());
                    }
                    std::mem::replace(&mut version, true)
                }
                "id" => id.replace(access.next_value::<QuickId>()?.0).is_some(),
                "method" => {
                    let read = match access.next_value::<&str>()? {
                        "tools/call" => QuickMethod::Call,
                        "tasks/get" => QuickMethod::TaskGet,
                        _ => return Err(fallback()),
                    };
                    method.replace(read).is_some()
                }
                "params" => params
                    .replace(access.next_value_seed(QuickSeed(QuickParams))?)
                    .is_some(),
                _ => true,
            };
            if refused {
                return Err(fallback());
            }
        }
        let (true, Some(id), Some(method), Some(params)) = (version, id, method, params) else {
            return Err(fallback());
        };
        let ParamsRead {
            name,
            arguments,
            task_id,
            meta,
        } = params;
        let request = match (method, name, task_id) {
            (QuickMethod::Call, Some(name), None) => QuickRequest::Call {
                name,
                arguments: arguments.flatten().map(|a| a.0).unwrap_or_default(),
            },
            (QuickMethod::TaskGet, None, Some(task_id)) if arguments.is_none() => {
                QuickRequest::TaskGet { task_id }
            }
            _ => return Err(fallback()),
        };
        Ok(Quick { id, request, meta })
    }
}

/// Reads an object with the visitor `V`, and nothing else.
struct QuickSeed<V>(V);

impl<'de, V: Visitor<'de>> DeserializeSeed<'de> for QuickSeed<V> {
    type Value = V::Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<V::Value, D::Error> {
        deserializer.deserialize_map(self.0)
    }
}

/// The params of a quick request, of either method: which of the members
/// suit which method is settled once the method is known (it may follow
/// the params).
struct ParamsRead {
    name: Option<String>,
    /// `Some(None)` is an explicit `null`.
    arguments: Option<Option<QuickObject>>,
    task_id: Option<String>,
    meta: QuickMeta,
}

/// The params of a quick request: `name`, `arguments`, `taskId` and
/// `_meta`, which must be there.
struct QuickParams;

impl<'de> Visitor<'de> for QuickParams {
    type Value = ParamsRead;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("tools/call or tasks/get params")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
        let (mut name, mut arguments, mut task_id, mut meta) = (None, None, None, None);
        while let Some(key) = access.next_key::<&str>()? {
            let refused = match key {
                "name" => name.replace(access.next_value::<String>()?).is_some(),
                "arguments" => arguments
                    .replace(access.next_value::<Option<QuickObject>>()?)
                    .is_some(),
                "taskId" => task_id.replace(access.next_value::<String>()?).is_some(),
                "_meta" => meta
                    .replace(access.next_value_seed(QuickSeed(QuickMetaVisitor))?)
                    .is_some(),
                _ => true,
            };
            if refused {
                return Err(fallback());
            }
        }
        let Some(meta) = meta else {
            return Err(fallback());
        };
        Ok(ParamsRead {
            name,
            arguments,
            task_id,
            meta,
        })
    }
}

/// The `_meta` of a quick call: it must hold the protocol version key.
struct QuickMetaVisitor;

impl<'de> Visitor<'de> for QuickMetaVisitor {
    type Value = QuickMeta;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("request _meta")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<QuickMeta, A::Error> {
        let (mut version, mut capabilities, mut others) = (None, None, Map::new());
        while let Some(key) = access.next_key::<&str>()? {
            let repeated = match key {
                mcp_types::meta::PROTOCOL_VERSION => version
                    .replace(access.next_value_seed(StrictValue)?)
                    .is_some(),
                mcp_types::meta::CLIENT_CAPABILITIES => capabilities
                    .replace(access.next_value_seed(StrictValue)?)
                    .is_some(),
                other => match others.entry(other) {
                    Entry::Occupied(_) => true,
                    Entry::Vacant(entry) => {
                        entry.insert(access.next_value_seed(StrictValue)?);
                        false
                    }
                },
            };
            if repeated {
                return Err(fallback());
            }
        }
        let Some(version) = version else {
            return Err(fallback());
        };
        Ok(QuickMeta {
            version,
            capabilities,
            others,
        })
    }
}

/// An object read as [`StrictValue`] reads it.
struct QuickObject(Map<String, Value>);

impl<'de> serde::Deserialize<'de> for QuickObject {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match deserializer.deserialize_map(StrictValue)? {
            Value::Object(map) => Ok(QuickObject(map)),
            _ => Err(fallback()),
        }
    }
}

/// A request id as the general path accepts it: a string, or an integer
/// that fits an `i64`.
struct QuickId(RequestId);

impl<'de> serde::Deserialize<'de> for QuickId {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(QuickIdVisitor).map(QuickId)
    }
}

struct QuickIdVisitor;

impl Visitor<'_> for QuickIdVisitor {
    type Value = RequestId;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a request id")
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<RequestId, E> {
        Ok(RequestId::Integer(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<RequestId, E> {
        i64::try_from(v)
            .map(RequestId::Integer)
            .map_err(|_| fallback())
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<RequestId, E> {
        Ok(RequestId::String(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<RequestId, E> {
        Ok(RequestId::String(v))
    }
}

/// A `serde_json::Value` that refuses an object with a repeated key.
struct StrictValue;

impl<'de> DeserializeSeed<'de> for StrictValue {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for StrictValue {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        // The parser refuses numbers out of the f64 range, so `v` is finite.
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(StrictValue)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        let mut map = Map::new();
        while let Some(key) = access.next_key::<String>()? {
            match map.entry(key) {
                Entry::Occupied(entry) => {
                    return Err(de::Error::custom(format_args!(
                        "duplicate key `{}`",
                        entry.key().escape_debug()
                    )))
                }
                Entry::Vacant(entry) => {
                    entry.insert(access.next_value_seed(StrictValue)?);
                }
            }
        }
        Ok(Value::Object(map))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn limits(max_depth: usize) -> Limits {
        Limits {
            max_depth,
            ..Limits::default()
        }
    }

    #[test]
    fn depth_counts_containers_outside_strings() {
        assert_eq!(too_deep(b"[[1]]", 2), None);
        assert_eq!(too_deep(b"[[[1]]]", 2), Some(2));
        assert_eq!(too_deep(br#"{"a":"[[[[\"{{{"}"#, 1), None);
        assert_eq!(too_deep(br#"["\\",[[]]]"#, 2), Some(7));
        assert_eq!(too_deep(&[b'['; 1_000_000], 64), Some(64));
    }

    #[test]
    fn parses_like_serde_json() {
        let text = br#"{"a":[1,-2,3.5,"x",null,true,{"b":{}}],"c":18446744073709551615}"#;
        let value = message(text, &Limits::default()).expect("parses");
        assert_eq!(
            value,
            serde_json::from_slice::<Value>(text).expect("serde_json")
        );
    }

    /// What the quick reader makes of `bytes`, if a `tools/call`: its id,
    /// name and arguments.
    fn quick_call(bytes: &[u8]) -> Option<(RequestId, String, Map<String, Value>)> {
        match quick(bytes)? {
            Quick {
                id,
                request: QuickRequest::Call { name, arguments },
                ..
            } => Some((id, name, arguments)),
            _ => None,
        }
    }

    /// What the quick reader makes of `bytes`, if a `tasks/get`: its id
    /// and task id.
    fn quick_task_get(bytes: &[u8]) -> Option<(RequestId, String)> {
        match quick(bytes)? {
            Quick {
                id,
                request: QuickRequest::TaskGet { task_id },
                ..
            } => Some((id, task_id)),
            _ => None,
        }
    }

    /// A `tasks/get` with `params` as given (a JSON object's members).
    fn task_get(params: &str) -> Vec<u8> {
        format!(r#"{{"jsonrpc":"2.0","id":8,"method":"tasks/get","params":{{{params}}}}}"#)
            .into_bytes()
    }

    #[test]
    fn the_quick_reader_takes_the_usual_polls() {
        let usual = [
            task_get(&format!(r#""taskId":"task_abc",{META}"#)),
            task_get(&format!(r#"{META},"taskId":"task_abc""#)),
            br#"{"params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"taskId":"t"},"id":"p","method":"tasks/get","jsonrpc":"2.0"}"#.to_vec(),
        ];
        for bytes in usual {
            assert!(
                quick_task_get(&bytes).is_some(),
                "{}",
                String::from_utf8_lossy(&bytes)
            );
            crate::__fuzz::quick_call(&bytes);
        }
        let read =
            quick_task_get(&task_get(&format!(r#"{META},"taskId":"task_abc""#))).expect("read");
        assert_eq!(read, (RequestId::Integer(8), "task_abc".to_owned()));
        let others = [
            // Not the shape of a poll: the general path words the errors.
            task_get(META),
            task_get(r#""taskId":"t""#),
            task_get(&format!(r#""taskId":7,{META}"#)),
            task_get(&format!(r#""taskId":null,{META}"#)),
            task_get(&format!(r#""taskId":"t","name":"add",{META}"#)),
            task_get(&format!(r#""taskId":"t","arguments":{{}},{META}"#)),
            task_get(&format!(r#""taskId":"t","arguments":null,{META}"#)),
            task_get(&format!(r#""taskId":"t","inputResponses":{{}},{META}"#)),
            task_get(&format!(r#""taskId":"t","taskId":"t",{META}"#)),
            // A call that names a task.
            call(&format!(r#""name":"add","taskId":"t",{META}"#)),
            // Another method of the extension.
            br#"{"jsonrpc":"2.0","id":1,"method":"tasks/cancel","params":{"taskId":"t","_meta":{"io.modelcontextprotocol/protocolVersion":"v"}}}"#.to_vec(),
            br#"{"jsonrpc":"2.0","id":1,"method":"tasks/get","method":"tasks/get","params":{"taskId":"t","_meta":{"io.modelcontextprotocol/protocolVersion":"v"}}}"#.to_vec(),
        ];
        for bytes in others {
            assert!(
                quick(&bytes).is_none(),
                "{}",
                String::from_utf8_lossy(&bytes)
            );
        }
    }

    /// A `tools/call` with `params` as given (a JSON object's members).
    fn call(params: &str) -> Vec<u8> {
        format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{{params}}}}}"#)
            .into_bytes()
    }

    const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

    #[test]
    fn the_quick_reader_takes_the_usual_calls() {
        let usual = [
            call(&format!(r#""name":"add","arguments":{{"a":1,"b":2}},{META}"#)),
            call(&format!(r#"{META},"name":"add""#)),
            call(&format!(r#""name":"a\"dd","arguments":null,{META}"#)),
            call(
                r#""name":"x","arguments":{"deep":{"list":[1,2.5,"s",null,true]}},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"progressToken":"p"}"#,
            ),
            br#" {"params":{"_meta":{"io.modelcontextprotocol/protocolVersion":1},"name":"n"},"method":"tools/call","id":"x\u0041","jsonrpc":"2.0"} "#.to_vec(),
        ];
        for bytes in usual {
            assert!(
                quick_call(&bytes).is_some(),
                "{}",
                String::from_utf8_lossy(&bytes)
            );
            crate::__fuzz::quick_call(&bytes);
        }
        let first = call(&format!(
            r#""name":"add","arguments":{{"a":1,"b":2}},{META}"#
        ));
        let (id, name, arguments) = quick_call(&first).expect("read");
        assert_eq!((id, name.as_str()), (RequestId::Integer(7), "add"));
        assert_eq!(Value::Object(arguments), json!({"a": 1, "b": 2}));
    }

    #[test]
    fn the_quick_reader_leaves_the_rest_to_the_general_path() {
        let others = [
            // Not the shape.
            call(&format!(r#""name":"add","arguments":[1],{META}"#)),
            call(&format!(r#""name":"add","arguments":"x",{META}"#)),
            call(&format!(r#""name":5,{META}"#)),
            call(&format!(r#""arguments":{{}},{META}"#)),
            call(r#""name":"add""#),
            call(r#""name":"add","_meta":{}"#),
            call(r#""name":"add","_meta":{"io.modelcontextprotocol/clientCapabilities":{}}"#),
            call(&format!(r#""name":"add","requestState":"s",{META}"#)),
            call(&format!(r#""name":"add","inputResponses":{{}},{META}"#)),
            // Repeated keys, at every level.
            call(&format!(r#""name":"add","name":"add",{META}"#)),
            call(&format!(r#""name":"add","arguments":{{"a":1,"a":1}},{META}"#)),
            call(&format!(r#""name":"add",{META},{META}"#)),
            call(r#""name":"add","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#),
            call(r#""name":"add","_meta":{"io.modelcontextprotocol/protocolVersion":"v","x":1,"x":2}"#),
            br#"{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","_meta":{"io.modelcontextprotocol/protocolVersion":"v"}}}"#.to_vec(),
            // Another envelope.
            br#"{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"a","_meta":{"io.modelcontextprotocol/protocolVersion":"v"}}}"#.to_vec(),
            br#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"a","_meta":{"io.modelcontextprotocol/protocolVersion":"v"}}}"#.to_vec(),
            br#"{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"a","_meta":{"io.modelcontextprotocol/protocolVersion":"v"}}}"#.to_vec(),
            br#"{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"a","_meta":{"io.modelcontextprotocol/protocolVersion":"v"}}}"#.to_vec(),
            br#"{"jsonrpc":"2.0","id":9223372036854775808,"method":"tools/call","params":{"name":"a","_meta":{"io.modelcontextprotocol/protocolVersion":"v"}}}"#.to_vec(),
            br#"{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"a","_meta":{"io.modelcontextprotocol/protocolVersion":"v"}}}"#.to_vec(),
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","_meta":{"io.modelcontextprotocol/protocolVersion":"v"}},"extra":1}"#.to_vec(),
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","_meta":{"io.modelcontextprotocol/protocolVersion":"v"}}} x"#.to_vec(),
            br#"["2.0",1,"tools/call",{"name":"a","_meta":{"io.modelcontextprotocol/protocolVersion":"v"}}]"#.to_vec(),
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":["a",null,{"io.modelcontextprotocol/protocolVersion":"v"}]}"#.to_vec(),
            br#"{"jsonrpc":"2.0","id":1,"method":"tools\/call","params":{"name":"a","_meta":{"io.modelcontextprotocol/protocolVersion":"v"}}}"#.to_vec(),
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","_meta":{"io.modelcontextprotocol/protocolVersion":"v"}}"#.to_vec(),
        ];
        for bytes in others {
            assert!(
                quick(&bytes).is_none(),
                "{}",
                String::from_utf8_lossy(&bytes)
            );
        }
    }

    #[test]
    fn refusals() {
        let e = message(br#"{"id":1,"id":2}"#, &Limits::default()).expect_err("duplicate");
        assert_eq!((e.status, e.error.code), (400, -32700));
        assert!(e.error.message.contains("duplicate key `id`"));
        let e = message(br#"{"a":{"b":1,"b":1}}"#, &Limits::default()).expect_err("nested");
        assert!(e.error.message.contains("duplicate key `b`"));
        let e = message(b"[[[]]]", &limits(2)).expect_err("deep");
        assert_eq!((e.status, e.error.code), (400, -32600));
        let e = message(
            &[b' '; 10],
            &Limits {
                max_message_bytes: 9,
                ..Limits::default()
            },
        )
        .expect_err("large");
        assert_eq!((e.status, e.error.code), (413, -32600));
        let e = message(b"{} x", &Limits::default()).expect_err("trailing");
        assert_eq!(e.error.code, -32700);
        assert_eq!(
            message(b" {\"a\":[]}\r\n", &Limits::default()).expect("spaces"),
            json!({"a": []})
        );
    }
}
