//! The normalisation pass: JSON Schema in, [`Def`]s with resolved names out.
//!
//! What it understands: `$ref` (plain and with sibling keywords), `allOf`
//! merged into one object, `anyOf`/`oneOf` unions (nested inline unions and
//! `type` arrays are flattened into one list of members; `null` members make
//! the type nullable), `enum` and `const`, open and closed objects (a
//! property whose schema accepts nothing, `false` or `{"not": {}}`, gets no
//! field), maps, arrays, and recursion. Inline composite types are hoisted
//! into items named after where they sit (`{Parent}{Property}`); identical
//! inline string enums and identical constants are generated once.

use std::cell::Cell;
use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use crate::error::{child, Error};
use crate::ir::{kind, Body, ConstValue, Def, Field, Shape, Struct, Ty, Union, Variant};
use crate::naming;
use crate::settings::Settings;

type Result<T, E = Error> = std::result::Result<T, E>;

/// Keywords that describe a schema without constraining it.
const ANNOTATIONS: &[&str] = &[
    "description",
    "title",
    "$comment",
    "examples",
    "default",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$id",
    "$schema",
    "$anchor",
    "format",
    "contentEncoding",
    "contentMediaType",
];

/// How deep unions inside `allOf` may nest (each level is distributed over
/// the joined object, see `distribute`).
const MAX_DISTRIBUTE: usize = 8;

/// How deep `$ref`/`allOf` chains may go before the schema is called cyclic.
const MAX_DEPTH: usize = 64;

/// Steps one analysis of a schema node may take (see `Lowerer::spend`).
const BUDGET: usize = 200_000;

/// How many pointer segments deep inline schemas may nest; deeper input is
/// refused instead of exhausting the stack.
const MAX_NESTING: usize = 96;

/// Steps the whole lowering of one document may take, across every
/// analysis: a schema that fans out (a `$ref` with siblings to a schema
/// whose properties do the same, level after level) runs out instead of
/// doubling its work at every level.
const TOTAL_WORK: usize = 500_000;

/// Most items one document may make: the spec's schemas make about 250,
/// and a schema that makes more than this is a denial of service, not an
/// API.
const MAX_ITEMS: usize = 2_000;

/// Most items one schema of a peer's tool may make; real tools make a few
/// dozen at most.
const MAX_UNTRUSTED_ITEMS: usize = 256;

/// Where a name comes from: the item being generated and the property in it.
#[derive(Clone, Copy)]
struct Hint<'h> {
    parent: &'h str,
    prop: &'h str,
}

/// One member of a union after flattening.
struct Member {
    schema: Value,
    pointer: String,
    /// The `$defs` entry when the member is a plain `$ref`.
    def: Option<String>,
}

pub(crate) fn lower(root: &Value, settings: &Settings) -> Result<Vec<Def>> {
    lower_with(root, settings, &mut HashSet::new(), None)
}

/// Lowers one document of several that share a namespace: `taken` holds
/// the names already used, and gains this document's. `reserved_root`, a
/// name the caller has already put in `taken`, is what the root is called
/// (the root then always gets an item, even when it only says `{}`).
pub(crate) fn lower_with(
    root: &Value,
    settings: &Settings,
    taken: &mut HashSet<String>,
    reserved_root: Option<&str>,
) -> Result<Vec<Def>> {
    let mut lowerer = Lowerer {
        root,
        settings,
        defs: Vec::new(),
        taken: std::mem::take(taken),
        def_names: HashMap::new(),
        root_name: None,
        dedup: HashMap::new(),
        enum_uses: HashMap::new(),
        budget: Cell::new(0),
        work: Cell::new(TOTAL_WORK),
        depth: Cell::new(0),
    };
    let outcome = lowerer.document(reserved_root);
    *taken = std::mem::take(&mut lowerer.taken);
    outcome?;
    let mut defs = lowerer.defs;
    crate::boxing::break_cycles(&mut defs);
    Ok(defs)
}

impl Lowerer<'_> {
    fn document(&mut self, reserved_root: Option<&str>) -> Result<()> {
        let (root, settings) = (self.root, self.settings);
        let empty = Map::new();
        let root_obj = match root {
            Value::Object(root_obj) => root_obj,
            Value::Bool(true) if reserved_root.is_some() => &empty,
            _ => {
                return Err(Error::NotASchema {
                    pointer: String::new(),
                })
            }
        };
        let lowerer = self;
        count_enum_uses(root, &mut lowerer.enum_uses, 0);

        let mut entries = Vec::new();
        for container in ["$defs", "definitions"] {
            if let Some(defs) = root_obj.get(container) {
                let defs = defs.as_object().ok_or_else(|| Error::InvalidKeyword {
                    pointer: child("", container),
                    keyword: if container == "$defs" {
                        "$defs"
                    } else {
                        "definitions"
                    },
                    expected: "must be an object of schemas",
                })?;
                for (key, schema) in defs {
                    let pointer = child(&child("", container), key);
                    let name = lowerer.unique(naming::type_name(key));
                    lowerer.def_names.insert(key.clone(), name);
                    entries.push((key.clone(), schema, pointer));
                }
            }
        }
        let describes_value = reserved_root.is_some()
            || root_obj
                .keys()
                .any(|k| !ANNOTATIONS.contains(&k.as_str()) && k != "$defs" && k != "definitions");
        if let Some(name) = reserved_root {
            lowerer.root_name = Some(name.to_owned());
        } else if describes_value {
            let name = settings
                .root_name
                .clone()
                .or_else(|| {
                    root_obj
                        .get("title")
                        .and_then(Value::as_str)
                        .map(naming::type_name)
                })
                .unwrap_or_else(|| "Root".to_owned());
            lowerer.root_name = Some(lowerer.unique(name));
        }

        for (key, schema, pointer) in entries {
            lowerer.lower_def(Some(&key), schema, &pointer)?;
        }
        if describes_value {
            let mut root_schema = root_obj.clone();
            root_schema.remove("$defs");
            root_schema.remove("definitions");
            lowerer.lower_def(None, &Value::Object(root_schema), "")?;
        }
        Ok(())
    }
}

