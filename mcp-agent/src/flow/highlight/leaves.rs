//! The leaves of a call's arguments: every string, and every number as
//! text, folded, with its JSON pointer, within the bounds.

use serde_json::Value;

use super::{ARGUMENTS_BYTES, DEPTH_LIMIT, LEAF_BYTES, LEAF_LIMIT, MIN_RUN};
use crate::flow::ledger::fold_into;

/// One folded leaf.
pub(super) struct Leaf {
    pub(super) pointer: String,
    pub(super) text: String,
}

/// Folds `text` into a leaf at `pointer` unless it is too short; returns
/// whether it was cut or the leaf limit left it out.
fn leaf(text: &str, pointer: &str, out: &mut Vec<Leaf>) -> bool {
    if out.len() >= LEAF_LIMIT {
        return true;
    }
    let used: usize = out.iter().map(|l| l.text.len()).sum();
    let room = LEAF_BYTES.min(ARGUMENTS_BYTES.saturating_sub(used));
    let text = text.trim();
    let mut folded = String::new();
    let read = fold_into(&mut folded, text, room);
    if folded.len() >= MIN_RUN {
        out.push(Leaf {
            pointer: pointer.to_owned(),
            text: folded,
        });
    }
    read < text.len()
}

/// Collects the leaves of `value`; returns whether a bound left some out.
pub(super) fn collect(
    value: &Value,
    pointer: &mut String,
    depth: usize,
    out: &mut Vec<Leaf>,
) -> bool {
    match value {
        Value::String(s) => leaf(s, pointer, out),
        Value::Number(n) => leaf(&n.to_string(), pointer, out),
        Value::Null | Value::Bool(_) => false,
        _ if depth >= DEPTH_LIMIT => true,
        Value::Array(items) => children(
            items.iter().enumerate().map(|(i, v)| (i.to_string(), v)),
            pointer,
            depth,
            out,
        ),
        Value::Object(members) => children(
            members
                .iter()
                .map(|(k, v)| (k.replace('~', "~0").replace('/', "~1"), v)),
            pointer,
            depth,
            out,
        ),
    }
}

/// Collects the leaves of each child, by its pointer segment.
fn children<'a>(
    items: impl Iterator<Item = (String, &'a Value)>,
    pointer: &mut String,
    depth: usize,
    out: &mut Vec<Leaf>,
) -> bool {
    let mut cut = false;
    for (segment, item) in items {
        if out.len() >= LEAF_LIMIT {
            return true;
        }
        let len = pointer.len();
        pointer.push('/');
        pointer.push_str(&segment);
        cut |= collect(item, pointer, depth + 1, out);
        pointer.truncate(len);
    }
    cut
}
