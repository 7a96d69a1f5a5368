//! What every lowering shares: the budget, the depth bound, the loss report,
//! `$ref` resolution and the notes written into descriptions.

use serde_json::{Map, Value};

use super::loss::{Action, LossReport};
use super::{CompileError, MAX_DEPTH, MAX_NODES};

/// Keywords that say something about the document, not about the value.
pub(crate) const META: &[&str] = &["$schema", "$id", "$comment", "$anchor", "$dynamicAnchor"];

/// Longest rendering of one keyword's value written into a description.
const NOTE_VALUE_CHARS: usize = 200;

/// The state of one compilation.
#[derive(Debug)]
pub(crate) struct Ctx<'a> {
    pub root: &'a Value,
    pub loss: LossReport,
    pub notes: Vec<String>,
    nodes: usize,
    /// The `$ref`s being inlined, innermost last.
    pub inlining: Vec<String>,
}

impl<'a> Ctx<'a> {
    pub fn new(root: &'a Value) -> Self {
        Self {
            root,
            loss: LossReport::default(),
            notes: Vec::new(),
            nodes: 0,
            inlining: Vec::new(),
        }
    }

    /// Counts one more schema node produced, failing past the budget or the
    /// depth bound.
    pub fn enter(&mut self, pointer: &str, depth: usize) -> Result<(), CompileError> {
        if depth > MAX_DEPTH {
            return Err(CompileError::TooDeep {
                pointer: pointer.to_owned(),
                limit: MAX_DEPTH,
            });
        }
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return Err(CompileError::TooLarge {
                pointer: pointer.to_owned(),
                limit: MAX_NODES,
            });
        }
        Ok(())
    }

    /// Counts `n` leaf values (enum members, say) against the budget.
    pub fn spend(&mut self, pointer: &str, n: usize) -> Result<(), CompileError> {
        self.nodes = self.nodes.saturating_add(n / 16);
        if self.nodes > MAX_NODES {
            return Err(CompileError::TooLarge {
                pointer: pointer.to_owned(),
                limit: MAX_NODES,
            });
        }
        Ok(())
    }

    pub fn lose(&mut self, pointer: &str, keyword: &str, action: Action, reason: &str) {
        self.loss.push(pointer, keyword, action, reason);
    }

    /// Drops the document keywords of `node` from `out`, reporting each.
    pub fn drop_meta(&mut self, pointer: &str, out: &mut Map<String, Value>) {
        for key in META {
            if out.remove(*key).is_some() {
                self.lose(
                    pointer,
                    key,
                    Action::Dropped,
                    "says nothing about the arguments",
                );
            }
        }
    }

    /// Reports the object keywords of a node that is not an object, which
    /// the lowering leaves out.
    pub fn drop_object_keywords(&mut self, pointer: &str, node: &Map<String, Value>) {
        for key in ["properties", "required"] {
            if node.contains_key(key) {
                self.lose(
                    pointer,
                    key,
                    Action::Dropped,
                    "an object keyword on a node that is not an object",
                );
            }
        }
    }

    /// Moves `keyword` with `value` into the description of `out`.
    pub fn describe(
        &mut self,
        pointer: &str,
        keyword: &str,
        value: &Value,
        out: &mut Map<String, Value>,
        reason: &str,
    ) {
        let note = format!("{keyword}: {}", render(value));
        let text = match out.get("description").and_then(Value::as_str) {
            Some(d) if !d.is_empty() => format!("{d}\n\n{note}"),
            _ => note.clone(),
        };
        out.insert("description".to_owned(), Value::String(text));
        self.notes.push(format!(
            "{}: {note}",
            if pointer.is_empty() { "#" } else { pointer }
        ));
        self.lose(pointer, keyword, Action::MovedToDescription, reason);
    }

    /// What a local `$ref` points at, and the pointer of that node in the
    /// original schema.
    pub fn resolve(&self, reference: &str) -> Option<(&'a Value, String)> {
        let pointer = reference.strip_prefix('#')?;
        if !pointer.is_empty() && !pointer.starts_with('/') {
            return None;
        }
        self.root.pointer(pointer).map(|v| (v, pointer.to_owned()))
    }
}

/// `value` as compact JSON, cut to a bounded length.
fn render(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() <= NOTE_VALUE_CHARS {
        return text;
    }
    let cut: String = text.chars().take(NOTE_VALUE_CHARS).collect();
    format!("{cut}...")
}

