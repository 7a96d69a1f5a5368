//! Bad input gives a typed error that names the schema node, never a panic.

use proptest::prelude::*;
use serde_json::{json, Value};

fn error(schema: Value) -> mcp_gen::Error {
    match mcp_gen::Settings::new().generate(&schema) {
        Ok(code) => panic!("{schema} generated:\n{code}"),
        Err(e) => e,
    }
}

#[test]
fn an_unresolved_ref_names_its_pointer() {
    let e = error(
        json!({"$defs": {"A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/Missing"}}}}}),
    );
    assert!(matches!(e, mcp_gen::Error::UnresolvedRef { .. }), "{e:?}");
    assert_eq!(e.pointer(), Some("/$defs/A/properties/b"));
    assert!(e.to_string().contains("#/$defs/Missing"), "{e}");
    let e = error(json!({"$defs": {"A": {"$ref": "other.json#/A"}}}));
    assert!(matches!(e, mcp_gen::Error::UnresolvedRef { .. }), "{e:?}");
}

#[test]
fn a_malformed_keyword_names_the_keyword() {
    let e = error(
        json!({"$defs": {"A": {"type": "object", "properties": {"x": {"type": "string"}}, "required": "x"}}}),
    );
    assert!(
        matches!(
            e,
            mcp_gen::Error::InvalidKeyword {
                keyword: "required",
                ..
            }
        ),
        "{e:?}"
    );
    assert_eq!(e.pointer(), Some("/$defs/A"));
    let e = error(json!({"$defs": {"A": {"type": 7}}}));
    assert!(
        matches!(
            e,
            mcp_gen::Error::InvalidKeyword {
                keyword: "type",
                ..
            }
        ),
        "{e:?}"
    );
    let e = error(json!({"$defs": {"A": {"anyOf": {"type": "string"}}}}));
    assert!(
        matches!(
            e,
            mcp_gen::Error::InvalidKeyword {
                keyword: "anyOf",
                ..
            }
        ),
        "{e:?}"
    );
}

#[test]
fn non_schemas_and_unsupported_constructs_are_errors() {
    let e = error(json!({"$defs": {"A": {"type": "object", "properties": {"x": 3}}}}));
    assert!(matches!(e, mcp_gen::Error::NotASchema { .. }), "{e:?}");
    assert_eq!(e.pointer(), Some("/$defs/A/properties/x"));
    let e = error(json!({"$defs": {"A": false}}));
    assert!(matches!(e, mcp_gen::Error::Unsupported { .. }), "{e:?}");
    let e = error(
        json!({"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"allOf": [{"$ref": "#/$defs/C"}]}, "C": {"allOf": [{"$ref": "#/$defs/B"}]}}}),
    );
    assert!(matches!(e, mcp_gen::Error::Unsupported { .. }), "{e:?}");
    let e = error(json!([1, 2]));
    assert!(matches!(e, mcp_gen::Error::NotASchema { .. }), "{e:?}");
}

#[test]
fn deep_nesting_is_refused_not_overflowed() {
    let mut schema = json!({"type": "string"});
    for _ in 0..400 {
        schema = json!({"type": "object", "properties": {"x": schema}});
    }
    let e = error(json!({"$defs": {"Deep": schema}}));
    assert!(matches!(e, mcp_gen::Error::Unsupported { .. }), "{e:?}");
}

#[test]
fn a_bad_replacement_is_an_error() {
    let e = mcp_gen::Settings::new()
        .replace("A", "not a type !")
        .generate(&json!({"$defs": {"A": {"type": "string"}}}))
        .expect_err("bad replacement");
    assert!(
        matches!(e, mcp_gen::Error::InvalidReplacement { .. }),
        "{e:?}"
    );
}

/// Schema-like JSON: the keywords the generator reads, with values of every
/// kind, so that both valid and broken schemas come up.
fn schema_like() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(json!({"type": "string"})),
        Just(json!({"type": ["integer", "null"]})),
        Just(json!({"const": "x"})),
        Just(json!({"enum": ["a", "b", 1]})),
        Just(json!({"$ref": "#/$defs/A"})),
        Just(json!({"$ref": "#/$defs/Nope"})),
        Just(json!({"$ref": "#"})),
        Just(json!(true)),
        Just(json!(false)),
        Just(json!(3)),
        Just(json!({"type": "array"})),
        Just(json!({"additionalProperties": false})),
    ];
    leaf.prop_recursive(4, 32, 4, |inner| {
        prop_oneof![
            prop::collection::btree_map("[a-z$_/.]{1,5}", inner.clone(), 0..4)
                .prop_map(|props| json!({"type": "object", "properties": props})),
            prop::collection::vec(inner.clone(), 0..4).prop_map(|m| json!({"anyOf": m})),
            prop::collection::vec(inner.clone(), 0..3).prop_map(|m| json!({"allOf": m})),
            inner
                .clone()
                .prop_map(|i| json!({"type": "array", "items": i})),
            inner
                .clone()
                .prop_map(|i| json!({"type": "object", "additionalProperties": i})),
            (inner.clone(), inner).prop_map(
                |(a, b)| json!({"$ref": "#/$defs/B", "properties": {"p": a}, "oneOf": [b]})
            ),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn generation_never_panics(a in schema_like(), b in schema_like(), root in schema_like()) {
        let mut schema = json!({"$defs": {"A": a, "B": b}});
        if let (Value::Object(schema), Value::Object(root)) = (&mut schema, root) {
            schema.extend(root);
        }
        // Either outcome is fine; a panic fails the test.
        if let Ok(code) = mcp_gen::Settings::new().generate(&schema) {
            prop_assert!(code.starts_with("// @generated by mcp-gen"));
            prop_assert!(syn::parse_file(&code).is_ok());
        }
    }
}

#[test]
fn exponential_fan_out_is_refused_quickly() {
    // Each definition refers to the next one four times: 4^40 paths.
    let mut defs = serde_json::Map::new();
    for i in 0..40 {
        let next = format!("#/$defs/D{}", i + 1);
        defs.insert(
            format!("D{i}"),
            json!({"anyOf": [{"$ref": next}, {"$ref": next}, {"$ref": next}, {"$ref": next}]}),
        );
        defs.insert(format!("A{i}"), json!({"allOf": [{"$ref": format!("#/$defs/A{}", i + 1)}, {"$ref": format!("#/$defs/A{}", i + 1)}]}));
    }
    defs.insert("D40".to_owned(), json!({"type": "string"}));
    defs.insert(
        "A40".to_owned(),
        json!({"type": "object", "properties": {"x": {"type": "string"}}}),
    );
    let start = std::time::Instant::now();
    let result = mcp_gen::Settings::new().generate(&json!({ "$defs": defs }));
    assert!(
        start.elapsed() < std::time::Duration::from_secs(20),
        "took {:?}",
        start.elapsed()
    );
    let e = result.expect_err("too complex");
    assert!(matches!(e, mcp_gen::Error::Unsupported { .. }), "{e:?}");
}