struct Lowerer<'a> {
    root: &'a Value,
    settings: &'a Settings,
    defs: Vec<Def>,
    taken: HashSet<String>,
    /// `$defs` key to Rust name.
    def_names: HashMap<String, String>,
    root_name: Option<String>,
    /// Structure of a hoisted inline type to its name.
    dedup: HashMap<String, String>,
    /// How many properties use each inline string enum.
    enum_uses: HashMap<String, usize>,
    /// Steps left for the current `$ref`/`allOf`/union analysis; hostile
    /// schemas that fan out exponentially run out instead of hanging.
    budget: Cell<usize>,
    /// Steps left for the whole document (see [`TOTAL_WORK`]).
    work: Cell<usize>,
    /// How deep `lower_ty` calls are nested, which pointers alone do not
    /// tell when references loop through non-`$defs` pointers.
    depth: Cell<usize>,
}

impl<'a> Lowerer<'a> {
    fn unique(&mut self, candidate: String) -> String {
        let mut name = candidate.clone();
        let mut n = 2;
        while self.taken.contains(&name) {
            name = format!("{candidate}{n}");
            n += 1;
        }
        self.taken.insert(name.clone());
        name
    }

    /// Takes one step of the analysis budget; `Err` when it is used up.
    fn spend(&self, pointer: &str) -> Result<()> {
        self.work_step(pointer)?;
        match self.budget.get().checked_sub(1) {
            Some(left) => {
                self.budget.set(left);
                Ok(())
            }
            None => Err(Error::Unsupported {
                pointer: pointer.to_owned(),
                what: "`$ref`/`allOf`/`anyOf` expand to too many schemas".to_owned(),
            }),
        }
    }

    /// Takes one step of the document's work; `Err` when it is used up.
    fn work_step(&self, pointer: &str) -> Result<()> {
        match self.work.get().checked_sub(1) {
            Some(left) => {
                self.work.set(left);
                Ok(())
            }
            None => Err(Error::Unsupported {
                pointer: pointer.to_owned(),
                what: format!("the schema takes more than {TOTAL_WORK} steps to lower"),
            }),
        }
    }

