//! Lowering for OpenAI strict mode (`strict: true`).
//!
//! Strict mode takes a subset of JSON Schema: every object closed
//! (`additionalProperties: false`) with every property listed in
//! `required`, unions only as `anyOf`, references only to `$defs` or the
//! root, and a fixed list of constraint keywords. An optional property
//! becomes required and nullable, recorded in the restore plan so the
//! `null` can be removed again. When a schema needs something strict mode
//! cannot say (an open map, a tuple, a value of any type, a recursive
//! reference with sibling keywords, the documented size limits), lowering
//! stops with [`Fail::Blocked`] and the caller falls back to non-strict.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Map, Value};

use super::ctx::{accepts_null, child, def_name, merge_all_of, types, Ctx, META};
use super::loss::Action;
use super::restore::{Plan, Plans};
use super::CompileError;

/// String formats strict mode enforces.
const FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Constraint keywords strict mode enforces, kept as they are.
const KEPT: &[&str] = &[
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "description",
    "title",
];

/// Keywords strict mode does not take that still tell the model something.
const DESCRIBED: &[&str] = &[
    "minLength",
    "maxLength",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "minContains",
    "maxContains",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
    "propertyNames",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
];

/// Documented limits of strict mode.
const MAX_OBJECT_DEPTH: usize = 10;
const MAX_PROPERTIES: usize = 5000;
const MAX_ENUM_VALUES: usize = 1000;
const LARGE_ENUM: usize = 250;
const LARGE_ENUM_CHARS: usize = 15_000;
/// Characters of property names, definition names, enum and const values.
const MAX_CHARS: usize = 120_000;

/// Why strict lowering stopped.
#[derive(Debug)]
pub(crate) enum Fail {
    /// A hard error: the schema cannot be compiled for any mode.
    Error(CompileError),
    /// Strict mode cannot express the schema.
    Blocked {
        pointer: String,
        keyword: String,
        reason: &'static str,
    },
}

impl From<CompileError> for Fail {
    fn from(e: CompileError) -> Self {
        Fail::Error(e)
    }
}

fn blocked<T>(pointer: &str, keyword: &str, reason: &'static str) -> Result<T, Fail> {
    Err(Fail::Blocked {
        pointer: pointer.to_owned(),
        keyword: keyword.to_owned(),
        reason,
    })
}

struct Strict<'c, 'a> {
    ctx: &'c mut Ctx<'a>,
    /// Definitions to lower: output name, schema, pointer.
    pending: Vec<(String, &'a Value, String)>,
    queued: BTreeSet<String>,
    enum_values: usize,
    properties: usize,
    chars: usize,
}

/// `root` (already an object schema) in strict form, and its restore plans.
pub(crate) fn lower(ctx: &mut Ctx<'_>, root: &Value) -> Result<(Value, Plans), Fail> {
    if ["anyOf", "oneOf"].iter().any(|k| root.get(*k).is_some()) {
        return blocked("", "anyOf", "strict mode takes no union at the root");
    }
    let mut s = Strict {
        ctx,
        pending: Vec::new(),
        queued: BTreeSet::new(),
        enum_values: 0,
        properties: 0,
        chars: 0,
    };
    let (mut out, root_plan) = s.node(root, "", 0, 0)?;
    let mut plans = Plans {
        root: root_plan,
        defs: BTreeMap::new(),
    };
    let mut defs = Map::new();
    while let Some((name, schema, pointer)) = s.pending.pop() {
        let (lowered, plan) = s.node(schema, &pointer, 1, 0)?;
        defs.insert(name.clone(), lowered);
        plans.defs.insert(name, plan);
    }
    s.report_unused(root);
    if !defs.is_empty() {
        // Sorted, so the output does not depend on the order of discovery.
        let sorted: BTreeMap<_, _> = defs.into_iter().collect();
        if let Value::Object(map) = &mut out {
            map.insert(
                "$defs".to_owned(),
                Value::Object(sorted.into_iter().collect()),
            );
        }
    }
    Ok((out, plans))
}

impl<'a> Strict<'_, 'a> {
    fn node(
        &mut self,
        schema: &Value,
        pointer: &str,
        depth: usize,
        objects: usize,
    ) -> Result<(Value, Plan), Fail> {
        self.ctx.enter(pointer, depth)?;
        let node = match schema {
            Value::Object(node) => node,
            Value::Bool(_) => {
                return blocked(pointer, "true", "a schema of any value has no strict form")
            }
            _ => return Err(CompileError::invalid(pointer, "schema").into()),
        };
        if let Some(reference) = node.get("$ref") {
            return self.reference(node, reference, pointer, depth, objects);
        }
        if let Some(parts) = node.get("allOf") {
            return self.all_of(node, parts, pointer, depth, objects);
        }
        self.plain(node, pointer, depth, objects)
    }

