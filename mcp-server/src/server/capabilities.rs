//! What a server advertises in each era: exactly what it serves, so that
//! a client never finds a capability whose methods answer -32601, nor a
//! method that answers without its capability.
//!
//! | capability | advertised when | methods it stands for |
//! | --- | --- | --- |
//! | `tools` | a tool set is served | `tools/list`, `tools/call` |
//! | `prompts` | a prompt set is served | `prompts/list`, `prompts/get` |
//! | `resources` | a resource set is served | `resources/list`, `resources/templates/list`, `resources/read` |
//! | `completions` | a completer was given | `completion/complete` |
//! | `logging` | always | `logging/setLevel` (legacy); the `logLevel` of any request (modern) |
//! | `extensions["io.modelcontextprotocol/tasks"]` | a tool runs as a task (modern only) | `tasks/get`, `tasks/update`, `tasks/cancel` |
//! | `extensions["io.modelcontextprotocol/ui"]` | a view is served (`apps` feature), with its `mimeTypes` | `resources/read` of the views |
//!
//! `listChanged` differs between the eras. A modern client hears of
//! changes on a `subscriptions/listen` stream, which the server opens for
//! every kind it serves. A legacy session has no stream for changes (the
//! server never sends it a `list_changed` notification), so the legacy
//! answer leaves the flag out. `resources.subscribe` is advertised to
//! legacy clients only: after `resources/subscribe`, each
//! [`Change::Resource`](crate::notify::Change) of a subscribed URI reaches the
//! session as `notifications/resources/updated`, on its GET stream (HTTP)
//! or between answers (stdio). The modern listen stream does not deliver
//! `resourceSubscriptions`.

use serde_json::{json, Map, Value};

use super::Inner;

/// The era a capability object is written for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Era {
    /// 2026-07-28: `server/discover`.
    Modern,
    /// 2025-11-25 and earlier: `initialize`.
    Legacy,
}

/// The `ServerCapabilities` object `inner` advertises in `era`.
pub(crate) fn advertised(inner: &Inner, era: Era) -> Value {
    let handlers = &inner.handlers;
    let list_changed = || match era {
        Era::Modern => json!({ "listChanged": true }),
        Era::Legacy => json!({}),
    };
    let mut capabilities = Map::new();
    capabilities.insert("logging".to_owned(), json!({}));
    if inner.completer.is_some() {
        capabilities.insert("completions".to_owned(), json!({}));
    }
    if handlers.has_tools() {
        capabilities.insert("tools".to_owned(), list_changed());
    }
    if handlers.has_prompts() {
        capabilities.insert("prompts".to_owned(), list_changed());
    }
    if handlers.has_resources() {
        let mut resources = list_changed();
        if era == Era::Legacy {
            resources["subscribe"] = json!(true);
        }
        capabilities.insert("resources".to_owned(), resources);
    }
    #[cfg_attr(not(any(feature = "tasks", feature = "apps")), allow(unused_mut))]
    let mut extensions = Map::new();
    // The tasks extension is a modern-era one: a legacy session is not told.
    #[cfg(feature = "tasks")]
    if inner.tasks.is_some() && era == Era::Modern {
        extensions.insert(crate::tasks::EXTENSION.to_owned(), json!({}));
    }
    // MCP Apps is told to both eras: its hosts negotiate it in
    // `initialize` as well.
    #[cfg(feature = "apps")]
    if handlers.has_views() {
        let settings = json!({ "mimeTypes": [crate::apps::MIME_TYPE] });
        extensions.insert(crate::apps::EXTENSION.to_owned(), settings);
    }
    if !extensions.is_empty() {
        capabilities.insert("extensions".to_owned(), Value::Object(extensions));
    }
    Value::Object(capabilities)
}