    fn description(&self, schema: &Value) -> Option<String> {
        if !self.settings.descriptions {
            return None;
        }
        schema
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_owned)
    }

    fn push(
        &mut self,
        name: String,
        pointer: &str,
        schema_def: Option<&str>,
        top: bool,
        schema: &Value,
    ) -> usize {
        let description = self.description(schema);
        self.defs.push(Def {
            fallback: None,
            name,
            pointer: pointer.to_owned(),
            schema_def: schema_def.map(str::to_owned),
            top_level: top,
            description,
            body: Body::Pending,
        });
        self.defs.len() - 1
    }

    /// Lowers one `$defs` entry (or the root when `key` is `None`) into an
    /// item of exactly its name.
    fn lower_def(&mut self, key: Option<&str>, schema: &Value, pointer: &str) -> Result<()> {
        let name = match key {
            Some(key) => self.def_names[key].clone(),
            None => self.root_name.clone().unwrap_or_default(),
        };
        let idx = self.push(name.clone(), pointer, key, true, schema);
        if let Some(path) = key.and_then(|k| self.settings.replacements.get(k)) {
            syn::parse_str::<syn::Type>(path).map_err(|_| Error::InvalidReplacement {
                name: name.clone(),
                path: path.clone(),
            })?;
            self.defs[idx].body = Body::Replaced(path.clone());
            return Ok(());
        }
        let mark = self.mark();
        let body = match self.body_for(&name, schema, pointer, key) {
            Ok(body) => body,
            Err(error) if self.settings.untrusted => {
                self.rollback(mark);
                self.defs[idx].fallback = Some(error.to_string());
                Body::Alias(Ty::Any)
            }
            Err(error) => return Err(error),
        };
        self.defs[idx].body = body;
        Ok(())
    }

    /// Where the items stand, to undo a failed lowering with [`Self::rollback`].
    fn mark(&self) -> usize {
        self.defs.len()
    }

    /// Forgets the items pushed since `mark`, and the deduplicated names
    /// that pointed at them. Their names stay taken, which is harmless.
    fn rollback(&mut self, mark: usize) {
        let dropped: HashSet<String> = self.defs.drain(mark..).map(|d| d.name).collect();
        self.dedup.retain(|_, name| !dropped.contains(name));
    }

    /// A field's type; for untrusted input, `serde_json::Value` and the
    /// reason when the schema has no faithful Rust type.
    fn field_ty(
        &mut self,
        schema: &Value,
        pointer: &str,
        hint: Hint<'_>,
    ) -> Result<(Ty, Option<String>)> {
        let mark = self.mark();
        match self.lower_ty(schema, pointer, hint) {
            Ok(Ty::Any) if self.settings.untrusted && !is_open(schema) => Ok((
                Ty::Any,
                Some(format!(
                    "{pointer}: no Rust type says what this schema allows"
                )),
            )),
            Ok(ty) => Ok((ty, None)),
            Err(error) if self.settings.untrusted => {
                self.rollback(mark);
                Ok((Ty::Any, Some(error.to_string())))
            }
            Err(error) => Err(error),
        }
    }

    /// The body of a named item: a struct, union, enum or constant when the
    /// schema is one, an alias otherwise.
    fn body_for(
        &mut self,
        name: &str,
        schema: &Value,
        pointer: &str,
        def: Option<&str>,
    ) -> Result<Body> {
        let obj = as_schema(schema, pointer)?;
        let Some(obj) = obj else {
            return Ok(Body::Alias(Ty::Any));
        };
        if self.plain_ref(obj, pointer)?.is_some() {
            return Ok(Body::Alias(self.lower_ty(
                schema,
                pointer,
                Hint {
                    parent: name,
                    prop: "",
                },
            )?));
        }
        if obj.contains_key("allOf") || obj.contains_key("$ref") {
            let merged = Value::Object(self.merge(schema, pointer)?);
            return self.body_for(name, &merged, pointer, def);
        }
        let members = self.members_of(schema, pointer)?;
        let nullable = members.iter().any(|m| is_null(&m.schema));
        let non_null: Vec<Member> = members
            .into_iter()
            .filter(|m| !is_null(&m.schema))
            .collect();
        if non_null.len() >= 2 && !nullable {
            if let Some(values) = string_values(&non_null) {
                return Ok(Body::Enum(values));
            }
            return self.union_body(name, non_null);
        }
        let single = non_null.len() == 1 && non_null[0].schema != *schema;
        if nullable || single {
            return Ok(Body::Alias(self.lower_ty(
                schema,
                pointer,
                Hint {
                    parent: name,
                    prop: "",
                },
            )?));
        }
        if let Some(values) = obj.get("enum") {
            if let Some(values) = enum_strings(values) {
                return Ok(Body::Enum(values));
            }
        }
        if let Some(value) = obj.get("const").and_then(const_value) {
            return Ok(Body::Const {
                property: "value".to_owned(),
                value,
            });
        }
        let is_object = obj.get("type").and_then(Value::as_str) == Some("object")
            || (obj.get("type").is_none() && obj.contains_key("properties"));
        let has_props = obj
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|p| !p.is_empty());
        let closed = obj.get("additionalProperties") == Some(&Value::Bool(false));
        // A peer's root object is always a struct: the arguments of a tool
        // that takes none are still a type with a constructor.
        let root_struct = self.settings.untrusted && def.is_none();
        if is_object && (has_props || closed || root_struct) {
            return self.struct_body(name, obj, pointer, def);
        }
        Ok(Body::Alias(self.lower_ty(
            schema,
            pointer,
            Hint {
                parent: name,
                prop: "",
            },
        )?))
    }

    /// Resolves a `$ref` with only annotations beside it to the Rust name.
    fn plain_ref(&self, obj: &Map<String, Value>, pointer: &str) -> Result<Option<String>> {
        let Some(reference) = obj.get("$ref") else {
            return Ok(None);
        };
        if obj
            .keys()
            .any(|k| k != "$ref" && !ANNOTATIONS.contains(&k.as_str()))
        {
            return Ok(None);
        }
        let reference = reference.as_str().ok_or_else(|| Error::InvalidKeyword {
            pointer: pointer.to_owned(),
            keyword: "$ref",
            expected: "must be a string",
        })?;
        let (key, _, target) = self.deref(reference, pointer)?;
        if key.is_none() && !target.is_empty() {
            return Ok(None);
        }
        Ok(Some(match key {
            Some(key) => self.def_names[&key].clone(),
            None => self.root_name.clone().ok_or_else(|| Error::Unsupported {
                pointer: pointer.to_owned(),
                what: "`$ref: #` to a root that describes no value".to_owned(),
            })?,
        }))
    }

    /// The target of a `$ref` with only annotations beside it that points
    /// elsewhere than at a definition or the root: the schema and its
    /// pointer.
    fn pointer_ref(
        &self,
        obj: &Map<String, Value>,
        pointer: &str,
    ) -> Result<Option<(&'a Value, String)>> {
        let Some(Value::String(reference)) = obj.get("$ref") else {
            return Ok(None);
        };
        if obj
            .keys()
            .any(|k| k != "$ref" && !ANNOTATIONS.contains(&k.as_str()))
        {
            return Ok(None);
        }
        match self.deref(reference, pointer)? {
            (None, target, target_pointer) if !target_pointer.is_empty() => {
                Ok(Some((target, target_pointer)))
            }
            _ => Ok(None),
        }
    }

    /// The schema a reference points at: its `$defs` key (`None` for the
    /// root), the schema, and its pointer.
    fn deref(&self, reference: &str, pointer: &str) -> Result<(Option<String>, &'a Value, String)> {
        let unresolved = || Error::UnresolvedRef {
            pointer: pointer.to_owned(),
            reference: reference.to_owned(),
        };
        if reference == "#" {
            return Ok((None, self.root, String::new()));
        }
        for container in ["$defs", "definitions"] {
            if let Some(token) = reference.strip_prefix(&format!("#/{container}/")) {
                if token.contains('/') {
                    return self.deref_pointer(reference, pointer);
                }
                let key = token.replace("~1", "/").replace("~0", "~");
                let schema = self
                    .root
                    .get(container)
                    .and_then(|d| d.get(&key))
                    .ok_or_else(unresolved)?;
                return Ok((
                    Some(key.clone()),
                    schema,
                    child(&child("", container), &key),
                ));
            }
        }
        self.deref_pointer(reference, pointer)
    }

    /// A reference to any other place in the document (`#/properties/a`,
    /// as zod writes for a schema it has already written once): the schema
    /// there, inlined where it is used.
    fn deref_pointer(
        &self,
        reference: &str,
        pointer: &str,
    ) -> Result<(Option<String>, &'a Value, String)> {
        let unresolved = || Error::UnresolvedRef {
            pointer: pointer.to_owned(),
            reference: reference.to_owned(),
        };
        let path = reference.strip_prefix('#').ok_or_else(unresolved)?;
        let target = self.root.pointer(path).ok_or_else(unresolved)?;
        if path.is_empty() || !matches!(target, Value::Object(_) | Value::Bool(_)) {
            return Err(unresolved());
        }
        Ok((None, target, path.to_owned()))
    }

    /// Flattens `$ref` and `allOf` into one object schema: properties are
    /// merged (a later refinement such as a `const` wins over an earlier
    /// declaration), `required` lists are joined, and one closed part closes
    /// the whole.
    fn merge(&self, schema: &Value, pointer: &str) -> Result<Map<String, Value>> {
        self.budget.set(BUDGET);
        self.merge_within_budget(schema, pointer, 0)
    }

    /// [`Self::merge`] spending the budget left, so that nested
    /// distributions over unions stay bounded.
    fn merge_within_budget(
        &self,
        schema: &Value,
        pointer: &str,
        depth: usize,
    ) -> Result<Map<String, Value>> {
        let mut parts = Vec::new();
        self.collect_parts(schema, pointer, 0, &mut parts)?;
        let mut merged = Map::new();
        for part in parts {
            for (key, value) in part {
                match key.as_str() {
                    "properties" => {
                        let Value::Object(props) = value else {
                            return Err(invalid(
                                pointer,
                                "properties",
                                "must be an object of schemas",
                            ));
                        };
                        let target = merged
                            .entry("properties")
                            .or_insert_with(|| Value::Object(Map::new()));
                        if let Value::Object(target) = target {
                            for (prop, schema) in props {
                                match (target.get_mut(&prop), schema) {
                                    (Some(Value::Object(old)), Value::Object(new)) => {
                                        old.extend(new)
                                    }
                                    (_, schema) => {
                                        target.insert(prop, schema);
                                    }
                                }
                            }
                        }
                    }
                    "required" => {
                        let target = merged
                            .entry("required")
                            .or_insert_with(|| Value::Array(Vec::new()));
                        if let (Value::Array(target), Value::Array(new)) = (target, value) {
                            for item in new {
                                if !target.contains(&item) {
                                    target.push(item);
                                }
                            }
                        }
                    }
                    "additionalProperties" if merged.get(&key) == Some(&Value::Bool(false)) => {}
                    "anyOf" | "oneOf"
                        if merged.contains_key("anyOf") || merged.contains_key("oneOf") =>
                    {
                        // A second union must hold as well: `distribute`
                        // joins each member of the first with it.
                        let pending = merged
                            .entry("allOf")
                            .or_insert_with(|| Value::Array(Vec::new()));
                        if let Value::Array(pending) = pending {
                            pending.push(Value::Object(Map::from_iter([(key, value)])));
                        }
                    }
                    _ => {
                        merged.insert(key, value);
                    }
                }
            }
        }
        self.distribute(merged, pointer, depth)
    }

    /// An `allOf` that joins an object to a union (`allOf: [A, {anyOf: [B,
    /// C]}]`, the shape of a result that is common fields plus one of several
    /// variants) is the union of the joins: `anyOf: [A & B, A & C]`. Without
    /// this the union would be dropped and only `A` generated.
    /// Two unions joined (`allOf: [{anyOf: [A, B]}, {anyOf: [C, D]}]`) are
    /// the union of every pair: `anyOf: [A & C, A & D, B & C, B & D]`.
    fn distribute(
        &self,
        mut merged: Map<String, Value>,
        pointer: &str,
        depth: usize,
    ) -> Result<Map<String, Value>> {
        let Some((keyword, members)) = union_keyword(&merged, pointer)? else {
            return Ok(merged);
        };
        if depth >= MAX_DISTRIBUTE {
            return Err(Error::Unsupported {
                pointer: pointer.to_owned(),
                what: format!("unions inside `allOf` nested more than {MAX_DISTRIBUTE} deep"),
            });
        }
        let members = members.clone();
        merged.remove(keyword);
        if !merged.keys().any(|k| !ANNOTATIONS.contains(&k.as_str())) {
            merged.insert(keyword.to_owned(), Value::Array(members));
            return Ok(merged);
        }
        let base = child(pointer, keyword);
        let mut joined = Vec::with_capacity(members.len());
        for (i, member) in members.into_iter().enumerate() {
            let both = serde_json::json!({ "allOf": [Value::Object(merged.clone()), member] });
            let member_pointer = child(&base, &i.to_string());
            joined.push(Value::Object(self.merge_within_budget(
                &both,
                &member_pointer,
                depth + 1,
            )?));
        }
        let mut out = Map::new();
        out.insert(keyword.to_owned(), Value::Array(joined));
        Ok(out)
    }

    fn collect_parts(
        &self,
        schema: &Value,
        pointer: &str,
        depth: usize,
        out: &mut Vec<Map<String, Value>>,
    ) -> Result<()> {
        if depth > MAX_DEPTH {
            return Err(Error::Unsupported {
                pointer: pointer.to_owned(),
                what: format!("`$ref`/`allOf` nested more than {MAX_DEPTH} deep (a cycle?)"),
            });
        }
        self.spend(pointer)?;
        let Some(obj) = as_schema(schema, pointer)? else {
            return Ok(());
        };
        let mut rest = obj.clone();
        if let Some(reference) = rest.remove("$ref") {
            let reference = reference
                .as_str()
                .ok_or_else(|| invalid(pointer, "$ref", "must be a string"))?;
            let (_, target, target_pointer) = self.deref(reference, pointer)?;
            self.collect_parts(target, &target_pointer, depth + 1, out)?;
        }
        if let Some(all) = rest.remove("allOf") {
            let Value::Array(parts) = all else {
                return Err(invalid(pointer, "allOf", "must be an array of schemas"));
            };
            let base = child(pointer, "allOf");
            for (i, part) in parts.iter().enumerate() {
                self.collect_parts(part, &child(&base, &i.to_string()), depth + 1, out)?;
            }
        }
        if rest.keys().any(|k| !ANNOTATIONS.contains(&k.as_str())) {
            out.push(rest);
        }
        Ok(())
    }

    /// The members of a union, with inline unions and `type` arrays
    /// flattened; a schema that is no union is its own single member.
    fn members_of(&self, schema: &Value, pointer: &str) -> Result<Vec<Member>> {
        let mut out = Vec::new();
        self.flatten_member(schema, pointer, None, 0, &mut out)?;
        Ok(out)
    }

    fn flatten_member(
        &self,
        schema: &Value,
        pointer: &str,
        def: Option<String>,
        depth: usize,
        out: &mut Vec<Member>,
    ) -> Result<()> {
        if depth > MAX_DEPTH {
            return Err(Error::Unsupported {
                pointer: pointer.to_owned(),
                what: "unions nested too deep".to_owned(),
            });
        }
        let Some(obj) = as_schema(schema, pointer)? else {
            out.push(Member {
                schema: schema.clone(),
                pointer: pointer.to_owned(),
                def,
            });
            return Ok(());
        };
        let structural = |skip: &[&str]| {
            obj.keys()
                .any(|k| !ANNOTATIONS.contains(&k.as_str()) && !skip.contains(&k.as_str()))
        };
        if let Some((keyword, members)) = union_keyword(obj, pointer)? {
            if !structural(&[keyword]) {
                let base = child(pointer, keyword);
                for (i, member) in members.iter().enumerate() {
                    let member_pointer = child(&base, &i.to_string());
                    let member_def = match member.get("$ref").and_then(Value::as_str) {
                        Some(reference)
                            if member.as_object().is_some_and(|m| {
                                self.plain_ref(m, &member_pointer).ok().flatten().is_some()
                            }) =>
                        {
                            self.deref(reference, &member_pointer)?.0
                        }
                        _ => None,
                    };
                    if member_def.is_some() {
                        out.push(Member {
                            schema: member.clone(),
                            pointer: member_pointer,
                            def: member_def,
                        });
                    } else {
                        self.flatten_member(member, &member_pointer, None, depth + 1, out)?;
                    }
                }
                return Ok(());
            }
        }
        if let Some(Value::Array(types)) = obj.get("type") {
            for t in types {
                let mut single = obj.clone();
                single.insert("type".to_owned(), t.clone());
                out.push(Member {
                    schema: Value::Object(single),
                    pointer: pointer.to_owned(),
                    def: None,
                });
            }
            return Ok(());
        }
        out.push(Member {
            schema: schema.clone(),
            pointer: pointer.to_owned(),
            def,
        });
        Ok(())
    }

    /// Lowers a schema used inside another one to a type expression,
    /// hoisting composite types into named items.
    fn lower_ty(&mut self, schema: &Value, pointer: &str, hint: Hint<'_>) -> Result<Ty> {
        self.work_step(pointer)?;
        let depth = self.depth.get();
        if depth > MAX_NESTING {
            return Err(Error::Unsupported {
                pointer: pointer.to_owned(),
                what: format!("references nest more than {MAX_NESTING} levels deep"),
            });
        }
        self.depth.set(depth + 1);
        let ty = self.lower_ty_at(schema, pointer, hint);
        self.depth.set(depth);
        ty
    }

    fn lower_ty_at(&mut self, schema: &Value, pointer: &str, hint: Hint<'_>) -> Result<Ty> {
        if pointer.matches('/').count() > MAX_NESTING {
            return Err(Error::Unsupported {
                pointer: pointer.to_owned(),
                what: format!("schemas nested more than {MAX_NESTING} levels deep"),
            });
        }
        let Some(obj) = as_schema(schema, pointer)? else {
            return Ok(Ty::Any);
        };
        if let Some(name) = self.plain_ref(obj, pointer)? {
            return Ok(Ty::Named(name));
        }
        if let Some((target, target_pointer)) = self.pointer_ref(obj, pointer)? {
            // Lowered where it lies, so every use shares its type.
            let prop = target_pointer.rsplit('/').next().unwrap_or_default();
            let hint = Hint {
                parent: hint.parent,
                prop,
            };
            return self.lower_ty(target, &target_pointer, hint);
        }
        if obj.contains_key("allOf") || obj.contains_key("$ref") {
            let merged = Value::Object(self.merge(schema, pointer)?);
            return self.lower_ty(&merged, pointer, hint);
        }
        let members = self.members_of(schema, pointer)?;
        let nullable = members.iter().any(|m| is_null(&m.schema));
        let mut non_null: Vec<Member> = members
            .into_iter()
            .filter(|m| !is_null(&m.schema))
            .collect();
        let ty = match non_null.len() {
            0 => Ty::Unit,
            1 if non_null[0].schema != *schema => {
                let member = non_null.remove(0);
                self.lower_ty(&member.schema, &member.pointer, hint)?
            }
            1 => self.lower_single(obj, schema, pointer, hint)?,
            _ => match string_values(&non_null) {
                Some(values) => self.hoist_enum(values, schema, pointer, hint)?,
                None => {
                    let key = format!("union:{pointer}");
                    let candidate =
                        naming::type_name(&format!("{}{}", hint.parent, naming::camel(hint.prop)));
                    self.hoist(key, candidate, schema, pointer, |this, name| {
                        this.union_body(name, non_null)
                    })?
                }
            },
        };
        Ok(if nullable && ty != Ty::Unit {
            Ty::Nullable(Box::new(ty))
        } else {
            ty
        })
    }

    /// Lowers a schema that is not a union.
    fn lower_single(
        &mut self,
        obj: &Map<String, Value>,
        schema: &Value,
        pointer: &str,
        hint: Hint<'_>,
    ) -> Result<Ty> {
        if let Some(values) = obj.get("enum") {
            return match enum_strings(values) {
                Some(values) => self.hoist_enum(values, schema, pointer, hint),
                None => Ok(Ty::Any),
            };
        }
        if let Some(value) = obj.get("const") {
            let Some(value) = const_value(value) else {
                return Ok(if value.is_null() { Ty::Unit } else { Ty::Any });
            };
            let key = format!("const:{}:{}", hint.prop, const_json(&value));
            let candidate = naming::type_name(&format!(
                "{}{}",
                naming::camel(hint.prop),
                const_name(&value)
            ));
            let property = hint.prop.to_owned();
            return self.hoist(key, candidate, schema, pointer, |_, _| {
                Ok(Body::Const { property, value })
            });
        }
        let ty = match obj.get("type") {
            None if obj.contains_key("properties") || obj.contains_key("additionalProperties") => {
                "object"
            }
            None if obj.contains_key("items") => "array",
            None => return Ok(Ty::Any),
            Some(Value::String(t)) => t.as_str(),
            Some(_) => {
                return Err(invalid(
                    pointer,
                    "type",
                    "must be a type name or an array of them",
                ))
            }
        };
        match ty {
            "string" => Ok(Ty::Str),
            "integer" => Ok(Ty::Int),
            "number" => Ok(Ty::Num),
            "boolean" => Ok(Ty::Bool),
            "null" => Ok(Ty::Unit),
            "array" => match obj.get("items") {
                Some(items @ (Value::Object(_) | Value::Bool(_))) => {
                    let prop = format!("{}Item", naming::camel(hint.prop));
                    let item = self.lower_ty(
                        items,
                        &child(pointer, "items"),
                        Hint {
                            parent: hint.parent,
                            prop: &prop,
                        },
                    )?;
                    Ok(Ty::Vec(Box::new(item)))
                }
                _ => Ok(Ty::Vec(Box::new(Ty::Any))),
            },
            "object" => self.lower_object(obj, schema, pointer, hint),
            other => Err(Error::Unsupported {
                pointer: pointer.to_owned(),
                what: format!("unknown type `{other}`"),
            }),
        }
    }

    fn lower_object(
        &mut self,
        obj: &Map<String, Value>,
        schema: &Value,
        pointer: &str,
        hint: Hint<'_>,
    ) -> Result<Ty> {
        let has_props = match obj.get("properties") {
            None => false,
            Some(Value::Object(props)) => !props.is_empty(),
            Some(_) => {
                return Err(invalid(
                    pointer,
                    "properties",
                    "must be an object of schemas",
                ))
            }
        };
        let extra = obj
            .get("additionalProperties")
            .or_else(|| obj.get("unevaluatedProperties"));
        if !has_props && extra != Some(&Value::Bool(false)) {
            let value = match extra {
                Some(extra) if !is_open(extra) => {
                    let prop = format!("{}Value", naming::camel(hint.prop));
                    self.lower_ty(
                        extra,
                        &child(pointer, "additionalProperties"),
                        Hint {
                            parent: hint.parent,
                            prop: &prop,
                        },
                    )?
                }
                _ => Ty::Any,
            };
            return Ok(Ty::Map(Box::new(value)));
        }
        let key = format!("struct:{pointer}");
        let candidate = naming::type_name(&format!("{}{}", hint.parent, naming::camel(hint.prop)));
        let obj = obj.clone();
        self.hoist(key, candidate, schema, pointer, |this, name| {
            this.struct_body(name, &obj, pointer, None)
        })
    }

    fn hoist_enum(
        &mut self,
        values: Vec<String>,
        schema: &Value,
        pointer: &str,
        hint: Hint<'_>,
    ) -> Result<Ty> {
        let key = format!(
            "enum:{}",
            serde_json::to_string(&values).unwrap_or_default()
        );
        let shared = self.enum_uses.get(&key).copied().unwrap_or(0) >= 2;
        let own = naming::camel(hint.prop);
        let candidate = if shared && !own.is_empty() && !self.taken.contains(&own) {
            naming::type_name(&own)
        } else {
            naming::type_name(&format!("{}{own}", hint.parent))
        };
        self.hoist(key, candidate, schema, pointer, |_, _| {
            Ok(Body::Enum(values))
        })
    }

    /// Names an inline type (or finds the identical one hoisted earlier) and
    /// builds its body after the name is reserved.
    fn hoist(
        &mut self,
        key: String,
        candidate: String,
        schema: &Value,
        pointer: &str,
        build: impl FnOnce(&mut Self, &str) -> Result<Body>,
    ) -> Result<Ty> {
        if let Some(name) = self.dedup.get(&key) {
            return Ok(Ty::Named(name.clone()));
        }
        let most = if self.settings.untrusted {
            MAX_UNTRUSTED_ITEMS
        } else {
            MAX_ITEMS
        };
        if self.defs.len() >= most {
            return Err(Error::Unsupported {
                pointer: pointer.to_owned(),
                what: format!("the schema makes more than {most} types"),
            });
        }
        let name = self.unique(candidate);
        self.dedup.insert(key, name.clone());
        let owner = owning_def(pointer);
        let idx = self.push(name.clone(), pointer, owner.as_deref(), false, schema);
        let body = build(self, &name)?;
        self.defs[idx].body = body;
        Ok(Ty::Named(name))
    }

    fn struct_body(
        &mut self,
        name: &str,
        obj: &Map<String, Value>,
        pointer: &str,
        def: Option<&str>,
    ) -> Result<Body> {
        let required: Vec<&str> = match obj.get("required") {
            None => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| {
                    v.as_str()
                        .ok_or_else(|| invalid(pointer, "required", "must be an array of strings"))
                })
                .collect::<Result<_>>()?,
            Some(_) => return Err(invalid(pointer, "required", "must be an array of strings")),
        };
        let empty = Map::new();
        let props = match obj.get("properties") {
            None => &empty,
            Some(Value::Object(props)) => props,
            Some(_) => {
                return Err(invalid(
                    pointer,
                    "properties",
                    "must be an object of schemas",
                ))
            }
        };
        let mut idents = HashSet::new();
        let mut fields = Vec::new();
        let props_pointer = child(pointer, "properties");
        for (wire, schema) in props {
            if accepts_nothing(schema) {
                // A property that must be absent has no field: a closed
                // object refuses it as an unknown key.
                continue;
            }
            let (ty, fallback) = self.field_ty(
                schema,
                &child(&props_pointer, wire),
                Hint {
                    parent: name,
                    prop: wire,
                },
            )?;
            let (ty, nullable) = match ty {
                Ty::Nullable(inner) => (*inner, true),
                ty => (ty, false),
            };
            fields.push(Field {
                wire: wire.clone(),
                ident: unique_ident(naming::field_name(wire), &mut idents),
                ty,
                required: required.contains(&wire.as_str()) && !self.settings.is_relaxed(def, wire),
                nullable,
                boxed: false,
                description: self.description(schema),
                fallback,
            });
        }
        let extra_schema = obj
            .get("additionalProperties")
            .or_else(|| obj.get("unevaluatedProperties"));
        let extra = match extra_schema {
            Some(Value::Bool(false)) => None,
            Some(schema) if !is_open(schema) => {
                let ty = self.lower_ty(
                    schema,
                    &child(pointer, "additionalProperties"),
                    Hint {
                        parent: name,
                        prop: "Value",
                    },
                )?;
                Some((unique_ident("extra".to_owned(), &mut idents), ty))
            }
            _ => Some((unique_ident("extra".to_owned(), &mut idents), Ty::Any)),
        };
        Ok(Body::Struct(Struct { fields, extra }))
    }

    fn union_body(&mut self, name: &str, members: Vec<Member>) -> Result<Body> {
        let tag = distinguishing_const(&members);
        let schema_names: Vec<String> = members
            .iter()
            .map(|m| {
                m.def
                    .clone()
                    .unwrap_or_else(|| inline_member_name(&m.schema, tag.as_deref()))
            })
            .collect();
        let mut variant_names = naming::strip_common(
            &schema_names
                .iter()
                .map(|n| naming::type_name(n))
                .collect::<Vec<_>>(),
        );
        let mut seen = HashSet::new();
        for n in &mut variant_names {
            *n = unique_ident(n.clone(), &mut seen);
        }
        let mut variants = Vec::new();
        for ((member, schema_name), variant_name) in
            members.into_iter().zip(schema_names).zip(variant_names)
        {
            let hint = Hint {
                parent: name,
                prop: &variant_name,
            };
            let ty = self.lower_ty(&member.schema, &member.pointer, hint)?;
            self.budget.set(BUDGET);
            let shapes = self.shapes(&member.schema, &member.pointer, member.def.as_deref(), 0)?;
            variants.push(Variant {
                name: variant_name,
                schema_name,
                ty,
                boxed: false,
                shapes,
            });
        }
        let tag = detect_tag(&variants);
        Ok(Body::Union(Union { variants, tag }))
    }

    /// The JSON shapes a member accepts, used to pick a union variant by its
    /// discriminating fields.
    fn shapes(
        &self,
        schema: &Value,
        pointer: &str,
        def: Option<&str>,
        depth: usize,
    ) -> Result<Vec<Shape>> {
        let any = || {
            vec![Shape {
                kinds: kind::ANY,
                ..Shape::default()
            }]
        };
        if depth > MAX_DEPTH {
            return Ok(any());
        }
        self.spend(pointer)?;
        let Some(obj) = as_schema(schema, pointer)? else {
            return Ok(any());
        };
        if let Some(reference) = obj.get("$ref").and_then(Value::as_str) {
            if self.plain_ref(obj, pointer)?.is_some() {
                let (key, target, target_pointer) = self.deref(reference, pointer)?;
                if key
                    .as_ref()
                    .is_some_and(|k| self.settings.replacements.contains_key(k))
                {
                    return Ok(any());
                }
                return self.shapes(target, &target_pointer, key.as_deref(), depth + 1);
            }
        }
        if obj.contains_key("allOf") || obj.contains_key("$ref") {
            let merged = Value::Object(self.merge(schema, pointer)?);
            return self.shapes(&merged, pointer, def, depth + 1);
        }
        let members = self.members_of(schema, pointer)?;
        if members.len() != 1 || members[0].schema != *schema {
            let mut out = Vec::new();
            for m in members {
                out.extend(self.shapes(
                    &m.schema,
                    &m.pointer,
                    m.def.as_deref().or(def),
                    depth + 1,
                )?);
            }
            return Ok(out);
        }
        let kinds = self.simple_kinds(schema, depth);
        if kinds != kind::OBJ {
            return Ok(vec![Shape {
                kinds,
                ..Shape::default()
            }]);
        }
        let mut shape = Shape {
            kinds,
            ..Shape::default()
        };
        if let Some(Value::Array(required)) = obj.get("required") {
            shape.required = required
                .iter()
                .filter_map(Value::as_str)
                .filter(|r| !self.settings.is_relaxed(def, r))
                .map(str::to_owned)
                .collect();
        }
        if let Some(Value::Object(props)) = obj.get("properties") {
            for (key, prop) in props {
                shape.known.push(key.clone());
                if let Some(value) = prop.get("const").and_then(const_value) {
                    shape.consts.push((key.clone(), value));
                }
                let kinds = self.simple_kinds(prop, depth + 1);
                if kinds != kind::ANY {
                    shape.typed.push((key.clone(), kinds));
                }
            }
        }
        shape.closed = obj.get("additionalProperties") == Some(&Value::Bool(false));
        Ok(vec![shape])
    }

    /// The JSON kinds a schema accepts, as far as they can be told without
    /// looking inside objects and arrays.
    fn simple_kinds(&self, schema: &Value, depth: usize) -> u8 {
        let Value::Object(obj) = schema else {
            return kind::ANY;
        };
        if depth > MAX_DEPTH || self.spend("").is_err() {
            return kind::ANY;
        }
        if let Some(t) = obj.get("type") {
            return match t {
                Value::String(t) => type_kinds(t),
                Value::Array(ts) => ts
                    .iter()
                    .filter_map(Value::as_str)
                    .map(type_kinds)
                    .fold(0, |a, b| a | b),
                _ => kind::ANY,
            };
        }
        if let Some(value) = obj.get("const") {
            return value_kind(value);
        }
        if let Some(Value::Array(values)) = obj.get("enum") {
            return values.iter().map(value_kind).fold(0, |a, b| a | b);
        }
        if let Some(reference) = obj.get("$ref").and_then(Value::as_str) {
            return match self.deref(reference, "") {
                Ok((Some(key), _, _)) if self.settings.replacements.contains_key(&key) => kind::ANY,
                Ok((_, target, _)) => self.simple_kinds(target, depth + 1),
                Err(_) => kind::ANY,
            };
        }
        if let Some(Value::Array(members)) = obj.get("anyOf").or_else(|| obj.get("oneOf")) {
            return members
                .iter()
                .map(|m| self.simple_kinds(m, depth + 1))
                .fold(0, |a, b| a | b);
        }
        if obj.contains_key("properties") {
            return kind::OBJ;
        }
        kind::ANY
    }
}

