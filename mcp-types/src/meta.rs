//! `_meta` keys: the ones the protocol defines, the rules every key must
//! follow, and typed readers over an untyped `_meta` map.
//!
//! # Key syntax
//!
//! A key is an optional *prefix* followed by a *name*:
//!
//! - The prefix is one or more dot-separated labels and ends in `/`. A label
//!   starts with an ASCII letter, ends with a letter or digit, and has only
//!   letters, digits and hyphens in between (`com.example/`, `io.x-y/`).
//! - The name may be empty. When it is not, it starts and ends with an ASCII
//!   letter or digit and has only letters, digits, `-`, `_` and `.` in
//!   between.
//!
//! A prefix whose *second* label is `modelcontextprotocol` or `mcp` belongs
//! to MCP: `io.modelcontextprotocol/` and `dev.mcp/` are reserved, while
//! `com.example.mcp/` is not. The unprefixed [`TRACEPARENT`], [`TRACESTATE`]
//! and [`BAGGAGE`] are reserved too, for W3C trace context.
//!
//! # Readers
//!
//! The readers take the map by reference and decode the value in place. A
//! reader returns `None` when the key is absent; the typed ones return
//! `Some(Err(_))` when the key is present with a value of the wrong shape,
//! so that a server can answer -32602 rather than treat the key as absent.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::jsonrpc::RequestId;
use crate::v2026_07_28::{ClientCapabilities, Implementation, LoggingLevel, ProgressToken};

/// The protocol version of a request (string). Required on every modern
/// request.
pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// The client capabilities declared for this one request
/// ([`ClientCapabilities`]). Required on every modern request; `{}` declares
/// none.
pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// The client's self-reported identity ([`Implementation`]). Optional.
pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// The log level a request opts into ([`LoggingLevel`]). Optional; without
/// it the server sends no log messages for the request.
pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// A token (string or integer) that opts a request into progress
/// notifications.
pub const PROGRESS_TOKEN: &str = "progressToken";
/// The server's self-reported identity ([`Implementation`]), on results.
pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// The id of the `subscriptions/listen` request a message belongs to
/// ([`RequestId`]).
pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
/// W3C trace context: the parent span.
pub const TRACEPARENT: &str = "traceparent";
/// W3C trace context: vendor trace state.
pub const TRACESTATE: &str = "tracestate";
/// W3C baggage.
pub const BAGGAGE: &str = "baggage";
/// The identifier of the tasks extension: its key under
/// `capabilities.extensions`, and the `_meta` key under which a tool says
/// whether it runs as a task (`{"taskSupport": "optional"}`).
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";
/// The identifier of the MCP Apps extension: its key under
/// `capabilities.extensions` (the client's value lists the view MIME types
/// it renders). The extension's own `_meta` key is `ui`; see
/// `ext::apps_rules` (feature `apps`).
pub const APPS_EXTENSION: &str = "io.modelcontextprotocol/ui";
/// The MIME type of an MCP Apps view: on its `ui://` resource, and in the
/// `mimeTypes` a client declares under [`APPS_EXTENSION`].
pub const APPS_MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The prefix under which the protocol's own keys live.
pub const MCP_PREFIX: &str = "io.modelcontextprotocol/";

/// The second labels that mark a prefix as reserved for MCP.
const RESERVED_SECOND_LABELS: [&str; 2] = ["modelcontextprotocol", "mcp"];

/// The reserved keys without a prefix.
const RESERVED_UNPREFIXED: [&str; 3] = [TRACEPARENT, TRACESTATE, BAGGAGE];

/// A `_meta` key split into its prefix and name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MetaKey<'a> {
    prefix: Option<&'a str>,
    name: &'a str,
}

impl<'a> MetaKey<'a> {
    /// Splits and checks a key; `None` if it breaks the key syntax.
    pub fn parse(key: &'a str) -> Option<Self> {
        let (prefix, name) = match key.find('/') {
            Some(slash) => (Some(&key[..=slash]), &key[slash + 1..]),
            None => (None, key),
        };
        let prefix_ok = prefix.is_none_or(|p| labels(p).is_some_and(|mut l| l.all(is_label)));
        (prefix_ok && is_name(name)).then_some(Self { prefix, name })
    }

    /// The prefix including its trailing `/`, if the key has one.
    pub fn prefix(&self) -> Option<&'a str> {
        self.prefix
    }

    /// The name after the prefix; may be empty.
    pub fn name(&self) -> &'a str {
        self.name
    }

    /// Whether the key is reserved for MCP: its prefix is reserved, or it
    /// is one of the unprefixed trace-context keys.
    pub fn is_reserved(&self) -> bool {
        match self.prefix {
            Some(prefix) => is_reserved_prefix(prefix),
            None => RESERVED_UNPREFIXED.contains(&self.name),
        }
    }
}

