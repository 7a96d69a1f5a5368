//! [`View`]: one `ui://` resource, its HTML and what it asks of the host's
//! sandbox, checked by [`View::validate`] and rendered as the resource
//! `resources/list` shows and the contents `resources/read` returns.

use mcp_types::v2026_07_28::{
    ReadResourceResult, ReadResourceResultContentsItem, Resource, TextResourceContents,
};
use serde_json::{json, Map, Value};

use super::{ViewError, META_KEY, MIME_TYPE, URI_SCHEME};
use mcp_types::origin::{self, Wildcards};

/// A browser capability a view asks the host's sandbox for. Hosts may
/// refuse any of them; a view detects what it got before using it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Permission {
    /// The Permission Policy `camera` feature.
    Camera,
    /// The Permission Policy `microphone` feature.
    Microphone,
    /// The Permission Policy `geolocation` feature.
    Geolocation,
    /// The Permission Policy `clipboard-write` feature.
    ClipboardWrite,
}

impl Permission {
    /// The key under `_meta.ui.permissions`.
    pub fn as_str(self) -> &'static str {
        match self {
            Permission::Camera => "camera",
            Permission::Microphone => "microphone",
            Permission::Geolocation => "geolocation",
            Permission::ClipboardWrite => "clipboardWrite",
        }
    }
}

/// One of the CSP lists under `_meta.ui.csp`; its place in `View::domains`
/// is its discriminant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum List {
    Connect,
    Resource,
    Frame,
    BaseUri,
}

impl List {
    const ALL: [List; 4] = [List::Connect, List::Resource, List::Frame, List::BaseUri];

    /// Its key under `_meta.ui.csp`.
    fn key(self) -> &'static str {
        match self {
            List::Connect => "connectDomains",
            List::Resource => "resourceDomains",
            List::Frame => "frameDomains",
            List::BaseUri => "baseUriDomains",
        }
    }

    /// Whether it takes wildcard subdomains: the specification gives
    /// them for `resourceDomains` alone.
    fn wildcards(self) -> Wildcards {
        match self {
            List::Resource => Wildcards::Allowed,
            _ => Wildcards::Refused,
        }
    }
}

/// An interactive view of MCP Apps: a `ui://` resource of type
/// [`MIME_TYPE`] holding an HTML document, with the origins its CSP lets
/// it reach, the permissions it asks for, the sandbox origin it wants and
/// whether it wants a border.
///
/// Serve it with [`ServerBuilder::view`](crate::ServerBuilder::view); the
/// builder checks it then ([`View::validate`]). Each setter replaces what
/// an earlier call of the same setter gave.
///
/// ```
/// use mcp_server::apps::{Permission, View};
///
/// let view = View::new("ui://weather/dashboard", "<!doctype html><p>Sunny</p>")
///     .name("weather_dashboard")
///     .connect_domains(["https://api.example.com"])
///     .resource_domains(["https://*.cdn.example.com"])
///     .permissions([Permission::Geolocation])
///     .prefers_border(true);
/// assert!(view.validate().is_ok());
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct View {
    uri: String,
    html: String,
    name: Option<String>,
    title: Option<String>,
    description: Option<String>,
    /// The four CSP lists, in the order of [`List::ALL`].
    domains: [Vec<String>; 4],
    permissions: Vec<Permission>,
    domain: Option<String>,
    prefers_border: Option<bool>,
}

impl View {
    /// A view at `uri` (a `ui://` URI) whose document is `html`, with the
    /// host's restrictive defaults: no external origins, no permissions.
    pub fn new(uri: impl Into<String>, html: impl Into<String>) -> Self {
        View {
            uri: uri.into(),
            html: html.into(),
            name: None,
            title: None,
            description: None,
            domains: Default::default(),
            permissions: Vec::new(),
            domain: None,
            prefers_border: None,
        }
    }

    /// The resource's `name` in `resources/list`; the URI without its
    /// scheme when not given.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// The resource's human-readable `title`.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// What the view is for, as `resources/list` describes it.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Origins the view may `fetch`, open WebSockets to and the like
    /// (CSP `connect-src`).
    pub fn connect_domains<I: IntoIterator<Item = T>, T: Into<String>>(self, origins: I) -> Self {
        self.domains(List::Connect, origins)
    }

