//! What of a tool definition is hashed.
//!
//! The *definition* digest covers the tool object as the server lists it,
//! less its `_meta` (metadata about the listing, not the tool). The *shape*
//! digest covers the same object with the prose a person reads stripped:
//! the tool's `title`, `description` and `icons`, `annotations.title`, and
//! the `title` and `description` keywords of every schema inside
//! `inputSchema` and `outputSchema`. Schemas are walked by keyword, so a
//! property that happens to be *named* `description` is kept, and so are
//! `const`, `enum`, `default` and `examples` values. Two definitions with
//! the same shape accept the same arguments and promise the same output.

use serde_json::{Map, Value};

use crate::jcs::digest;

/// The two digests of one tool definition (SHA-256 of RFC 8785 JSON, hex).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolDigests {
    /// Of the definition as served, less `_meta`.
    pub definition: String,
    /// Of the definition without its titles, descriptions and icons.
    pub shape: String,
}

/// Both digests of `tool`, a `Tool` object as `tools/list` returns it.
pub fn tool(tool: &Value) -> ToolDigests {
    let definition = without_meta(tool);
    let shape = strip_prose(&definition);
    ToolDigests {
        definition: digest(&definition),
        shape: digest(&shape),
    }
}

fn without_meta(tool: &Value) -> Value {
    match tool {
        Value::Object(map) => {
            let mut map = map.clone();
            map.remove("_meta");
            Value::Object(map)
        }
        other => other.clone(),
    }
}

/// `tool` without the prose a person reads; see the module docs.
pub fn strip_prose(tool: &Value) -> Value {
    let Value::Object(map) = tool else {
        return tool.clone();
    };
    let mut out = Map::new();
    for (key, value) in map {
        match key.as_str() {
            "title" | "description" | "icons" => {}
            "inputSchema" | "outputSchema" => {
                out.insert(key.clone(), schema(value, 0));
            }
            "annotations" => {
                let mut value = value.clone();
                if let Value::Object(annotations) = &mut value {
                    annotations.remove("title");
                }
                out.insert(key.clone(), value);
            }
            _ => {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    Value::Object(out)
}

/// Deeper schemas are kept as they are: the digest stays total and bounded.
const MAX_DEPTH: usize = 128;

/// Keywords whose value is a schema.
const SCHEMA: &[&str] = &[
    "items",
    "additionalItems",
    "additionalProperties",
    "unevaluatedItems",
    "unevaluatedProperties",
    "propertyNames",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "contentSchema",
];

/// Keywords whose value is an array of schemas.
const SCHEMA_ARRAY: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];

/// Keywords whose value is an object of schemas.
const SCHEMA_MAP: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

fn schema(value: &Value, depth: usize) -> Value {
    let Value::Object(map) = value else {
        return value.clone();
    };
    if depth > MAX_DEPTH {
        return value.clone();
    }
    let mut out = Map::new();
    for (key, value) in map {
        let key_str = key.as_str();
        let stripped = if key_str == "title" || key_str == "description" {
            continue;
        } else if SCHEMA.contains(&key_str) {
            match value {
                // Draft-07 tuple `items`.
                Value::Array(items) => {
                    Value::Array(items.iter().map(|s| schema(s, depth + 1)).collect())
                }
                _ => schema(value, depth + 1),
            }
        } else if SCHEMA_ARRAY.contains(&key_str) {
            match value {
                Value::Array(items) => {
                    Value::Array(items.iter().map(|s| schema(s, depth + 1)).collect())
                }
                other => other.clone(),
            }
        } else if SCHEMA_MAP.contains(&key_str) {
            match value {
                Value::Object(schemas) => Value::Object(
                    schemas
                        .iter()
                        .map(|(k, s)| (k.clone(), schema(s, depth + 1)))
                        .collect(),
                ),
                other => other.clone(),
            }
        } else {
            value.clone()
        };
        out.insert(key.clone(), stripped);
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn base() -> Value {
        json!({
            "name": "search",
            "title": "Search",
            "description": "Finds things.",
            "icons": [{"src": "https://example.com/i.png"}],
            "annotations": {"title": "Search", "readOnlyHint": true},
            "inputSchema": {
                "type": "object",
                "title": "Args",
                "properties": {
                    "description": {"type": "string", "description": "A property named description."},
                    "mode": {"enum": ["a", "b"], "default": "a", "description": "How."},
                    "filter": {"anyOf": [{"type": "string", "title": "Text"}, {"type": "null"}]}
                },
                "$defs": {"X": {"type": "integer", "description": "An X."}},
                "required": ["description"]
            },
            "outputSchema": {"type": "object", "properties": {"hits": {"type": "array", "items": {"type": "string", "description": "A hit."}}}},
            "_meta": {"io.example/served": 1}
        })
    }

    #[test]
    fn meta_is_not_part_of_the_definition() {
        let mut other = base();
        other["_meta"] = json!({"io.example/served": 2});
        assert_eq!(tool(&base()), tool(&other));
    }

    #[test]
    fn prose_changes_keep_the_shape() {
        let mut other = base();
        other["description"] = json!("Finds more things.");
        other["title"] = json!("Find");
        other["annotations"]["title"] = json!("Find");
        other["inputSchema"]["properties"]["mode"]["description"] = json!("Which way.");
        other["inputSchema"]["$defs"]["X"]["description"] = json!("Another X.");
        other["outputSchema"]["properties"]["hits"]["items"]["description"] = json!("One.");
        other["inputSchema"]["properties"]["filter"]["anyOf"][0]["title"] = json!("T");
        let (a, b) = (tool(&base()), tool(&other));
        assert_ne!(a.definition, b.definition);
        assert_eq!(a.shape, b.shape);
    }

    #[test]
    fn structural_changes_change_the_shape() {
        let changes: [fn(&mut Value); 6] = [
            |t| t["inputSchema"]["required"] = json!(["description", "mode"]),
            |t| t["inputSchema"]["properties"]["mode"]["enum"] = json!(["a", "c"]),
            |t| t["inputSchema"]["properties"]["mode"]["default"] = json!("b"),
            // A property named `description` is a property, not prose.
            |t| {
                t["inputSchema"]["properties"]
                    .as_object_mut()
                    .map(|p| p.remove("description"));
            },
            |t| t["annotations"]["readOnlyHint"] = json!(false),
            |t| t["outputSchema"]["properties"]["hits"]["items"]["type"] = json!("integer"),
        ];
        for change in changes {
            let mut other = base();
            change(&mut other);
            assert_ne!(tool(&base()).shape, tool(&other).shape, "{other}");
        }
    }

    #[test]
    fn key_order_and_number_spelling_do_not_matter() {
        let a: Value = serde_json::from_str(
            r#"{"name": "t", "inputSchema": {"type": "object", "properties": {"n": {"type": "number", "maximum": 10}}}}"#,
        )
        .expect("json");
        let b: Value = serde_json::from_str(
            r#"{"inputSchema": {"properties": {"n": {"maximum": 10.0, "type": "number"}}, "type": "object"}, "name": "t"}"#,
        )
        .expect("json");
        assert_eq!(tool(&a), tool(&b));
    }

    #[test]
    fn deep_schemas_are_bounded() {
        let mut deep = json!({"type": "string", "description": "leaf"});
        for _ in 0..300 {
            deep = json!({"not": deep});
        }
        let t =
            json!({"name": "deep", "inputSchema": {"type": "object", "properties": {"x": deep}}});
        assert_eq!(tool(&t).shape.len(), 64);
    }
}
