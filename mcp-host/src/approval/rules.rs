//! The rules of a [`Policy`](super::Policy): which calls to allow, ask
//! about or deny, by server and tool.
//!
//! # Patterns
//!
//! A pattern is `SERVER/TOOL`: the server's id (the key of its entry in the
//! configuration) and the tool's own name on that server, as `mcp-host
//! tools` shows them in `server` and `tool`. Not the qualified name: that
//! may be a hashed form, and `__` may stand in ids and tool names alike.
//!
//! - `*` stands for any run of characters, the empty one included, in
//!   either part; no other character is special.
//! - A pattern without `/` names a whole server: `notes` is `notes/*`.
//! - The pattern splits at its last `/`, so a server id may hold one; a
//!   tool name (`A-Z a-z 0-9 _ - .`) cannot.
//! - A pattern without `/` that holds `__` is refused: it is a qualified
//!   name (`notes__read_*`), which would match no server id.
//!
//! `notes/read_note` is one tool, `notes/delete_*` some tools of one
//! server, `notes` or `notes/*` all of them, `*/search` a tool of any
//! server, and `*` everything.
//!
//! # Precedence
//!
//! Of the rules that match a call, the most specific decides:
//!
//! 1. a tool named exactly beats a tool part with `*`;
//! 2. then a server named exactly beats a server part with `*`;
//! 3. then the pattern with more characters other than `*` wins.
//!
//! Between equally specific rules, deny beats ask, and ask beats allow,
//! whatever their order. A call no rule matches is left to the default of
//! the policy. So `notes: deny` with `notes/read_note: allow` denies every
//! tool of `notes` except `read_note`.

use std::fmt;
use std::str::FromStr;

use crate::names::ServerId;

/// What a rule does with the calls it matches. Ordered from the most
/// lenient to the strictest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Action {
    /// Let the call through without asking: the user's explicit decision,
    /// which holds for untrusted servers too. Calls that carry another
    /// server's data are still asked.
    Allow,
    /// Ask the approver, even for a read-only tool of a trusted server.
    Ask,
    /// Refuse the call without asking.
    Deny,
}

impl Action {
    /// The action's name in a configuration: `allow`, `ask` or `deny`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Ask => "ask",
            Self::Deny => "deny",
        }
    }
}

impl FromStr for Action {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "allow" => Ok(Self::Allow),
            "ask" => Ok(Self::Ask),
            "deny" => Ok(Self::Deny),
            other => Err(format!(
                "`{other}` is not an action: give `allow`, `ask` or `deny`"
            )),
        }
    }
}

/// A pattern that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{pattern}` is not a rule pattern: {reason}")]
pub struct PatternError {
    /// The pattern as given.
    pub pattern: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

/// Which calls a rule is about: `SERVER/TOOL`, with `*` for any run of
/// characters; see the [module documentation](self).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    text: String,
    server: String,
    tool: String,
}

impl Pattern {
    /// Reads a pattern.
    ///
    /// # Errors
    ///
    /// [`PatternError`] for an empty pattern or part, or one with control
    /// characters.
    pub fn parse(text: &str) -> Result<Self, PatternError> {
        let bad = |reason| PatternError {
            pattern: text.to_owned(),
            reason,
        };
        if text.chars().any(char::is_control) {
            return Err(bad("it has control characters"));
        }
        if !text.contains('/') && text.contains(crate::names::SEPARATOR) {
            return Err(bad(
                "it looks like a qualified name; rules name `server/tool` (`notes/read_*`)",
            ));
        }
        let (server, tool) = text.rsplit_once('/').unwrap_or((text, "*"));
        if server.is_empty() {
            return Err(bad(
                "the server part (before `/`) is empty; use `*` for any server",
            ));
        }
        if tool.is_empty() {
            return Err(bad(
                "the tool part (after `/`) is empty; use `*` for any tool",
            ));
        }
        Ok(Self {
            text: text.to_owned(),
            server: server.to_owned(),
            tool: tool.to_owned(),
        })
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether the pattern matches the tool `tool` of the server `server`.
    pub fn matches(&self, server: &ServerId, tool: &str) -> bool {
        glob(&self.server, server.as_str()) && glob(&self.tool, tool)
    }

    /// How specific the pattern is; greater is more specific.
    fn specificity(&self) -> (bool, bool, usize) {
        let literal = |part: &str| part.chars().filter(|c| *c != '*').count();
        (
            !self.tool.contains('*'),
            !self.server.contains('*'),
            literal(&self.server) + literal(&self.tool),
        )
    }
}

impl FromStr for Pattern {
    type Err = PatternError;