/// Whether `key` follows the `_meta` key syntax.
pub fn is_valid_meta_key(key: &str) -> bool {
    MetaKey::parse(key).is_some()
}

/// Whether `key` follows the syntax for extension identifiers (as used in
/// `capabilities.extensions`): a valid `_meta` key that has a prefix.
pub fn is_valid_extension_id(key: &str) -> bool {
    MetaKey::parse(key).is_some_and(|k| k.prefix.is_some())
}

/// Whether `prefix` is a valid prefix reserved for MCP, that is one whose
/// second label is `modelcontextprotocol` or `mcp`. The trailing `/` may be
/// given or left out.
///
/// Labels are compared without regard to ASCII case, as domain names are,
/// so `dev.MCP/` counts as reserved.
pub fn is_reserved_prefix(prefix: &str) -> bool {
    let prefix = prefix.strip_suffix('/').unwrap_or(prefix);
    let Some(mut labels) = labels_of(prefix) else {
        return false;
    };
    if !labels.clone().all(is_label) {
        return false;
    }
    labels.nth(1).is_some_and(|second| {
        RESERVED_SECOND_LABELS
            .iter()
            .any(|r| second.eq_ignore_ascii_case(r))
    })
}

/// Whether `key` is valid and reserved for MCP; see [`MetaKey::is_reserved`].
pub fn is_reserved_key(key: &str) -> bool {
    MetaKey::parse(key).is_some_and(|k| k.is_reserved())
}

/// The labels of a prefix that ends in `/`; `None` if it does not.
fn labels(prefix: &str) -> Option<std::str::Split<'_, char>> {
    labels_of(prefix.strip_suffix('/')?)
}

/// The labels of a prefix without its `/`; `None` if it is empty.
fn labels_of(prefix: &str) -> Option<std::str::Split<'_, char>> {
    (!prefix.is_empty()).then(|| prefix.split('.'))
}

fn is_label(label: &str) -> bool {
    let bytes = label.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) => {
            first.is_ascii_alphabetic()
                && last.is_ascii_alphanumeric()
                && bytes
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || *b == b'-')
        }
        _ => false,
    }
}

fn is_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    match (bytes.first(), bytes.last()) {
        (None, _) | (_, None) => true,
        (Some(first), Some(last)) => {
            first.is_ascii_alphanumeric()
                && last.is_ascii_alphanumeric()
                && bytes
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        }
    }
}

pub(crate) fn typed<T: DeserializeOwned>(
    meta: &Map<String, Value>,
    key: &str,
) -> Option<Result<T, serde_json::Error>> {
    meta.get(key).map(T::deserialize)
}

/// The request's protocol version, if present as a string.
pub fn protocol_version(meta: &Map<String, Value>) -> Option<&str> {
    meta.get(PROTOCOL_VERSION).and_then(Value::as_str)
}

/// The capabilities the client declared for this request.
///
/// # Errors
///
/// The inner `Err` when the value is not a valid [`ClientCapabilities`].
pub fn client_capabilities(
    meta: &Map<String, Value>,
) -> Option<Result<ClientCapabilities, serde_json::Error>> {
    typed(meta, CLIENT_CAPABILITIES)
}

/// The client's self-reported identity.
///
/// # Errors
///
/// The inner `Err` when the value is not a valid [`Implementation`].
pub fn client_info(meta: &Map<String, Value>) -> Option<Result<Implementation, serde_json::Error>> {
    typed(meta, CLIENT_INFO)
}

/// The log level the request opts into.
///
/// # Errors
///
/// The inner `Err` when the value is not one of the eight levels.
pub fn log_level(meta: &Map<String, Value>) -> Option<Result<LoggingLevel, serde_json::Error>> {
    typed(meta, LOG_LEVEL)
}

/// The progress token of a request.
///
/// # Errors
///
/// The inner `Err` when the value is neither a string nor an integer.
pub fn progress_token(
    meta: &Map<String, Value>,
) -> Option<Result<ProgressToken, serde_json::Error>> {
    typed(meta, PROGRESS_TOKEN)
}

/// The server's self-reported identity, on a result.
///
/// # Errors
///
/// The inner `Err` when the value is not a valid [`Implementation`].
pub fn server_info(meta: &Map<String, Value>) -> Option<Result<Implementation, serde_json::Error>> {
    typed(meta, SERVER_INFO)
}

/// The listen subscription a notification or result belongs to.
///
/// # Errors
///
/// The inner `Err` when the value is neither a string nor an integer.
pub fn subscription_id(meta: &Map<String, Value>) -> Option<Result<RequestId, serde_json::Error>> {
    typed(meta, SUBSCRIPTION_ID)
}

