//! The attribute names and keys `#[tool]`, `#[tools]` and
//! `#[derive(ElicitForm)]` understand, in one place (as serde_derive's
//! `symbol.rs`).

use std::fmt::{self, Display};

use syn::{Ident, Path};

/// An attribute name or key.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Symbol(pub(crate) &'static str);

// Attributes.
pub(crate) const TOOL: Symbol = Symbol("tool");
pub(crate) const HEADER: Symbol = Symbol("header");
pub(crate) const ELICIT: Symbol = Symbol("elicit");
pub(crate) const FORM: Symbol = Symbol("form");
pub(crate) const DOC: Symbol = Symbol("doc");

// `#[tool(...)]` keys.
pub(crate) const NAME: Symbol = Symbol("name");
pub(crate) const TITLE: Symbol = Symbol("title");
pub(crate) const DESCRIPTION: Symbol = Symbol("description");
pub(crate) const ICON: Symbol = Symbol("icon");
pub(crate) const ICONS: Symbol = Symbol("icons");
pub(crate) const READ_ONLY: Symbol = Symbol("read_only");
pub(crate) const DESTRUCTIVE: Symbol = Symbol("destructive");
pub(crate) const IDEMPOTENT: Symbol = Symbol("idempotent");
pub(crate) const OPEN_WORLD: Symbol = Symbol("open_world");
pub(crate) const SCOPES: Symbol = Symbol("scopes");
pub(crate) const TASK: Symbol = Symbol("task");
pub(crate) const UI: Symbol = Symbol("ui");
pub(crate) const VISIBILITY: Symbol = Symbol("visibility");

/// The values of `#[tool(task = "...")]`, as the tasks extension names them.
pub(crate) const TASK_SUPPORT: &[&str] = &["forbidden", "optional", "required"];

/// The scheme `#[tool(ui = "...")]` names a view with, as MCP Apps
/// (`io.modelcontextprotocol/ui`) reserves it.
pub(crate) const UI_SCHEME: &str = "ui://";

/// The values of `#[tool(visibility = [...])]`, as MCP Apps names them.
pub(crate) const VISIBILITY_VALUES: &[&str] = &["model", "app"];

/// Every `#[tool(...)]` key, for the "expected one of" message.
pub(crate) const TOOL_KEYS: &[Symbol] = &[
    NAME,
    TITLE,
    DESCRIPTION,
    ICON,
    ICONS,
    READ_ONLY,
    DESTRUCTIVE,
    IDEMPOTENT,
    OPEN_WORLD,
    SCOPES,
    TASK,
    UI,
    VISIBILITY,
];

// `#[elicit(...)]` and `#[form(...)]` keys.
pub(crate) const MESSAGE: Symbol = Symbol("message");
pub(crate) const RENAME: Symbol = Symbol("rename");
pub(crate) const RENAME_ALL: Symbol = Symbol("rename_all");
pub(crate) const DEFAULT: Symbol = Symbol("default");
pub(crate) const FORMAT: Symbol = Symbol("format");
pub(crate) const MIN: Symbol = Symbol("min");
pub(crate) const MAX: Symbol = Symbol("max");
pub(crate) const MIN_LENGTH: Symbol = Symbol("min_length");
pub(crate) const MAX_LENGTH: Symbol = Symbol("max_length");
pub(crate) const CHOICES: Symbol = Symbol("choices");

/// The keys of `#[form(...)]` on a struct.
pub(crate) const FORM_STRUCT_KEYS: &[Symbol] = &[MESSAGE, RENAME_ALL];
/// The keys of `#[form(...)]` on a field.
pub(crate) const FORM_FIELD_KEYS: &[Symbol] = &[
    TITLE, RENAME, DEFAULT, FORMAT, MIN, MAX, MIN_LENGTH, MAX_LENGTH, CHOICES,
];
/// The keys of `#[form(...)]` on an enum.
pub(crate) const FORM_ENUM_KEYS: &[Symbol] = &[RENAME_ALL];
/// The keys of `#[form(...)]` on an enum variant.
pub(crate) const FORM_VARIANT_KEYS: &[Symbol] = &[RENAME, TITLE];

// Special parameter types, recognised by the last path segment.
pub(crate) const CONTEXT: Symbol = Symbol("Context");
pub(crate) const ELICIT_TYPE: Symbol = Symbol("Elicit");
pub(crate) const ELICITATION_TYPE: Symbol = Symbol("Elicitation");
pub(crate) const OPTION: Symbol = Symbol("Option");
pub(crate) const RESULT: Symbol = Symbol("Result");
pub(crate) const VEC: Symbol = Symbol("Vec");

impl Symbol {
    /// Lists symbols as "`a`, `b` or `c`".
    pub(crate) fn list(symbols: &[Symbol]) -> String {
        let quoted: Vec<String> = symbols.iter().map(|s| format!("`{s}`")).collect();
        match quoted.split_last() {
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        }
    }
}

impl PartialEq<Symbol> for Ident {
    fn eq(&self, word: &Symbol) -> bool {
        self == word.0
    }
}

impl PartialEq<Symbol> for &Ident {
    fn eq(&self, word: &Symbol) -> bool {
        *self == word.0
    }
}

impl PartialEq<Symbol> for Path {
    fn eq(&self, word: &Symbol) -> bool {
        self.is_ident(word.0)
    }
}

impl PartialEq<Symbol> for &Path {
    fn eq(&self, word: &Symbol) -> bool {
        self.is_ident(word.0)
    }
}

impl Display for Symbol {
    fn fmt(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str(self.0)
    }
}
