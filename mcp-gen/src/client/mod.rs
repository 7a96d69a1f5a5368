//! Typed clients: a server's tool list in, one Rust module per tool and a
//! client with one method per tool out.
//!
//! Each tool's `inputSchema` and `outputSchema` go through the same
//! lowering and rendering as the spec's schemas, as two documents sharing
//! the tool's module (so `$defs` of one tool never meet another's). The
//! list is a peer's data: lowering runs in its untrusted mode (a construct
//! with no faithful Rust type becomes `serde_json::Value` with a doc
//! comment saying why, docs are neutralised), and names are sanitised and
//! deduplicated here.

mod input;
mod render;

use std::collections::HashSet;

use serde_json::Value;

use crate::error::Error;
use crate::ir::{Body, Def, Ty};
use crate::settings::Settings;

/// Names every tool module reserves for the items the generator adds.
pub(crate) const RESERVED_TYPES: &[&str] = &["Arguments", "Output", "Tool"];

/// Settings of the typed-client generator, in the style of
/// `prost_build::Config`: [`ClientSettings::generate`] is pure,
/// [`ClientSettings::compile`] reads a tool list file and writes the Rust
/// source only when it changed.
///
/// ```
/// let tools = serde_json::json!({"tools": [{
///     "name": "add",
///     "description": "Adds two numbers.",
///     "inputSchema": {"type": "object",
///         "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
///         "required": ["a", "b"]},
///     "outputSchema": {"type": "object",
///         "properties": {"sum": {"type": "integer"}}, "required": ["sum"]}
/// }]});
/// let code = mcp_gen::ClientSettings::new().generate(&tools)?;
/// assert!(code.contains("pub mod add {"));
/// assert!(code.contains("pub fn new(") && code.contains("a: impl ::core::convert::Into<i64>"));
/// assert!(code.contains("pub struct Tools"));
/// # Ok::<(), mcp_gen::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct ClientSettings {
    pub(crate) module: Option<String>,
    pub(crate) client_name: String,
    pub(crate) source_name: Option<String>,
    pub(crate) descriptions: bool,
}

impl Default for ClientSettings {
    fn default() -> Self {
        Self {
            module: None,
            client_name: "Tools".to_owned(),
            source_name: None,
            descriptions: true,
        }
    }
}

impl ClientSettings {
    /// Default settings: the client is called `Tools`, descriptions become
    /// (neutralised) doc comments.
    pub fn new() -> Self {
        Self::default()
    }

    /// Wrap the output in `pub mod NAME { ... }`.
    pub fn module(&mut self, name: impl Into<String>) -> &mut Self {
        self.module = Some(name.into());
        self
    }

    /// The name of the generated client type (default `Tools`).
    pub fn client_name(&mut self, name: impl Into<String>) -> &mut Self {
        self.client_name = name.into();
        self
    }

    /// How the `@generated` header names the input (default: nothing, or
    /// the file name for [`ClientSettings::compile`]).
    pub fn source_name(&mut self, name: impl Into<String>) -> &mut Self {
        self.source_name = Some(name.into());
        self
    }

    /// Whether the tools' and schemas' descriptions become doc comments
    /// (default `true`).
    pub fn descriptions(&mut self, enabled: bool) -> &mut Self {
        self.descriptions = enabled;
        self
    }

    /// Generates the typed client of `tools`, a `tools/list` result or an
    /// array of `Tool` objects. Pure: no file or environment access. A tool
    /// or schema the generator cannot turn into Rust never fails the whole
    /// file: entries without a name are skipped and schemas fall back to
    /// `serde_json::Value`, each with a comment saying why.
    ///
    /// # Errors
    /// [`Error::NotAToolList`] when `tools` is neither shape, and
    /// [`Error::Internal`] when the output does not parse (a bug).
    pub fn generate(&self, tools: &Value) -> Result<String, Error> {
        let (tools, skipped) = input::tools(tools)?;
        let schema_settings = self.schema_settings();
        let mut lowered = Vec::new();
        for tool in tools {
            let arguments = lower(&tool.input, &schema_settings, "Arguments", &mut taken());
            lowered.push((tool, arguments));
        }
        let mut tools = Vec::new();
        for (tool, arguments) in lowered {
            let mut names = taken();
            names.extend(arguments.iter().map(|d| d.name.clone()));
            let output = tool
                .output
                .map(|schema| lower(schema, &schema_settings, "Output", &mut names));
            tools.push(render::Lowered {
                tool,
                arguments,
                output,
            });
        }
        render::file(self, &schema_settings, &tools, &skipped)
    }

    /// The settings the schemas of a peer's tools are lowered with.
    fn schema_settings(&self) -> Settings {
        let mut settings = Settings::new();
        settings.descriptions(self.descriptions);
        settings.untrusted = true;
        if let Some(module) = &self.module {
            settings.module(module);
        }
        if let Some(source) = &self.source_name {
            settings.source_name(source);
        }
        settings
    }
}

/// The reserved names of a tool module.
fn taken() -> HashSet<String> {
    RESERVED_TYPES.iter().map(|s| (*s).to_owned()).collect()
}

/// Lowers one schema of a tool as the item `root`; a schema that cannot be
/// lowered at all (not an object, a malformed `$defs`) is
/// `serde_json::Value` (`Arguments` an open map, so a call still sends an
/// object), with the reason.
fn lower(schema: &Value, settings: &Settings, root: &str, taken: &mut HashSet<String>) -> Vec<Def> {
    match crate::lower::lower_with(schema, settings, taken, Some(root)) {
        Ok(defs) => defs,
        Err(error) => vec![Def {
            name: root.to_owned(),
            pointer: String::new(),
            schema_def: None,
            top_level: true,
            description: None,
            fallback: Some(error.to_string()),
            body: Body::Alias(if root == "Arguments" {
                Ty::Map(Box::new(Ty::Any))
            } else {
                Ty::Any
            }),
        }],
    }
}
