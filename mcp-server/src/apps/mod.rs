//! The server side of MCP Apps (`io.modelcontextprotocol/ui`): interactive
//! views that a host renders in a sandboxed frame beside a tool's result.
//! The protocol is in the
//! [MCP Apps specification](https://github.com/modelcontextprotocol/ext-apps/blob/main/specification/2026-01-26/apps.mdx).
//!
//! A server ships a view as a [`View`]: a `ui://` resource holding an HTML
//! document ([`MIME_TYPE`]), with the origins its Content Security Policy
//! lets it reach, the browser permissions it asks for, the sandbox origin
//! it wants and whether it wants a border. A tool names the view that
//! renders its results with `#[tool(ui = "ui://...")]`, and says who may
//! see and call it with `visibility`:
//!
//! ```
//! use mcp_server::apps::View;
//! use mcp_server::tool::Json;
//! use mcp_server::{tool, tools, Server};
//!
//! struct Weather;
//!
//! #[tools]
//! impl Weather {
//!     /// Today's weather in a city, with a dashboard where the host can
//!     /// show one.
//!     #[tool(ui = "ui://weather/dashboard")]
//!     fn forecast(&self, city: String) -> (String, Json<serde_json::Value>) {
//!         // The text is what a host without views shows, and what the
//!         // model reads; the structured content is for the view.
//!         let text = format!("{city}: sunny, 22 °C");
//!         (text, Json(serde_json::json!({ "city": city, "celsius": 22 })))
//!     }
//!
//!     /// Refreshes the dashboard; only the view calls it.
//!     #[tool(visibility = ["app"])]
//!     fn refresh(&self) -> String {
//!         "refreshed".to_owned()
//!     }
//! }
//!
//! let dashboard = View::new("ui://weather/dashboard", "<!doctype html><title>Weather</title>")
//!     .connect_domains(["https://api.example.com"])
//!     .prefers_border(true);
//! let server = Server::builder(Weather).tools().view(dashboard).build();
//! assert!(server.is_ok());
//!
//! // A tool naming a view that is never declared is refused.
//! let server = Server::builder(Weather).tools().build();
//! assert!(server.is_err());
//! ```
//!
//! What the server does:
//!
//! - `resources/list` lists each view with its MIME type, and
//!   `resources/read` returns its HTML as text; both carry the view's
//!   `_meta.ui` (`csp`, `permissions`, `domain`, `prefersBorder`), which
//!   hosts read from the contents when they build the sandbox.
//! - `tools/list` shows `_meta.ui.resourceUri` and `_meta.ui.visibility`
//!   on the tools that declare them. A tool without `visibility` is for
//!   the model and the views alike; hiding an app-only tool from the model
//!   and keeping views from calling model-only tools is the host's part.
//! - [`ServerBuilder::build`](crate::ServerBuilder::build) refuses a view
//!   whose URI is not `ui://` or whose CSP lists hold anything but origins
//!   (see [`OriginError`] for the rules), two views at one URI, and a tool
//!   naming a view that neither [`ServerBuilder::view`](crate::ServerBuilder::view)
//!   nor the resource set declares.
//! - The server advertises the extension under `capabilities.extensions`,
//!   with the MIME types of its views, once it serves a view.
//!
//! A host without MCP Apps shows only the tool's `content`: every tool
//! with a view returns text that stands on its own (what the view shows,
//! said in words), and puts the data the view renders in
//! `structuredContent`. The `apps` example serves such a pair of tools
//! with a view of its own, whose script speaks the view's side of the
//! protocol over `postMessage`.

mod links;
mod view;

pub(crate) use links::{check_links, tool_meta};
pub use mcp_types::origin::OriginError;
pub use view::{Permission, View};

/// The extension's identifier, the key under `capabilities.extensions`.
pub use mcp_types::meta::APPS_EXTENSION as EXTENSION;

/// The MIME type of an HTML view.
pub use mcp_types::meta::APPS_MIME_TYPE as MIME_TYPE;

/// The scheme of a view's URI.
const URI_SCHEME: &str = "ui://";

/// The `_meta` key of a tool's and a view's MCP Apps metadata.
const META_KEY: &str = "ui";

/// Why a [`View`] cannot be served.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ViewError {
    /// The view's URI is not `ui://` followed by a name.
    NotUiUri(String),
    /// An entry of one of the view's CSP lists is not an origin the view
    /// may declare.
    Origin {
        /// The view's URI.
        view: String,
        /// The list, as `_meta.ui.csp` names it (`connectDomains`, ...).
        list: &'static str,
        /// The entry refused.
        origin: String,
        /// Why.
        reason: OriginError,
    },
    /// The view's `domain` is blank or holds white space.
    Domain {
        /// The view's URI.
        view: String,
        /// The domain refused.
        domain: String,
    },
    /// Two views, or a view and a resource of the resource set, have this
    /// URI.
    Duplicate(String),
}

impl std::fmt::Display for ViewError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ViewError::NotUiUri(uri) => write!(
                f,
                "view `{uri}`: a view's URI is `ui://` followed by a name, such as `ui://app/view.html`"
            ),
            ViewError::Origin {
                view,
                list,
                origin,
                reason,
            } => write!(f, "view `{view}`: `{origin}` in `{list}`: {reason}"),
            ViewError::Domain { view, domain } => write!(
                f,
                "view `{view}`: domain `{domain}` is blank or holds white space"
            ),
            ViewError::Duplicate(uri) => {
                write!(f, "two views, or a view and a resource, have the URI `{uri}`")
            }
        }
    }
}

impl std::error::Error for ViewError {}
