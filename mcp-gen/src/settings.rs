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
    /// Definitions of another, already generated schema, and the Rust module
    /// that holds their types (see [`Settings::reuse`]).
    pub(crate) reused: Vec<(serde_json::Map<String, serde_json::Value>, String)>,
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
            reused: Vec::new(),
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

    /// Reuse the types generated from `other` (a schema whose definitions
    /// live in the Rust module `module`, such as `crate::v2026_07_28`): a
    /// definition of the input that `other` defines identically becomes an
    /// alias of `module::Name` instead of a type of its own. This is how an
    /// extension's schema, which repeats the core definitions it refers to,
    /// shares the core types.
    pub fn reuse(&mut self, other: &serde_json::Value, module: impl Into<String>) -> &mut Self {
        let defs = definitions(other).cloned().unwrap_or_default();
        self.reused.push((defs, module.into()));
        self
    }

    /// These settings with a replacement for every definition of `schema`
    /// that a reused schema defines identically.
    pub(crate) fn with_reused(&self, schema: &serde_json::Value) -> Settings {
        let mut settings = self.clone();
        let Some(defs) = definitions(schema) else {
            return settings;
        };
        for (other, module) in &self.reused {
            for (name, def) in defs {
                if other.get(name) == Some(def) && !settings.replacements.contains_key(name) {
                    let path = format!("{module}::{}", crate::naming::type_name(name));
                    settings.replacements.insert(name.clone(), path);
                }
            }
        }
        settings
    }

    pub(crate) fn is_relaxed(&self, definition: Option<&str>, property: &str) -> bool {
        let hit = |d: &str| self.optional.contains(&(d.to_owned(), property.to_owned()));
        hit("*") || definition.is_some_and(hit)
    }
}

/// The `$defs` (or draft-07 `definitions`) of a schema.
fn definitions(schema: &serde_json::Value) -> Option<&serde_json::Map<String, serde_json::Value>> {
    schema
        .get("$defs")
        .or_else(|| schema.get("definitions"))
        .and_then(serde_json::Value::as_object)
}