    fn reference(
        &mut self,
        node: &Map<String, Value>,
        reference: &Value,
        pointer: &str,
        depth: usize,
        objects: usize,
    ) -> Result<(Value, Plan), Fail> {
        let Some(reference) = reference.as_str() else {
            return Err(CompileError::invalid(pointer, "$ref").into());
        };
        for key in META {
            if node.contains_key(*key) {
                self.ctx.lose(
                    pointer,
                    key,
                    Action::Dropped,
                    "says nothing about the arguments",
                );
            }
        }
        let alone = node
            .keys()
            .all(|k| k == "$ref" || META.contains(&k.as_str()));
        let Some((target, target_pointer)) = self.ctx.resolve(reference) else {
            return blocked(
                pointer,
                "$ref",
                "a reference outside the schema has no strict form",
            );
        };
        if alone && reference == "#" {
            return Ok((json!({"$ref": "#"}), Plan::Ref("#".to_owned())));
        }
        if alone {
            if let Some((container, name)) = def_name(reference) {
                let out_name = if container == "definitions"
                    && self
                        .ctx
                        .root
                        .pointer(&format!(
                            "/$defs/{}",
                            name.replace('~', "~0").replace('/', "~1")
                        ))
                        .is_some()
                {
                    format!("definitions-{name}")
                } else {
                    name
                };
                if container == "definitions" {
                    self.ctx.lose(
                        pointer,
                        "$ref",
                        Action::Rewritten,
                        "`definitions` are carried as `$defs`",
                    );
                }
                if self.queued.insert(out_name.clone()) {
                    self.chars(pointer, out_name.len())?;
                    self.pending
                        .push((out_name.clone(), target, target_pointer));
                }
                let escaped = out_name.replace('~', "~0").replace('/', "~1");
                return Ok((
                    json!({"$ref": format!("#/$defs/{escaped}")}),
                    Plan::Ref(out_name),
                ));
            }
        }
        // A reference with sibling keywords, or into the middle of the
        // schema: a copy of the target, the siblings taking precedence.
        if self.ctx.inlining.iter().any(|r| r == reference) {
            return blocked(
                pointer,
                "$ref",
                "a recursive reference with sibling keywords has no strict form",
            );
        }
        let Some(target) = target.as_object() else {
            return blocked(
                pointer,
                "$ref",
                "a reference to a boolean schema has no strict form",
            );
        };
        let mut merged = target.clone();
        for (key, value) in node {
            if key != "$ref" {
                merged.insert(key.clone(), value.clone());
            }
        }
        self.ctx.lose(
            pointer,
            "$ref",
            Action::Inlined,
            "strict mode takes no sibling keywords beside a reference",
        );
        self.ctx.inlining.push(reference.to_owned());
        let result = self.node(&Value::Object(merged), &target_pointer, depth + 1, objects);
        self.ctx.inlining.pop();
        result
    }

