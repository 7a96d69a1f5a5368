//! Typed-client goldens: each tool list under `tests/tools/` has its
//! generated client checked in beside it. The first test compares them; the
//! modules below compile every golden and use what it generates.
//!
//! After an intended change, run with `MCP_UPDATE_GENERATED=1` to rewrite
//! the goldens, and review the diff.

mod golden;

use std::path::Path;

use mcp_host::typed::Tool;
use serde_json::{json, Value};

#[test]
fn goldens_are_current() {
    golden::check("tools", 8, |path| {
        mcp_gen::ClientSettings::new().generate_file(path)
    });
}

/// The tool list a golden was generated from.
fn list(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/tools")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(path).expect("tool list")).expect("json")
}

/// The definition of `tool` in the list `name`.
fn definition(name: &str, tool: &str) -> Value {
    list(name)["tools"]
        .as_array()
        .and_then(|tools| tools.iter().find(|t| t["name"] == tool))
        .cloned()
        .unwrap_or_else(|| panic!("no tool `{tool}` in {name}"))
}

/// The generated digests are those of the definition in the list.
fn digests_match<T: Tool>(name: &str) {
    let d = T::DEFINITION;
    let digests = mcp_host::digest::tool(&definition(name, d.name));
    assert_eq!(d.digest, digests.definition, "{}", d.name);
    assert_eq!(d.shape_digest, digests.shape, "{}", d.name);
}

/// Encodes `value`, checks that it decodes back to the same JSON, returns
/// the JSON.
fn round_trip<T: serde::Serialize + serde::de::DeserializeOwned>(value: &T) -> Value {
    let json = serde_json::to_value(value).expect("encodes");
    let back: T = serde_json::from_value(json.clone()).unwrap_or_else(|e| panic!("{json}: {e}"));
    assert_eq!(serde_json::to_value(&back).expect("encodes"), json);
    json
}

#[allow(dead_code)]
mod notes {
    include!("tools/notes.rs");

    use super::*;

    #[test]
    fn arguments_need_their_required_fields() {
        let args = create_note::Arguments::new("milk", "buy milk");
        assert_eq!(
            round_trip(&args),
            json!({"body": "buy milk", "title": "milk"})
        );
        digests_match::<create_note::Tool>("notes.json");
        assert_eq!(Tools::DEFINITIONS.len(), 4);
        assert!(<create_note::Tool as Tool>::DEFINITION
            .output_schema
            .is_some());
    }
}

#[allow(dead_code)]
mod server_everything {
    include!("tools/server-everything.rs");

    use super::*;

    #[test]
    fn every_tool_has_its_types() {
        let echo = echo::Arguments::new("hi");
        assert_eq!(round_trip(&echo), json!({"message": "hi"}));
        digests_match::<echo::Tool>("server-everything.json");
        digests_match::<get_structured_content::Tool>("server-everything.json");
        assert_eq!(Tools::DEFINITIONS.len(), 15);
    }
}

#[allow(dead_code)]
mod server_filesystem {
    include!("tools/server-filesystem.rs");

    use super::*;

    #[test]
    fn optional_fields_have_setters() {
        let args = read_text_file::Arguments::new("/a").with_head(3);
        assert_eq!(round_trip(&args), json!({"path": "/a", "head": 3}));
        digests_match::<read_text_file::Tool>("server-filesystem.json");
    }
}

#[allow(dead_code)]
mod server_memory {
    include!("tools/server-memory.rs");

    use super::*;

    #[test]
    fn nested_arrays_of_objects() {
        digests_match::<create_entities::Tool>("server-memory.json");
        assert_eq!(Tools::DEFINITIONS.len(), 9);
    }
}

#[allow(dead_code)]
mod mcp_server_time {
    include!("tools/mcp-server-time.rs");

    use super::*;

    #[test]
    fn output_types_decode_structured_content() {
        let out: get_current_time::Output = serde_json::from_value(json!({
            "timezone": "UTC", "datetime": "2026-01-01T00:00:00+00:00",
            "day_of_week": "Thursday", "is_dst": false
        }))
        .expect("decodes");
        assert!(!out.is_dst);
        digests_match::<convert_time::Tool>("mcp-server-time.json");
    }
}

