//! The restore plan: the model's arguments for an OpenAI strict schema
//! mapped back to what the original schema expects, checked with a JSON
//! Schema validator on both sides.

use mcp_agent::schema::{compile, Target};
use serde_json::{json, Value};

fn valid(schema: &Value, instance: &Value) -> bool {
    jsonschema::validator_for(schema)
        .unwrap_or_else(|e| panic!("{schema} is not a schema: {e}"))
        .is_valid(instance)
}

struct Row {
    name: &'static str,
    schema: Value,
    model: Value,
    restored: Value,
    stripped: &'static [&'static str],
}

#[test]
fn nulls_the_compiler_added_are_removed_at_every_depth() {
    let nested = json!({"type": "object", "properties": {
        "outer": {"type": "object", "properties": {"inner": {"type": "string"}, "req": {"type": "string"}}, "required": ["req"]},
        "list": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "integer"}}}},
        "keep": {"type": ["string", "null"]}}});
    let tree = json!({"type": "object", "properties": {"top": {"$ref": "#/$defs/Node"}}, "required": ["top"],
        "$defs": {"Node": {"type": "object", "properties": {"value": {"type": "string"},
            "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}, "required": ["value"]}}});
    let list = json!({"type": "object", "properties": {"value": {"type": "integer"}, "next": {"$ref": "#"}}, "required": ["value"]});
    let union = json!({"type": "object", "properties": {"shape": {"anyOf": [
        {"type": "object", "properties": {"r": {"type": "number"}}, "required": ["r"]},
        {"type": "object", "properties": {"w": {"type": "number"}, "h": {"type": "number"}}, "required": ["w"]}]}},
        "required": ["shape"]});
    let rows = vec![
        Row {
            name: "nested objects and arrays of objects",
            schema: nested.clone(),
            model: json!({"outer": {"inner": null, "req": "r"}, "list": [{"x": null}, {"x": 3}], "keep": null}),
            restored: json!({"outer": {"req": "r"}, "list": [{}, {"x": 3}], "keep": null}),
            stripped: &["/list/0/x", "/outer/inner"],
        },
        Row {
            name: "an optional object itself null",
            schema: nested,
            model: json!({"outer": null, "list": null, "keep": "k"}),
            restored: json!({"keep": "k"}),
            stripped: &["/list", "/outer"],
        },
        Row {
            name: "a recursive tree through $defs",
            schema: tree,
            model: json!({"top": {"value": "a", "children": [{"value": "b", "children": null}, {"value": "c", "children": []}]}}),
            restored: json!({"top": {"value": "a", "children": [{"value": "b"}, {"value": "c", "children": []}]}}),
            stripped: &["/top/children/0/children"],
        },
        Row {
            name: "a linked list through the root",
            schema: list,
            model: json!({"value": 1, "next": {"value": 2, "next": {"value": 3, "next": null}}}),
            restored: json!({"value": 1, "next": {"value": 2, "next": {"value": 3}}}),
            stripped: &["/next/next/next"],
        },
        Row {
            name: "the branch of a union that fits",
            schema: union,
            model: json!({"shape": {"w": 2, "h": null}}),
            restored: json!({"shape": {"w": 2}}),
            stripped: &["/shape/h"],
        },
    ];
    for row in rows {
        let compiled = compile(&row.schema, Target::OpenAi).unwrap();
        assert!(compiled.strict, "{}", row.name);
        assert!(
            valid(&compiled.parameters, &row.model),
            "{}: the model's arguments fit the compiled schema",
            row.name
        );
        assert!(
            !valid(&row.schema, &row.model) || row.stripped.is_empty(),
            "{}: the row needs restoring",
            row.name
        );
        let restored = compiled.restore(row.model);
        assert_eq!(restored.arguments, row.restored, "{}", row.name);
        assert_eq!(restored.stripped, row.stripped, "{}", row.name);
        assert!(
            valid(&row.schema, &restored.arguments),
            "{}: restored fits the original",
            row.name
        );
    }
}

#[test]
fn other_targets_and_non_strict_restore_nothing() {
    let schema = json!({"type": "object", "properties": {"a": {"type": "string"}, "m": {"type": "object", "additionalProperties": true}}});
    let args = json!({"a": null, "m": {"k": null}});
    for target in Target::ALL {
        let compiled = compile(&schema, target).unwrap();
        assert!(!compiled.strict);
        let restored = compiled.restore(args.clone());
        assert_eq!(restored.arguments, args, "{target:?}");
        assert!(restored.stripped.is_empty());
    }
}

#[test]
fn values_that_do_not_fit_pass_through() {
    let schema = json!({"type": "object", "properties": {"o": {"type": "object", "properties": {"x": {"type": "string"}}}}});
    let compiled = compile(&schema, Target::OpenAi).unwrap();
    for args in [
        json!("text"),
        json!([1, null]),
        json!({"o": [null]}),
        json!({"o": 5, "extra": null}),
    ] {
        let restored = compiled.restore(args.clone());
        assert_eq!(restored.arguments, args);
        assert!(restored.stripped.is_empty());
    }
}

#[test]
fn gemini_members_a_closed_original_does_not_declare_are_removed() {
    let schema = json!({"type": "object", "additionalProperties": false,
        "properties": {
            "p": {"$ref": "#/$defs/P"},
            "list": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "integer"}}, "additionalProperties": false}},
            "open": {"type": "object", "properties": {"y": {"type": "string"}}}},
        "$defs": {"P": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false}}});
    let compiled = compile(&schema, Target::Gemini).unwrap();
    assert_eq!(compiled.loss.at("", "additionalProperties").count(), 1);
    let model = json!({"p": {"a": "s", "b": 1}, "list": [{"x": 1, "z": 2}], "open": {"y": "k", "extra": true}, "junk": 0});
    assert!(!valid(&schema, &model));
    let restored = compiled.restore(model);
    assert_eq!(
        restored.arguments,
        json!({"p": {"a": "s"}, "list": [{"x": 1}], "open": {"y": "k", "extra": true}})
    );
    assert_eq!(restored.removed, ["/junk", "/list/0/z", "/p/b"]);
    assert!(restored.stripped.is_empty());
    assert!(valid(&schema, &restored.arguments));
}
