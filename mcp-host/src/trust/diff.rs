//! A readable difference of two JSON values: each place where they
//! differ, by JSON pointer, with the old and the new value.

use std::fmt;

use serde_json::Value;

use crate::untrusted::neutralise;

/// Longest value, in characters, a [`Difference`] shows.
const SHOWN: usize = 240;

/// One place where two definitions differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Difference {
    /// Only the new definition has something at `path`.
    Added {
        /// The JSON pointer.
        path: String,
        /// The new value.
        new: Value,
    },
    /// Only the old definition had something at `path`.
    Removed {
        /// The JSON pointer.
        path: String,
        /// The old value.
        old: Value,
    },
    /// Both have something at `path`, and it differs.
    Changed {
        /// The JSON pointer.
        path: String,
        /// The old value.
        old: Value,
        /// The new value.
        new: Value,
    },
}

impl Difference {
    /// The JSON pointer of the place.
    pub fn path(&self) -> &str {
        match self {
            Self::Added { path, .. } | Self::Removed { path, .. } | Self::Changed { path, .. } => {
                path
            }
        }
    }

    /// `added`, `removed` or `changed`.
    pub fn what(&self) -> &'static str {
        match self {
            Self::Added { .. } => "added",
            Self::Removed { .. } => "removed",
            Self::Changed { .. } => "changed",
        }
    }
}

/// `value` as one line a terminal may show: compact JSON, neutralised,
/// cut at [`SHOWN`] characters.
fn shown(value: &Value) -> String {
    let text = neutralise(&value.to_string()).replace('\n', "\\n");
    match text.char_indices().nth(SHOWN) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

impl fmt::Display for Difference {
    /// `- path: old` and `+ path: new` lines, every value neutralised.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = neutralise(self.path());
        let path = if path.is_empty() { "/" } else { &path };
        match self {
            Self::Added { new, .. } => write!(f, "+ {path}: {}", shown(new)),
            Self::Removed { old, .. } => write!(f, "- {path}: {}", shown(old)),
            Self::Changed { old, new, .. } => {
                write!(f, "- {path}: {}\n+ {path}: {}", shown(old), shown(new))
            }
        }
    }
}

/// Where `old` and `new` differ, in the order of their keys: objects are
/// compared key by key, arrays of the same length item by item, anything
/// else whole.
pub fn diff(old: &Value, new: &Value) -> Vec<Difference> {
    let mut out = Vec::new();
    walk(String::new(), old, new, &mut out);
    out
}

fn walk(path: String, old: &Value, new: &Value, out: &mut Vec<Difference>) {
    if old == new {
        return;
    }
    let at = |key: &str| format!("{path}/{}", key.replace('~', "~0").replace('/', "~1"));
    match (old, new) {
        (Value::Object(a), Value::Object(b)) => {
            let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
            keys.sort();
            keys.dedup();
            for key in keys {
                match (a.get(key), b.get(key)) {
                    (Some(x), Some(y)) => walk(at(key), x, y, out),
                    (Some(x), None) => out.push(Difference::Removed {
                        path: at(key),
                        old: x.clone(),
                    }),
                    (None, Some(y)) => out.push(Difference::Added {
                        path: at(key),
                        new: y.clone(),
                    }),
                    (None, None) => {}
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (n, (x, y)) in a.iter().zip(b).enumerate() {
                walk(at(&n.to_string()), x, y, out);
            }
        }
        _ => out.push(Difference::Changed {
            path,
            old: old.clone(),
            new: new.clone(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn names_each_place_that_differs() {
        let old = json!({"name": "w", "description": "Weather.", "inputSchema": {"type": "object",
            "properties": {"city": {"type": "string"}}}, "tags": ["a", "b"]});
        let new = json!({"name": "w", "description": "Weather.\u{200b}<IMPORTANT>", "inputSchema": {"type": "object",
            "properties": {"city": {"type": "string"}, "units": {"type": "string"}}}, "tags": ["a"]});
        let found = diff(&old, &new);
        let paths: Vec<(&str, &str)> = found.iter().map(|d| (d.what(), d.path())).collect();
        assert_eq!(
            paths,
            [
                ("changed", "/description"),
                ("added", "/inputSchema/properties/units"),
                ("changed", "/tags"),
            ]
        );
        let shown = found[0].to_string();
        assert_eq!(
            shown,
            "- /description: \"Weather.\"\n+ /description: \"Weather.\\u{200b}<IMPORTANT>\""
        );
        assert!(diff(&old, &old).is_empty());
        assert_eq!(diff(&json!({"a/b~": 1}), &json!({}))[0].path(), "/a~1b~0");
        let long = Difference::Added {
            path: "/d".into(),
            new: json!("x".repeat(1000)),
        };
        assert!(long.to_string().chars().count() < SHOWN + 20);
    }
}
