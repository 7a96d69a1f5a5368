//! Host-controlled server ids and the qualified names of tools and prompts.
//!
//! Tool names are unique only within one server, and a server's
//! self-reported `serverInfo.name` is neither unique nor trustworthy. The
//! host therefore names each server itself, by the key of the server in its
//! configuration ([`ServerId`]), and exposes every tool under a *qualified
//! name* built from that id and the tool's own name.
//!
//! [`QualifiedNames::build`] maps a set of `(server, tool)` pairs to names
//! that:
//!
//! - follow the spec's tool-name rules: 1 to 128 characters from
//!   `A-Z a-z 0-9 _ - .`;
//! - are unique across the set;
//! - map back to exactly one `(server, tool)` pair
//!   ([`QualifiedNames::resolve`]);
//! - depend only on the set, not on the order it was given in.
//!
//! A pair whose plain form `{server}__{tool}` is valid and unique keeps it.
//! Any other pair (a name with characters outside the set, a name too long,
//! or a plain form shared with another pair) gets a sanitised, truncated
//! prefix and a suffix of the SHA-256 of the exact pair, `-` and 12 hex
//! digits, lengthened further only if that still collided.
//!
//! ```
//! use mcp_host::names::{QualifiedNames, ServerId};
//!
//! let github = ServerId::new("github").unwrap();
//! let jira = ServerId::new("jira").unwrap();
//! let names = QualifiedNames::build([(&github, "search"), (&jira, "search")]);
//! assert_eq!(names.qualified(&github, "search"), Some("github__search"));
//! let (server, tool) = names.resolve("jira__search").unwrap();
//! assert_eq!((server.as_str(), tool), ("jira", "search"));
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::Arc;

use sha2::{Digest, Sha256};

/// The longest tool name the spec allows.
pub const MAX_NAME_LEN: usize = 128;

/// What joins a server id and a tool name in a plain qualified name.
pub const SEPARATOR: &str = "__";

/// Hex digits of the hash suffix, at first.
const HASH_DIGITS: usize = 12;

/// The id of a configured server: the key of its entry in the host's
/// configuration. The host chooses it; nothing a server says changes it.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ServerId(Arc<str>);

/// A server id that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a server id must be non-empty text without control characters")]
pub struct InvalidServerId;