fn invalid(pointer: &str, keyword: &'static str, expected: &'static str) -> Error {
    Error::InvalidKeyword {
        pointer: pointer.to_owned(),
        keyword,
        expected,
    }
}

/// The object form of a schema; `None` for `true`, an error for `false` and
/// for anything that is not a schema.
fn as_schema<'v>(schema: &'v Value, pointer: &str) -> Result<Option<&'v Map<String, Value>>> {
    match schema {
        Value::Object(obj) => Ok(Some(obj)),
        Value::Bool(true) => Ok(None),
        Value::Bool(false) => Err(Error::Unsupported {
            pointer: pointer.to_owned(),
            what: "the `false` schema, which accepts nothing".to_owned(),
        }),
        _ => Err(Error::NotASchema {
            pointer: pointer.to_owned(),
        }),
    }
}

fn union_keyword<'v>(
    obj: &'v Map<String, Value>,
    pointer: &str,
) -> Result<Option<(&'static str, &'v Vec<Value>)>> {
    let any = obj.get("anyOf");
    let one = obj.get("oneOf");
    match (any, one) {
        (Some(_), Some(_)) => Err(Error::Unsupported {
            pointer: pointer.to_owned(),
            what: "`anyOf` and `oneOf` on one schema".to_owned(),
        }),
        (Some(Value::Array(m)), None) => Ok(Some(("anyOf", m))),
        (None, Some(Value::Array(m))) => Ok(Some(("oneOf", m))),
        (Some(_), None) => Err(invalid(pointer, "anyOf", "must be an array of schemas")),
        (None, Some(_)) => Err(invalid(pointer, "oneOf", "must be an array of schemas")),
        (None, None) => Ok(None),
    }
}

