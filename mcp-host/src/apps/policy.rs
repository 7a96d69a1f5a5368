//! The policy a view runs under: its content security policy and its
//! iframe's permissions, from its resource's `_meta.ui`.
//!
//! A view's resource may declare the origins it fetches from
//! (`connectDomains`), loads scripts, styles, images, fonts and media from
//! (`resourceDomains`), frames (`frameDomains`) and takes as its base URI
//! (`baseUriDomains`). Those are the only origins its policy names: a
//! declared entry that is not an origin (a keyword such as
//! `'unsafe-eval'`, a bare `*` or scheme, a path, a second directive
//! smuggled in after a `;`) is refused, never passed on, so a server
//! cannot loosen the policy by what it writes. Without `csp`, the
//! extension's restrictive default applies: no connections at all.
//!
//! ```
//! use mcp_host::apps::ViewPolicy;
//! use serde_json::json;
//!
//! let none = ViewPolicy::from_meta(None)?;
//! assert!(none.csp().contains("connect-src 'none'"));
//!
//! let meta = json!({"csp": {"connectDomains": ["https://api.example.com"]},
//!                   "permissions": {"camera": {}}});
//! let declared = ViewPolicy::from_meta(Some(&meta))?;
//! assert!(declared.csp().contains("connect-src 'self' https://api.example.com;"));
//! assert_eq!(declared.allow(), "camera");
//!
//! let loosening = json!({"csp": {"resourceDomains": ["'unsafe-eval'"]}});
//! assert!(ViewPolicy::from_meta(Some(&loosening)).is_err());
//! # Ok::<(), mcp_host::apps::PolicyError>(())
//! ```

use mcp_types::ext::apps::McpUiResourceMeta;
use mcp_types::origin::{self, OriginError, Wildcards};
use serde_json::Value;

/// Most origins one list may declare.
pub const MAX_DOMAINS: usize = 32;

/// Why a view's declared policy is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PolicyError {
    /// `_meta.ui` does not have the extension's shape.
    #[error("the view's `_meta.ui` is malformed: {0}")]
    Shape(String),
    /// An entry of a domain list that is not an origin a view may
    /// declare.
    #[error("`{list}` declares {entry:?}: {reason}")]
    NotAnOrigin {
        /// Which list.
        list: &'static str,
        /// The entry, as written.
        entry: String,
        /// Why it is refused.
        reason: OriginError,
    },
    /// A list longer than [`MAX_DOMAINS`].
    #[error("`{0}` declares more than {MAX_DOMAINS} origins")]
    TooMany(&'static str),
}

/// The checked policy of one view.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ViewPolicy {
    /// `None` when the resource declares no `csp`: the restrictive default.
    declared: Option<Declared>,
    allow: Vec<&'static str>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct Declared {
    connect: Vec<String>,
    resource: Vec<String>,
    frame: Vec<String>,
    base_uri: Vec<String>,
}

impl ViewPolicy {
    /// The policy of a view whose resource content carries `ui` as its
    /// `_meta.ui` (`None` when it has none).
    ///
    /// # Errors
    ///
    /// [`PolicyError`] when `ui` is malformed or declares an entry that is
    /// not an origin.
    pub fn from_meta(ui: Option<&Value>) -> Result<Self, PolicyError> {
        let Some(ui) = ui else {
            return Ok(Self::default());
        };
        let meta: McpUiResourceMeta =
            serde_json::from_value(ui.clone()).map_err(|e| PolicyError::Shape(e.to_string()))?;
        let declared = match meta.csp {
            None => None,
            Some(csp) => Some(Declared {
                connect: origins("connectDomains", csp.connect_domains)?,
                resource: origins("resourceDomains", csp.resource_domains)?,
                frame: origins("frameDomains", csp.frame_domains)?,
                base_uri: origins("baseUriDomains", csp.base_uri_domains)?,
            }),
        };
        let mut allow = Vec::new();
        if let Some(p) = meta.permissions {
            for (wanted, feature) in [
                (p.camera.is_some(), "camera"),
                (p.microphone.is_some(), "microphone"),
                (p.geolocation.is_some(), "geolocation"),
                (p.clipboard_write.is_some(), "clipboard-write"),
            ] {
                if wanted {
                    allow.push(feature);
                }
            }
        }
        Ok(Self { declared, allow })
    }

    /// The content security policy, as one header value.
    pub fn csp(&self) -> String {
        let Some(d) = &self.declared else {
            return String::from(
                "default-src 'none'; script-src 'self' 'unsafe-inline'; \
                 style-src 'self' 'unsafe-inline'; img-src 'self' data:; \
                 media-src 'self' data:; connect-src 'none'; frame-src 'none'; \
                 object-src 'none'; base-uri 'self'",
            );
        };
        let list = |first: &str, origins: &[String], empty: &str| {
            let mut out = String::from(first);
            for origin in origins {
                out.push(' ');
                out.push_str(origin);
            }
            if out.is_empty() {
                out.push_str(empty);
            }
            out.trim_start().to_owned()
        };
        format!(
            "default-src 'none'; script-src {}; style-src {}; connect-src {}; img-src {}; \
             font-src {}; media-src {}; frame-src {}; object-src 'none'; base-uri {}",
            list("'self' 'unsafe-inline'", &d.resource, ""),
            list("'self' 'unsafe-inline'", &d.resource, ""),
            list("'self'", &d.connect, ""),
            list("'self' data:", &d.resource, ""),
            list("'self'", &d.resource, ""),
            list("'self' data:", &d.resource, ""),
            list("", &d.frame, "'none'"),
            list("", &d.base_uri, "'self'"),
        )
    }

