//! What the MCP Apps specification states that its schema does not: the
//! constants a host and a server share, and the rules a host applies to a
//! tool's `_meta.ui`.
//!
//! The shapes themselves are generated in [`apps`](super::apps):
//! [`McpUiToolMeta`] is a tool's `_meta.ui` (`resourceUri`, `visibility`),
//! [`McpUiResourceMeta`] a resource's
//! (`csp` with `connectDomains`, `resourceDomains`, `frameDomains` and
//! `baseUriDomains`; `permissions`; `domain`; `prefersBorder`).
//!
//! ```
//! use mcp_types::ext::apps_rules::{callable_by_app, tool_ui, visible_to_model};
//!
//! let meta = serde_json::json!({
//!     "ui": { "resourceUri": "ui://weather/dashboard", "visibility": ["app"] }
//! });
//! let meta = meta.as_object().expect("an object");
//! let ui = tool_ui(meta).transpose()?;
//! assert!(!visible_to_model(ui.as_ref()));
//! assert!(callable_by_app(ui.as_ref()));
//! // Without `_meta.ui`, a tool is for both.
//! assert!(visible_to_model(None) && callable_by_app(None));
//! # Ok::<(), serde_json::Error>(())
//! ```

use serde_json::{Map, Value};

pub use crate::meta::APPS_EXTENSION as EXTENSION_ID;
pub use crate::meta::APPS_MIME_TYPE as MIME_TYPE;

use super::apps::{McpUiResourceMeta, McpUiToolMeta, McpUiToolMetaVisibilityItem};

/// The URI scheme of the resources that hold views.
pub const URI_SCHEME: &str = "ui";

/// The `_meta` key of a tool or resource under which its
/// [`McpUiToolMeta`] or [`McpUiResourceMeta`] sits.
pub const META_KEY: &str = "ui";

/// The flat `_meta` key that older servers use for a tool's resource URI;
/// deprecated in favour of `_meta.ui.resourceUri`.
pub const DEPRECATED_RESOURCE_URI_KEY: &str = "ui/resourceUri";

/// The answer to `ui/update-model-context`: an empty object on success,
/// which the schema does not name.
pub type McpUiUpdateModelContextResult = Map<String, Value>;

/// Whether `uri` names a view resource: its scheme is `ui` (compared
/// without regard to case, as URI schemes are).
pub fn is_ui_uri(uri: &str) -> bool {
    uri.split_once("://")
        .is_some_and(|(scheme, _)| scheme.eq_ignore_ascii_case(URI_SCHEME))
}

/// A tool's `_meta.ui`; `None` when absent.
///
/// # Errors
/// `Some(Err(_))` when the key holds something other than a
/// [`McpUiToolMeta`].
pub fn tool_ui(meta: &Map<String, Value>) -> Option<Result<McpUiToolMeta, serde_json::Error>> {
    crate::meta::typed(meta, META_KEY)
}

/// A resource's `_meta.ui`; `None` when absent.
///
/// # Errors
/// `Some(Err(_))` when the key holds something other than a
/// [`McpUiResourceMeta`].
pub fn resource_ui(
    meta: &Map<String, Value>,
) -> Option<Result<McpUiResourceMeta, serde_json::Error>> {
    crate::meta::typed(meta, META_KEY)
}

/// The view a tool's results render in: `_meta.ui.resourceUri`, else the
/// deprecated flat `_meta["ui/resourceUri"]`.
pub fn resource_uri(meta: &Map<String, Value>) -> Option<&str> {
    meta.get(META_KEY)
        .and_then(|ui| ui.get("resourceUri"))
        .or_else(|| meta.get(DEPRECATED_RESOURCE_URI_KEY))
        .and_then(Value::as_str)
}

/// Whether a tool with this `_meta.ui` goes in the model's tool list (and
/// the model may call it). A missing `_meta.ui` or `visibility` means
/// `["model", "app"]`.
pub fn visible_to_model(ui: Option<&McpUiToolMeta>) -> bool {
    allows(ui, McpUiToolMetaVisibilityItem::Model)
}

/// Whether a view of the same server may call a tool with this
/// `_meta.ui` through `tools/call`. A missing `_meta.ui` or `visibility`
/// means `["model", "app"]`.
pub fn callable_by_app(ui: Option<&McpUiToolMeta>) -> bool {
    allows(ui, McpUiToolMetaVisibilityItem::App)
}