/// Whether an `additionalProperties` value allows anything.
fn is_open(schema: &Value) -> bool {
    match schema {
        Value::Bool(b) => *b,
        Value::Object(obj) => obj.keys().all(|k| ANNOTATIONS.contains(&k.as_str())),
        _ => false,
    }
}

/// Whether a schema accepts no value at all: `false`, or `not` of a schema
/// that allows anything (`{"not": {}}`, as zod writes for `never`).
fn accepts_nothing(schema: &Value) -> bool {
    match schema {
        Value::Bool(b) => !b,
        Value::Object(obj) => {
            obj.get("not").is_some_and(is_open)
                && obj
                    .keys()
                    .all(|k| k == "not" || ANNOTATIONS.contains(&k.as_str()))
        }
        _ => false,
    }
}

fn is_null(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("null")
        || schema.get("const").is_some_and(Value::is_null)
}

fn type_kinds(t: &str) -> u8 {
    match t {
        "null" => kind::NULL,
        "boolean" => kind::BOOL,
        "integer" => kind::INT,
        "number" => kind::INT | kind::FLOAT,
        "string" => kind::STR,
        "array" => kind::ARR,
        "object" => kind::OBJ,
        _ => kind::ANY,
    }
}

fn value_kind(value: &Value) -> u8 {
    match value {
        Value::Null => kind::NULL,
        Value::Bool(_) => kind::BOOL,
        Value::Number(n) if n.is_i64() || n.is_u64() => kind::INT,
        Value::Number(_) => kind::FLOAT,
        Value::String(_) => kind::STR,
        Value::Array(_) => kind::ARR,
        Value::Object(_) => kind::OBJ,
    }
}