    fn all_of(
        &mut self,
        node: &Map<String, Value>,
        parts: &Value,
        pointer: &str,
        depth: usize,
        objects: usize,
    ) -> Result<(Value, Plan), Fail> {
        let merged = parts.as_array().and_then(|parts| merge_all_of(node, parts));
        let Some(merged) = merged else {
            return blocked(
                pointer,
                "allOf",
                "strict mode takes no `allOf`, and its parts do not merge",
            );
        };
        self.ctx.lose(
            pointer,
            "allOf",
            Action::Rewritten,
            "strict mode takes no `allOf`; its parts are merged",
        );
        self.node(&Value::Object(merged), pointer, depth + 1, objects)
    }

    fn plain(
        &mut self,
        node: &Map<String, Value>,
        pointer: &str,
        depth: usize,
        objects: usize,
    ) -> Result<(Value, Plan), Fail> {
        let kinds = types(node, pointer)?;
        let is = |t: &str| kinds.as_ref().is_some_and(|k| k.iter().any(|n| n == t));
        let object = is("object") || (kinds.is_none() && node.contains_key("properties"));
        let mut out = Map::new();
        let mut plan = Plan::Keep;
        if kinds.is_none()
            && !object
            && !["enum", "const", "anyOf", "oneOf"]
                .iter()
                .any(|k| node.contains_key(*k))
        {
            return blocked(pointer, "type", "a schema of any value has no strict form");
        }
        if object && kinds.is_none() {
            out.insert("type".to_owned(), Value::from("object"));
            self.ctx.lose(
                pointer,
                "type",
                Action::Rewritten,
                "a schema with properties is an object",
            );
        }
        if node.contains_key("anyOf") && node.contains_key("oneOf") {
            return blocked(
                pointer,
                "oneOf",
                "`anyOf` and `oneOf` together have no strict form",
            );
        }
        for (key, value) in node {
            let k = key.as_str();
            match k {
                "type" => {
                    out.insert(key.clone(), value.clone());
                }
                "properties" | "required" | "additionalProperties" | "$defs" | "definitions" => {}
                "const" => {
                    self.chars(pointer, value.as_str().map_or(0, str::len))?;
                    out.insert(key.clone(), value.clone());
                }
                "enum" => {
                    self.enumeration(value, pointer)?;
                    out.insert(key.clone(), value.clone());
                }
                "anyOf" | "oneOf" => {
                    let Some(branches) = value.as_array() else {
                        return Err(CompileError::invalid(pointer, key).into());
                    };
                    let here = child(pointer, k);
                    let mut lowered = Vec::with_capacity(branches.len());
                    let mut plans = Vec::with_capacity(branches.len());
                    for (i, branch) in branches.iter().enumerate() {
                        let (v, p) =
                            self.node(branch, &child(&here, &i.to_string()), depth + 1, objects)?;
                        lowered.push(v);
                        plans.push(p);
                    }
                    if k == "oneOf" {
                        self.ctx.lose(
                            pointer,
                            k,
                            Action::Rewritten,
                            "strict mode takes unions only as `anyOf`",
                        );
                    }
                    out.insert("anyOf".to_owned(), Value::Array(lowered));
                    if plans.iter().any(|p| !p.is_keep()) {
                        plan = Plan::AnyOf(plans);
                    }
                }
                "items" => {
                    if !value.is_object() {
                        return blocked(pointer, k, "tuple or boolean `items` have no strict form");
                    }
                    let (v, p) = self.node(value, &child(pointer, k), depth + 1, objects)?;
                    out.insert(key.clone(), v);
                    if !p.is_keep() {
                        plan = Plan::Array(Box::new(p));
                    }
                }
                "format" => match value.as_str() {
                    Some(f) if FORMATS.contains(&f) => {
                        out.insert(key.clone(), value.clone());
                    }
                    _ => self.ctx.describe(
                        pointer,
                        k,
                        value,
                        &mut out,
                        "a format strict mode does not enforce",
                    ),
                },
                "unevaluatedProperties" if value == &Value::Bool(false) => {
                    self.ctx.lose(
                        pointer,
                        k,
                        Action::Dropped,
                        "strict mode closes every object anyway",
                    );
                }
                "prefixItems"
                | "patternProperties"
                | "additionalItems"
                | "unevaluatedProperties"
                | "unevaluatedItems" => {
                    return blocked(pointer, k, "strict mode cannot express this keyword");
                }
                "default" if value.is_null() => {
                    self.ctx.lose(
                        pointer,
                        k,
                        Action::Dropped,
                        "a `null` default says nothing more than the nullable type",
                    );
                }
                _ if KEPT.contains(&k) => {
                    out.insert(key.clone(), value.clone());
                }
                _ if DESCRIBED.contains(&k) => {
                    self.ctx.describe(
                        pointer,
                        k,
                        value,
                        &mut out,
                        "strict mode does not take this keyword",
                    );
                }
                _ if META.contains(&k) => {
                    self.ctx.lose(
                        pointer,
                        k,
                        Action::Dropped,
                        "says nothing about the arguments",
                    );
                }
                _ => self.ctx.lose(
                    pointer,
                    k,
                    Action::Dropped,
                    "not a keyword strict mode takes",
                ),
            }
        }
        if is("array") && !node.contains_key("items") {
            return blocked(pointer, "items", "an array of any items has no strict form");
        }
        // The root's definitions are carried when referenced; others are
        // reached through pointers and inlined.
        if depth > 0 && (node.contains_key("$defs") || node.contains_key("definitions")) {
            self.ctx.lose(
                pointer,
                "$defs",
                Action::Dropped,
                "definitions below the root are inlined where used",
            );
        }
        if object {
            plan = self.object(node, pointer, depth, objects + 1, &mut out)?;
        } else {
            self.ctx.drop_object_keywords(pointer, node);
        }
        Ok((Value::Object(out), plan))
    }

