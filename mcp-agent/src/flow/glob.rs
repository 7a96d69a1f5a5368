//! A small glob over names: `*` matches any run of characters (also
//! none), `?` exactly one, every other character itself. No escapes, no
//! classes.
//!
//! Matching never backtracks beyond one segment: the pattern is cut at
//! its `*`s, the first piece must start the text, the last must end it,
//! and each piece between is found at its leftmost place after the one
//! before (leftmost is always right for `*`). The work is at most the
//! text's length times the pattern's, and patterns are short
//! ([`PATTERN_LIMIT`]).
//!
//! ```
//! use mcp_agent::flow::{Glob, ToolGlob};
//!
//! assert!(Glob::new("mail-*")?.matches("mail-work"));
//! let egress = ToolGlob::new("*/fetch?")?;
//! assert!(egress.matches("web", "fetch2"));
//! assert!(!egress.matches("web", "prefetch"));
//! # Ok::<(), mcp_agent::flow::GlobError>(())
//! ```

use std::fmt;

/// Longest pattern, in characters.
pub const PATTERN_LIMIT: usize = 256;

/// One compiled pattern.
#[derive(Clone, PartialEq, Eq)]
pub struct Glob {
    source: String,
    /// The pieces between `*`s; `None` stands for `?`.
    pieces: Vec<Vec<Option<char>>>,
}

/// Why a pattern was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GlobError {
    /// Nothing to match.
    #[error("the pattern is empty")]
    Empty,
    /// Longer than [`PATTERN_LIMIT`].
    #[error("the pattern is longer than {PATTERN_LIMIT} characters")]
    TooLong,
    /// A control character, which no name holds.
    #[error("the pattern holds a control character")]
    Control,
    /// A `server/tool` pattern without its `/`.
    #[error("the pattern has no `/` between server and tool (write `server/tool`, `server/*`)")]
    NoSlash,
    /// A server pattern with a `/`.
    #[error("a server pattern has no `/` (it names servers, not tools)")]
    Slash,
}

impl Glob {
    /// Compiles `pattern`.
    ///
    /// # Errors
    ///
    /// [`GlobError`] when it is empty, too long or holds a control
    /// character.
    pub fn new(pattern: &str) -> Result<Self, GlobError> {
        if pattern.is_empty() {
            return Err(GlobError::Empty);
        }
        if pattern.chars().count() > PATTERN_LIMIT {
            return Err(GlobError::TooLong);
        }
        if pattern.chars().any(char::is_control) {
            return Err(GlobError::Control);
        }
        let pieces = pattern
            .split('*')
            .map(|piece| piece.chars().map(|c| (c != '?').then_some(c)).collect())
            .collect();
        Ok(Self {
            source: pattern.to_owned(),
            pieces,
        })
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Whether `text` matches the whole pattern.
    pub fn matches(&self, text: &str) -> bool {
        let text: Vec<char> = text.chars().collect();
        let (first, rest) = match self.pieces.split_first() {
            Some(split) => split,
            None => return text.is_empty(),
        };
        let Some((last, middle)) = rest.split_last() else {
            // No `*`: the one piece is the whole text.
            return fits(first, &text);
        };
        if text.len() < first.len() + last.len() || !fits(first, &text[..first.len()]) {
            return false;
        }
        let end = text.len() - last.len();
        if !fits(last, &text[end..]) {
            return false;
        }
        let mut at = first.len();
        for piece in middle {
            match find(piece, &text[at..end]) {
                Some(found) => at += found + piece.len(),
                None => return false,
            }
        }
        true
    }
}

impl fmt::Debug for Glob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Glob({:?})", self.source)
    }
}

impl fmt::Display for Glob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

/// Whether `piece` matches all of `text`.
fn fits(piece: &[Option<char>], text: &[char]) -> bool {
    piece.len() == text.len()
        && piece
            .iter()
            .zip(text)
            .all(|(p, c)| p.is_none_or(|p| p == *c))
}

/// Where `piece` first matches in `text`.
fn find(piece: &[Option<char>], text: &[char]) -> Option<usize> {
    if piece.len() > text.len() {
        return None;
    }
    (0..=text.len() - piece.len()).find(|&at| fits(piece, &text[at..at + piece.len()]))
}

/// A `server/tool` pattern: the part before the first `/` matches the
/// server id, the rest the tool name, so a `*` never reaches from one
/// into the other. (A server id that itself holds a `/` is matched only
/// by a server part of `*`.)
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolGlob {
    source: String,
    server: Glob,
    tool: Glob,
}

