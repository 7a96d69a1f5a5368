//! Handles: shape, entropy, typed decoding, and the store's lifetime rules.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use mcp_server::handle::{
    Handle, HandleError, HandleKind, HandleStore, ParseHandleError, HANDLE_TEXT_LEN,
};

#[derive(Clone, Debug, PartialEq)]
struct Note {
    text: String,
}
mcp_server::handle_kind!(Note, prefix = "note", ttl_secs = 60);

enum Session {}
impl HandleKind for Session {
    const PREFIX: &'static str = "sess";
    const TTL: Duration = Duration::from_secs(1800);
}

/// A prefix that starts like another kind's.
enum NoteBook {}
mcp_server::handle_kind!(NoteBook, prefix = "note2", ttl_secs = 60);

fn note(text: &str) -> Note {
    Note { text: text.into() }
}

fn is_base64url(text: &str) -> bool {
    text.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

#[test]
fn handles_have_the_prefix_and_length() {
    let handle = Handle::<Note>::mint().expect("random source");
    let text = handle.to_string();
    let body = text.strip_prefix("note_").expect("prefix");
    assert_eq!(HANDLE_TEXT_LEN, 32);
    assert_eq!(body.len(), HANDLE_TEXT_LEN);
    assert!(is_base64url(body), "{text}");
    let session = Handle::<Session>::mint()
        .expect("random source")
        .to_string();
    assert!(session.starts_with("sess_"));
    assert_eq!(session.len(), 5 + HANDLE_TEXT_LEN);
}

#[test]
fn a_thousand_handles_are_distinct() {
    let texts: HashSet<String> = (0..1000)
        .map(|_| Handle::<Note>::mint().expect("random source").to_string())
        .collect();
    assert_eq!(texts.len(), 1000);
}

#[test]
fn text_round_trip_and_serde() {
    let handle = Handle::<Note>::mint().expect("random source");
    let text = handle.to_string();
    assert_eq!(text.parse::<Handle<Note>>(), Ok(handle));
    let json = serde_json::to_value(handle).expect("serializes");
    assert_eq!(json, serde_json::Value::String(text.clone()));
    let back: Handle<Note> = serde_json::from_value(json).expect("deserializes");
    assert_eq!(back, handle);
    // Debug shows only the start.
    let debug = format!("{handle:?}");
    assert!(
        debug.starts_with("Handle(note_") && debug.chars().count() < 20,
        "{debug}"
    );
    assert!(!debug.contains(&text[5..]));
}

#[test]
fn decoding_refuses_other_kinds_and_shapes() {
    let note = Handle::<Note>::mint().expect("random source").to_string();
    let body = &note[5..];
    let prefix = ParseHandleError::Prefix { expected: "sess" };
    assert_eq!(note.parse::<Handle<Session>>(), Err(prefix.clone()));
    assert_eq!(
        format!("note2_{body}").parse::<Handle<Note>>(),
        Err(ParseHandleError::Prefix { expected: "note" })
    );
    assert_eq!(
        note.parse::<Handle<NoteBook>>(),
        Err(ParseHandleError::Prefix { expected: "note2" })
    );
    let length = ParseHandleError::Length { kind: "note" };
    for bad in [
        format!("note_{}", &body[1..]),
        format!("note_{body}A"),
        "note_".to_string(),
        format!("note__{body}"),
    ] {
        assert_eq!(bad.parse::<Handle<Note>>(), Err(length.clone()), "{bad}");
    }
    for bad in [
        format!("note_{}+", &body[1..]),
        format!("note_{}=", &body[1..]),
        format!("note_{}/", &body[1..]),
        format!("note_{} ", &body[1..]),
        format!("note_{}é", &body[2..]),
    ] {
        assert_eq!(
            bad.parse::<Handle<Note>>(),
            Err(ParseHandleError::Character),
            "{bad}"
        );
    }
    for bad in ["", "note", "NOTE_", "Note_x", " note_"] {
        assert_eq!(
            bad.parse::<Handle<Note>>(),
            Err(ParseHandleError::Prefix { expected: "note" }),
            "{bad}"
        );
    }
    assert_eq!(
        "note_".parse::<Handle<Note>>(),
        Err(ParseHandleError::Length { kind: "note" })
    );
    let from_json = serde_json::from_str::<Handle<Session>>(&format!("\"{note}\""));
    let message = from_json.expect_err("wrong kind").to_string();
    assert!(
        message.contains("expected a handle starting with `sess_`"),
        "{message}"
    );
    let message = serde_json::from_str::<Handle<Note>>("42")
        .expect_err("a number")
        .to_string();
    assert_eq!(
        message,
        "invalid type: integer `42`, expected a `note_...` handle at line 1 column 2"
    );
}

#[test]
fn json_schema_is_a_string_with_a_pattern() {
    let schema = schemars::schema_for!(Handle<Note>);
    let value = serde_json::to_value(&schema).expect("schema is JSON");
    assert_eq!(value["type"], "string");
    assert_eq!(value["pattern"], "^note_[A-Za-z0-9_-]{32}$");
}

#[test]
fn store_get_with_and_remove() {
    let store: HandleStore<Note, Note> = HandleStore::new(10);
    let handle = store.insert(None, note("hello")).expect("room");
    assert_eq!(store.get(&handle, None), Ok(note("hello")));
    store
        .with(&handle, None, |n| n.text.push('!'))
        .expect("known");
    assert_eq!(store.remove(&handle, None), Ok(note("hello!")));
    assert_eq!(
        store.get(&handle, None),
        Err(HandleError::Unknown { kind: "note" })
    );
    assert!(store.is_empty());
    let stranger = Handle::<Note>::mint().expect("random source");
    assert_eq!(
        store.get(&stranger, None),
        Err(HandleError::Unknown { kind: "note" })
    );
}

#[test]
fn store_answers_only_the_owner() {
    let store: HandleStore<Note, Note> = HandleStore::new(10);
    let handle = store.insert(Some("alice"), note("secret")).expect("room");
    let unknown = Err(HandleError::Unknown { kind: "note" });
    assert_eq!(store.get(&handle, Some("bob")), unknown);
    assert_eq!(store.get(&handle, None), unknown);
    assert_eq!(store.remove(&handle, Some("bob")), unknown);
    assert_eq!(store.get(&handle, Some("alice")), Ok(note("secret")));
    let anonymous = store.insert(None, note("open")).expect("room");
    assert_eq!(store.get(&anonymous, Some("alice")), unknown);
}

#[test]
fn store_expiry() {
    let store: HandleStore<Note, Note> = HandleStore::new(10);
    let t0 = Instant::now();
    let handle = store.insert_at(None, note("a"), t0).expect("room");
    let just_before = t0 + Duration::from_secs(60) - Duration::from_millis(1);
    assert_eq!(
        store.with_at(&handle, None, just_before, |n| n.clone()),
        Ok(note("a"))
    );
    let at_expiry = t0 + Duration::from_secs(60);
    assert_eq!(
        store.with_at(&handle, None, at_expiry, |n| n.clone()),
        Err(HandleError::Expired { kind: "note" })
    );
    // An expired entry is dropped when met.
    assert!(store.is_empty());
    assert_eq!(
        store.with_at(&handle, None, at_expiry, |_| ()),
        Err(HandleError::Unknown { kind: "note" })
    );
    let handle = store.insert_at(None, note("b"), t0).expect("room");
    assert_eq!(
        store.remove_at(&handle, None, at_expiry),
        Err(HandleError::Expired { kind: "note" })
    );
}

#[test]
fn store_is_bounded_and_reuses_expired_slots() {
    let store: HandleStore<Note, Note> = HandleStore::new(2);
    let t0 = Instant::now();
    store.insert_at(None, note("a"), t0).expect("room");
    let b = store
        .insert_at(None, note("b"), t0 + Duration::from_secs(30))
        .expect("room");
    assert_eq!(
        store.insert_at(None, note("c"), t0 + Duration::from_secs(59)),
        Err(HandleError::Full { kind: "note" })
    );
    // The first entry expired: its slot is reused, the second stays.
    let c = store
        .insert_at(None, note("c"), t0 + Duration::from_secs(60))
        .expect("an expired entry makes room");
    assert_eq!(store.len(), 2);
    let now = t0 + Duration::from_secs(61);
    assert_eq!(store.with_at(&b, None, now, |n| n.clone()), Ok(note("b")));
    assert_eq!(store.with_at(&c, None, now, |n| n.clone()), Ok(note("c")));
}

/// One principal filling the store stops at its share, and another is
/// still served; expiry gives the first its places back. With the share
/// as large as the store (the control), the first fills it for everyone.
#[test]
fn one_principal_cannot_fill_the_store_for_everyone() {
    let t0 = Instant::now();
    let fill = |store: &HandleStore<Note, Note>| {
        (0..100)
            .take_while(|i| {
                store
                    .insert_at(Some("mallory"), note(&format!("m{i}")), t0)
                    .is_ok()
            })
            .count()
    };
    let store: HandleStore<Note, Note> = HandleStore::new(16).with_share(4);
    assert_eq!(fill(&store), 4);
    assert_eq!(
        store.insert_at(Some("mallory"), note("one more"), t0),
        Err(HandleError::Share {
            kind: "note",
            max: 4
        })
    );
    let kept = store
        .insert_at(Some("alice"), note("mine"), t0)
        .expect("another principal is served");
    assert_eq!(
        store.with_at(&kept, Some("alice"), t0, |n| n.clone()),
        Ok(note("mine"))
    );
    let later = t0 + Duration::from_secs(60);
    store
        .insert_at(Some("mallory"), note("after expiry"), later)
        .expect("expired handles leave the share");
    let message = HandleError::Share {
        kind: "note",
        max: 4,
    }
    .to_string();
    assert!(message.contains("try again after some expire"), "{message}");

    let open: HandleStore<Note, Note> = HandleStore::new(16).with_share(16);
    assert_eq!(fill(&open), 16);
    assert_eq!(
        open.insert_at(Some("alice"), note("mine"), t0),
        Err(HandleError::Full { kind: "note" })
    );
}

#[test]
fn errors_tell_the_model_what_to_do() {
    let unknown = HandleError::Unknown { kind: "note" }.to_string();
    assert!(unknown.contains("create a new one"), "{unknown}");
    let expired = HandleError::Expired { kind: "note" }.to_string();
    assert_eq!(expired, "the `note` handle has expired: create a new one");
}

#[cfg(feature = "auth")]
#[path = "auth_support/mod.rs"]
mod auth_support;

/// Over HTTP on a protected server, handles belong to the access token's
/// issuer and subject: a token for another subject finds nothing.
#[cfg(feature = "auth")]
mod principal_from_the_token {
    use super::auth_support::{call_tool, Discovery, Protected};
    use super::Note;
    use mcp_server::handle::{Handle, HandleStore};
    use mcp_server::tool::ToolError;
    use mcp_server::{tool, tools, Context};
    use serde_json::{json, Value};

    struct Notes {
        store: HandleStore<Note, String>,
    }

    #[tools]
    impl Notes {
        /// Keeps a note; answers its handle.
        #[tool]
        fn put(&self, cx: &Context, text: String) -> Result<String, ToolError> {
            let handle = self
                .store
                .insert(cx.principal(), text)
                .map_err(|e| ToolError::execution(e.to_string()))?;
            Ok(handle.to_string())
        }

        /// Reads a note.
        #[tool]
        fn get(&self, cx: &Context, handle: String) -> Result<String, ToolError> {
            let handle: Handle<Note> =
                handle
                    .parse()
                    .map_err(|e: mcp_server::handle::ParseHandleError| {
                        ToolError::execution(e.to_string())
                    })?;
            self.store
                .get(&handle, cx.principal())
                .map_err(|e| ToolError::execution(e.to_string()))
        }
    }

    fn result(body: &Value) -> (bool, String) {
        let result = &body["result"];
        let text = result["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        (result["isError"] == json!(true), text)
    }

    #[tokio::test]
    async fn a_handle_made_for_one_subject_is_unknown_to_another() {
        let notes = Notes {
            store: HandleStore::new(16),
        };
        let server = Protected::start(notes, Discovery::OAuth, |b, _, _| b).await;
        let alice = server.token("alice", "");
        let bob = server.token("bob", "");
        let put = call_tool(server.port, "put", json!({"text": "secret"}), Some(&alice)).await;
        let (failed, handle) = result(&put.json());
        assert!(!failed, "{}", put.body);
        let get = |token| call_tool(server.port, "get", json!({"handle": handle}), Some(token));
        let (failed, text) = result(&get(&bob).await.json());
        assert!(failed && !text.contains("secret"), "{text}");
        let (failed, text) = result(&get(&alice).await.json());
        assert!(!failed);
        assert_eq!(text, "secret");
    }
}
