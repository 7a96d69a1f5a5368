//! Golden files: each schema under `tests/schemas/` has its generated Rust
//! checked in beside it. The first test compares them; the modules below
//! compile every golden and exercise what each one is about.
//!
//! After an intended change, run with `MCP_UPDATE_GENERATED=1` to rewrite
//! the goldens, and review the diff.

mod golden;

use serde_json::{json, Value};

#[test]
fn goldens_are_current() {
    golden::check("schemas", 10, |path| {
        mcp_gen::Settings::new().generate_file(path)
    });
}

/// Decodes `value` as `T`, checks that it encodes back to the same value,
/// and returns it.
fn round_trip<T: serde::de::DeserializeOwned + serde::Serialize>(value: Value) -> T {
    let decoded: T =
        serde_json::from_value(value.clone()).unwrap_or_else(|e| panic!("{value}: {e}"));
    assert_eq!(serde_json::to_value(&decoded).expect("encodes"), value);
    decoded
}

fn decode_error<T: serde::de::DeserializeOwned + std::fmt::Debug>(value: Value) -> String {
    match serde_json::from_value::<T>(value.clone()) {
        Ok(decoded) => panic!("{value} decoded as {decoded:?}"),
        Err(e) => e.to_string(),
    }
}

#[allow(dead_code)]
mod tagged_union {
    include!("schemas/tagged_union.rs");

    use super::*;

    #[test]
    fn the_tag_picks_the_member() {
        let c: Command = round_trip(json!({"op": "resize", "width": 3, "height": 4}));
        assert!(matches!(
            c,
            Command::Resize(ResizeCommand {
                width: 3,
                height: 4,
                ..
            })
        ));
        assert_eq!(c.type_name(), "ResizeCommand");
        let c: Command = round_trip(json!({"op": "stop"}));
        assert_eq!(c.type_name(), "StopCommand");
    }

    #[test]
    fn an_unknown_tag_is_named_in_the_error() {
        let e = decode_error::<Command>(json!({"op": "jump"}));
        assert!(e.contains("`op` is \"jump\""), "{e}");
        let e = decode_error::<Command>(json!({"width": 1}));
        assert!(e.contains("missing field `op`"), "{e}");
    }