    fn from_str(text: &str) -> Result<Self, PatternError> {
        Self::parse(text)
    }
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Whether `text` matches `pattern`, where `*` stands for any run of
/// characters. Linear in practice: it backtracks only to the last `*`.
fn glob(pattern: &str, text: &str) -> bool {
    let pattern: Vec<char> = pattern.chars().collect();
    let text: Vec<char> = text.chars().collect();
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match pattern.get(p) {
            Some('*') => {
                star = Some((p, t));
                p += 1;
            }
            Some(c) if *c == text[t] => {
                p += 1;
                t += 1;
            }
            _ => match star {
                Some((star_p, star_t)) => {
                    p = star_p + 1;
                    t = star_t + 1;
                    star = Some((star_p, star_t + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|c| *c == '*')
}

/// A rule: the calls it is about, and what to do with them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// The calls it matches.
    pub pattern: Pattern,
    /// What to do with them.
    pub action: Action,
}

/// The rule that decides for the tool `tool` of `server`: of those that
/// match, the most specific, and of those the strictest.
pub(super) fn deciding<'a>(rules: &'a [Rule], server: &ServerId, tool: &str) -> Option<&'a Rule> {
    rules
        .iter()
        .filter(|rule| rule.pattern.matches(server, tool))
        .max_by_key(|rule| (rule.pattern.specificity(), rule.action))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(s: &str) -> ServerId {
        ServerId::new(s).expect("id")
    }

    fn rules(list: &[(&str, Action)]) -> Vec<Rule> {
        list.iter()
            .map(|(pattern, action)| Rule {
                pattern: Pattern::parse(pattern).expect("a pattern"),
                action: *action,
            })
            .collect()
    }

    fn decided(list: &[(&str, Action)], server: &str, tool: &str) -> Option<(String, Action)> {
        let rules = rules(list);
        deciding(&rules, &id(server), tool).map(|r| (r.pattern.to_string(), r.action))
    }

    #[test]
    fn globs() {
        for (pattern, text, expected) in [
            ("*", "", true),
            ("*", "anything", true),
            ("read_*", "read_note", true),
            ("read_*", "read_", true),
            ("read_*", "unread_note", false),
            ("*_note", "delete_note", true),
            ("*_note", "delete_notes", false),
            ("a*b*c", "aXbYc", true),
            ("a*b*c", "abcabc", true),
            ("a*b*c", "acb", false),
            ("exact", "exact", true),
            ("exact", "exactly", false),
            ("**", "x", true),
            ("café*", "café au lait", true),
        ] {
            assert_eq!(glob(pattern, text), expected, "{pattern} ~ {text}");
        }
    }

    #[test]
    fn patterns_name_servers_and_tools() {
        let notes = Pattern::parse("notes").expect("server only");
        assert!(notes.matches(&id("notes"), "delete_note"));
        assert!(!notes.matches(&id("notes2"), "delete_note"));
        let any_search = Pattern::parse("*/search").expect("any server");
        assert!(any_search.matches(&id("web"), "search"));
        assert!(!any_search.matches(&id("web"), "search_all"));
        // The last `/` splits, so an id may hold one.
        let slashed = Pattern::parse("team/notes/read_*").expect("slashed id");
        assert!(slashed.matches(&id("team/notes"), "read_note"));
        assert!(!slashed.matches(&id("team"), "notes"));
        for bad in ["", "/tool", "notes/", "no\u{7}tes", "notes__read_*"] {
            assert!(Pattern::parse(bad).is_err(), "{bad:?}");
        }
        assert_eq!(
            Pattern::parse("/x").expect_err("empty server").to_string(),
            "`/x` is not a rule pattern: the server part (before `/`) is empty; use `*` for any server"
        );
    }

    #[test]
    fn the_most_specific_rule_decides() {
        use Action::*;
        let list = [
            ("*", Ask),
            ("notes", Deny),
            ("notes/read_*", Allow),
            ("notes/read_note", Deny),
            ("*/export_notes", Allow),
        ];
        let d = |server, tool| decided(&list, server, tool);
        // An exact tool beats a tool pattern ...
        assert_eq!(
            d("notes", "read_note"),
            Some(("notes/read_note".into(), Deny))
        );
        // ... a tool pattern with more literal text beats a shorter one ...
        assert_eq!(d("notes", "read_all"), Some(("notes/read_*".into(), Allow)));
        // ... a named server beats any server ...
        assert_eq!(d("notes", "create_note"), Some(("notes".into(), Deny)));
        assert_eq!(d("web", "search"), Some(("*".into(), Ask)));
        // ... and an exact tool of any server beats a whole named server.
        assert_eq!(
            d("notes", "export_notes"),
            Some(("*/export_notes".into(), Allow))
        );
        assert_eq!(decided(&list[1..], "web", "search"), None);
    }

    #[test]
    fn deny_beats_ask_beats_allow_between_equals() {
        use Action::*;
        for list in [
            [
                ("notes/read_*", Allow),
                ("notes/read_*", Deny),
                ("notes/read_*", Ask),
            ],
            [
                ("notes/read_*", Deny),
                ("notes/read_*", Ask),
                ("notes/read_*", Allow),
            ],
        ] {
            assert_eq!(
                decided(&list, "notes", "read_note").map(|(_, a)| a),
                Some(Deny)
            );
        }
        let list = [("notes/*", Allow), ("notes/*", Ask)];
        assert_eq!(decided(&list, "notes", "x").map(|(_, a)| a), Some(Ask));
        // Equally specific by the measure, different patterns: still deny.
        let list = [("notes/*_x", Allow), ("notes/a_*", Deny)];
        assert_eq!(decided(&list, "notes", "a_x").map(|(_, a)| a), Some(Deny));
    }

    #[test]
    fn actions_read_from_text() {
        assert_eq!("allow".parse(), Ok(Action::Allow));
        assert_eq!("deny".parse(), Ok(Action::Deny));
        assert!("yes".parse::<Action>().is_err());
        assert_eq!(Action::Ask.as_str(), "ask");
    }
}
