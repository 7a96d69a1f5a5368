//! The untrusted boundary: everything a server writes reaches host code
//! wrapped in [`Untrusted`], tagged with the server it came from.
//!
//! There is no `Deref`: to use the value, host code either accepts it
//! explicitly ([`Untrusted::accept`], a greppable decision) or renders it
//! for a person or a model as text marked untrusted ([`Untrusted::render`]),
//! with control, bidirectional and zero-width characters neutralised.
//!
//! ```compile_fail
//! # use mcp_host::untrusted::Untrusted;
//! fn shout(text: &str) {}
//! fn show(description: Untrusted<String>) {
//!     shout(&description); // no Deref: accept or render it first
//! }
//! ```

use std::fmt;

use serde::Serialize;
use serde_json::Value;

use crate::names::ServerId;

/// Longest rendering, in characters, before it is cut.
const RENDER_LIMIT: usize = 4096;

/// A value of unknown origin written by the server [`origin`](Self::origin).
#[derive(Clone, PartialEq)]
pub struct Untrusted<T> {
    origin: ServerId,
    value: T,
}

impl<T> Untrusted<T> {
    /// Wraps what `origin` sent. Only this crate wraps: values enter host
    /// code through the clients.
    pub(crate) fn new(origin: ServerId, value: T) -> Self {
        Self { origin, value }
    }

    /// The server that wrote the value.
    pub fn origin(&self) -> &ServerId {
        &self.origin
    }

    /// Takes the value, trusting it from here on. Call it where the host
    /// has decided the value may be used as its own.
    pub fn accept(self) -> T {
        self.value
    }

    /// Borrows the value, trusting it for the borrow.
    pub fn accept_ref(&self) -> &T {
        &self.value
    }

    /// Transforms the value; the result stays untrusted and keeps the origin.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Untrusted<U> {
        Untrusted {
            origin: self.origin,
            value: f(self.value),
        }
    }

    /// Borrows the value as an untrusted reference.
    pub fn as_ref(&self) -> Untrusted<&T> {
        Untrusted {
            origin: self.origin.clone(),
            value: &self.value,
        }
    }
}

impl<T: Serialize> Untrusted<T> {
    /// The value as text marked untrusted: strings as they are, anything
    /// else as compact JSON, with control, bidirectional and zero-width
    /// characters escaped and the length capped.
    pub fn render(&self) -> Rendered {
        let text = match serde_json::to_value(&self.value) {
            Ok(Value::String(s)) => s,
            Ok(other) => other.to_string(),
            Err(_) => String::from("<unrenderable>"),
        };
        Rendered {
            origin: self.origin.clone(),
            text: neutralise(&text),
        }
    }
}

impl<T: fmt::Debug> fmt::Debug for Untrusted<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Untrusted")
            .field("origin", &self.origin)
            .field("value", &self.value)
            .finish()
    }
}

/// Untrusted text made safe to show: displays as
/// `[untrusted, from server `id`] text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    origin: ServerId,
    text: String,
}

impl Rendered {
    /// The neutralised text without the label.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The label alone: `[untrusted, from server `id`]`, for text shown
    /// apart from it (a block of lines under a heading).
    pub fn label(&self) -> String {
        format!("[untrusted, from server `{}`]", self.origin)
    }
}

impl fmt::Display for Rendered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.label(), self.text)
    }
}

/// Whether `c` could hide or reorder what a reader sees.
fn is_deceptive(c: char) -> bool {
    matches!(c,
        '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{2069}' | '\u{FEFF}' | '\u{061C}')
}

pub(crate) fn neutralise(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(RENDER_LIMIT));
    for (n, c) in text.chars().enumerate() {
        if n >= RENDER_LIMIT {
            out.push('…');
            break;
        }
        if c == '\n' || c == '\t' {
            out.push(c);
        } else if c.is_control() || is_deceptive(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn wrap<T>(value: T) -> Untrusted<T> {
        Untrusted::new(ServerId::new("srv").expect("id"), value)
    }

    #[test]
    fn render_marks_and_neutralises() {
        let text = wrap(String::from("safe\u{202E}txt.exe\u{7}\nnext"));
        let shown = text.render().to_string();
        assert!(shown.starts_with("[untrusted, from server `srv`] safe"));
        assert!(shown.contains("\\u{202e}") && shown.contains("\\u{7}"));
        assert!(shown.contains('\n'));
        assert_eq!(wrap(json!({"a": 1})).render().text(), "{\"a\":1}");
    }

    #[test]
    fn render_is_capped() {
        let long = wrap("x".repeat(RENDER_LIMIT * 2));
        assert_eq!(long.render().text().chars().count(), RENDER_LIMIT + 1);
    }

    #[test]
    fn accept_and_map_keep_the_origin_until_accepted() {
        let value = wrap(3).map(|n| n * 2);
        assert_eq!(value.origin().as_str(), "srv");
        assert_eq!(*value.accept_ref(), 6);
        assert_eq!(value.as_ref().accept(), &6);
        assert_eq!(value.accept(), 6);
    }
}
