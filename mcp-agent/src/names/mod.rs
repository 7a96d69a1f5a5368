//! Provider tool names, and which tools a provider is offered.
//!
//! A model calls a tool by a name the provider checks against a pattern:
//! OpenAI and Anthropic take `^[a-zA-Z0-9_-]{1,64}$`; Gemini takes up to 64
//! characters of letters, digits, `_`, `.`, `:` and `-`, starting with a
//! letter or an underscore. [`ProviderNames`] keeps to the rule valid for
//! all three, [`is_provider_name`]: 1 to 64 characters of `A-Z a-z 0-9 _
//! -`, the first a letter or `_`. The names
//!
//! - are unique across the set and map back to exactly one `(server id,
//!   tool name)` pair ([`ProviderNames::resolve`]);
//! - depend only on the set, not on the order it was given in;
//! - never equal [`SEARCH_TOOL`], the name of the synthetic search tool.
//!
//! A pair whose plain form `{server}__{tool}` is valid and unique keeps it.
//! Any other pair gets a sanitised, truncated prefix and `-` with 12 hex
//! digits of the SHA-256 of the exact pair (server, a zero byte, tool),
//! lengthened only if that still collided. This is the host's own
//! qualified-name rule (`mcp_host::names`) with the providers' tighter
//! alphabet and length.
//!
//! ```
//! use mcp_agent::names::{is_provider_name, ProviderNames};
//!
//! let long = "x".repeat(80);
//! let names = ProviderNames::build([("github", "search"), ("jira", "search"), ("jira", long.as_str())]);
//! assert_eq!(names.name("github", "search"), Some("github__search"));
//! let hashed = names.name("jira", &long).unwrap();
//! assert!(is_provider_name(hashed) && hashed.len() == 64);
//! assert_eq!(names.resolve(hashed), Some(("jira", long.as_str())));
//! ```
//!
//! [`select`] decides which tools are offered within a provider's tool
//! budget ([`tool_budget`]), and [`SearchIndex`] finds the rest for the
//! model on demand through the search tool.

mod search;
mod select;

use std::collections::{BTreeMap, BTreeSet};

use sha2::{Digest, Sha256};

pub use search::{
    search_tool_schema, Hit, SearchIndex, SearchQuery, MAX_RESULTS, SEARCH_TOOL,
    SEARCH_TOOL_DESCRIPTION,
};
pub use select::{
    select, tool_budget, CatalogueTool, LeftOut, Selection, SelectionConfig, ServerRule,
};

/// The longest provider tool name.
pub const MAX_NAME_LEN: usize = 64;

/// What joins a server id and a tool name in a plain provider name.
pub const SEPARATOR: &str = "__";

/// Hex digits of the hash suffix, at first.
const HASH_DIGITS: usize = 12;

/// Whether `name` is valid for every provider: 1 to 64 characters, each an
/// ASCII letter, digit, `_` or `-`, the first a letter or `_`.
pub fn is_provider_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= MAX_NAME_LEN
        && (bytes[0].is_ascii_alphabetic() || bytes[0] == b'_')
        && bytes.iter().all(|b| is_name_byte(*b))
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-')
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

/// The plain name of a pair, and whether it is usable as is.
fn plain(server: &str, tool: &str) -> (String, bool) {
    let name = format!("{}{SEPARATOR}{}", sanitize(server), sanitize(tool));
    let clean = !server.is_empty()
        && !tool.is_empty()
        && server.bytes().chain(tool.bytes()).all(is_name_byte)
        && is_provider_name(&name)
        && name != SEARCH_TOOL;
    (name, clean)
}

/// The hashed name of a pair with `digits` hex digits of hash.
fn hashed(server: &str, tool: &str, digits: usize) -> String {
    let mut hasher = Sha256::new();
    hasher.update(server.as_bytes());
    hasher.update([0]);
    hasher.update(tool.as_bytes());
    let hex: String = hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let digits = digits.min(hex.len()).min(MAX_NAME_LEN - 2);
    let (mut prefix, _) = plain(server, tool);
    if !prefix.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        prefix.insert(0, '_');
    }
    // The prefix is ASCII after sanitising, so any byte index is a boundary.
    let keep = prefix.len().min(MAX_NAME_LEN - 1 - digits);
    format!("{}-{}", &prefix[..keep], &hex[..digits])
}

/// The provider names of a set of `(server id, tool name)` pairs, both ways.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProviderNames {
    forward: BTreeMap<(String, String), String>,
    back: BTreeMap<String, (String, String)>,
}

impl ProviderNames {
    /// Names every pair of the set; duplicates count once.
    pub fn build<'a, I>(pairs: I) -> Self
    where
        I: IntoIterator<Item = (&'a str, &'a str)>,
    {
        let pairs: BTreeSet<(String, String)> = pairs
            .into_iter()
            .map(|(s, t)| (s.to_owned(), t.to_owned()))
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
            while names.back.contains_key(&name) && digits < MAX_NAME_LEN - 2 {
                digits += 4;
                name = hashed(&server, &tool, digits);
            }
            names.insert(server, tool, name);
        }
        names
    }

    fn insert(&mut self, server: String, tool: String, name: String) {
        self.back
            .insert(name.clone(), (server.clone(), tool.clone()));
        self.forward.insert((server, tool), name);
    }

    /// The provider name of `tool` on `server`, if the pair was in the set.
    pub fn name(&self, server: &str, tool: &str) -> Option<&str> {
        self.forward
            .get(&(server.to_owned(), tool.to_owned()))
            .map(String::as_str)
    }

    /// The server id and tool name a provider name stands for.
    pub fn resolve(&self, name: &str) -> Option<(&str, &str)> {
        self.back
            .get(name)
            .map(|(server, tool)| (server.as_str(), tool.as_str()))
    }

    /// Every `(provider name, server id, tool name)`, ordered by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str, &str)> {
        self.back
            .iter()
            .map(|(n, (s, t))| (n.as_str(), s.as_str(), t.as_str()))
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
