//! Lowering for Gemini `functionDeclarations[].parameters`: the OpenAPI 3.0
//! subset of Gemini's `Schema` object.
//!
//! Types are upper-case names and a single one per node; `null` is the
//! `nullable` flag; unions are `anyOf`; enums hold strings only; there is
//! no `$ref`, so every reference is inlined within the node budget and a
//! recursive one is cut at [`RECURSION_DEPTH`]; the Gemini API (not Vertex)
//! takes no `additionalProperties`. Each object with more than one property
//! carries `propertyOrdering` in declaration order, as the `google-genai`
//! SDK adds it.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use super::ctx::{child, merge_all_of, types, Ctx, META};
use super::json::cap_enum;
use super::loss::Action;
use super::restore::Plan;
use super::CompileError;

/// How many times one `$ref` may be inlined inside itself before the
/// recursion is cut.
pub const RECURSION_DEPTH: usize = 2;

/// Keywords of Gemini's `Schema` kept as they are.
const KEPT: &[&str] = &[
    "description",
    "title",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "default",
];

/// Formats Gemini takes, per type.
fn format_kept(kind: Option<&str>, format: &str) -> bool {
    matches!(
        (kind, format),
        (Some("string"), "enum" | "date-time")
            | (Some("number"), "float" | "double")
            | (Some("integer"), "int32" | "int64")
    )
}

pub(crate) fn lower(
    ctx: &mut Ctx<'_>,
    schema: &Value,
    pointer: &str,
    depth: usize,
) -> Result<(Value, Plan), CompileError> {
    ctx.enter(pointer, depth)?;
    let node = match schema {
        Value::Object(node) => node,
        Value::Bool(true) => {
            ctx.lose(
                pointer,
                "true",
                Action::Rewritten,
                "any value: Gemini has no such type, left untyped",
            );
            return Ok((json!({}), Plan::Keep));
        }
        Value::Bool(false) => {
            ctx.lose(
                pointer,
                "false",
                Action::Rewritten,
                "no value: Gemini has no such schema, left untyped",
            );
            return Ok((json!({}), Plan::Keep));
        }
        _ => return Err(CompileError::invalid(pointer, "schema")),
    };
    if let Some(reference) = node.get("$ref") {
        return reference_node(ctx, node, reference, pointer, depth);
    }
    if let Some(parts) = node.get("allOf") {
        let merged = parts.as_array().and_then(|p| merge_all_of(node, p));
        return match merged {
            Some(merged) => {
                ctx.lose(
                    pointer,
                    "allOf",
                    Action::Rewritten,
                    "Gemini takes no `allOf`; its parts are merged",
                );
                lower(ctx, &Value::Object(merged), pointer, depth + 1)
            }
            None => {
                let mut rest = node.clone();
                rest.remove("allOf");
                ctx.lose(
                    pointer,
                    "allOf",
                    Action::Dropped,
                    "Gemini takes no `allOf` and its parts do not merge",
                );
                lower(ctx, &Value::Object(rest), pointer, depth + 1)
            }
        };
    }
    let kinds = types(node, pointer)?;
    let mut nullable = false;
    let mut kind: Option<String> = None;
    if let Some(kinds) = &kinds {
        nullable = kinds.iter().any(|k| k == "null");
        let rest: Vec<&String> = kinds.iter().filter(|k| *k != "null").collect();
        if rest.len() > 1 {
            return split_types(ctx, node, &rest, nullable, pointer, depth);
        }
        kind = rest.first().map(|k| (*k).clone());
    }
    if kind.is_none() && node.contains_key("properties") {
        kind = Some("object".to_owned());
    }
    let mut out = Map::new();
    let mut plan = Plan::Keep;
    for (key, value) in node {
        let k = key.as_str();
        match k {
            "type" | "properties" | "required" => {}
            "$defs" | "definitions" => ctx.lose(
                pointer,
                k,
                Action::Dropped,
                "Gemini takes no definitions; each is inlined where it is used",
            ),
            "enum" => enumeration(ctx, value, pointer, &mut kind, &mut nullable, &mut out)?,
            "const" => match value {
                Value::String(_) => {
                    out.insert("enum".to_owned(), json!([value]));
                    kind.get_or_insert_with(|| "string".to_owned());
                    ctx.lose(
                        pointer,
                        k,
                        Action::Rewritten,
                        "Gemini takes a constant as a one-value enum",
                    );
                }
                Value::Null => {
                    nullable = true;
                    ctx.lose(
                        pointer,
                        k,
                        Action::Rewritten,
                        "Gemini says `null` with `nullable`",
                    );
                }
                _ => ctx.describe(
                    pointer,
                    k,
                    value,
                    &mut out,
                    "Gemini takes only string constants",
                ),
            },
            "anyOf" | "oneOf" => {
                let Some(branches) = value.as_array() else {
                    return Err(CompileError::invalid(pointer, key));
                };
                let here = child(pointer, k);
                let mut lowered = Vec::new();
                let mut plans = Vec::new();
                for (i, branch) in branches.iter().enumerate() {
                    if branch.get("type") == Some(&Value::from("null")) {
                        nullable = true;
                        ctx.lose(
                            &child(&here, &i.to_string()),
                            "type",
                            Action::Rewritten,
                            "Gemini says `null` with `nullable`",
                        );
                        continue;
                    }
                    let (v, p) = lower(ctx, branch, &child(&here, &i.to_string()), depth + 1)?;
                    lowered.push(v);
                    plans.push(p);
                }
                if k == "oneOf" {
                    ctx.lose(
                        pointer,
                        k,
                        Action::Rewritten,
                        "Gemini takes unions only as `anyOf`",
                    );
                }
                if lowered.len() == 1 {
                    plan = plans.pop().unwrap_or_default();
                    if let Some(Value::Object(only)) = lowered.pop() {
                        for (ok, ov) in only {
                            out.entry(ok).or_insert(ov);
                        }
                    }
                } else {
                    out.insert("anyOf".to_owned(), Value::Array(lowered));
                    if plans.iter().any(|p| !p.is_keep()) {
                        plan = Plan::AnyOf(plans);
                    }
                }
            }
            "items" if value.is_object() || value.is_boolean() => {
                let (lowered, p) = lower(ctx, value, &child(pointer, k), depth + 1)?;
                out.insert(key.clone(), lowered);
                if !p.is_keep() {
                    plan = Plan::Array(Box::new(p));
                }
            }
            "default" if value.is_null() => {
                ctx.lose(
                    pointer,
                    k,
                    Action::Dropped,
                    "Gemini reads a `null` default as no default",
                );
            }
            "additionalProperties" => {
                ctx.lose(
                    pointer,
                    k,
                    Action::Dropped,
                    "the Gemini API takes no `additionalProperties`; restore removes undeclared members of a closed object",
                );
            }
            "format" => match value.as_str() {
                Some(f) if format_kept(kind.as_deref(), f) => {
                    out.insert(key.clone(), value.clone());
                }
                _ => ctx.describe(pointer, k, value, &mut out, "a format Gemini does not take"),
            },
            "examples" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" | "uniqueItems"
            | "items" | "prefixItems" | "contains" | "minContains" | "maxContains" | "not"
            | "if" | "then" | "else" | "dependentRequired" | "dependentSchemas"
            | "propertyNames" | "patternProperties" | "contentEncoding" | "contentMediaType"
            | "deprecated" | "readOnly" | "writeOnly" => {
                ctx.describe(
                    pointer,
                    k,
                    value,
                    &mut out,
                    "Gemini does not take this keyword",
                );
            }
            _ if KEPT.contains(&k) => {
                out.insert(key.clone(), value.clone());
            }
            _ if META.contains(&k) => ctx.lose(
                pointer,
                k,
                Action::Dropped,
                "says nothing about the arguments",
            ),
            _ => ctx.lose(pointer, k, Action::Dropped, "not a keyword Gemini takes"),
        }
    }
    if kind.as_deref() == Some("object") {
        plan = object(ctx, node, pointer, depth, &mut out)?;
    } else {
        ctx.drop_object_keywords(pointer, node);
    }
    if let Some(kind) = &kind {
        out.insert("type".to_owned(), Value::from(kind.to_uppercase()));
    }
    if nullable {
        out.insert("nullable".to_owned(), Value::Bool(true));
    }
    Ok((Value::Object(out), plan))
}