fn const_value(value: &Value) -> Option<ConstValue> {
    match value {
        Value::String(s) => Some(ConstValue::Str(s.clone())),
        Value::Bool(b) => Some(ConstValue::Bool(*b)),
        Value::Number(n) => n.as_i64().map(ConstValue::Int),
        _ => None,
    }
}

fn const_json(value: &ConstValue) -> Value {
    match value {
        ConstValue::Str(s) => Value::String(s.clone()),
        ConstValue::Int(i) => Value::from(*i),
        ConstValue::Bool(b) => Value::Bool(*b),
    }
}

/// The name part a constant contributes: `tools/call` is `ToolsCall`,
/// `-32020` is `Minus32020`.
fn const_name(value: &ConstValue) -> String {
    let name = match value {
        ConstValue::Str(s) => naming::camel(s),
        ConstValue::Int(i) if *i < 0 => format!("Minus{}", i.unsigned_abs()),
        ConstValue::Int(i) => i.to_string(),
        ConstValue::Bool(b) => if *b { "True" } else { "False" }.to_owned(),
    };
    if name.is_empty() {
        "Value".to_owned()
    } else {
        name
    }
}

fn enum_strings(values: &Value) -> Option<Vec<String>> {
    let values = values.as_array()?;
    let strings: Vec<String> = values
        .iter()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect();
    (!strings.is_empty() && strings.len() == values.len()).then_some(strings)
}

