//! What the user can change about generation.

use std::collections::{BTreeMap, BTreeSet};

/// Generation settings, in the style of `prost_build::Config`: create one
/// with [`Settings::new`], adjust it with the `&mut self` setters, then call
/// [`Settings::generate`] (pure) or [`Settings::compile`] (writes a file).
#[derive(Clone, Debug)]
pub struct Settings {
    pub(crate) doc_link: Option<String>,
    pub(crate) descriptions: bool,
    pub(crate) replacements: BTreeMap<String, String>,
    pub(crate) optional: BTreeSet<(String, String)>,
    pub(crate) root_name: Option<String>,
    pub(crate) source_name: Option<String>,
    pub(crate) module: Option<String>,
    /// The schema comes from a peer (a server's tool list): fall back to
    /// `serde_json::Value` where a construct cannot be generated instead of
    /// failing, and neutralise its text in doc comments.
    pub(crate) untrusted: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            doc_link: None,
            descriptions: true,
            replacements: BTreeMap::new(),
            optional: BTreeSet::new(),
            root_name: None,
            source_name: None,
            module: None,
            untrusted: false,
        }
    }
}

impl Settings {
    /// Default settings: descriptions become doc comments, nothing replaced.
    pub fn new() -> Self {
        Self::default()
    }

    /// Link each definition's docs to `base#<lower-case name>` instead of
    /// copying the schema's descriptions (see [`Settings::descriptions`]).
    pub fn doc_link(&mut self, base: impl Into<String>) -> &mut Self {
        self.doc_link = Some(base.into());
        self
    }

    /// Whether `description` keywords become doc comments (default `true`).
    pub fn descriptions(&mut self, enabled: bool) -> &mut Self {
        self.descriptions = enabled;
        self
    }

    /// Use the Rust type `path` for the definition `name` instead of
    /// generating one; the definition becomes a type alias of `path`.
    pub fn replace(&mut self, name: impl Into<String>, path: impl Into<String>) -> &mut Self {
        self.replacements.insert(name.into(), path.into());
        self
    }

    /// Treat the property `property` of the definition `definition` as
    /// optional even where the schema requires it, so that peers that omit it
    /// still decode (and the absence survives a round trip). `"*"` as the
    /// definition applies to every definition.
    pub fn optional_property(
        &mut self,
        definition: impl Into<String>,
        property: impl Into<String>,
    ) -> &mut Self {
        self.optional.insert((definition.into(), property.into()));
        self
    }

    /// The name of the type generated for the root schema when it describes a
    /// value itself (default: its `title`, else `Root`).
    pub fn root_name(&mut self, name: impl Into<String>) -> &mut Self {
        self.root_name = Some(name.into());
        self
    }

    /// How the `@generated` header names the input (default: nothing).
    pub fn source_name(&mut self, name: impl Into<String>) -> &mut Self {
        self.source_name = Some(name.into());
        self
    }

    /// Wrap the output in `pub mod NAME { ... }`.
    pub fn module(&mut self, name: impl Into<String>) -> &mut Self {
        self.module = Some(name.into());
        self
    }

    /// Settings for the published MCP schema of `revision` (such as
    /// `"2026-07-28"`): docs link to the spec's schema reference instead of
    /// repeating it; `JSONValue`, `JSONObject` and `JSONArray` are
    /// `serde_json` values (the schema leaves out floats and `null`);
    /// `resultType` is optional everywhere, and `ttlMs`/`cacheScope` on the
    /// cacheable results, because legacy peers omit them.
    pub fn mcp(revision: &str) -> Self {
        let mut settings = Settings::new();
        settings
            .doc_link(format!(
                "https://modelcontextprotocol.io/specification/{revision}/schema"
            ))
            .descriptions(false)
            .source_name(format!("the MCP {revision} schema"))
            .replace("JSONValue", "::serde_json::Value")
            .replace(
                "JSONObject",
                "::serde_json::Map<::std::string::String, ::serde_json::Value>",
            )
            .replace("JSONArray", "::std::vec::Vec<::serde_json::Value>")
            .optional_property("*", "resultType");
        for result in [
            "CacheableResult",
            "DiscoverResult",
            "ListToolsResult",
            "ListPromptsResult",
            "ListResourcesResult",
            "ListResourceTemplatesResult",
            "ReadResourceResult",
        ] {
            settings
                .optional_property(result, "ttlMs")
                .optional_property(result, "cacheScope");
        }
        settings
    }

    pub(crate) fn is_relaxed(&self, definition: Option<&str>, property: &str) -> bool {
        let hit = |d: &str| self.optional.contains(&(d.to_owned(), property.to_owned()));
        hit("*") || definition.is_some_and(hit)
    }
}