/// Lowers the properties of an object into `out`; the plan removes the
/// members the model adds to an object the original closes, since Gemini
/// cannot be told that it is closed.
fn object(
    ctx: &mut Ctx<'_>,
    node: &Map<String, Value>,
    pointer: &str,
    depth: usize,
    out: &mut Map<String, Value>,
) -> Result<Plan, CompileError> {
    let here = child(pointer, "properties");
    let mut props = Map::new();
    let mut plans = BTreeMap::new();
    match node.get("properties") {
        None => {}
        Some(Value::Object(given)) => {
            for (name, sub) in given {
                let at = child(&here, name);
                if sub == &Value::Bool(false) {
                    ctx.lose(
                        &at,
                        "false",
                        Action::Dropped,
                        "a property that may never be present is not offered",
                    );
                    continue;
                }
                let (v, p) = lower(ctx, sub, &at, depth + 1)?;
                props.insert(name.clone(), v);
                plans.insert(name.clone(), (false, p));
            }
        }
        Some(_) => return Err(CompileError::invalid(pointer, "properties")),
    }
    match node.get("required") {
        None => {}
        Some(Value::Array(names)) => {
            let mut kept = Vec::new();
            for name in names {
                match name.as_str() {
                    Some(n) if props.contains_key(n) => kept.push(name.clone()),
                    _ => ctx.lose(
                        pointer,
                        "required",
                        Action::Dropped,
                        "a required name that is not a declared property",
                    ),
                }
            }
            if !kept.is_empty() {
                out.insert("required".to_owned(), Value::Array(kept));
            }
        }
        Some(_) => return Err(CompileError::invalid(pointer, "required")),
    }
    if props.len() > 1 {
        let order: Vec<Value> = props.keys().map(|k| Value::from(k.as_str())).collect();
        out.insert("propertyOrdering".to_owned(), Value::Array(order));
    }
    if !props.is_empty() {
        out.insert("properties".to_owned(), Value::Object(props));
    }
    let closed = node.get("additionalProperties") == Some(&Value::Bool(false))
        && !node.contains_key("patternProperties");
    let trivial = !closed && plans.values().all(|(_, p): &(bool, Plan)| p.is_keep());
    Ok(if trivial {
        Plan::Keep
    } else {
        Plan::Object {
            props: plans,
            closed,
        }
    })
}

