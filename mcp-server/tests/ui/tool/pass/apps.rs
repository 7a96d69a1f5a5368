use mcp_server::tool::{Json, ToolHandler, ToolSet};
use mcp_server::{tool, tools};
use serde_json::json;

struct Dashboard;

#[tools]
impl Dashboard {
    /// Shown in the view; the model sees it too.
    #[tool(ui = "ui://dashboard/view.html", visibility = ["model", "app"])]
    fn show(&self) -> (String, Json<Vec<i64>>) {
        ("three numbers".to_owned(), Json(vec![1, 2, 3]))
    }

    /// Only the view calls it; the list form of the key works too.
    #[tool(visibility("app"))]
    fn refresh(&self) -> String {
        String::new()
    }

    /// Runs as a task and renders in the view: both keys share `_meta`.
    #[tool(task = "optional", ui = "ui://dashboard/view.html")]
    async fn report(&self) -> String {
        String::new()
    }

    /// Nothing of MCP Apps.
    #[tool]
    fn plain(&self) -> String {
        String::new()
    }
}

/// A free function declares a view the same way.
#[tool(ui = "ui://dashboard/view.html")]
fn free() -> String {
    String::new()
}

fn main() {
    let meta = |name: &str| {
        let tool = Dashboard::tools().into_iter().find(|t| t.name == name).expect("listed");
        tool.meta.map(serde_json::Value::Object)
    };
    assert_eq!(
        meta("show"),
        Some(json!({"ui": {"resourceUri": "ui://dashboard/view.html", "visibility": ["model", "app"]}}))
    );
    assert_eq!(meta("refresh"), Some(json!({"ui": {"visibility": ["app"]}})));
    assert_eq!(
        meta("report"),
        Some(json!({
            "io.modelcontextprotocol/tasks": {"taskSupport": "optional"},
            "ui": {"resourceUri": "ui://dashboard/view.html"},
        }))
    );
    assert_eq!(meta("plain"), None);
    let handler: &dyn ToolHandler<()> = &free {};
    assert_eq!(
        handler.definition().meta.map(serde_json::Value::Object),
        Some(json!({"ui": {"resourceUri": "ui://dashboard/view.html"}}))
    );
}
