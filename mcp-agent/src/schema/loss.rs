//! The loss report: what the compiler changed, where, and why.

use std::fmt;

/// What the compiler did to one keyword of the original schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Action {
    /// Removed; the provider never sees it.
    Dropped,
    /// Replaced by an equivalent or nearly equivalent form the provider
    /// accepts (`oneOf` to `anyOf`, `const` to a one-value `enum`, ...).
    Rewritten,
    /// Removed from the schema and written into the node's description, so
    /// the model can still read it though the provider does not enforce it.
    MovedToDescription,
    /// A `$ref` replaced by a copy of what it points at.
    Inlined,
    /// A recursive `$ref` cut at a bounded depth.
    Cut,
    /// OpenAI only: the schema cannot be expressed in strict mode, so the
    /// tool is offered with `strict: false`.
    NotStrict,
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Action::Dropped => "dropped",
            Action::Rewritten => "rewritten",
            Action::MovedToDescription => "moved to description",
            Action::Inlined => "inlined",
            Action::Cut => "cut",
            Action::NotStrict => "not strict",
        })
    }
}

/// One change the compiler made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loss {
    /// JSON pointer into the *original* schema of the node that carried the
    /// keyword (`""` is the root).
    pub pointer: String,
    /// The keyword concerned, e.g. `oneOf`, `minLength`, `$ref`.
    pub keyword: String,
    /// What was done.
    pub action: Action,
    /// Why, in a few words.
    pub reason: String,
}

impl fmt::Display for Loss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} `{}` {}: {}",
            if self.pointer.is_empty() {
                "#"
            } else {
                &self.pointer
            },
            self.keyword,
            self.action,
            self.reason
        )
    }
}

/// Every change the compiler made to one schema, in the order it made them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LossReport {
    /// The changes.
    pub entries: Vec<Loss>,
}

impl LossReport {
    /// Whether the compiled schema is the original, keyword for keyword.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// How many changes of `action` there are.
    pub fn count(&self, action: Action) -> usize {
        self.entries.iter().filter(|e| e.action == action).count()
    }

    /// The changes at `pointer` to `keyword`.
    pub fn at<'a>(&'a self, pointer: &'a str, keyword: &'a str) -> impl Iterator<Item = &'a Loss> {
        self.entries
            .iter()
            .filter(move |e| e.pointer == pointer && e.keyword == keyword)
    }

    pub(crate) fn push(&mut self, pointer: &str, keyword: &str, action: Action, reason: &str) {
        self.entries.push(Loss {
            pointer: pointer.to_owned(),
            keyword: keyword.to_owned(),
            action,
            reason: reason.to_owned(),
        });
    }
}