    /// The iframe's `allow` attribute: the permissions declared, and only
    /// those the extension names.
    pub fn allow(&self) -> String {
        self.allow.join("; ")
    }

    /// Every origin the view may reach or load from, for a person to be
    /// told before it runs.
    pub fn origins(&self) -> Vec<&str> {
        let Some(d) = &self.declared else {
            return Vec::new();
        };
        let mut all: Vec<&str> = [&d.connect, &d.resource, &d.frame, &d.base_uri]
            .into_iter()
            .flatten()
            .map(String::as_str)
            .collect();
        all.sort_unstable();
        all.dedup();
        all
    }
}

/// The entries of one list, each checked to be an origin by the rules a
/// server's declaration is checked by ([`mcp_types::origin`]).
fn origins(list: &'static str, entries: Option<Vec<String>>) -> Result<Vec<String>, PolicyError> {
    let entries = entries.unwrap_or_default();
    if entries.len() > MAX_DOMAINS {
        return Err(PolicyError::TooMany(list));
    }
    let wildcards = if list == "resourceDomains" {
        Wildcards::Allowed
    } else {
        Wildcards::Refused
    };
    entries
        .into_iter()
        .map(|entry| match origin::check(&entry, wildcards) {
            Ok(()) => Ok(entry),
            Err(reason) => Err(PolicyError::NotAnOrigin {
                list,
                entry,
                reason,
            }),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn without_csp_the_default_allows_no_connection_and_no_origin() {
        let policy = ViewPolicy::from_meta(Some(&json!({"prefersBorder": true}))).unwrap();
        let csp = policy.csp();
        assert!(csp.contains("connect-src 'none'"), "{csp}");
        assert!(csp.contains("frame-src 'none'") && csp.contains("object-src 'none'"));
        assert!(!csp.contains("http"), "{csp}");
        assert_eq!(policy.allow(), "");
        assert!(policy.origins().is_empty());
    }

    #[test]
    fn declared_origins_go_where_the_extension_says_and_nowhere_else() {
        let meta = json!({"csp": {
            "connectDomains": ["https://api.example.com"],
            "resourceDomains": ["https://cdn.example.com", "https://*.static.example.com:8443"],
            "frameDomains": ["https://player.example.com"]
        }, "permissions": {"microphone": {}, "clipboardWrite": {}}});
        let policy = ViewPolicy::from_meta(Some(&meta)).unwrap();
        let csp = policy.csp();
        let directive = |name: &str| {
            csp.split("; ")
                .find(|d| d.starts_with(name))
                .unwrap_or_else(|| panic!("{name} in {csp}"))
                .to_owned()
        };
        assert_eq!(
            directive("connect-src"),
            "connect-src 'self' https://api.example.com"
        );
        assert!(directive("script-src").contains("https://cdn.example.com"));
        assert!(!directive("script-src").contains("api.example.com"));
        assert_eq!(
            directive("frame-src"),
            "frame-src https://player.example.com"
        );
        assert_eq!(directive("base-uri"), "base-uri 'self'");
        assert_eq!(policy.allow(), "microphone; clipboard-write");
        assert_eq!(policy.origins().len(), 4);
    }

    #[test]
    fn what_is_not_an_origin_is_refused() {
        for entry in [
            "'unsafe-eval'",
            "*",
            "https:",
            "data:",
            "https://a.example.com/path",
            "https://a.example.com; script-src *",
            "https://a.example.com 'unsafe-eval'",
            "javascript://a.example.com",
            "http://a.example.com",
            "https://a..example.com",
            "https://a.example.com:",
            "https://a.example.com:99999x",
        ] {
            let meta = json!({"csp": {"resourceDomains": [entry]}});
            assert!(
                matches!(
                    ViewPolicy::from_meta(Some(&meta)),
                    Err(PolicyError::NotAnOrigin { .. })
                ),
                "{entry}"
            );
        }
        // The control: an origin of the same shape is taken, and plain
        // text to loopback (a server under development), as a server's
        // own declaration is checked.
        let meta = json!({"csp": {"resourceDomains": ["https://a.example.com:8443"],
                                  "connectDomains": ["http://localhost:5173", "ws://127.0.0.1:9000"]}});
        assert!(ViewPolicy::from_meta(Some(&meta)).is_ok());
        let many: Vec<String> = (0..=MAX_DOMAINS)
            .map(|i| format!("https://a{i}.example.com"))
            .collect();
        let meta = json!({"csp": {"connectDomains": many}});
        assert_eq!(
            ViewPolicy::from_meta(Some(&meta)),
            Err(PolicyError::TooMany("connectDomains"))
        );
        assert!(matches!(
            ViewPolicy::from_meta(Some(&json!({"csp": "open"}))),
            Err(PolicyError::Shape(_))
        ));
    }
}
