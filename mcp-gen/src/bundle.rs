//! Definitions that carry `$defs` of their own.
//!
//! Bundlers that write one standalone schema per definition (zod's
//! `toJSONSchema`, as the MCP Apps schema is made) keep each one's helper
//! schemas in a nested `$defs` and refer to them as `#/$defs/Name`, as if
//! the definition were the document. Strictly, such a reference resolves at
//! the document root, where the name is missing. Before lowering, each
//! nested `$defs` entry whose name the root does not define is moved up to
//! the root's `$defs`, so those references resolve, recursive ones
//! included. Identical copies in several definitions become one; a root
//! definition of the same name wins, as JSON Schema says it does.

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::error::{child, Error};

/// `schema` with the nested `$defs` of its definitions moved to the root;
/// borrowed unchanged when no definition has any.
///
/// # Errors
/// When two definitions embed different schemas under the same name that
/// the root does not define: a reference to it would be ambiguous.
pub(crate) fn hoist_nested_defs(schema: &Value) -> Result<Cow<'_, Value>, Error> {
    let Some(defs) = schema.get("$defs").and_then(Value::as_object) else {
        return Ok(Cow::Borrowed(schema));
    };
    let nested = |def: &Value| def.get("$defs").and_then(Value::as_object).cloned();
    if !defs.values().any(|def| nested(def).is_some()) {
        return Ok(Cow::Borrowed(schema));
    }
    let mut hoisted: Map<String, Value> = Map::new();
    let mut out = defs.clone();
    for (key, def) in defs {
        let Some(inner) = nested(def) else { continue };
        let pointer = child(&child("", "$defs"), key);
        for (name, helper) in inner {
            if defs.contains_key(&name) {
                continue;
            }
            match hoisted.get(&name) {
                Some(earlier) if *earlier != helper => {
                    return Err(Error::Unsupported {
                        pointer: child(&child(&pointer, "$defs"), &name),
                        what: format!(
                            "another definition embeds a different `$defs/{name}`, \
                             so `#/$defs/{name}` is ambiguous"
                        ),
                    });
                }
                _ => {
                    hoisted.insert(name, helper);
                }
            }
        }
        if let Some(Value::Object(def)) = out.get_mut(key) {
            def.remove("$defs");
        }
    }
    out.extend(hoisted);
    let mut root = schema.clone();
    root["$defs"] = Value::Object(out);
    Ok(Cow::Owned(root))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn helper() -> Value {
        json!({"anyOf": [{"type": "string"}, {"type": "array", "items": {"$ref": "#/$defs/h"}}]})
    }

    #[test]
    fn nested_helpers_move_to_the_root_once() {
        let schema = json!({"$defs": {
            "A": {"$defs": {"h": helper()}, "type": "object", "properties": {"x": {"$ref": "#/$defs/h"}}},
            "B": {"$defs": {"h": helper()}, "type": "object", "properties": {"y": {"$ref": "#/$defs/h"}}}
        }});
        let out = hoist_nested_defs(&schema).expect("hoists");
        let defs = out["$defs"].as_object().expect("defs");
        assert_eq!(defs.keys().collect::<Vec<_>>(), ["A", "B", "h"], "{defs:?}");
        assert_eq!(defs["h"], helper());
        assert!(defs["A"].get("$defs").is_none());
    }

    #[test]
    fn a_root_definition_of_the_same_name_wins() {
        let schema = json!({"$defs": {
            "h": {"type": "integer"},
            "A": {"$defs": {"h": helper()}, "$ref": "#/$defs/h"}
        }});
        let out = hoist_nested_defs(&schema).expect("hoists");
        assert_eq!(out["$defs"]["h"], json!({"type": "integer"}));
        assert_eq!(out["$defs"]["A"], json!({"$ref": "#/$defs/h"}));
    }

    #[test]
    fn different_helpers_of_one_name_are_refused() {
        let schema = json!({"$defs": {
            "A": {"$defs": {"h": helper()}},
            "B": {"$defs": {"h": {"type": "boolean"}}}
        }});
        let error = hoist_nested_defs(&schema).expect_err("ambiguous");
        assert_eq!(error.pointer(), Some("/$defs/B/$defs/h"));
    }

    #[test]
    fn a_schema_without_nested_defs_is_borrowed() {
        let schema = json!({"$defs": {"A": {"type": "string"}}});
        assert!(matches!(
            hoist_nested_defs(&schema).expect("ok"),
            Cow::Borrowed(_)
        ));
    }
}