    /// Origins the view may load scripts, styles, images, fonts and media
    /// from; the one list that takes wildcard subdomains
    /// (`https://*.example.com`).
    pub fn resource_domains<I: IntoIterator<Item = T>, T: Into<String>>(self, origins: I) -> Self {
        self.domains(List::Resource, origins)
    }

    /// Origins the view may embed in nested frames (CSP `frame-src`).
    pub fn frame_domains<I: IntoIterator<Item = T>, T: Into<String>>(self, origins: I) -> Self {
        self.domains(List::Frame, origins)
    }

    /// Origins the document's `<base>` may point at (CSP `base-uri`).
    pub fn base_uri_domains<I: IntoIterator<Item = T>, T: Into<String>>(self, origins: I) -> Self {
        self.domains(List::BaseUri, origins)
    }

    fn domains<I: IntoIterator<Item = T>, T: Into<String>>(
        mut self,
        list: List,
        origins: I,
    ) -> Self {
        self.domains[list as usize] = origins.into_iter().map(Into::into).collect();
        self
    }

    /// The browser capabilities the view asks for.
    pub fn permissions(mut self, permissions: impl IntoIterator<Item = Permission>) -> Self {
        self.permissions = permissions.into_iter().collect();
        self
    }

    /// The dedicated sandbox origin the view asks for; its format is the
    /// host's to define (see the host's documentation).
    pub fn domain(mut self, domain: impl Into<String>) -> Self {
        self.domain = Some(domain.into());
        self
    }

    /// Whether the host should draw a border and background around the
    /// view; left to the host when not given.
    pub fn prefers_border(mut self, prefers_border: bool) -> Self {
        self.prefers_border = Some(prefers_border);
        self
    }

    /// The view's `ui://` URI.
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// Checks what the view declares: its URI is `ui://` with something
    /// after the scheme, each CSP entry is one origin
    /// ([`OriginError`](super::OriginError) says which are not), and
    /// `domain`, when given, is not blank.
    ///
    /// # Errors
    ///
    /// The first [`ViewError`] found.
    pub fn validate(&self) -> Result<(), ViewError> {
        if !is_ui_uri(&self.uri) {
            return Err(ViewError::NotUiUri(self.uri.clone()));
        }
        for (list, origins) in List::ALL.into_iter().zip(&self.domains) {
            for origin in origins {
                origin::check(origin, list.wildcards()).map_err(|reason| ViewError::Origin {
                    view: self.uri.clone(),
                    list: list.key(),
                    origin: origin.clone(),
                    reason,
                })?;
            }
        }
        if let Some(domain) = &self.domain {
            if domain.trim().is_empty() || domain.contains(char::is_whitespace) {
                return Err(ViewError::Domain {
                    view: self.uri.clone(),
                    domain: domain.clone(),
                });
            }
        }
        Ok(())
    }

    /// The view as `resources/list` shows it.
    pub(crate) fn resource(&self) -> Resource {
        let name = self.name.clone().unwrap_or_else(|| {
            self.uri
                .get(URI_SCHEME.len()..)
                .unwrap_or(&self.uri)
                .to_owned()
        });
        Resource {
            meta: Some(self.meta()),
            annotations: None,
            description: self.description.clone(),
            icons: None,
            mime_type: Some(MIME_TYPE.to_owned()),
            name,
            size: None,
            title: self.title.clone(),
            uri: self.uri.clone(),
            extra: Map::new(),
        }
    }

    /// The view as `resources/read` returns it.
    pub(crate) fn contents(&self) -> ReadResourceResult {
        let text = TextResourceContents {
            meta: Some(self.meta()),
            mime_type: Some(MIME_TYPE.to_owned()),
            text: self.html.clone(),
            uri: self.uri.clone(),
            extra: Map::new(),
        };
        ReadResourceResult {
            meta: None,
            cache_scope: None,
            contents: vec![ReadResourceResultContentsItem::Text(text)],
            result_type: None,
            ttl_ms: None,
            extra: Map::new(),
        }
    }

