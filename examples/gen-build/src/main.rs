//! A program that gets its message types from a JSON Schema of its own:
//! `build.rs` runs mcp-gen on `schema/todo.json`, and this file uses the
//! result like any hand-written types.
//!
//! Run it with `cargo run -p gen-build-example`: it reads a stream of events
//! (one JSON value a line, built in below), replays them, and prints the
//! list.

use std::collections::BTreeMap;

/// The types generated from `schema/todo.json`. In a binary, items the
/// program does not use would warn as dead code; generated code is allowed to
/// carry more than one program needs.
#[allow(dead_code)]
mod todo {
    include!(concat!(env!("OUT_DIR"), "/todo.rs"));
}

use todo::{Item, ItemPriority, TodoEvent};

const EVENTS: &str = r#"
{"kind": "added", "item": {"id": 1, "title": "write the parser", "priority": "high", "estimateHours": 2.5}}
{"kind": "added", "item": {"id": 2, "title": "review", "x-tracker": "T-7"}}
{"kind": "completed", "id": 1, "at": "2026-11-30T10:00:00Z"}
{"kind": "removed", "id": 3}
{"kind": "renamed", "id": 2}
"#;

fn main() {
    let mut items: BTreeMap<i64, (Item, bool)> = BTreeMap::new();
    for line in EVENTS.lines().filter(|l| !l.trim().is_empty()) {
        let event: TodoEvent = match serde_json::from_str(line) {
            Ok(event) => event,
            Err(error) => {
                println!("skipped: {error}");
                continue;
            }
        };
        match event {
            TodoEvent::Added(added) => {
                items.insert(added.item.id, (added.item, false));
            }
            TodoEvent::Completed(done) => match items.get_mut(&done.id) {
                Some(entry) => entry.1 = true,
                None => println!("completed an unknown item {}", done.id),
            },
            TodoEvent::Removed(removed) => {
                if items.remove(&removed.id).is_none() {
                    println!("removed an unknown item {}", removed.id);
                }
            }
        }
    }
    for (item, done) in items.values() {
        let priority = item.priority.unwrap_or(ItemPriority::Normal);
        let mark = if *done { "x" } else { " " };
        println!("[{mark}] #{} {} ({priority})", item.id, item.title);
        // Keys the schema does not name survive: they go back out unchanged.
        if !item.extra.is_empty() {
            println!(
                "    kept: {}",
                serde_json::to_string(&item.extra).unwrap_or_default()
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::todo::{Added, Completed, TodoEvent};

    #[test]
    fn events_decode_by_kind_and_round_trip() {
        let json = serde_json::json!({"kind": "completed", "id": 4, "at": "now"});
        let event: TodoEvent = serde_json::from_value(json.clone()).expect("decodes");
        assert!(matches!(
            &event,
            TodoEvent::Completed(Completed { id: 4, .. })
        ));
        assert_eq!(serde_json::to_value(&event).expect("encodes"), json);
    }

    #[test]
    fn a_member_refuses_another_kind() {
        let error = serde_json::from_value::<Added>(
            serde_json::json!({"kind": "removed", "item": {"id": 1, "title": "t"}}),
        )
        .expect_err("wrong kind");
        assert!(error.to_string().contains("invalid `kind`"), "{error}");
    }
}
