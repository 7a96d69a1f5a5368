//! The tool list a typed client is generated from: a `tools/list` result
//! (an object with `tools`) or a bare array of `Tool` objects, as a server
//! wrote it. Entries that are not tools are skipped with a note, never
//! fatal: the list is a peer's data.

use serde_json::Value;

use crate::error::Error;

/// One tool of the list.
pub(crate) struct ToolInput<'a> {
    /// Its position in the list.
    pub index: usize,
    pub name: &'a str,
    pub title: Option<&'a str>,
    pub description: Option<&'a str>,
    pub definition: &'a Value,
    pub input: Value,
    pub output: Option<&'a Value>,
}

/// The tools of `list`, and a note for each entry that is not one.
///
/// # Errors
/// [`Error::NotAToolList`] when `list` is neither shape.
pub(crate) fn tools(list: &Value) -> Result<(Vec<ToolInput<'_>>, Vec<String>), Error> {
    let entries = match list {
        Value::Array(entries) => entries,
        Value::Object(map) => match map.get("tools") {
            Some(Value::Array(entries)) => entries,
            _ => {
                return Err(Error::NotAToolList(
                    "an object without a `tools` array".to_owned(),
                ))
            }
        },
        _ => {
            return Err(Error::NotAToolList(
                "neither an object with `tools` nor an array".to_owned(),
            ))
        }
    };
    let mut tools = Vec::new();
    let mut skipped = Vec::new();
    for (index, entry) in entries.iter().enumerate() {
        let Some(name) = entry.get("name").and_then(Value::as_str) else {
            skipped.push(format!("entry {index} has no `name` string"));
            continue;
        };
        let text = |key: &str| entry.get(key).and_then(Value::as_str);
        tools.push(ToolInput {
            index,
            name,
            title: text("title"),
            description: text("description"),
            definition: entry,
            input: entry
                .get("inputSchema")
                .cloned()
                .unwrap_or_else(|| serde_json::json!({"type": "object"})),
            output: entry.get("outputSchema").filter(|s| s.is_object()),
        });
    }
    Ok((tools, skipped))
}
