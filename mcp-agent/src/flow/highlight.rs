//! Highlights: argument values that also occur in untrusted output.
//!
//! # The rule
//!
//! Every string leaf of the arguments, and every number written as text,
//! is [folded](super::ledger) like the ledger's copy of untrusted items:
//! lowercase, whitespace runs as one space, invisible characters dropped.
//! A *run* is a stretch of a leaf that occurs, byte for byte, in one
//! untrusted item, at least [`MIN_RUN`] bytes long. A run is highlighted
//! when it has the shape of data worth a second look:
//!
//! - a URL (it holds `://` or starts `www.`),
//! - an e-mail address (an `@` inside a word with a `.` after it),
//! - a token: a word of at least [`MIN_RUN`] bytes that is not only
//!   letters (ids, keys, paths, numbers, host names),
//! - or a phrase of at least [`PHRASE_RUN`] bytes (copied sentences).
//!
//! A leading `http://`, `https://` or `www.` does not count towards the
//! length, so two unrelated links do not match on their scheme. Short
//! common words (`open`, `status`, `password`) are never highlighted.
//! Each leaf gets at most one highlight: its longest run found, with
//! every source in which some run was found.
//!
//! # Bounds
//!
//! At most [`LEAF_LIMIT`] leaves of at most [`LEAF_BYTES`] bytes each
//! are read, [`DEPTH_LIMIT`] levels deep. The arguments' 8-byte windows
//! go into a table with a bit filter in front, and each untrusted item is
//! read once, one table look-up per byte; a hit is extended both ways and
//! the bytes it covers are not looked up again for that leaf. Every hit
//! and every byte of extension counts against [`STEP_LIMIT`]; past it,
//! or past any other bound, the scan stops and says it is incomplete.

use std::collections::{BTreeSet, HashMap};
use std::hash::{BuildHasherDefault, Hasher};

use serde::Serialize;
use serde_json::Value;

use super::label::Origin;
use super::ledger::fold_into;

/// Shortest run, in bytes of folded text.
pub const MIN_RUN: usize = 8;

/// Shortest run of plain words that is highlighted.
pub const PHRASE_RUN: usize = 24;

/// Most argument leaves read.
pub const LEAF_LIMIT: usize = 256;

/// Most bytes of one folded leaf read.
pub const LEAF_BYTES: usize = 4096;

/// Deepest nesting of arguments read.
pub const DEPTH_LIMIT: usize = 64;

/// Most hits and extension bytes of one scan.
pub const STEP_LIMIT: usize = 8 << 20;

/// Longest fragment shown, in bytes; longer ones end with `…`.
pub const FRAGMENT_SHOWN: usize = 160;

/// What a highlighted fragment looks like.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum FragmentKind {
    /// A link.
    Url,
    /// An e-mail address.
    Email,
    /// An id, key, path, number or host name.
    Token,
    /// Copied words.
    Phrase,
}

/// An argument value that also occurs in untrusted output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Highlight {
    /// Where the value is in the arguments (RFC 6901).
    pub pointer: String,
    /// The longest run found, folded, cut to [`FRAGMENT_SHOWN`] bytes.
    pub fragment: String,
    /// The run's shape.
    pub kind: FragmentKind,
    /// Whether the whole value occurs in untrusted output.
    pub whole: bool,
    /// The origins of the untrusted items in which a run was found.
    pub sources: Vec<Origin>,
}

/// The highlights of one call.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Highlights {
    /// Most telling first: URLs, e-mail addresses, tokens, phrases.
    pub found: Vec<Highlight>,
    /// Whether a bound stopped the scan, so more may exist.
    pub incomplete: bool,
}

/// One folded leaf.
struct Leaf {
    pointer: String,
    text: String,
}

/// Folds `text` into a leaf at `pointer` unless it is too short; returns
/// whether it was cut or the leaf limit left it out.
fn leaf(text: &str, pointer: &str, out: &mut Vec<Leaf>) -> bool {
    if out.len() >= LEAF_LIMIT {
        return true;
    }
    let text = text.trim();
    let mut folded = String::new();
    let read = fold_into(&mut folded, text, LEAF_BYTES);
    if folded.len() >= MIN_RUN {
        out.push(Leaf {
            pointer: pointer.to_owned(),
            text: folded,
        });
    }
    read < text.len()
}