/// `pointer` extended by one reference token.
pub(crate) fn child(pointer: &str, token: &str) -> String {
    let mut out = String::with_capacity(pointer.len() + token.len() + 1);
    out.push_str(pointer);
    out.push('/');
    for c in token.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
    out
}

/// The `$defs` or `definitions` name a reference names directly, if it does.
pub(crate) fn def_name(reference: &str) -> Option<(&'static str, String)> {
    for container in ["$defs", "definitions"] {
        let prefix = format!("#/{container}/");
        if let Some(rest) = reference.strip_prefix(&prefix) {
            if !rest.is_empty() && !rest.contains('/') {
                let name = rest.replace("~1", "/").replace("~0", "~");
                return Some((container, name));
            }
        }
    }
    None
}

/// The `type` of a node as a list of names.
///
/// # Errors
///
/// [`CompileError::Invalid`] when `type` is neither a string nor an array of
/// strings.
pub(crate) fn types(
    node: &Map<String, Value>,
    pointer: &str,
) -> Result<Option<Vec<String>>, CompileError> {
    const KNOWN: &[&str] = &[
        "object", "array", "string", "number", "integer", "boolean", "null",
    ];
    let invalid = || CompileError::invalid(pointer, "type");
    let names: Vec<String> = match node.get("type") {
        None => return Ok(None),
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| v.as_str().map(str::to_owned))
            .collect::<Option<_>>()
            .ok_or_else(invalid)?,
        Some(_) => return Err(invalid()),
    };
    if names.is_empty() || names.iter().any(|n| !KNOWN.contains(&n.as_str())) {
        return Err(invalid());
    }
    // At most the seven names, however long the array was.
    let mut unique: Vec<String> = Vec::with_capacity(KNOWN.len());
    for name in names {
        if !unique.contains(&name) {
            unique.push(name);
        }
    }
    Ok(Some(unique))
}

/// Whether a schema already accepts `null` on its own face (a shallow
/// check: `false` only means "not obviously").
pub(crate) fn accepts_null(schema: &Value) -> bool {
    let Some(node) = schema.as_object() else {
        return schema == &Value::Bool(true);
    };
    if node.is_empty() {
        return true;
    }
    let type_null = match node.get("type") {
        Some(Value::String(s)) => s == "null",
        Some(Value::Array(a)) => a.iter().any(|t| t == "null"),
        _ => false,
    };
    let enum_ok = node
        .get("enum")
        .and_then(Value::as_array)
        .is_none_or(|e| e.contains(&Value::Null));
    let const_ok = node.get("const").is_none_or(Value::is_null);
    if type_null && enum_ok && const_ok {
        return true;
    }
    if node.get("type").is_none() && node.get("const") == Some(&Value::Null) {
        return true;
    }
    ["anyOf", "oneOf"].iter().any(|k| {
        node.get(*k)
            .and_then(Value::as_array)
            .is_some_and(|branches| {
                branches
                    .iter()
                    .any(|b| b.get("type") == Some(&Value::from("null")))
            })
    })
}

/// The `allOf` parts of a node merged into one schema, when they are
/// objects or plain constraints that do not disagree.
pub(crate) fn merge_all_of(
    node: &Map<String, Value>,
    parts: &[Value],
) -> Option<Map<String, Value>> {
    let mut merged = node.clone();
    merged.remove("allOf");
    for part in parts {
        let part = part.as_object()?;
        if part.contains_key("$ref") || part.contains_key("allOf") {
            return None;
        }
        for (key, value) in part {
            match (key.as_str(), merged.get_mut(key)) {
                ("properties", Some(Value::Object(props))) => {
                    for (name, schema) in value.as_object()? {
                        match props.get(name) {
                            Some(existing) if existing != schema => return None,
                            _ => {
                                props.insert(name.clone(), schema.clone());
                            }
                        }
                    }
                }
                ("required", Some(Value::Array(required))) => {
                    let mut seen: std::collections::BTreeSet<String> = required
                        .iter()
                        .filter_map(|v| v.as_str().map(str::to_owned))
                        .collect();
                    for name in value.as_array()? {
                        if seen.insert(name.as_str()?.to_owned()) {
                            required.push(name.clone());
                        }
                    }
                }
                ("description" | "title", Some(_)) => {}
                (_, Some(existing)) if existing == value => {}
                (_, Some(_)) => return None,
                (_, None) => {
                    merged.insert(key.clone(), value.clone());
                }
            }
        }
    }
    Some(merged)
}