/// When every member is a string constant or string enum, the union is an
/// enum of those strings.
fn string_values(members: &[Member]) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for m in members {
        let obj = m.schema.as_object()?;
        if m.def.is_some() {
            return None;
        }
        if let Some(Value::String(s)) = obj.get("const") {
            out.push(s.clone());
        } else if let Some(values) = obj.get("enum").and_then(enum_strings) {
            out.extend(values);
        } else {
            return None;
        }
    }
    Some(out)
}

/// What to call an inline union member: its constant tag value, or its kind.
/// A property that holds a string constant in every member, a different one
/// in each: the best source of the members' names.
fn distinguishing_const(members: &[Member]) -> Option<String> {
    let first = members.first()?.schema.get("properties")?.as_object()?;
    first
        .keys()
        .find(|prop| {
            let mut seen = HashSet::new();
            members.iter().all(|m| {
                m.schema
                    .get("properties")
                    .and_then(|p| p.get(prop.as_str()))
                    .and_then(|p| p.get("const"))
                    .and_then(Value::as_str)
                    .is_some_and(|v| seen.insert(v.to_owned()))
            })
        })
        .cloned()
}

fn inline_member_name(schema: &Value, tag: Option<&str>) -> String {
    if let Some(Value::Object(props)) = schema.get("properties") {
        if let Some(Value::String(s)) = tag.and_then(|t| props.get(t)).and_then(|p| p.get("const"))
        {
            return naming::camel(s);
        }
        for prop in props.values() {
            if let Some(Value::String(s)) = prop.get("const") {
                return naming::camel(s);
            }
        }
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("string") => "String",
        Some("integer") => "Integer",
        Some("number") => "Number",
        Some("boolean") => "Boolean",
        Some("array") => "Array",
        Some("object") => "Object",
        _ if schema.get("properties").is_some() => "Object",
        _ => "Value",
    }
    .to_owned()
}

