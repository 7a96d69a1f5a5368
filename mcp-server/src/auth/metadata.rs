//! The Protected Resource Metadata document of
//! [RFC 9728](https://datatracker.ietf.org/doc/html/rfc9728) and where it
//! is served: the well-known URI formed from the resource identifier, and
//! the root one.

use serde_json::{json, Value};

use super::dpop::{algorithms, DpopPolicy};

/// The well-known suffix of RFC 9728.
pub(crate) const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// The path-based well-known path for a resource whose URI has the path
/// `path`: the suffix goes before the path, and a path of `/` alone adds
/// nothing.
pub(crate) fn well_known_path(path: &str) -> String {
    match path {
        "" | "/" => WELL_KNOWN.to_owned(),
        path if path.starts_with('/') => format!("{WELL_KNOWN}{path}"),
        path => format!("{WELL_KNOWN}/{path}"),
    }
}

/// What the document says.
pub(crate) struct Document<'a> {
    pub(crate) resource: &'a str,
    pub(crate) authorization_servers: &'a [String],
    pub(crate) scopes_supported: &'a [String],
    pub(crate) resource_name: Option<&'a str>,
    pub(crate) resource_documentation: Option<&'a str>,
    /// Whether DPoP-bound tokens are accepted, and whether only they are.
    pub(crate) dpop: DpopPolicy,
}

impl Document<'_> {
    /// The document as JSON. Bearer tokens are accepted in the header only;
    /// a server that takes DPoP-bound tokens lists the proof algorithms
    /// (RFC 9449, section 5.2), and one that takes nothing else says so.
    pub(crate) fn to_value(&self) -> Value {
        let mut document = json!({
            "resource": self.resource,
            "authorization_servers": self.authorization_servers,
            "bearer_methods_supported": ["header"],
        });
        if !self.scopes_supported.is_empty() {
            document["scopes_supported"] = json!(self.scopes_supported);
        }
        if let Some(name) = self.resource_name {
            document["resource_name"] = json!(name);
        }
        if let Some(url) = self.resource_documentation {
            document["resource_documentation"] = json!(url);
        }
        if self.dpop != DpopPolicy::BearerOnly {
            document["dpop_signing_alg_values_supported"] = algorithms().collect();
        }
        if self.dpop == DpopPolicy::Required {
            document["dpop_bound_access_tokens_required"] = json!(true);
        }
        document
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_known_paths() {
        let table = [
            ("/mcp", "/.well-known/oauth-protected-resource/mcp"),
            (
                "/public/mcp",
                "/.well-known/oauth-protected-resource/public/mcp",
            ),
            ("/mcp/", "/.well-known/oauth-protected-resource/mcp/"),
            ("/", "/.well-known/oauth-protected-resource"),
            ("", "/.well-known/oauth-protected-resource"),
            ("mcp", "/.well-known/oauth-protected-resource/mcp"),
        ];
        for (path, expected) in table {
            assert_eq!(well_known_path(path), expected, "{path}");
        }
    }

    #[test]
    fn document_members() {
        let servers = ["https://auth.example.com".to_owned()];
        let scopes = ["notes:read".to_owned()];
        let full = Document {
            resource: "https://notes.example.com/mcp",
            authorization_servers: &servers,
            scopes_supported: &scopes,
            resource_name: Some("Notes"),
            resource_documentation: Some("https://notes.example.com/docs"),
            dpop: DpopPolicy::BearerOnly,
        };
        assert_eq!(
            full.to_value(),
            json!({
                "resource": "https://notes.example.com/mcp",
                "authorization_servers": ["https://auth.example.com"],
                "scopes_supported": ["notes:read"],
                "bearer_methods_supported": ["header"],
                "resource_name": "Notes",
                "resource_documentation": "https://notes.example.com/docs",
            })
        );
        let bare = Document {
            scopes_supported: &[],
            resource_name: None,
            resource_documentation: None,
            ..full
        };
        let value = bare.to_value();
        assert!(value.get("scopes_supported").is_none());
        assert!(value.get("resource_name").is_none());
        assert!(value.get("dpop_signing_alg_values_supported").is_none());
        assert!(value.get("dpop_bound_access_tokens_required").is_none());
        let accepted = Document {
            dpop: DpopPolicy::Accepted,
            ..bare
        }
        .to_value();
        let algs = &accepted["dpop_signing_alg_values_supported"];
        assert_eq!(algs[0], "RS256", "{accepted}");
        assert!(algs.as_array().is_some_and(|a| a.contains(&json!("ES256"))));
        assert!(accepted.get("dpop_bound_access_tokens_required").is_none());
        let required = Document {
            dpop: DpopPolicy::Required,
            ..bare
        }
        .to_value();
        assert_eq!(required["dpop_signing_alg_values_supported"], *algs);
        assert_eq!(required["dpop_bound_access_tokens_required"], true);
    }
}
