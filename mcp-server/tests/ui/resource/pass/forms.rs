//! Every form of `#[resource]` and `#[resources]` compiles without warnings.

#![deny(warnings, missing_docs)]

use mcp_server::types::v2026_07_28::BlobResourceContents;
use mcp_server::resource::{ResourceList, ResourceSet};
use mcp_server::{resource, resource_set, resources, Context, ErrorObject};

/// A fixed resource.
#[resource(
    "app://config",
    mime_type = "application/json; charset=utf-8",
    title = "Config"
)]
pub fn config() -> String {
    "{}".into()
}

/// A template with every kind of expression.
#[resource(
    uri = "repo://{owner}/{repo}/blob{/branch}{?path,plain}{&page}",
    name = "blob",
    icon = "https://example.com/blob.png"
)]
pub async fn blob(
    cx: &Context,
    owner: String,
    repo: String,
    branch: String,
    path: Option<String>,
    plain: Option<bool>,
    page: u32,
) -> Result<Vec<String>, ErrorObject> {
    let _ = (cx, plain);
    Ok(vec![format!("{owner}/{repo}@{branch}:{path:?}#{page}")])
}

/// Bytes below a root.
#[resource("files:///{+path}{#part}")]
pub fn file(path: String, part: String) -> BlobResourceContents {
    BlobResourceContents {
        meta: None,
        blob: String::new(),
        mime_type: None,
        uri: format!("files:///{path}#{part}"),
        extra: Default::default(),
    }
}

/// The server.
pub struct Server {
    /// Its entries.
    pub entries: Vec<String>,
}

#[resources]
impl Server {
    /// Every entry.
    #[resource("srv://entries")]
    pub fn entries(&self) -> String {
        self.entries.join(",")
    }

    /// One entry.
    #[resource("srv://entries/{n}", mime_type = "text/plain")]
    pub async fn entry(&self, n: usize) -> String {
        self.entries.get(n).cloned().unwrap_or_default()
    }

    /// Needs no server.
    #[resource("srv://about")]
    fn about() -> &'static str {
        "about"
    }
}

fn main() {
    let set: ResourceList<Server> = resource_set![config, blob, file];
    assert_eq!(set.resources().len(), 1);
    assert_eq!(set.resource_templates().len(), 2);
    let server = Server { entries: vec![] };
    assert_eq!(server.resources().len(), 2);
    assert_eq!(server.resource_templates().len(), 1);
}