fn allows(ui: Option<&McpUiToolMeta>, who: McpUiToolMetaVisibilityItem) -> bool {
    ui.and_then(|ui| ui.visibility.as_ref())
        .is_none_or(|visibility| visibility.contains(&who))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn map(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            other => panic!("not an object: {other}"),
        }
    }

    fn ui(visibility: Value) -> McpUiToolMeta {
        serde_json::from_value(json!({"visibility": visibility})).expect("a McpUiToolMeta")
    }

    #[test]
    fn visibility_defaults_to_model_and_app() {
        let none = McpUiToolMeta::default();
        for ui in [None, Some(&none)] {
            assert!(visible_to_model(ui), "{ui:?}");
            assert!(callable_by_app(ui), "{ui:?}");
        }
    }

    #[test]
    fn visibility_lists_who_may_see_the_tool() {
        let cases = [
            (json!(["model", "app"]), true, true),
            (json!(["model"]), true, false),
            (json!(["app"]), false, true),
            (json!([]), false, false),
        ];
        for (visibility, model, app) in cases {
            let ui = ui(visibility.clone());
            assert_eq!(visible_to_model(Some(&ui)), model, "{visibility}");
            assert_eq!(callable_by_app(Some(&ui)), app, "{visibility}");
        }
    }

    #[test]
    fn an_unknown_visibility_is_refused() {
        let meta = map(json!({"ui": {"visibility": ["user"]}}));
        assert!(tool_ui(&meta).expect("present").is_err());
    }

    #[test]
    fn tool_and_resource_meta_read_from_the_ui_key() {
        let meta = map(json!({"ui": {"resourceUri": "ui://w/d", "visibility": ["app"]}}));
        let tool = tool_ui(&meta).expect("present").expect("valid");
        assert_eq!(tool.resource_uri.as_deref(), Some("ui://w/d"));
        assert!(tool_ui(&Map::new()).is_none());

        let meta = map(json!({"ui": {
            "csp": {
                "connectDomains": ["https://api.example.com"],
                "resourceDomains": ["https://cdn.example.com"],
                "frameDomains": ["https://www.youtube.com"],
                "baseUriDomains": ["https://cdn.example.com"]
            },
            "permissions": {"camera": {}},
            "domain": "a.example.com",
            "prefersBorder": true
        }}));
        let resource = resource_ui(&meta).expect("present").expect("valid");
        let csp = resource.csp.as_ref().expect("csp");
        assert_eq!(
            csp.frame_domains.as_deref(),
            Some(&["https://www.youtube.com".to_owned()][..])
        );
        assert_eq!(resource.prefers_border, Some(true));
        assert_eq!(
            serde_json::to_value(&resource).expect("encodes"),
            meta[META_KEY]
        );
    }

    /// A tool's `_meta.ui` may not carry the resource's fields.
    #[test]
    fn a_tool_ui_with_csp_is_refused() {
        let meta = map(json!({"ui": {"csp": {}}}));
        assert!(tool_ui(&meta).expect("present").is_err());
    }

    #[test]
    fn the_resource_uri_falls_back_to_the_deprecated_key() {
        let both = map(json!({"ui": {"resourceUri": "ui://new"}, "ui/resourceUri": "ui://old"}));
        assert_eq!(resource_uri(&both), Some("ui://new"));
        let old = map(json!({"ui/resourceUri": "ui://old"}));
        assert_eq!(resource_uri(&old), Some("ui://old"));
        assert_eq!(resource_uri(&Map::new()), None);
    }

    #[test]
    fn ui_uris_are_told_by_their_scheme() {
        assert!(is_ui_uri("ui://weather/dashboard"));
        assert!(is_ui_uri("UI://weather"));
        assert!(!is_ui_uri("https://ui.example.com"));
        assert!(!is_ui_uri("uix://a"));
        assert!(!is_ui_uri("ui:"));
    }

    #[test]
    fn the_constants_are_the_spec_s() {
        assert_eq!(EXTENSION_ID, "io.modelcontextprotocol/ui");
        assert!(crate::meta::is_valid_extension_id(EXTENSION_ID));
        assert_eq!(MIME_TYPE, "text/html;profile=mcp-app");
    }
}
