//! Lowering for providers that take JSON Schema as it is: Anthropic
//! `input_schema` and OpenAI non-strict `parameters`.
//!
//! The schema keeps every keyword but the document ones (`$schema`, `$id`,
//! `$comment`, anchors); `$ref`s stay references, so a fan-out costs
//! nothing. The walk still visits every subschema, bounded in depth and
//! node count, and caps each `enum`.

use serde_json::{Map, Value};

use super::ctx::{child, types, Ctx};
use super::loss::Action;
use super::{CompileError, MAX_ENUM};

/// Keywords whose value is one subschema.
pub(crate) const ONE: &[&str] = &[
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "additionalItems",
];

/// Keywords whose value maps names to subschemas.
pub(crate) const MANY_BY_NAME: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// Keywords whose value is a list of subschemas.
pub(crate) const MANY: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];

/// `schema` with its document keywords dropped and each enum capped.
pub(crate) fn lower(
    ctx: &mut Ctx<'_>,
    schema: &Value,
    pointer: &str,
    depth: usize,
) -> Result<Value, CompileError> {
    ctx.enter(pointer, depth)?;
    let Some(node) = schema.as_object() else {
        return match schema {
            Value::Bool(_) => Ok(schema.clone()),
            _ => Err(CompileError::invalid(pointer, "schema")),
        };
    };
    // Read so that an invalid `type` is refused here as for every target.
    types(node, pointer)?;
    let mut out = Map::new();
    for (key, value) in node {
        let k = key.as_str();
        let lowered = if ONE.contains(&k) && (value.is_object() || value.is_boolean()) {
            lower(ctx, value, &child(pointer, k), depth + 1)?
        } else if MANY_BY_NAME.contains(&k) && value.is_object() {
            let here = child(pointer, k);
            let mut map = Map::new();
            for (name, sub) in value.as_object().into_iter().flatten() {
                map.insert(
                    name.clone(),
                    lower(ctx, sub, &child(&here, name), depth + 1)?,
                );
            }
            Value::Object(map)
        } else if (MANY.contains(&k) || k == "items") && value.is_array() {
            let here = child(pointer, k);
            let mut list = Vec::new();
            for (i, sub) in value.as_array().into_iter().flatten().enumerate() {
                list.push(lower(ctx, sub, &child(&here, &i.to_string()), depth + 1)?);
            }
            Value::Array(list)
        } else if k == "enum" {
            cap_enum(ctx, value, pointer)?
        } else {
            value.clone()
        };
        out.insert(key.clone(), lowered);
    }
    ctx.drop_meta(pointer, &mut out);
    Ok(Value::Object(out))
}

/// An `enum` cut to [`MAX_ENUM`] members, reported when cut.
pub(crate) fn cap_enum(
    ctx: &mut Ctx<'_>,
    value: &Value,
    pointer: &str,
) -> Result<Value, CompileError> {
    let Some(members) = value.as_array() else {
        return Err(CompileError::invalid(pointer, "enum"));
    };
    if members.len() <= MAX_ENUM {
        ctx.spend(pointer, members.len())?;
        return Ok(value.clone());
    }
    ctx.spend(pointer, MAX_ENUM)?;
    ctx.lose(
        pointer,
        "enum",
        Action::Rewritten,
        "more members than a provider takes; only the first ones are offered",
    );
    Ok(Value::Array(members[..MAX_ENUM].to_vec()))
}
