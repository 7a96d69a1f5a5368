//! Hostile schemas: every one either compiles within the bounds or fails
//! with the error that names the bound, never by overflowing the stack or
//! expanding without end.

use mcp_agent::schema::{compile, Action, CompileError, Target, MAX_DEPTH, MAX_ENUM, MAX_NODES};
use serde_json::{json, Value};

/// `levels` objects nested through a property `a`, built and taken apart
/// without recursion so the test itself cannot overflow the stack.
struct Deep(Value);

impl Deep {
    fn new(levels: usize) -> Self {
        let mut v = json!({"type": "string"});
        for _ in 0..levels {
            // Built by hand: `json!` would serialise `v` again, recursively.
            let mut properties = serde_json::Map::new();
            properties.insert("a".into(), v);
            let mut node = serde_json::Map::new();
            node.insert("type".into(), "object".into());
            node.insert("properties".into(), Value::Object(properties));
            v = Value::Object(node);
        }
        Deep(v)
    }
}

impl Drop for Deep {
    fn drop(&mut self) {
        let mut next = self.0.take();
        while let Some(inner) = next.pointer_mut("/properties/a").map(Value::take) {
            next = inner;
        }
    }
}

#[test]
fn ten_thousand_levels_fail_with_too_deep_for_every_target() {
    let deep = Deep::new(10_000);
    for target in Target::ALL {
        match compile(&deep.0, target) {
            Err(CompileError::TooDeep { limit, .. }) => assert_eq!(limit, MAX_DEPTH),
            other => panic!("{target:?}: expected TooDeep, got {other:?}"),
        }
    }
}

#[test]
fn nesting_just_inside_the_bound_compiles() {
    let deep = Deep::new(MAX_DEPTH / 2);
    for target in Target::ALL {
        assert!(compile(&deep.0, target).is_ok(), "{target:?}");
    }
    // OpenAI strict stops at 10 levels of objects, and says so.
    let eleven = Deep::new(11);
    let compiled = compile(&eleven.0, Target::OpenAi).unwrap();
    assert!(!compiled.strict);
    assert_eq!(compiled.loss.count(Action::NotStrict), 1);
}

/// 30 definitions, each referring to the next twice: 2^30 copies inlined.
fn fan_out() -> Value {
    let mut defs = serde_json::Map::new();
    for i in 0..30 {
        let next = format!("#/$defs/D{}", i + 1);
        defs.insert(
            format!("D{i}"),
            json!({"type": "object", "properties": {"a": {"$ref": next}, "b": {"$ref": next}}, "required": ["a", "b"], "additionalProperties": false}),
        );
    }
    defs.insert("D30".into(), json!({"type": "string"}));
    json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/D0"}}, "required": ["x"], "additionalProperties": false, "$defs": defs})
}

#[test]
fn reference_fan_out_fails_within_the_budget_where_it_must_be_inlined() {
    match compile(&fan_out(), Target::Gemini) {
        Err(CompileError::TooLarge { limit, .. }) => assert_eq!(limit, MAX_NODES),
        other => panic!("expected TooLarge, got {other:?}"),
    }
}

#[test]
fn reference_fan_out_stays_linear_where_references_are_kept() {
    let schema = fan_out();
    let openai = compile(&schema, Target::OpenAi).unwrap();
    assert!(openai.strict);
    assert_eq!(openai.parameters["$defs"].as_object().unwrap().len(), 31);
    assert!(openai.loss.is_empty(), "{:?}", openai.loss);
    let anthropic = compile(&schema, Target::Anthropic).unwrap();
    assert_eq!(anthropic.parameters, schema);
}

#[test]
fn a_hundred_thousand_enum_values_are_cut_and_reported() {
    let values: Vec<Value> = (0..100_000).map(|i| Value::from(format!("v{i}"))).collect();
    let schema = json!({"type": "object", "properties": {"e": {"type": "string", "enum": values}}, "required": ["e"]});
    for target in Target::ALL {
        let compiled = compile(&schema, target).unwrap();
        let kept = compiled.parameters["properties"]["e"]["enum"]
            .as_array()
            .unwrap();
        assert_eq!(kept.len(), MAX_ENUM, "{target:?}");
        assert_eq!(kept[0], "v0");
        assert_eq!(
            compiled
                .loss
                .at("/properties/e", "enum")
                .filter(|l| l.action == Action::Rewritten)
                .count(),
            1,
            "{target:?}"
        );
        assert!(
            !compiled.strict,
            "strict takes at most 1000 enum values in all"
        );
    }
    let openai = compile(&schema, Target::OpenAi).unwrap();
    assert_eq!(
        openai
            .loss
            .at("/properties/e", "enum")
            .filter(|l| l.action == Action::NotStrict)
            .count(),
        1
    );
}