/// Collects the leaves of `value`; returns whether a bound left some out.
fn leaves(value: &Value, pointer: &mut String, depth: usize, out: &mut Vec<Leaf>) -> bool {
    match value {
        Value::String(s) => leaf(s, pointer, out),
        Value::Number(n) => leaf(&n.to_string(), pointer, out),
        Value::Null | Value::Bool(_) => false,
        _ if depth >= DEPTH_LIMIT => true,
        Value::Array(items) => {
            let mut cut = false;
            for (i, item) in items.iter().enumerate() {
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&i.to_string());
                cut |= leaves(item, pointer, depth + 1, out);
                pointer.truncate(len);
                if out.len() >= LEAF_LIMIT {
                    return true;
                }
            }
            cut
        }
        Value::Object(members) => {
            let mut cut = false;
            for (key, item) in members {
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&key.replace('~', "~0").replace('/', "~1"));
                cut |= leaves(item, pointer, depth + 1, out);
                pointer.truncate(len);
                if out.len() >= LEAF_LIMIT {
                    return true;
                }
            }
            cut
        }
    }
}

/// A hasher for keys that are already 8 bytes of text: one multiply.
#[derive(Default)]
struct GramHasher(u64);

impl Hasher for GramHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 << 8 | u64::from(*b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u64(&mut self, gram: u64) {
        self.0 = gram.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// Bits in the filter in front of the table.
const FILTER_BITS: u32 = 20;

fn filter_slot(gram: u64) -> usize {
    (gram.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - FILTER_BITS)) as usize
}

/// Each 8-byte window of the leaves, with the first place it occurs in
/// each leaf.
struct Index {
    filter: Vec<u64>,
    table: HashMap<u64, Vec<(usize, usize)>, BuildHasherDefault<GramHasher>>,
}

impl Index {
    fn new(leaves: &[Leaf]) -> Self {
        let mut index = Self {
            filter: vec![0; 1 << (FILTER_BITS - 6)],
            table: HashMap::default(),
        };
        for (n, leaf) in leaves.iter().enumerate() {
            let bytes = leaf.text.as_bytes();
            let mut gram = 0u64;
            for (at, b) in bytes.iter().enumerate() {
                gram = gram << 8 | u64::from(*b);
                if at + 1 < MIN_RUN {
                    continue;
                }
                let places = index.table.entry(gram).or_default();
                if places.last().is_none_or(|&(leaf, _)| leaf != n) {
                    places.push((n, at + 1 - MIN_RUN));
                    let slot = filter_slot(gram);
                    index.filter[slot >> 6] |= 1 << (slot & 63);
                }
            }
        }
        index
    }

    fn get(&self, gram: u64) -> &[(usize, usize)] {
        let slot = filter_slot(gram);
        if self.filter[slot >> 6] & (1 << (slot & 63)) == 0 {
            return &[];
        }
        self.table.get(&gram).map_or(&[], Vec::as_slice)
    }
}

/// The best run of a leaf so far.
#[derive(Default)]
struct Best {
    run: Option<(usize, usize, FragmentKind)>,
    sources: BTreeSet<Origin>,
}

/// Finds the highlights of `arguments` in `items`, the folded untrusted
/// texts with their origins.
pub(super) fn scan<'a>(
    arguments: &Value,
    items: impl IntoIterator<Item = (&'a Origin, &'a str)>,
) -> Highlights {
    let mut found = Vec::new();
    let mut incomplete = leaves(arguments, &mut String::new(), 0, &mut found);
    let leaves = found;
    if leaves.is_empty() {
        return Highlights {
            found: Vec::new(),
            incomplete,
        };
    }
    let index = Index::new(&leaves);
    let mut best: Vec<Best> = leaves.iter().map(|_| Best::default()).collect();
    let mut steps = 0usize;
    // Per leaf, the first byte of the item not yet covered by a run.
    let mut covered = vec![0usize; leaves.len()];
    'items: for (origin, text) in items {
        covered.iter_mut().for_each(|c| *c = 0);
        let bytes = text.as_bytes();
        let mut gram = 0u64;
        for (at, b) in bytes.iter().enumerate() {
            gram = gram << 8 | u64::from(*b);
            if at + 1 < MIN_RUN {
                continue;
            }
            let start = at + 1 - MIN_RUN;
            for &(n, place) in index.get(gram) {
                steps += 1;
                if start < covered[n] {
                    continue;
                }
                let leaf = leaves[n].text.as_bytes();
                let (from, to, ahead) = extend(leaf, place, bytes, start);
                steps += to - from;
                // Later windows wholly inside this run are the same run.
                covered[n] = start + ahead + 1 - MIN_RUN;
                if let Some(kind) = shape(&leaves[n].text, from, to) {
                    let entry = &mut best[n];
                    entry.sources.insert(origin.clone());
                    if entry.run.is_none_or(|(f, t, _)| t - f < to - from) {
                        entry.run = Some((from, to, kind));
                    }
                }
            }
            if steps > STEP_LIMIT {
                incomplete = true;
                break 'items;
            }
        }
    }
    let mut found: Vec<Highlight> = leaves
        .into_iter()
        .zip(best)
        .filter_map(|(leaf, best)| {
            let (from, to, kind) = best.run?;
            Some(Highlight {
                whole: from == 0 && to == leaf.text.len(),
                fragment: shown(&leaf.text[from..to]),
                pointer: leaf.pointer,
                kind,
                sources: best.sources.into_iter().collect(),
            })
        })
        .collect();
    found.sort_by(|a, b| (a.kind, &a.pointer).cmp(&(b.kind, &b.pointer)));
    Highlights { found, incomplete }
}