#[allow(dead_code)]
mod mcp_server_fetch {
    include!("tools/mcp-server-fetch.rs");

    use super::*;

    #[test]
    fn content_is_the_output_without_a_schema() {
        assert!(<fetch::Tool as Tool>::DEFINITION.output_schema.is_none());
        let _: fn(fetch::Output) -> mcp_host::typed::Content = |c| c;
        digests_match::<fetch::Tool>("mcp-server-fetch.json");
    }
}

#[allow(dead_code)]
mod constructs {
    include!("tools/constructs.rs");

    use super::*;

    #[test]
    fn pydantic_constructs_become_types() {
        let filter = search::Filter {
            field: "name".into(),
            op: Some(search::FilterOp::Ne),
            value: Some(Some(search::FilterValue::String("x".into()))),
            extra: Default::default(),
        };
        let args = search::Arguments::new("rust")
            .with_limit(5)
            .with_filters(vec![filter])
            .with_shape(search::Shape::from(search::ShapeCircle {
                kind: Default::default(),
                radius: 1.into(),
                extra: Default::default(),
            }))
            .with_labels(
                [("a".to_owned(), "b".to_owned())]
                    .into_iter()
                    .collect::<std::collections::BTreeMap<_, _>>(),
            )
            .with_weight(None);
        let json = round_trip(&args);
        assert_eq!(json["mode"], "fast");
        assert_eq!(json["shape"], json!({"kind": "circle", "radius": 1}));
        assert_eq!(json["weight"], Value::Null);
        assert_eq!(
            json["filters"][0],
            json!({"field": "name", "op": "ne", "value": "x"})
        );
        // `mode` is a constant: the constructor fills it in.
        let decoded: search::Arguments =
            serde_json::from_value(json!({"query": "q", "mode": "fast", "level": 2}))
                .expect("decodes");
        assert_eq!(decoded.level, Some(json!(2)));
        assert!(
            serde_json::from_value::<search::Arguments>(json!({"query": "q", "mode": "slow"}))
                .is_err()
        );
    }

    #[test]
    fn zod_references_to_properties_are_inlined() {
        let here = draft07::ArgumentsFrom {
            lat: 1.into(),
            lon: 2.into(),
        };
        let args =
            draft07::Arguments::new(here.clone(), here).with_unit(draft07::ArgumentsUnit::Km);
        let json = round_trip(&args);
        assert_eq!(json["to"], json!({"lat": 1, "lon": 2}));
        assert!(serde_json::from_value::<draft07::Arguments>(
            json!({"from": {"lat": 1, "lon": 2}, "to": {"lat": 1, "lon": 2}, "x": 1})
        )
        .is_err());
    }

    #[test]
    fn tools_without_arguments_still_have_a_constructor() {
        assert_eq!(round_trip(&no_arguments::Arguments::new()), json!({}));
        let loose = loose::Arguments::new().with_anything(json!([1]));
        assert_eq!(round_trip(&loose), json!({"anything": [1]}));
    }
}

/// A crafted tool list: every name, string and doc comment a server could
/// use to break out of the generated code. It compiles (this module), and
/// its syntax tree has only the items the generator makes.
#[allow(dead_code)]
mod hostile {
    include!("tools/hostile.rs");

    use super::*;

    /// Walks `items`, failing on anything the generator does not write.
    fn only_generated_items(items: &[syn::Item], depth: usize) {
        for item in items {
            for attr in item_attrs(item) {
                let name = attr.path().segments.last().map(|s| s.ident.to_string());
                assert!(
                    matches!(
                        name.as_deref(),
                        Some("doc" | "derive" | "serde" | "allow" | "must_use")
                    ),
                    "unexpected attribute {:?}",
                    attr.path()
                        .segments
                        .iter()
                        .map(|s| s.ident.to_string())
                        .collect::<Vec<_>>()
                );
            }
            match item {
                syn::Item::Mod(m) => {
                    assert!(
                        depth < 1 || m.ident == "__private",
                        "nested module {}",
                        m.ident
                    );
                    if m.ident != "__private" {
                        only_generated_items(
                            &m.content.as_ref().expect("inline module").1,
                            depth + 1,
                        );
                    }
                }
                syn::Item::Struct(_)
                | syn::Item::Enum(_)
                | syn::Item::Type(_)
                | syn::Item::Impl(_) => {}
                syn::Item::Use(u) => assert_eq!(quote_str(u), "use super :: __private ;"),
                other => panic!("unexpected item: {}", quote_str(other)),
            }
        }
    }