#[test]
fn boolean_property_schemas() {
    let schema = json!({"type": "object", "properties": {"any": true, "never": false}});
    let gemini = compile(&schema, Target::Gemini).unwrap();
    assert_eq!(
        gemini.parameters,
        json!({"type": "OBJECT", "properties": {"any": {}}})
    );
    assert_eq!(gemini.loss.at("/properties/any", "true").count(), 1);
    assert_eq!(gemini.loss.at("/properties/never", "false").count(), 1);
    let openai = compile(&schema, Target::OpenAi).unwrap();
    assert!(!openai.strict);
    assert_eq!(openai.parameters, schema);
}

#[test]
fn references_that_go_nowhere() {
    let schema = json!({"type": "object", "properties": {"r": {"$ref": "https://example.com/s.json"}, "m": {"$ref": "#/$defs/Missing"}}});
    let openai = compile(&schema, Target::OpenAi).unwrap();
    assert!(!openai.strict);
    let gemini = compile(&schema, Target::Gemini).unwrap();
    assert_eq!(
        gemini.parameters,
        json!({"type": "OBJECT", "properties": {"r": {}, "m": {}}, "propertyOrdering": ["m", "r"]})
    );
    assert_eq!(gemini.loss.count(Action::Dropped), 2);
}

#[test]
fn references_that_loop_on_themselves() {
    // A definition that is only a reference to itself, and two that refer to
    // each other: bounded for every target.
    let schema = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}, "b": {"$ref": "#/$defs/B"}},
        "$defs": {"A": {"$ref": "#/$defs/A"}, "B": {"$ref": "#/$defs/C"}, "C": {"$ref": "#/$defs/B"}}});
    for target in Target::ALL {
        let compiled = compile(&schema, target);
        assert!(compiled.is_ok(), "{target:?}: {compiled:?}");
    }
    let gemini = compile(&schema, Target::Gemini).unwrap();
    assert!(gemini.loss.count(Action::Cut) >= 2);
    let openai = compile(&schema, Target::OpenAi).unwrap();
    let restored = openai.restore(json!({"a": {"x": null}, "b": null}));
    assert_eq!(restored.arguments, json!({"a": {"x": null}}));
}

#[test]
fn strict_size_limits_fall_back_to_non_strict() {
    // 200 enums of 5 members each pass; one more member crosses 1000.
    let mut props = serde_json::Map::new();
    for i in 0..200 {
        props.insert(
            format!("e{i}"),
            json!({"type": "string", "enum": ["a", "b", "c", "d", "e"]}),
        );
    }
    let at_limit =
        json!({"type": "object", "properties": props.clone(), "additionalProperties": false});
    assert!(compile(&at_limit, Target::OpenAi).unwrap().strict);
    props.insert("extra".into(), json!({"type": "string", "enum": ["z"]}));
    let over = json!({"type": "object", "properties": props, "additionalProperties": false});
    let compiled = compile(&over, Target::OpenAi).unwrap();
    assert!(!compiled.strict);
    assert_eq!(
        compiled
            .loss
            .at("/properties/extra", "enum")
            .filter(|l| l.action == Action::NotStrict)
            .count(),
        1
    );
    // Property names past 120,000 characters.
    let mut long = serde_json::Map::new();
    for i in 0..130 {
        long.insert(
            format!("{i:04}{}", "n".repeat(996)),
            json!({"type": "string"}),
        );
    }
    let compiled = compile(
        &json!({"type": "object", "properties": long}),
        Target::OpenAi,
    )
    .unwrap();
    assert!(!compiled.strict);
    assert_eq!(compiled.loss.count(Action::NotStrict), 1);
}

#[test]
fn long_type_and_required_arrays_cost_their_length_only() {
    let kinds: Vec<Value> = (0..100_000)
        .map(|i| Value::from(if i % 2 == 0 { "string" } else { "integer" }))
        .collect();
    let names: Vec<Value> = (0..100_000).map(|i| Value::from(format!("r{i}"))).collect();
    let schema = json!({"type": "object", "properties": {"t": {"type": kinds}, "r": {"type": "object", "properties": {"r1": {"type": "string"}}, "required": names}}});
    let gemini = compile(&schema, Target::Gemini).unwrap();
    assert_eq!(
        gemini.parameters["properties"]["t"],
        json!({"anyOf": [{"type": "STRING"}, {"type": "INTEGER"}]})
    );
    assert_eq!(
        gemini.parameters["properties"]["r"]["required"],
        json!(["r1"])
    );
    let openai = compile(&schema, Target::OpenAi).unwrap();
    assert!(
        !openai.strict,
        "required names that are not properties have no strict form"
    );
}

#[test]
fn object_keywords_on_a_string_are_reported_where_they_are_left_out() {
    let schema = json!({"type": "object", "properties": {"s": {"type": "string", "properties": {"x": {}}, "required": ["x"]}}, "required": ["s"]});
    for target in [Target::OpenAi, Target::Gemini] {
        let compiled = compile(&schema, target).unwrap();
        assert!(
            compiled.parameters["properties"]["s"]
                .get("properties")
                .is_none(),
            "{target:?}"
        );
        assert_eq!(
            compiled.loss.at("/properties/s", "properties").count(),
            1,
            "{target:?}"
        );
        assert_eq!(
            compiled.loss.at("/properties/s", "required").count(),
            1,
            "{target:?}"
        );
    }
}