/// The W3C `traceparent`, if present as a string.
pub fn traceparent(meta: &Map<String, Value>) -> Option<&str> {
    meta.get(TRACEPARENT).and_then(Value::as_str)
}

/// The W3C `tracestate`, if present as a string.
pub fn tracestate(meta: &Map<String, Value>) -> Option<&str> {
    meta.get(TRACESTATE).and_then(Value::as_str)
}

/// The W3C `baggage`, if present as a string.
pub fn baggage(meta: &Map<String, Value>) -> Option<&str> {
    meta.get(BAGGAGE).and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;

    const DEFINED: [&str; 10] = [
        PROTOCOL_VERSION,
        CLIENT_CAPABILITIES,
        CLIENT_INFO,
        LOG_LEVEL,
        PROGRESS_TOKEN,
        SERVER_INFO,
        SUBSCRIPTION_ID,
        TRACEPARENT,
        TRACESTATE,
        BAGGAGE,
    ];

    #[test]
    fn defined_keys_are_valid_and_reserved() {
        for key in DEFINED {
            assert!(is_valid_meta_key(key), "{key}");
        }
        for key in DEFINED.iter().filter(|k| **k != PROGRESS_TOKEN) {
            assert!(is_reserved_key(key), "{key}");
        }
        assert!(!is_reserved_key(PROGRESS_TOKEN));
        for key in DEFINED.iter().filter(|k| k.contains('/')) {
            assert!(key.starts_with(MCP_PREFIX), "{key}");
        }
    }

    #[test]
    fn valid_keys() {
        for key in [
            "",
            "a",
            "progressToken",
            "x1",
            "1x",
            "a.b",
            "a-b_c.d",
            "com.example/",
            "com.example/a",
            "com.example/some-key_1.v2",
            "a/b",
            "a1.b-2.c/d",
            "x-y/z",
            "A.B/C",
        ] {
            assert!(is_valid_meta_key(key), "{key:?} should be valid");
        }
    }

    #[test]
    fn invalid_keys() {
        for key in [
            "/a",       // empty prefix
            "./a",      // empty labels
            "com./a",   // empty trailing label
            ".com/a",   // empty leading label
            "com..x/a", // empty interior label
            "1com/a",   // label starting with a digit
            "-com/a",   // label starting with a hyphen
            "com-/a",   // label ending with a hyphen
            "co_m/a",   // underscore in a label
            "a/b/c",    // two slashes
            "a/-b",     // name starting with a hyphen
            "a/b-",     // name ending with a hyphen
            "_a",       // name starting with an underscore
            "a.",       // name ending with a dot
            "a b",      // space
            "ключ",     // not ASCII
            "com.exämple/a",
            "com.example/a\n",
        ] {
            assert!(!is_valid_meta_key(key), "{key:?} should be invalid");
        }
    }

    #[test]
    fn split() {
        let k = MetaKey::parse("com.example/key").expect("valid");
        assert_eq!(k.prefix(), Some("com.example/"));
        assert_eq!(k.name(), "key");
        let k = MetaKey::parse("key").expect("valid");
        assert_eq!((k.prefix(), k.name()), (None, "key"));
        let k = MetaKey::parse("io.modelcontextprotocol/").expect("valid");
        assert_eq!(
            (k.prefix(), k.name()),
            (Some("io.modelcontextprotocol/"), "")
        );
    }

    #[test]
    fn reserved_prefixes() {
        for p in [
            "io.modelcontextprotocol/",
            "io.modelcontextprotocol",
            "dev.mcp/",
            "org.modelcontextprotocol.api/",
            "com.mcp.tools/",
            "dev.MCP/",
        ] {
            assert!(is_reserved_prefix(p), "{p}");
        }
        for p in [
            "com.example.mcp/",
            "mcp/",
            "modelcontextprotocol/",
            "com.example/",
            "com.mcpx/",
            "",
            "/",
            "io..mcp/",
            "io.mcp-/",
        ] {
            assert!(!is_reserved_prefix(p), "{p}");
        }
    }

    #[test]
    fn reserved_keys() {
        assert!(is_reserved_key("dev.mcp/anything"));
        assert!(is_reserved_key("traceparent"));
        assert!(!is_reserved_key("com.example/traceparent"));
        assert!(!is_reserved_key("com.example.mcp/x"));
        assert!(
            !is_reserved_key("dev.mcp/-bad"),
            "invalid keys are not reserved"
        );
    }

    #[test]
    fn extension_ids_need_a_prefix() {
        assert!(is_valid_extension_id("io.modelcontextprotocol/tasks"));
        assert!(is_valid_extension_id("com.example/feature-x"));
        assert!(!is_valid_extension_id("tasks"));
        assert!(!is_valid_extension_id("com.example/-x"));
    }

    fn sample() -> Map<String, Value> {
        let value = json!({
            PROTOCOL_VERSION: "2026-07-28",
            CLIENT_CAPABILITIES: {"elicitation": {"form": {}}},
            CLIENT_INFO: {"name": "c", "version": "1"},
            LOG_LEVEL: "warning",
            PROGRESS_TOKEN: 5,
            SERVER_INFO: {"name": "s", "version": "2"},
            SUBSCRIPTION_ID: "listen-1",
            TRACEPARENT: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            TRACESTATE: "v=1",
            BAGGAGE: "k=v",
            "com.example/other": true
        });
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    #[test]
    fn readers() {
        let meta = sample();
        assert_eq!(protocol_version(&meta), Some("2026-07-28"));
        let caps = client_capabilities(&meta).expect("present").expect("valid");
        assert_eq!(
            serde_json::to_value(caps).ok(),
            Some(json!({"elicitation": {"form": {}}}))
        );
        assert_eq!(
            client_info(&meta).expect("present").expect("valid").name,
            "c"
        );
        assert_eq!(
            server_info(&meta).expect("present").expect("valid").version,
            "2"
        );
        assert_eq!(
            serde_json::to_value(log_level(&meta).expect("present").expect("valid")).ok(),
            Some(json!("warning"))
        );
        assert_eq!(
            progress_token(&meta).expect("present").expect("valid"),
            ProgressToken::Integer(5)
        );
        assert_eq!(
            subscription_id(&meta).expect("present").expect("valid"),
            RequestId::String("listen-1".into())
        );
        assert_eq!(traceparent(&meta).map(str::len), Some(55));
        assert_eq!(tracestate(&meta), Some("v=1"));
        assert_eq!(baggage(&meta), Some("k=v"));
        assert!(meta.keys().all(|k| is_valid_meta_key(k)));
    }

    #[test]
    fn readers_on_absent_and_malformed_values() {
        let empty = Map::new();
        assert!(protocol_version(&empty).is_none());
        assert!(client_capabilities(&empty).is_none());
        assert!(subscription_id(&empty).is_none());
        let mut bad = Map::new();
        bad.insert(PROTOCOL_VERSION.into(), json!(20260728));
        bad.insert(CLIENT_CAPABILITIES.into(), json!("all"));
        bad.insert(LOG_LEVEL.into(), json!("loud"));
        bad.insert(PROGRESS_TOKEN.into(), json!(1.5));
        assert_eq!(protocol_version(&bad), None);
        assert!(matches!(client_capabilities(&bad), Some(Err(_))));
        assert!(matches!(log_level(&bad), Some(Err(_))));
        assert!(matches!(progress_token(&bad), Some(Err(_))));
    }

    fn label() -> impl Strategy<Value = String> {
        "[a-zA-Z]([a-zA-Z0-9-]{0,6}[a-zA-Z0-9])?"
    }

    fn name() -> impl Strategy<Value = String> {
        "([a-zA-Z0-9]([a-zA-Z0-9._-]{0,6}[a-zA-Z0-9])?)?"
    }

    proptest! {
        /// Keys built from the grammar are accepted and split back into
        /// the parts they were built from.
        #[test]
        fn generated_keys_are_valid(labels in prop::collection::vec(label(), 0..4), name in name()) {
            let prefix = if labels.is_empty() { String::new() } else { format!("{}/", labels.join(".")) };
            let key = format!("{prefix}{name}");
            let parsed = MetaKey::parse(&key);
            prop_assert!(parsed.is_some(), "{key:?}");
            if let Some(parsed) = parsed {
                prop_assert_eq!(parsed.prefix().unwrap_or(""), prefix.as_str());
                prop_assert_eq!(parsed.name(), name.as_str());
                let reserved = labels.get(1).is_some_and(|l| {
                    l.eq_ignore_ascii_case("mcp") || l.eq_ignore_ascii_case("modelcontextprotocol")
                });
                prop_assert_eq!(parsed.is_reserved() && !labels.is_empty(), reserved);
            }
        }

        /// Inserting a character outside the alphabet anywhere makes a key
        /// invalid; the validator never panics on arbitrary text.
        #[test]
        fn foreign_characters_are_rejected(key in "[a-z.]{0,5}/?[a-z]{0,5}", at in 0usize..12, c in "[ !@#$%^&*()+=~,;:'\"\\\\é\\n]") {
            let mut key = key;
            let at = at.min(key.len());
            key.insert_str(at, &c);
            prop_assert!(!is_valid_meta_key(&key), "{key:?}");
        }

        #[test]
        fn validator_is_total(key in ".*") {
            let _ = is_valid_meta_key(&key);
            let _ = is_reserved_key(&key);
            let _ = is_reserved_prefix(&key);
        }
    }
}