fn enumeration(
    ctx: &mut Ctx<'_>,
    value: &Value,
    pointer: &str,
    kind: &mut Option<String>,
    nullable: &mut bool,
    out: &mut Map<String, Value>,
) -> Result<(), CompileError> {
    let capped = cap_enum(ctx, value, pointer)?;
    let members = capped.as_array().cloned().unwrap_or_default();
    if members.iter().any(Value::is_null) {
        *nullable = true;
    }
    let strings: Vec<Value> = members.into_iter().filter(|m| !m.is_null()).collect();
    if strings.iter().all(Value::is_string) && kind.as_deref().is_none_or(|k| k == "string") {
        kind.get_or_insert_with(|| "string".to_owned());
        out.insert("enum".to_owned(), Value::Array(strings));
    } else {
        ctx.describe(
            pointer,
            "enum",
            value,
            out,
            "Gemini takes only string enums",
        );
    }
    Ok(())
}

/// A node of several types as an `anyOf` of one node per type.
fn split_types(
    ctx: &mut Ctx<'_>,
    node: &Map<String, Value>,
    kinds: &[&String],
    nullable: bool,
    pointer: &str,
    depth: usize,
) -> Result<(Value, Plan), CompileError> {
    ctx.lose(
        pointer,
        "type",
        Action::Rewritten,
        "Gemini takes one type per node; several become `anyOf`",
    );
    let mut branches = Vec::new();
    let mut plans = Vec::new();
    for kind in kinds {
        let mut one = node.clone();
        one.insert("type".to_owned(), Value::from(kind.as_str()));
        let (v, p) = lower(ctx, &Value::Object(one), pointer, depth + 1)?;
        branches.push(v);
        plans.push(p);
    }
    let mut out = Map::new();
    out.insert("anyOf".to_owned(), Value::Array(branches));
    if nullable {
        out.insert("nullable".to_owned(), Value::Bool(true));
    }
    let plan = if plans.iter().all(Plan::is_keep) {
        Plan::Keep
    } else {
        Plan::AnyOf(plans)
    };
    Ok((Value::Object(out), plan))
}

fn reference_node(
    ctx: &mut Ctx<'_>,
    node: &Map<String, Value>,
    reference: &Value,
    pointer: &str,
    depth: usize,
) -> Result<(Value, Plan), CompileError> {
    let Some(reference) = reference.as_str() else {
        return Err(CompileError::invalid(pointer, "$ref"));
    };
    let Some((target, target_pointer)) = ctx.resolve(reference) else {
        ctx.lose(
            pointer,
            "$ref",
            Action::Dropped,
            "a reference outside the schema: left untyped",
        );
        return Ok((json!({}), Plan::Keep));
    };
    let mut siblings = node.clone();
    siblings.remove("$ref");
    let seen = ctx.inlining.iter().filter(|r| *r == reference).count();
    if seen >= RECURSION_DEPTH {
        ctx.lose(
            pointer,
            "$ref",
            Action::Cut,
            "a recursive reference: Gemini takes no `$ref`, cut here",
        );
        let mut stub = Map::new();
        if let Some(kind) = target.get("type").and_then(Value::as_str) {
            stub.insert("type".to_owned(), Value::from(kind));
        }
        let (cut, _) = lower(ctx, &Value::Object(stub), pointer, depth + 1)?;
        let (over, _) = lower(ctx, &Value::Object(siblings), pointer, depth + 1)?;
        return Ok((overlay(cut, over), Plan::Keep));
    }
    ctx.lose(pointer, "$ref", Action::Inlined, "Gemini takes no `$ref`");
    ctx.inlining.push(reference.to_owned());
    let inlined = lower(ctx, target, &target_pointer, depth + 1);
    ctx.inlining.pop();
    let (inlined, plan) = inlined?;
    if siblings.is_empty() {
        return Ok((inlined, plan));
    }
    let (over, _) = lower(ctx, &Value::Object(siblings), pointer, depth + 1)?;
    Ok((overlay(inlined, over), plan))
}

/// `base` with the keywords of `over` written over it.
fn overlay(base: Value, over: Value) -> Value {
    match (base, over) {
        (Value::Object(mut base), Value::Object(over)) => {
            for (k, v) in over {
                base.insert(k, v);
            }
            Value::Object(base)
        }
        (base, _) => base,
    }
}
