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
use serde_json::ser::{Formatter, PrettyFormatter};
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

/// Whether `c` is invisible, or could hide or reorder what a reader sees:
/// control characters (C0, DEL and C1, which carry terminal escape
/// sequences), bidirectional controls, zero-width and other format
/// characters, fillers that render as blank, variation selectors, the
/// Unicode tag block (U+E0000–U+E007F, invisible to a person and readable
/// by a model) and private-use code points. Newline and tab are not
/// counted here; the renderer keeps them.
pub fn is_hidden(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}'
            | '\u{17B4}' | '\u{17B5}' | '\u{180B}'..='\u{180F}'
            | '\u{200B}'..='\u{200F}' | '\u{2028}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}' | '\u{3164}' | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}' | '\u{FFA0}' | '\u{FFF9}'..='\u{FFFB}'
            | '\u{1BCA0}'..='\u{1BCA3}' | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0000}'..='\u{E007F}' | '\u{E0100}'..='\u{E01EF}'
            | '\u{E000}'..='\u{F8FF}' | '\u{F0000}'..='\u{10FFFF}')
}

/// `text` with every [hidden](is_hidden) character but newline and tab
/// written out as its `\u{..}` escape, and the length capped: what a
/// terminal may be given.
pub fn neutralise(text: &str) -> String {
    escape(text, RENDER_LIMIT)
}

/// [`neutralise`] without the cap, for text the host assembled from
/// rendered parts (a question put to the terminal) and checks once more
/// as a whole before it is written.
pub fn visible(text: &str) -> String {
    escape(text, usize::MAX)
}

fn escape(text: &str, limit: usize) -> String {
    let mut out = String::with_capacity(text.len().min(limit));
    for (n, c) in text.chars().enumerate() {
        if n >= limit {
            out.push('…');
            break;
        }
        if c == '\n' || c == '\t' {
            out.push(c);
        } else if is_hidden(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

/// `value` as pretty JSON in which every [hidden](is_hidden) character is
/// written as a `\uXXXX` escape: the same JSON value, and nothing a
/// terminal acts on or a reader cannot see.
pub fn safe_json(value: &impl Serialize) -> String {
    let mut out = Vec::new();
    let mut serializer =
        serde_json::Serializer::with_formatter(&mut out, SafeFormatter(PrettyFormatter::new()));
    if value.serialize(&mut serializer).is_err() {
        return String::from("null");
    }
    // The formatter writes ASCII escapes into valid UTF-8 only.
    String::from_utf8(out).unwrap_or_default()
}

/// serde_json's pretty formatter, escaping hidden characters in strings.
struct SafeFormatter(PrettyFormatter<'static>);

impl Formatter for SafeFormatter {
    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        let mut start = 0;
        for (at, c) in fragment.char_indices() {
            if is_hidden(c) {
                writer.write_all(&fragment.as_bytes()[start..at])?;
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    write!(writer, "\\u{unit:04x}")?;
                }
                start = at + c.len_utf8();
            }
        }
        writer.write_all(&fragment.as_bytes()[start..])
    }

    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_object_value(w)
    }
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
    fn hidden_characters_are_made_visible() {
        for c in [
            '\u{1b}',
            '\u{9b}',
            '\u{7f}',
            '\u{200b}',
            '\u{202e}',
            '\u{2066}',
            '\u{feff}',
            '\u{e0041}',
            '\u{e007f}',
            '\u{e0100}',
            '\u{fe0f}',
            '\u{ad}',
            '\u{2028}',
        ] {
            let text = format!("a{c}b");
            assert_eq!(
                neutralise(&text),
                format!("a{}b", c.escape_unicode()),
                "{c:?}"
            );
            let json = safe_json(&json!({ "k": text }));
            assert!(!json.contains(c), "{c:?} in {json}");
            let back: Value = serde_json::from_str(&json).expect("still JSON");
            assert_eq!(back["k"], text.as_str());
        }
        assert_eq!(neutralise("plain é 日本 🙂\n\t"), "plain é 日本 🙂\n\t");
        assert_eq!(safe_json(&json!(["é"])), "[\n  \"é\"\n]");
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