    fn object(
        &mut self,
        node: &Map<String, Value>,
        pointer: &str,
        depth: usize,
        objects: usize,
        out: &mut Map<String, Value>,
    ) -> Result<Plan, Fail> {
        if objects > MAX_OBJECT_DEPTH {
            return blocked(
                pointer,
                "properties",
                "strict mode nests objects at most 10 deep",
            );
        }
        match node.get("additionalProperties") {
            None => self.ctx.lose(
                pointer,
                "additionalProperties",
                Action::Rewritten,
                "strict mode closes every object",
            ),
            Some(Value::Bool(false)) => {}
            Some(_) => {
                return blocked(
                    pointer,
                    "additionalProperties",
                    "an open object has no strict form",
                )
            }
        }
        let empty = Map::new();
        let props = match node.get("properties") {
            None => &empty,
            Some(Value::Object(p)) => p,
            Some(_) => return Err(CompileError::invalid(pointer, "properties").into()),
        };
        let required: BTreeSet<&str> = match node.get("required") {
            None => BTreeSet::new(),
            Some(Value::Array(r)) => r.iter().filter_map(Value::as_str).collect(),
            Some(_) => return Err(CompileError::invalid(pointer, "required").into()),
        };
        if required.iter().any(|r| !props.contains_key(*r)) {
            return blocked(
                pointer,
                "required",
                "a required property that is not declared has no strict form",
            );
        }
        let here = child(pointer, "properties");
        let mut lowered = Map::new();
        let mut plans = BTreeMap::new();
        for (name, sub) in props {
            let at = child(&here, name);
            if sub == &Value::Bool(false) {
                self.ctx.lose(
                    &at,
                    "false",
                    Action::Dropped,
                    "a property that may never be present is not offered",
                );
                continue;
            }
            self.properties += 1;
            if self.properties > MAX_PROPERTIES {
                return blocked(
                    &at,
                    "properties",
                    "strict mode takes at most 5000 properties",
                );
            }
            let (mut v, p) = self.node(sub, &at, depth + 1, objects)?;
            self.chars(&at, name.len())?;
            let strip = !required.contains(name.as_str()) && !accepts_null(sub);
            if strip {
                v = nullable(v);
                self.ctx.lose(&at, "required", Action::Rewritten, "strict mode requires every property: optional made nullable, the null removed again before the call");
            }
            lowered.insert(name.clone(), v);
            plans.insert(name.clone(), (strip, p));
        }
        let names: Vec<Value> = lowered.keys().map(|k| Value::from(k.as_str())).collect();
        out.insert("properties".to_owned(), Value::Object(lowered));
        out.insert("required".to_owned(), Value::Array(names));
        out.insert("additionalProperties".to_owned(), Value::Bool(false));
        let trivial = plans.values().all(|(strip, p)| !strip && p.is_keep());
        Ok(if trivial {
            Plan::Keep
        } else {
            Plan::Object {
                props: plans,
                closed: false,
            }
        })
    }