impl ServerId {
    /// A server id; any non-empty text without control characters.
    ///
    /// # Errors
    ///
    /// [`InvalidServerId`] for an empty id or one with control characters.
    pub fn new(id: impl Into<String>) -> Result<Self, InvalidServerId> {
        let id = id.into();
        if id.is_empty() || id.chars().any(char::is_control) {
            return Err(InvalidServerId);
        }
        Ok(Self(id.into()))
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ServerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for ServerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

/// Whether `name` follows the spec's tool-name rules: 1 to 128 characters,
/// each an ASCII letter, digit, `_`, `-` or `.`.
pub fn is_valid_tool_name(name: &str) -> bool {
    !name.is_empty() && name.len() <= MAX_NAME_LEN && name.bytes().all(is_name_byte)
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
}

/// `text` with every character outside the name set replaced by `_`.
fn sanitize(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii() && is_name_byte(c as u8) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The plain qualified name of a pair, and whether it is usable as is.
fn plain(server: &ServerId, tool: &str) -> (String, bool) {
    let name = format!("{}{SEPARATOR}{}", sanitize(server.as_str()), sanitize(tool));
    let clean = is_valid_tool_name(server.as_str())
        && is_valid_tool_name(tool)
        && name.len() <= MAX_NAME_LEN;
    (name, clean)
}

/// The hashed qualified name of a pair with `digits` hex digits of hash.
fn hashed(server: &ServerId, tool: &str, digits: usize) -> String {
    let mut hasher = Sha256::new();
    hasher.update(server.as_str().as_bytes());
    hasher.update([0]);
    hasher.update(tool.as_bytes());
    let hex: String = hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let digits = digits.min(hex.len());
    let (prefix, _) = plain(server, tool);
    // The prefix is ASCII after sanitising, so any byte index is a boundary.
    let keep = prefix.len().min(MAX_NAME_LEN - 1 - digits);
    format!("{}-{}", &prefix[..keep], &hex[..digits])
}

/// The qualified names of a set of `(server, name)` pairs, both ways.
#[derive(Debug, Clone, Default)]
pub struct QualifiedNames {
    forward: BTreeMap<(ServerId, String), String>,
    back: BTreeMap<String, (ServerId, String)>,
}

impl QualifiedNames {
    /// Names every pair of the set; duplicates count once.
    pub fn build<'a, S, I>(pairs: I) -> Self
    where
        I: IntoIterator<Item = (&'a ServerId, S)>,
        S: AsRef<str>,
    {
        let pairs: BTreeSet<(ServerId, String)> = pairs
            .into_iter()
            .map(|(s, t)| (s.clone(), t.as_ref().to_owned()))
            .collect();
        let mut uses: BTreeMap<String, usize> = BTreeMap::new();
        for (server, tool) in &pairs {
            let (name, clean) = plain(server, tool);
            if clean {
                *uses.entry(name).or_default() += 1;
            }
        }
        let mut names = Self::default();
        let mut rest = Vec::new();
        for (server, tool) in pairs {
            let (name, clean) = plain(&server, &tool);
            if clean && uses.get(&name) == Some(&1) {
                names.insert(server, tool, name);
            } else {
                rest.push((server, tool));
            }
        }
        for (server, tool) in rest {
            let mut digits = HASH_DIGITS;
            let mut name = hashed(&server, &tool, digits);
            while names.back.contains_key(&name) && digits < 64 {
                digits += 4;
                name = hashed(&server, &tool, digits);
            }
            names.insert(server, tool, name);
        }
        names
    }

    fn insert(&mut self, server: ServerId, tool: String, name: String) {
        self.back
            .insert(name.clone(), (server.clone(), tool.clone()));
        self.forward.insert((server, tool), name);
    }

    /// The qualified name of `tool` on `server`, if the pair was in the set.
    pub fn qualified(&self, server: &ServerId, tool: &str) -> Option<&str> {
        self.forward
            .get(&(server.clone(), tool.to_owned()))
            .map(String::as_str)
    }

    /// The server and tool a qualified name stands for.
    pub fn resolve(&self, qualified: &str) -> Option<(&ServerId, &str)> {
        self.back
            .get(qualified)
            .map(|(server, tool)| (server, tool.as_str()))
    }

    /// Every `(qualified name, server, name)`, ordered by qualified name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &ServerId, &str)> {
        self.back
            .iter()
            .map(|(q, (s, t))| (q.as_str(), s, t.as_str()))
    }

    /// How many pairs are named.
    pub fn len(&self) -> usize {
        self.back.len()
    }

    /// Whether no pair is named.
    pub fn is_empty(&self) -> bool {
        self.back.is_empty()
    }
}

/// The server a qualified name that names nothing was most likely meant
/// for: the longest of `servers` whose id and [`SEPARATOR`] begin the name,
/// with the rest of the name.
pub fn split_unresolved<'a, 'b>(
    qualified: &'a str,
    servers: impl IntoIterator<Item = &'b ServerId>,
) -> Option<(&'b ServerId, &'a str)> {
    servers
        .into_iter()
        .filter_map(|id| {
            let rest = qualified
                .strip_prefix(id.as_str())?
                .strip_prefix(SEPARATOR)?;
            Some((id, rest))
        })
        .max_by_key(|(id, _)| id.as_str().len())
}

/// Longest text [`closest`] compares, in characters; the rest is ignored.
const COMPARED_CHARS: usize = 2 * MAX_NAME_LEN;

/// How many names [`closest`] suggests at most.
const SUGGESTIONS: usize = 3;

/// The names among `candidates` closest to `name`, closest first, at most
/// three: those within an edit distance of a third of `name`'s length (at
/// least 2), and those that contain `name` or are contained in it, ignoring
/// case. Only the first 256 characters of each are compared, so hostile
/// names cost no more than valid ones.
///
/// ```
/// use mcp_host::names::closest;
///
/// let tools = ["create_note", "read_note", "delete_note", "export_notes"];
/// assert_eq!(closest("read_notes", tools), ["read_note"]);
/// assert_eq!(closest("delete", tools), ["delete_note"]);
/// assert_eq!(closest("export", tools), ["export_notes"]);
/// assert!(closest("weather", tools).is_empty());
/// ```
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let wanted: Vec<char> = name.chars().take(COMPARED_CHARS).collect();
    let lower = name.to_lowercase();
    let threshold = (wanted.len() / 3).max(2);
    let mut ranked: Vec<(usize, &str)> = candidates
        .into_iter()
        .filter_map(|candidate| {
            let chars: Vec<char> = candidate.chars().take(COMPARED_CHARS).collect();
            let distance = edit_distance(&wanted, &chars);
            let candidate_lower = candidate.to_lowercase();
            let related = !lower.is_empty()
                && (candidate_lower.contains(&lower) || lower.contains(&candidate_lower));
            (distance <= threshold || related).then_some((distance, candidate))
        })
        .collect();
    ranked.sort();
    ranked.dedup();
    ranked
        .into_iter()
        .take(SUGGESTIONS)
        .map(|(_, name)| name)
        .collect()
}

/// The Levenshtein distance between `a` and `b`.
fn edit_distance(a: &[char], b: &[char]) -> usize {
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distances() {
        let d = |a: &str, b: &str| {
            edit_distance(
                &a.chars().collect::<Vec<_>>(),
                &b.chars().collect::<Vec<_>>(),
            )
        };
        assert_eq!(d("", ""), 0);
        assert_eq!(d("abc", ""), 3);
        assert_eq!(d("kitten", "sitting"), 3);
        assert_eq!(d("café", "cafe"), 1);
        assert_eq!(d("flaw", "lawn"), 2);
    }

    #[test]
    fn closest_names_are_bounded_and_ordered() {
        let tools = ["echo", "flaky", "slow", "stall", "gather"];
        assert_eq!(closest("flakey", tools), ["flaky"]);
        assert_eq!(closest("sloww", tools), ["slow"]);
        assert_eq!(closest("ECHO", tools), ["echo"]);
        assert_eq!(closest("st", tools), ["stall"]);
        assert!(closest("", tools).is_empty());
        // A hostile candidate far longer than any valid name is compared
        // by its start only, and still never suggested for a short name.
        let huge = "x".repeat(1 << 20);
        assert!(closest("echo", [huge.as_str(), "echo"]) == ["echo"]);
        assert_eq!(closest("echo", ["echo", "echo"]), ["echo"]);
    }

    #[test]
    fn unresolved_names_split_at_the_longest_server() {
        let (a, ab) = (id("a"), id("a__b"));
        let servers = [a.clone(), ab.clone()];
        assert_eq!(
            split_unresolved("a__b__tool", &servers),
            Some((&ab, "tool"))
        );
        assert_eq!(split_unresolved("a__tool", &servers), Some((&a, "tool")));
        assert_eq!(split_unresolved("c__tool", &servers), None);
        assert_eq!(split_unresolved("a_tool", &servers), None);
    }

    fn id(s: &str) -> ServerId {
        ServerId::new(s).expect("valid id")
    }

    fn check_all(names: &QualifiedNames) {
        for (q, server, tool) in names.iter() {
            assert!(is_valid_tool_name(q), "{q:?} breaks the rules");
            assert_eq!(names.qualified(server, tool), Some(q));
        }
    }

    #[test]
    fn plain_names_when_clean_and_unique() {
        let (a, b) = (id("github"), id("jira"));
        let names = QualifiedNames::build([(&a, "search"), (&b, "search"), (&a, "get_issue")]);
        assert_eq!(names.qualified(&a, "search"), Some("github__search"));
        assert_eq!(names.qualified(&b, "search"), Some("jira__search"));
        assert_eq!(names.resolve("github__get_issue"), Some((&a, "get_issue")));
        assert_eq!(names.len(), 3);
        check_all(&names);
    }

    #[test]
    fn ambiguous_plain_forms_are_hashed() {
        let (a, ab) = (id("a"), id("a__b"));
        let names = QualifiedNames::build([(&a, "b__c"), (&ab, "c")]);
        let first = names.qualified(&a, "b__c").expect("named");
        let second = names.qualified(&ab, "c").expect("named");
        assert_ne!(first, second);
        assert!(first.starts_with("a__b__c-") && second.starts_with("a__b__c-"));
        assert_eq!(names.resolve(first), Some((&a, "b__c")));
        assert_eq!(names.resolve(second), Some((&ab, "c")));
        check_all(&names);
    }

    #[test]
    fn unsafe_characters_are_replaced_and_hashed() {
        let (s1, s2) = (id("my server"), id("my_server"));
        let names = QualifiedNames::build([(&s1, "do it"), (&s2, "do_it")]);
        // The clean pair keeps its plain form; the lossy one is hashed.
        assert_eq!(names.qualified(&s2, "do_it"), Some("my_server__do_it"));
        let lossy = names.qualified(&s1, "do it").expect("named");
        assert!(lossy.starts_with("my_server__do_it-"), "{lossy}");
        check_all(&names);
        let unicode = id("café");
        let names = QualifiedNames::build([(&unicode, "ünï"), (&unicode, "")]);
        check_all(&names);
        assert_eq!(names.len(), 2);
    }

    #[test]
    fn long_names_fit_in_128() {
        let server = id(&"s".repeat(100));
        let long_a = format!("{}a", "t".repeat(100));
        let long_b = format!("{}b", "t".repeat(100));
        let names = QualifiedNames::build([(&server, &long_a), (&server, &long_b)]);
        let a = names.qualified(&server, &long_a).expect("named");
        let b = names.qualified(&server, &long_b).expect("named");
        assert_eq!(a.len(), MAX_NAME_LEN);
        assert_ne!(a, b);
        check_all(&names);
    }

    #[test]
    fn deterministic_regardless_of_order() {
        let (a, b, c) = (id("a"), id("a__b"), id("x y"));
        let pairs = [(&a, "b__c"), (&b, "c"), (&c, "t"), (&a, "z")];
        let one = QualifiedNames::build(pairs);
        let mut reversed = pairs;
        reversed.reverse();
        let two = QualifiedNames::build(reversed);
        let list =
            |n: &QualifiedNames| -> Vec<String> { n.iter().map(|(q, _, _)| q.into()).collect() };
        assert_eq!(list(&one), list(&two));
    }

    #[test]
    fn many_servers_with_the_same_tool_stay_unique() {
        let ids: Vec<ServerId> = (0..200).map(|i| id(&format!("srv{i}"))).collect();
        let names = QualifiedNames::build(ids.iter().map(|s| (s, "search")));
        assert_eq!(names.len(), 200);
        check_all(&names);
    }

    #[test]
    fn server_ids_reject_empty_and_control() {
        assert!(ServerId::new("").is_err());
        assert!(ServerId::new("a\nb").is_err());
        assert!(ServerId::new("ok id").is_ok());
    }
}