    /// Read from text, the object is read once: what comes before the tag
    /// is kept and handed to the member with the rest, in order.
    #[test]
    fn the_tag_may_come_anywhere_in_the_text() {
        for text in [
            r#"{"op": "resize", "width": 3, "height": 4, "note": [1]}"#,
            r#"{"width": 3, "note": [1], "op": "resize", "height": 4}"#,
            r#"{"width": 3, "height": 4, "note": [1], "op": "resize"}"#,
        ] {
            let c: Command = serde_json::from_str(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            let Command::Resize(resize) = &c else {
                panic!("{text}: {c:?}")
            };
            assert_eq!((resize.width, resize.height), (3, 4), "{text}");
            assert_eq!(resize.extra["note"], json!([1]), "{text}");
            let value: Value = serde_json::from_str(text).expect("json");
            assert_eq!(serde_json::to_value(&c).expect("encodes"), value);
            assert_eq!(Command::from_json(value).expect("decodes"), c);
        }
    }

    #[test]
    fn a_second_tag_or_a_value_that_is_no_object_is_refused() {
        let twice =
            serde_json::from_str::<Command>(r#"{"op": "stop", "force": true, "op": "start"}"#)
                .expect_err("a second tag");
        assert!(
            twice.to_string().contains("duplicate field `op`"),
            "{twice}"
        );
        for (text, found) in [
            ("\"stop\"", "a string"),
            ("[]", "an array"),
            ("7", "a number"),
            ("null", "null"),
        ] {
            let e = serde_json::from_str::<Command>(text)
                .expect_err(text)
                .to_string();
            assert!(e.contains(&format!("({found})")), "{text}: {e}");
            let e = decode_error::<Command>(serde_json::from_str(text).expect("json"));
            assert!(e.contains("no member of `Command`"), "{text}: {e}");
        }
        let e = serde_json::from_str::<Command>(r#"{"width": 1, "op": 5}"#)
            .expect_err("a tag that is no string")
            .to_string();
        assert!(e.contains("`op` is 5"), "{e}");
    }

    #[test]
    fn members_check_their_own_constant() {
        let e = decode_error::<StartCommand>(json!({"op": "stop"}));
        assert!(
            e.contains("invalid `op`: expected \"start\", found \"stop\""),
            "{e}"
        );
        let start = StartCommand::default();
        assert_eq!(
            serde_json::to_value(start).expect("encodes"),
            json!({"op": "start"})
        );
        assert_eq!(
            Command::from(StopCommand::default()).type_name(),
            "StopCommand"
        );
    }
}

#[allow(dead_code)]
mod untagged_union {
    include!("schemas/untagged_union.rs");

    use super::*;

    #[test]
    fn the_best_fitting_member_wins_not_the_first() {
        assert_eq!(
            round_trip::<Outcome>(json!({"value": "42"})).type_name(),
            "Done"
        );
        assert_eq!(
            round_trip::<Outcome>(json!({"state": "x", "error": "boom"})).type_name(),
            "Failed"
        );
        assert_eq!(
            round_trip::<Outcome>(json!({"state": "waiting"})).type_name(),
            "Pending"
        );
        // Unknown keys are kept by whichever member is chosen.
        assert_eq!(
            round_trip::<Outcome>(json!({"value": "1", "extra": true})).type_name(),
            "Done"
        );
    }

    #[test]
    fn kinds_pick_among_scalars() {
        assert!(matches!(
            round_trip::<Scalar>(json!("a")),
            Scalar::String(_)
        ));
        assert!(matches!(round_trip::<Scalar>(json!(7)), Scalar::Integer(7)));
        assert!(matches!(
            round_trip::<Scalar>(json!(false)),
            Scalar::Boolean(false)
        ));
        assert!(matches!(
            round_trip::<Scalar>(json!(["a", "b"])),
            Scalar::Array(_)
        ));
        let e = decode_error::<Scalar>(json!(1.5));
        assert!(e.contains("no member of `Scalar`"), "{e}");
    }
}

#[allow(dead_code)]
mod all_of {
    include!("schemas/all_of.rs");

    use super::*;

    /// Each member of the first union joins each of the second: a fixed
    /// width goes with a maximum height, and neither side is dropped.
    #[test]
    fn two_joined_unions_make_every_pair() {
        for size in [
            json!({"height": 1, "width": 2}),
            json!({"height": 1, "maxWidth": 2}),
            json!({"maxHeight": 1, "width": 2}),
            json!({"maxHeight": 1, "maxWidth": 2}),
            json!({"width": 2}),
        ] {
            let _: Size = round_trip(size);
        }
        decode_error::<Size>(json!({"height": 1, "depth": 2}));
    }

    #[test]
    fn refinement_pins_the_code_and_types_the_data() {
        let e: NotFound =
            round_trip(json!({"code": -404, "message": "gone", "data": {"path": "/x"}}));
        assert_eq!(e.data.path, "/x");
        assert_eq!(CodeMinus404::VALUE, -404);
        let err =
            decode_error::<NotFound>(json!({"code": -1, "message": "m", "data": {"path": "/"}}));
        assert!(err.contains("invalid `code`"), "{err}");
        let err = decode_error::<NotFound>(json!({"code": -404, "message": "m"}));
        assert!(err.contains("missing field `data`"), "{err}");
    }

    #[test]
    fn a_union_inside_all_of_is_distributed_over_the_common_fields() {
        let r: Reply = round_trip(json!({"id": "a", "state": "done", "value": 3}));
        assert!(matches!(&r, Reply::Done(done) if done.id == "a" && done.value == 3));
        let r: Reply = round_trip(json!({"id": "b", "state": "failed", "reason": "no"}));
        assert!(matches!(&r, Reply::Failed(failed) if failed.reason == "no"));
        let err = decode_error::<Reply>(json!({"state": "done", "value": 3}));
        assert!(err.contains("id"), "{err}");
    }

    #[test]
    fn ref_with_siblings_extends_the_target() {
        let l: Labelled = round_trip(json!({"code": 1, "message": "m", "label": "l"}));
        assert_eq!((l.code, l.label.as_str()), (1, "l"));
        let err = decode_error::<Labelled>(json!({"code": 1, "message": "m"}));
        assert!(err.contains("missing field `label`"), "{err}");
    }
}

#[allow(dead_code)]
mod open_objects {
    include!("schemas/open_objects.rs");

    use super::*;

    #[test]
    fn open_objects_keep_unknown_keys() {
        let o: Open = round_trip(
            json!({"name": "n", "traceparent": "00-ab", "vendor": {"x": [1, 2.5, null]}}),
        );
        assert_eq!(o.extra.len(), 2);
    }

    #[test]
    fn a_closed_object_without_properties_takes_only_the_empty_object() {
        let _: Empty = round_trip(json!({}));
        let e = decode_error::<Empty>(json!({"a": 1}));
        assert!(e.contains("unknown field `a`"), "{e}");
    }

    #[test]
    fn closed_objects_refuse_unknown_keys() {
        let e = decode_error::<Closed>(json!({"name": "n", "other": 1}));
        assert!(e.contains("unknown field `other`"), "{e}");
        round_trip::<Closed>(json!({"name": "n"}));
    }

    #[test]
    fn typed_additional_properties() {
        let t: Typed = round_trip(json!({"total": 3, "a": 1, "b": 2}));
        assert_eq!(t.extra.get("a"), Some(&1));
        decode_error::<Typed>(json!({"a": "not a number"}));
        let s: Scores = round_trip(json!({"x": 1, "y": 0.5}));
        assert_eq!(s.len(), 2);
        let a: Anything = round_trip(json!({"k": null}));
        assert!(a["k"].is_null());
    }
}

#[allow(dead_code)]
mod type_arrays {
    include!("schemas/type_arrays.rs");

    use super::*;

    #[test]
    fn string_or_integer() {
        assert!(matches!(round_trip::<Id>(json!("abc")), Id::String(_)));
        assert!(matches!(round_trip::<Id>(json!(12)), Id::Integer(12)));
        decode_error::<Id>(json!(null));
    }

    #[test]
    fn nullable_fields_keep_null_absent_and_value_apart() {
        let l: Lease = round_trip(json!({"id": 1, "ttl": null}));
        assert_eq!((l.ttl, l.note.clone()), (None, None));
        let l: Lease = round_trip(json!({"id": 1, "ttl": 5, "note": null}));
        assert_eq!((l.ttl, l.note.clone()), (Some(5), Some(None)));
        let l: Lease = round_trip(json!({"id": "a", "ttl": 5, "note": "n"}));
        assert_eq!(l.note, Some(Some("n".to_owned())));
    }

    #[test]
    fn integer_and_number_stay_as_written() {
        let l: Lease = round_trip(json!({"id": 1, "ttl": 1, "ratio": 1, "count": 2}));
        assert_eq!(
            l.ratio.as_ref().and_then(serde_json::Number::as_f64),
            Some(1.0)
        );
        round_trip::<Lease>(json!({"id": 1, "ttl": 1, "ratio": 0.5}));
        let e = decode_error::<Lease>(json!({"id": 1, "ttl": 1, "count": 1.5}));
        assert!(e.contains("invalid type"), "{e}");
    }
}

#[allow(dead_code)]
mod bundled {
    include!("schemas/bundled.rs");

    use super::*;

    /// `#/$defs/__json` inside a definition names the helper that
    /// definition embeds; the identical copies of two definitions are one
    /// type.
    #[test]
    fn embedded_helpers_resolve_and_are_shared() {
        let note: Note = round_trip(json!({"method": "notes/add", "body": ["a", ["b"]]}));
        let tag: Tag = round_trip(json!({"label": "x"}));
        let same: [&Option<Json>; 2] = [&note.body, &tag.label];
        assert!(matches!(same[0], Some(Json::Array(items)) if items.len() == 2));
    }

    /// `{"not": {}}` forbids the property: a closed object refuses it.
    #[test]
    fn a_property_that_accepts_nothing_is_refused() {
        let e = decode_error::<Note>(json!({"method": "notes/add", "legacy": 1}));
        assert!(e.contains("legacy"), "{e}");
    }
}

#[allow(dead_code)]
mod recursive {
    include!("schemas/recursive.rs");

    use super::*;

    #[test]
    fn recursive_types_nest() {
        let n: Node = round_trip(json!({
            "label": "a",
            "next": {"label": "b", "next": {"label": "c"}},
            "children": [{"label": "d", "detail": "text"}],
            "detail": {"label": "e"}
        }));
        let next: &Node = n.next.as_deref().expect("boxed next");
        assert_eq!(next.label, "b");
        assert!(matches!(n.detail.as_deref(), Some(Detail::Node(_))));
    }
}

#[allow(dead_code)]
mod enums {
    include!("schemas/enums.rs");

    use super::*;

    #[test]
    fn identical_inline_enums_are_one_type() {
        let page: Page = round_trip(json!({"visibility": "private", "theme": "dark"}));
        let mut feed: Feed = round_trip(json!({"order": "2x"}));
        feed.visibility = page.visibility; // same Rust type
        assert_eq!(feed.visibility, Some(Visibility::Private));
        assert_eq!(Visibility::Public.as_str(), "public");
        assert_eq!(FeedOrder::V2x.to_string(), "2x");
        assert_eq!(
            serde_json::to_value(FeedOrder::NewestFirst).expect("encodes"),
            json!("newest-first")
        );
        let e = decode_error::<Level>(json!("trace"));
        assert!(e.contains("unknown variant `trace`"), "{e}");
    }
}

#[allow(dead_code)]
mod names {
    include!("schemas/names.rs");

    use super::*;

    #[test]
    fn keywords_and_odd_names_are_renamed() {
        let w: IoExampleWidget = round_trip(json!({
            "type": "t", "enum": ["a"], "ref": "r", "self": true, "$schema": "s",
            "2fa": false, "kebab-case": "k", "io.example/traceId": "id", "_meta": {"x": 1}
        }));
        assert_eq!(w.type_, "t");
        assert_eq!(w.enum_, Some(vec!["a".to_owned()]));
        assert_eq!(w.ref_.as_deref(), Some("r"));
        assert_eq!(w.self_, Some(true));
        assert_eq!(w.schema.as_deref(), Some("s"));
        assert_eq!(w.n2fa, Some(false));
        assert_eq!(w.kebab_case.as_deref(), Some("k"));
        assert_eq!(w.trace_id.as_deref(), Some("id"));
        assert!(w.meta.is_some());
        // A definition named `Result` does not break the generated code.
        let r: Result = round_trip(json!({"ok": true}));
        assert_eq!(r.ok, Some(true));
    }
}

#[allow(dead_code)]
mod root_object {
    include!("schemas/root_object.rs");

    use super::*;

    #[test]
    fn the_root_schema_is_a_type() {
        let args: SearchArgs =
            round_trip(json!({"query": "q", "limit": 5, "filters": {"tags": ["x"]}}));
        assert_eq!(args.query, "q");
        let e = decode_error::<SearchArgs>(json!({"limit": 5}));
        assert!(e.contains("missing field `query`"), "{e}");
    }
}