    fn quote_str(tokens: &impl quote::ToTokens) -> String {
        tokens.to_token_stream().to_string()
    }

    fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
        match item {
            syn::Item::Mod(i) => &i.attrs,
            syn::Item::Struct(i) => &i.attrs,
            syn::Item::Enum(i) => &i.attrs,
            syn::Item::Type(i) => &i.attrs,
            syn::Item::Impl(i) => &i.attrs,
            syn::Item::Use(i) => &i.attrs,
            _ => &[],
        }
    }

    #[test]
    fn nothing_breaks_out() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tools/hostile.rs");
        let file =
            syn::parse_file(&std::fs::read_to_string(path).expect("golden")).expect("parses");
        only_generated_items(&file.items, 0);
        // Whatever the list says stays inside literals: no identifier of
        // the output comes from the injected code.
        let mut idents = Vec::new();
        collect_idents(quote::ToTokens::to_token_stream(&file), &mut idents);
        for injected in [
            "injected", "evil", "evil2", "evil3", "main", "forbid", "exit", "process",
        ] {
            assert!(
                !idents.iter().any(|i| i == injected),
                "`{injected}` is an identifier"
            );
        }
    }

    fn collect_idents(tokens: proc_macro2::TokenStream, out: &mut Vec<String>) {
        for token in tokens {
            match token {
                proc_macro2::TokenTree::Ident(ident) => out.push(ident.to_string()),
                proc_macro2::TokenTree::Group(group) => collect_idents(group.stream(), out),
                _ => {}
            }
        }
    }

    #[test]
    fn names_are_sanitised_and_distinct() {
        assert_eq!(<type_::Tool as Tool>::DEFINITION.name, "type");
        assert_eq!(<self_::Tool as Tool>::DEFINITION.name, "self");
        assert_eq!(<call2::Tool as Tool>::DEFINITION.name, "call");
        let names: Vec<&str> = [
            <get_item::Tool as Tool>::DEFINITION.name,
            <get_item2::Tool as Tool>::DEFINITION.name,
            <get_item3::Tool as Tool>::DEFINITION.name,
        ]
        .to_vec();
        assert_eq!(names, ["get-item", "get_item", "Get Item"]);
        assert_eq!(<value::Tool as Tool>::DEFINITION.name, "");
        assert_eq!(<value2::Tool as Tool>::DEFINITION.name, "🦀");
        // The reserved names stay the generator's; the schema's own become others.
        let out = a_pub_fn_evil_std_process_exit_1_mod_x::Output::default();
        let _: Option<a_pub_fn_evil_std_process_exit_1_mod_x::Tool2> = out.t;
        let args = a_pub_fn_evil_std_process_exit_1_mod_x::Arguments::new("t", true);
        let json = round_trip(&args);
        assert_eq!(json, json!({"type": "t", "self": true}));
    }

    #[test]
    fn unusable_schemas_fall_back_to_values() {
        // Not a schema at all: the arguments are an open map.
        let _: schema_is_false::Arguments = serde_json::Map::new();
        let _: schema_is_a_string::Output = mcp_host::typed::Content::new();
        let _: bad_defs::Arguments = serde_json::Map::new();
        // Bad properties fall back one by one; the others keep their types.
        let args = bad_keywords::Arguments::new()
            .with_a(json!(1))
            .with_e(json!("anything"));
        assert_eq!(round_trip(&args), json!({"a": 1, "e": "anything"}));
        let looping = looping_refs::Arguments::new().with_b(json!(true));
        assert_eq!(round_trip(&looping), json!({"b": true}));
        let node = recursive::Node {
            next: Some(Box::new(recursive::Node::default())),
            ..Default::default()
        };
        assert_eq!(round_trip(&node), json!({"next": {}}));
        let _ = fan_out::Arguments::new();
        let _ = deep::Arguments::new();
        let _ = wide::Arguments::new();
    }
}