impl ToolGlob {
    /// Compiles `pattern`, written `server/tool`.
    ///
    /// # Errors
    ///
    /// [`GlobError::NoSlash`] without a `/`, and the errors of
    /// [`Glob::new`] for either side.
    pub fn new(pattern: &str) -> Result<Self, GlobError> {
        if pattern.chars().count() > PATTERN_LIMIT {
            return Err(GlobError::TooLong);
        }
        let (server, tool) = pattern.split_once('/').ok_or(GlobError::NoSlash)?;
        Ok(Self {
            source: pattern.to_owned(),
            server: Glob::new(server)?,
            tool: Glob::new(tool)?,
        })
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Whether the tool `tool` of the server `server` matches.
    pub fn matches(&self, server: &str, tool: &str) -> bool {
        self.server.matches(server) && self.tool.matches(tool)
    }
}

/// Compiles a server pattern, which holds no `/`.
///
/// # Errors
///
/// [`GlobError::Slash`] for a `/`, and those of [`Glob::new`].
pub fn server_glob(pattern: &str) -> Result<Glob, GlobError> {
    if pattern.contains('/') {
        return Err(GlobError::Slash);
    }
    Glob::new(pattern)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table() {
        let rows: &[(&str, &str, bool)] = &[
            ("mail", "mail", true),
            ("mail", "mails", false),
            ("mail", "mai", false),
            ("*", "", true),
            ("*", "anything", true),
            ("m?il", "mail", true),
            ("m?il", "mil", false),
            ("send*", "send_mail", true),
            ("send*", "resend", false),
            ("*send", "resend", true),
            ("*send", "sender", false),
            ("a*b*c", "abc", true),
            ("a*b*c", "aXbYc", true),
            ("a*b*c", "acb", false),
            ("a*b*c", "abcb", false),
            ("a*bc*bc", "abcbc", true),
            ("a*a", "a", false),
            ("*?*", "", false),
            ("*?*", "x", true),
            ("fetch_*_url", "fetch_a_url", true),
            ("fetch_*_url", "fetch__url", true),
            ("fetch_*_url", "fetch_url", false),
            ("ünï*", "ünïcode", true),
            ("??", "ü1", true),
        ];
        for (pattern, text, expected) in rows {
            assert_eq!(
                Glob::new(pattern).expect("pattern").matches(text),
                *expected,
                "{pattern} against {text}"
            );
        }
    }

    #[test]
    fn many_stars_against_a_long_near_miss_stay_cheap() {
        // The shape that makes backtracking matchers exponential.
        let glob = Glob::new(&"a*".repeat(100)).expect("pattern");
        let text = "a".repeat(100) + "b";
        assert!(!glob.matches(&"a".repeat(99)));
        assert!(glob.matches(&text));
        assert!(!Glob::new(&("a*".repeat(100) + "c"))
            .expect("pattern")
            .matches(&text));
    }

    #[test]
    fn tool_patterns_keep_server_and_tool_apart() {
        let rows: &[(&str, &str, &str, bool)] = &[
            ("mail/*", "mail", "send", true),
            ("mail/*", "mailer", "send", false),
            ("*/fetch", "web", "fetch", true),
            ("*/fetch", "web", "prefetch", false),
            ("web*/fe?ch", "web2", "fetch", true),
            // A `*` in the server part does not eat the tool name.
            ("no*/x", "notes", "y/x", false),
            ("notes/a/b", "notes", "a/b", true),
        ];
        for (pattern, server, tool, expected) in rows {
            assert_eq!(
                ToolGlob::new(pattern)
                    .expect("pattern")
                    .matches(server, tool),
                *expected,
                "{pattern} against {server}/{tool}"
            );
        }
    }

    #[test]
    fn bad_patterns_say_what_is_wrong() {
        assert_eq!(Glob::new(""), Err(GlobError::Empty));
        assert_eq!(Glob::new("a\nb"), Err(GlobError::Control));
        assert_eq!(Glob::new(&"x".repeat(257)), Err(GlobError::TooLong));
        assert_eq!(ToolGlob::new("mail"), Err(GlobError::NoSlash));
        assert_eq!(ToolGlob::new("/send"), Err(GlobError::Empty));
        assert_eq!(ToolGlob::new("mail/"), Err(GlobError::Empty));
        assert_eq!(server_glob("mail/send"), Err(GlobError::Slash));
    }
}
