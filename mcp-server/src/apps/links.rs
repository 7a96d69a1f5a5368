//! The link from a tool to its view: written into the tool's `_meta` by
//! the tool macros, and checked when the server is built. Pure functions.

use mcp_types::v2026_07_28::Tool;
use serde_json::{json, Map, Value};

use super::META_KEY;

/// The key of the view's URI under a tool's `_meta.ui`.
const RESOURCE_URI: &str = "resourceUri";

/// The key of who may see and call the tool under a tool's `_meta.ui`.
const VISIBILITY: &str = "visibility";

/// `meta` with `ui` set to the keys given; `meta` unchanged when neither
/// is.
pub(crate) fn tool_meta(
    meta: Option<Map<String, Value>>,
    resource_uri: Option<&str>,
    visibility: Option<&[&str]>,
) -> Option<Map<String, Value>> {
    if resource_uri.is_none() && visibility.is_none() {
        return meta;
    }
    let mut ui = Map::new();
    if let Some(uri) = resource_uri {
        ui.insert(RESOURCE_URI.to_owned(), json!(uri));
    }
    if let Some(visibility) = visibility {
        ui.insert(VISIBILITY.to_owned(), json!(visibility));
    }
    let mut meta = meta.unwrap_or_default();
    meta.insert(META_KEY.to_owned(), Value::Object(ui));
    Some(meta)
}

/// The URI of the view that renders `tool`'s results, if it names one.
fn view_of(tool: &Tool) -> Option<&str> {
    tool.meta
        .as_ref()?
        .get(META_KEY)?
        .get(RESOURCE_URI)?
        .as_str()
}

/// A tool naming a view that is not served: `(tool, uri)`.
pub(crate) type Unlinked = (String, String);

/// The first tool of `tools` whose view `served` says is not served.
pub(crate) fn check_links(tools: &[Tool], served: impl Fn(&str) -> bool) -> Result<(), Unlinked> {
    for tool in tools {
        if let Some(uri) = view_of(tool).filter(|uri| !served(uri)) {
            return Err((tool.name.clone(), uri.to_owned()));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, meta: Option<Map<String, Value>>) -> Tool {
        let mut tool: Tool = serde_json::from_value(json!({
            "name": name,
            "inputSchema": {"type": "object"},
        }))
        .expect("a tool");
        tool.meta = meta;
        tool
    }

    #[test]
    fn tool_meta_adds_ui_beside_what_is_there() {
        let task = Map::from_iter([("io.modelcontextprotocol/tasks".to_owned(), json!({}))]);
        let meta = tool_meta(Some(task), Some("ui://a/v"), Some(&["app"]));
        assert_eq!(
            meta.map(Value::Object),
            Some(json!({
                "io.modelcontextprotocol/tasks": {},
                "ui": {"resourceUri": "ui://a/v", "visibility": ["app"]},
            }))
        );
        assert_eq!(tool_meta(None, None, None), None);
        assert_eq!(
            tool_meta(None, None, Some(&["model"])).map(Value::Object),
            Some(json!({"ui": {"visibility": ["model"]}}))
        );
    }

    #[test]
    fn check_links_names_the_first_tool_whose_view_is_not_served() {
        let tools = [
            tool("plain", None),
            tool("shown", tool_meta(None, Some("ui://a/v"), None)),
            tool("hidden", tool_meta(None, None, Some(&["app"]))),
            tool("lost", tool_meta(None, Some("ui://a/gone"), None)),
        ];
        let served = |uri: &str| uri == "ui://a/v";
        assert_eq!(
            check_links(&tools, served),
            Err(("lost".to_owned(), "ui://a/gone".to_owned()))
        );
        assert_eq!(check_links(&tools[..3], served), Ok(()));
    }
}