/// A property whose constant value differs in every member, present in all.
fn detect_tag(variants: &[Variant]) -> Option<String> {
    let shapes: Vec<&Shape> = variants.iter().flat_map(|v| &v.shapes).collect();
    let first = shapes.first()?;
    if shapes.iter().any(|s| s.kinds != kind::OBJ) {
        return None;
    }
    first
        .consts
        .iter()
        .map(|(k, _)| k)
        .find(|key| {
            let values: Vec<&ConstValue> = shapes
                .iter()
                .filter_map(|s| {
                    s.required
                        .contains(key)
                        .then(|| s.consts.iter().find(|(k, _)| k == *key).map(|(_, v)| v))
                        .flatten()
                })
                .collect();
            values.len() == shapes.len()
                && values
                    .iter()
                    .enumerate()
                    .all(|(i, v)| !values[..i].contains(v))
        })
        .cloned()
}

/// `candidate`, or `candidate2`, `candidate3`.. if taken; the result is
/// taken from then on.
pub(crate) fn unique_ident(candidate: String, taken: &mut HashSet<String>) -> String {
    let mut name = candidate.clone();
    let mut n = 2;
    while !taken.insert(name.clone()) {
        name = format!("{candidate}{n}");
        n += 1;
    }
    name
}

/// The `$defs` entry a pointer lies in.
fn owning_def(pointer: &str) -> Option<String> {
    let mut tokens = pointer.split('/').skip(1);
    match tokens.next() {
        Some("$defs" | "definitions") => tokens
            .next()
            .map(|t| t.replace("~1", "/").replace("~0", "~")),
        _ => None,
    }
}

/// Counts the properties that use each inline string enum, so an enum shared
/// by several properties is named after the property alone.
fn count_enum_uses(value: &Value, counts: &mut HashMap<String, usize>, depth: usize) {
    if depth > MAX_NESTING {
        return;
    }
    match value {
        Value::Object(obj) => {
            for (key, v) in obj {
                if key == "properties" {
                    if let Value::Object(props) = v {
                        for prop in props.values() {
                            if let Some(values) = prop.get("enum").and_then(enum_strings) {
                                let key = format!(
                                    "enum:{}",
                                    serde_json::to_string(&values).unwrap_or_default()
                                );
                                *counts.entry(key).or_default() += 1;
                            }
                        }
                    }
                }
                if key != "const" && key != "enum" {
                    count_enum_uses(v, counts, depth + 1);
                }
            }
        }
        Value::Array(items) => items
            .iter()
            .for_each(|v| count_enum_uses(v, counts, depth + 1)),
        _ => {}
    }
}
