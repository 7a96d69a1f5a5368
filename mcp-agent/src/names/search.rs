//! The synthetic search tool: a small keyword index over the names and
//! descriptions of the tools not offered up front.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use super::select::CatalogueTool;

/// The provider name of the search tool. No provider name built by
/// [`ProviderNames`](super::ProviderNames) equals it: plain names hold
/// `__`, hashed ones `-`.
pub const SEARCH_TOOL: &str = "search_tools";

/// The search tool's description.
pub const SEARCH_TOOL_DESCRIPTION: &str = "Finds tools that are available but not listed yet. \
Give a few keywords about what you need; the tools found are offered from the next turn on.";

/// The most hits one search returns, and the room kept for found tools.
pub const MAX_RESULTS: usize = 10;

/// Longest query read, in characters; the rest is ignored.
const QUERY_CHARS: usize = 256;

/// Most query terms scored.
const QUERY_TERMS: usize = 16;

/// Longest description indexed, in characters.
const DESCRIPTION_CHARS: usize = 2048;

/// The search tool's `inputSchema`: valid as it is for every provider (it
/// compiles with OpenAI strict mode unchanged).
pub fn search_tool_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "Keywords about the tool you need."}
        },
        "required": ["query"],
        "additionalProperties": false
    })
}

/// The arguments of a search tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchQuery {
    /// The keywords.
    pub query: String,
}

impl SearchQuery {
    /// The query of a call's arguments, from the model and so untrusted.
    ///
    /// # Errors
    ///
    /// A message for the model when `query` is missing or not text.
    pub fn from_arguments(arguments: &Value) -> Result<Self, &'static str> {
        match arguments.get("query") {
            Some(Value::String(q)) => Ok(Self {
                query: q.chars().take(QUERY_CHARS).collect(),
            }),
            _ => Err("`query` must be text: a few keywords about the tool you need"),
        }
    }
}

/// One tool found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// The server id.
    pub server: String,
    /// The tool name.
    pub tool: String,
    /// The score: 3 for each query term that is a word of the tool's name,
    /// 2 for one that begins such a word, 1 for a word of the description.
    pub score: u32,
}

#[derive(Debug, Clone)]
struct Entry {
    server: String,
    tool: String,
    name_words: BTreeSet<String>,
    description_words: BTreeSet<String>,
}

/// A keyword index over tools' names and descriptions.
#[derive(Debug, Clone, Default)]
pub struct SearchIndex {
    entries: Vec<Entry>,
}

impl SearchIndex {
    /// Indexes `tools` (a description is read up to 2048 characters).
    pub fn new<'a>(tools: impl IntoIterator<Item = &'a CatalogueTool>) -> Self {
        let mut entries: Vec<Entry> = tools
            .into_iter()
            .map(|t| {
                let description: String = t.description.chars().take(DESCRIPTION_CHARS).collect();
                Entry {
                    server: t.server.clone(),
                    tool: t.tool.clone(),
                    name_words: words(&t.tool).chain(words(&t.server)).collect(),
                    description_words: words(&description).collect(),
                }
            })
            .collect();
        entries.sort_by(|a, b| (&a.server, &a.tool).cmp(&(&b.server, &b.tool)));
        entries.dedup_by(|a, b| a.server == b.server && a.tool == b.tool);
        Self { entries }
    }

    /// The tools that best match `query`, best first (ties in server, tool
    /// order), at most `limit` and never more than [`MAX_RESULTS`]; tools
    /// that match no term are not returned.
    pub fn search(&self, query: &str, limit: usize) -> Vec<Hit> {
        let query: String = query.chars().take(QUERY_CHARS).collect();
        let terms: BTreeSet<String> = words(&query).take(QUERY_TERMS).collect();
        let mut hits: Vec<Hit> = self
            .entries
            .iter()
            .filter_map(|e| {
                let score: u32 = terms.iter().map(|t| score(e, t)).sum();
                (score > 0).then(|| Hit {
                    server: e.server.clone(),
                    tool: e.tool.clone(),
                    score,
                })
            })
            .collect();
        // Stable: equal scores keep the index's (server, tool) order.
        hits.sort_by_key(|h| std::cmp::Reverse(h.score));
        hits.truncate(limit.min(MAX_RESULTS));
        hits
    }
}

fn score(entry: &Entry, term: &str) -> u32 {
    if entry.name_words.contains(term) {
        3
    } else if term.len() >= 3 && entry.name_words.iter().any(|w| w.starts_with(term)) {
        2
    } else if entry.description_words.contains(term) {
        1
    } else {
        0
    }
}

/// The lower-case words of `text`: runs of letters and digits, split also
/// where a lower-case letter meets an upper-case one (`getTinyImage`).
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for c in text.chars() {
        if c.is_alphanumeric() {
            if c.is_uppercase() && prev_lower && !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            prev_lower = c.is_lowercase() || c.is_ascii_digit();
            word.extend(c.to_lowercase());
        } else {
            prev_lower = false;
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out.into_iter()
}