/// Extends the 8-byte match of `leaf[place..]` and `text[start..]` both
/// ways; returns the leaf's range, on character boundaries, and how far
/// the match reaches past `start`.
fn extend(leaf: &[u8], place: usize, text: &[u8], start: usize) -> (usize, usize, usize) {
    let back = leaf[..place]
        .iter()
        .rev()
        .zip(text[..start].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let ahead = leaf[place..]
        .iter()
        .zip(&text[start..])
        .take_while(|(a, b)| a == b)
        .count();
    let (mut from, mut to) = (place - back, place + ahead);
    // Folded leaves are whole UTF-8; a byte match may start or end inside
    // a character, so move inwards to the nearest boundaries.
    while from < to && !is_boundary(leaf, from) {
        from += 1;
    }
    while to > from && !is_boundary(leaf, to) {
        to -= 1;
    }
    // Spaces at the edges tell nothing.
    while from < to && leaf[from] == b' ' {
        from += 1;
    }
    while to > from && leaf[to - 1] == b' ' {
        to -= 1;
    }
    (from, to, ahead)
}

fn is_boundary(bytes: &[u8], at: usize) -> bool {
    at == bytes.len() || bytes.get(at).is_some_and(|b| (*b as i8) >= -0x40)
}

/// The shape of `leaf[from..to]`, if it is worth a highlight.
fn shape(leaf: &str, from: usize, to: usize) -> Option<FragmentKind> {
    let run = leaf.get(from..to)?;
    let bare = ["https://", "http://", "www."]
        .iter()
        .fold(run, |r, prefix| r.strip_prefix(prefix).unwrap_or(r));
    if bare.len() < MIN_RUN {
        return None;
    }
    if run.contains("://") || run.starts_with("www.") {
        return Some(FragmentKind::Url);
    }
    let mut words = bare.split(' ');
    if words.clone().any(|w| {
        w.split_once('@')
            .is_some_and(|(user, host)| !user.is_empty() && host.contains('.'))
    }) {
        return Some(FragmentKind::Email);
    }
    if words.any(|w| w.len() >= MIN_RUN && !w.chars().all(char::is_alphabetic)) {
        return Some(FragmentKind::Token);
    }
    (bare.len() >= PHRASE_RUN).then_some(FragmentKind::Phrase)
}

/// `text` cut to [`FRAGMENT_SHOWN`] bytes on a character boundary.
fn shown(text: &str) -> String {
    if text.len() <= FRAGMENT_SHOWN {
        return text.to_owned();
    }
    let mut end = FRAGMENT_SHOWN;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}