    /// Counts `n` characters against the strict-mode limit.
    fn chars(&mut self, pointer: &str, n: usize) -> Result<(), Fail> {
        self.chars += n;
        if self.chars > MAX_CHARS {
            return blocked(
                pointer,
                "properties",
                "strict mode takes at most 120000 characters of names and values",
            );
        }
        Ok(())
    }

    fn enumeration(&mut self, value: &Value, pointer: &str) -> Result<(), Fail> {
        let Some(members) = value.as_array() else {
            return Err(CompileError::invalid(pointer, "enum").into());
        };
        self.ctx.spend(pointer, members.len())?;
        self.enum_values += members.len();
        if self.enum_values > MAX_ENUM_VALUES {
            return blocked(
                pointer,
                "enum",
                "strict mode takes at most 1000 enum values in all",
            );
        }
        if members.iter().any(|m| m.is_object() || m.is_array()) {
            return blocked(pointer, "enum", "strict mode takes only plain enum values");
        }
        let chars: usize = members.iter().filter_map(Value::as_str).map(str::len).sum();
        self.chars(pointer, chars)?;
        if members.len() > LARGE_ENUM && chars > LARGE_ENUM_CHARS {
            return blocked(
                pointer,
                "enum",
                "a large strict enum may hold at most 15000 characters",
            );
        }
        Ok(())
    }

    /// Reports the root definitions nothing referenced.
    fn report_unused(&mut self, root: &Value) {
        for container in ["$defs", "definitions"] {
            let Some(defs) = root.get(container).and_then(Value::as_object) else {
                continue;
            };
            for name in defs.keys() {
                let used = self.queued.contains(name)
                    || self.queued.contains(&format!("definitions-{name}"));
                if !used {
                    let at = child(&child("", container), name);
                    self.ctx.lose(
                        &at,
                        container,
                        Action::Dropped,
                        "a definition nothing refers to directly",
                    );
                }
            }
        }
    }
}

/// `schema` made to accept `null` as well.
pub(crate) fn nullable(schema: Value) -> Value {
    let Value::Object(mut node) = schema else {
        return json!({"anyOf": [schema, {"type": "null"}]});
    };
    let plain = !node.contains_key("enum") && !node.contains_key("const");
    let union = node.contains_key("anyOf");
    if plain && union && !node.contains_key("type") {
        // A union without a type of its own takes one more branch.
        if let Some(Value::Array(branches)) = node.get_mut("anyOf") {
            branches.push(json!({"type": "null"}));
            return Value::Object(node);
        }
    }
    if plain && !union {
        match node.get_mut("type") {
            Some(Value::String(t)) => {
                let t = std::mem::take(t);
                node.insert("type".to_owned(), json!([t, "null"]));
                return Value::Object(node);
            }
            Some(Value::Array(list)) => {
                if !list.iter().any(|t| t == "null") {
                    list.push(Value::from("null"));
                }
                return Value::Object(node);
            }
            _ => {}
        }
    }
    json!({"anyOf": [Value::Object(node), {"type": "null"}]})
}