    /// `{"ui": {...}}`: what the view declares, leaving out what it does
    /// not (the host's defaults then apply).
    fn meta(&self) -> Map<String, Value> {
        let mut ui = Map::new();
        let csp: Map<String, Value> = List::ALL
            .into_iter()
            .zip(&self.domains)
            .filter(|(_, origins)| !origins.is_empty())
            .map(|(list, origins)| (list.key().to_owned(), json!(origins)))
            .collect();
        if !csp.is_empty() {
            ui.insert("csp".to_owned(), Value::Object(csp));
        }
        if !self.permissions.is_empty() {
            let permissions: Map<String, Value> = self
                .permissions
                .iter()
                .map(|p| (p.as_str().to_owned(), json!({})))
                .collect();
            ui.insert("permissions".to_owned(), Value::Object(permissions));
        }
        if let Some(domain) = &self.domain {
            ui.insert("domain".to_owned(), json!(domain));
        }
        if let Some(prefers_border) = self.prefers_border {
            ui.insert("prefersBorder".to_owned(), json!(prefers_border));
        }
        Map::from_iter([(META_KEY.to_owned(), Value::Object(ui))])
    }
}

/// Whether `uri` is `ui://` (the scheme in any case) with something after
/// it.
pub(crate) fn is_ui_uri(uri: &str) -> bool {
    uri.get(..URI_SCHEME.len())
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case(URI_SCHEME))
        && !uri[URI_SCHEME.len()..].trim().is_empty()
        && !uri.contains(char::is_whitespace)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_holds_only_what_the_view_declares() {
        let bare = View::new("ui://a/b", "<p>");
        assert_eq!(Value::Object(bare.meta()), json!({"ui": {}}));
        let full = View::new("ui://a/b", "<p>")
            .connect_domains(["https://api.example.com"])
            .resource_domains(["https://*.cdn.example.com"])
            .frame_domains(["https://player.example.com"])
            .base_uri_domains(["https://base.example.com"])
            .permissions([Permission::Camera, Permission::ClipboardWrite])
            .domain("abc.example-host.com")
            .prefers_border(false);
        assert_eq!(
            Value::Object(full.meta()),
            json!({"ui": {
                "csp": {
                    "connectDomains": ["https://api.example.com"],
                    "resourceDomains": ["https://*.cdn.example.com"],
                    "frameDomains": ["https://player.example.com"],
                    "baseUriDomains": ["https://base.example.com"],
                },
                "permissions": {"camera": {}, "clipboardWrite": {}},
                "domain": "abc.example-host.com",
                "prefersBorder": false,
            }})
        );
    }

    #[test]
    fn validate_names_the_view_the_list_and_the_origin() {
        let cases = [
            ("https://cdn.example.com/lib.js", "resourceDomains"),
            ("http://api.example.com", "connectDomains"),
            ("https://*.example.com", "frameDomains"),
        ];
        for (origin, list) in cases {
            let view = View::new("ui://a/b", "");
            let view = match list {
                "resourceDomains" => view.resource_domains([origin]),
                "connectDomains" => view.connect_domains([origin]),
                _ => view.frame_domains([origin]),
            };
            match view.validate() {
                Err(ViewError::Origin {
                    view,
                    list: l,
                    origin: o,
                    ..
                }) => {
                    assert_eq!((view.as_str(), l, o.as_str()), ("ui://a/b", list, origin));
                }
                other => panic!("{origin}: {other:?}"),
            }
        }
    }

    #[test]
    fn only_ui_uris_with_a_path_are_views() {
        for uri in ["ui://app/view.html", "UI://x"] {
            assert!(is_ui_uri(uri), "{uri}");
        }
        for uri in [
            "https://app/view.html",
            "ui://",
            "ui:// ",
            "ui:x",
            "ui://a b",
            "",
        ] {
            assert!(!is_ui_uri(uri), "{uri}");
        }
        assert_eq!(
            View::new("file:///view.html", "").validate(),
            Err(ViewError::NotUiUri("file:///view.html".to_owned()))
        );
        assert!(matches!(
            View::new("ui://a", "").domain(" ").validate(),
            Err(ViewError::Domain { .. })
        ));
    }
}
