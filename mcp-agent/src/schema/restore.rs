//! Mapping the model's arguments back to what the original schema expects.
//!
//! In OpenAI strict mode every property is required, so the compiler makes
//! each optional property nullable and records it here; a `null` the model
//! sends for such a property means "absent" and is removed again, at every
//! depth, before the call reaches the server.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::ctx::child;

/// How deep into the model's arguments restoring goes; below it values pass
/// unchanged (the compiled schema is far shallower than this).
const MAX_RESTORE_DEPTH: usize = 128;

/// Steps followed through `$ref` to `$ref` before giving up.
const MAX_REF_HOPS: usize = 16;

/// The restore plan of one schema node.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) enum Plan {
    /// Nothing to undo below this node.
    #[default]
    Keep,
    /// An object: per property, whether a `null` is one the compiler added,
    /// and the plan of the property's value; and whether the original
    /// closes the object where the compiled schema could not say so, so
    /// members it does not declare are removed.
    Object {
        props: BTreeMap<String, (bool, Plan)>,
        closed: bool,
    },
    /// An array whose items follow this plan.
    Array(Box<Plan>),
    /// A union; the value follows the first branch that fits it.
    AnyOf(Vec<Plan>),
    /// The plan of a definition (`"#"` is the root).
    Ref(String),
}

impl Plan {
    /// Whether restoring under this plan can change anything.
    pub fn is_keep(&self) -> bool {
        matches!(self, Plan::Keep)
    }
}

/// The plans of a compiled schema: the root's and each definition's.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Plans {
    pub root: Plan,
    pub defs: BTreeMap<String, Plan>,
}

/// The model's arguments mapped back to the original schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Restored {
    /// The arguments to send to the server.
    pub arguments: Value,
    /// JSON pointers into the *model's* arguments of every `null` removed
    /// because the compiler had made the property nullable.
    pub stripped: Vec<String>,
    /// JSON pointers into the model's arguments of every member removed
    /// because the original schema closes its object
    /// (`additionalProperties: false`) and the provider could not be told.
    pub removed: Vec<String>,
}

impl Plans {
    pub fn restore(&self, arguments: Value) -> Restored {
        let mut out = Restored {
            arguments: Value::Null,
            stripped: Vec::new(),
            removed: Vec::new(),
        };
        out.arguments = self.apply(&self.root, arguments, "", 0, &mut out);
        out
    }

    /// `plan` with its `$ref`s followed, boundedly.
    fn follow<'a>(&'a self, mut plan: &'a Plan) -> &'a Plan {
        for _ in 0..MAX_REF_HOPS {
            match plan {
                Plan::Ref(name) if name == "#" => plan = &self.root,
                Plan::Ref(name) => match self.defs.get(name) {
                    Some(next) => plan = next,
                    None => return &Plan::Keep,
                },
                other => return other,
            }
        }
        &Plan::Keep
    }

    fn apply(
        &self,
        plan: &Plan,
        value: Value,
        at: &str,
        depth: usize,
        out: &mut Restored,
    ) -> Value {
        if depth > MAX_RESTORE_DEPTH {
            return value;
        }
        match (self.follow(plan), value) {
            (Plan::Object { props, closed }, Value::Object(map)) => {
                Value::Object(self.object(props, *closed, map, at, depth, out))
            }
            (Plan::Array(items), Value::Array(values)) => Value::Array(
                values
                    .into_iter()
                    .enumerate()
                    .map(|(i, v)| self.apply(items, v, &child(at, &i.to_string()), depth + 1, out))
                    .collect(),
            ),
            (Plan::AnyOf(branches), value) => match self.branch(branches, &value) {
                Some(branch) => self.apply(branch, value, at, depth + 1, out),
                None => value,
            },
            (_, value) => value,
        }
    }

    fn object(
        &self,
        props: &BTreeMap<String, (bool, Plan)>,
        closed: bool,
        map: Map<String, Value>,
        at: &str,
        depth: usize,
        out: &mut Restored,
    ) -> Map<String, Value> {
        let mut kept = Map::new();
        for (key, value) in map {
            let here = child(at, &key);
            match props.get(&key) {
                Some((true, _)) if value.is_null() => out.stripped.push(here),
                Some((_, plan)) => {
                    let value = self.apply(plan, value, &here, depth + 1, out);
                    kept.insert(key, value);
                }
                None if closed => out.removed.push(here),
                None => {
                    kept.insert(key, value);
                }
            }
        }
        kept
    }

    /// The first branch whose shape fits `value`: an object plan whose
    /// properties include every key of an object value, or an array plan for
    /// an array value.
    fn branch<'a>(&'a self, branches: &'a [Plan], value: &Value) -> Option<&'a Plan> {
        branches.iter().find(|b| match (self.follow(b), value) {
            (Plan::Object { props, .. }, Value::Object(map)) => {
                map.keys().all(|k| props.contains_key(k))
            }
            (Plan::Array(_), Value::Array(_)) => true,
            _ => false,
        })
    }
}
