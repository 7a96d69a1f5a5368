//! Turning the bytes of one incoming message into JSON, within the limits:
//! a size cap, a nesting cap checked before any parsing, and a parser that
//! refuses duplicate object keys, so that the server never reads a message
//! differently from a proxy or log that kept the first of two keys.

use std::fmt;

use mcp_types::jsonrpc::ErrorObject;
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
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let value = StrictValue
        .deserialize(&mut deserializer)
        .and_then(|value| deserializer.end().map(|()| value));
    value.map_err(|e| Refusal {
        status: 400,
        error: ErrorObject::parse_error(format!("Parse error: {e}")),
    })
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
    // `[` is 0x5b and `{` is 0x7b: they differ only in bit 0x20.
    let opening: usize = bytes.iter().map(|&b| usize::from(b | 0x20 == b'{')).sum();
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
