//! URI templates (RFC 6570) for resource templates: parsing, matching a
//! URI back to its variables, and expansion.
//!
//! ```
//! use std::collections::BTreeMap;
//! use mcp_uri_template::UriTemplate;
//!
//! # fn main() -> Result<(), mcp_uri_template::TemplateError> {
//! let template = UriTemplate::parse("notes://{folder}/{id}{?rev}")?;
//! assert_eq!(template.variables().collect::<Vec<_>>(), ["folder", "id", "rev"]);
//!
//! let vars = template.matches("notes://team/Q3%20plan?rev=7").unwrap_or_default();
//! assert_eq!(vars["folder"], "team");
//! assert_eq!(vars["id"], "Q3 plan");
//! assert_eq!(vars["rev"], "7");
//!
//! // Encoded path traversal is refused rather than handed to the handler.
//! assert_eq!(template.matches("notes://team/%2E%2E"), None);
//!
//! let back = template.expand(&BTreeMap::from([
//!     ("folder".to_owned(), "team".to_owned()),
//!     ("id".to_owned(), "Q3 plan".to_owned()),
//! ]));
//! assert_eq!(back, "notes://team/Q3%20plan");
//! # Ok(())
//! # }
//! ```
//!
//! # What is supported
//!
//! Matching is the inverse of expansion, and RFC 6570 only defines
//! expansion, so this module accepts the forms whose matches are
//! unambiguous and refuses the rest when parsing:
//!
//! | form | example expansion | matching |
//! |---|---|---|
//! | `{var}`, `{a,b}` | `Q3%20plan`, `x,y` | each value at least one character |
//! | `{+var}` | `docs/a%20b.md` (reserved characters such as `/` kept) | at least one character |
//! | `{#var}` | `#section-2` | at least one character after `#` |
//! | `{/var}`, `{/a,b}` | `/team/q3` | one non-empty segment per variable |
//! | `{?a,b}` | `?a=1&b=2` | optional `name=value` pairs, any order, no repeats, no unknown names |
//! | `{&a}` | `&a=1` | like `?` |
//!
//! Refused when parsing: the `.` and `;` operators and the operator
//! characters RFC 6570 keeps for later, the `:N` prefix and `*` explode
//! modifiers, several variables in one `+` or `#` expression, a variable
//! that appears twice, a `{var}` or `{+var}` placed right after another
//! expression, and templates longer than [`MAX_TEMPLATE_LEN`] bytes.
//! Literal text is matched byte for byte.
//!
//! # How matching decides
//!
//! - Values are percent-decoded and must be UTF-8. Characters outside ASCII
//!   are accepted unencoded as well (IRIs), and `expand` encodes them.
//! - A value must be written as `expand` writes it, but for the case of
//!   hex digits: a `%XX` that `expand` would not write (`%7E` for `~`; in a
//!   `+` or `#` value also a reserved character such as `%2F` for `/`, or
//!   `%25` before two hex digits) ends the value there, so that the values
//!   of a match always expand back to the URI they came from.
//! - When a value could end at several places, the earliest one that lets
//!   the rest of the template match wins, so `{name}.{ext}` splits
//!   `a.tar.gz` into `a` and `tar.gz`. A `?` or `&` expression takes as many
//!   whole pairs as it can.
//! - After decoding, a value that contains a NUL character is refused, and so
//!   is a value of any non-query variable that has `..` as a path segment
//!   (split on `/` and `\`): `..`, `../x`, `a/../b`, however they were
//!   encoded. The URI then does not match.
//! - URIs longer than [`MAX_URI_LEN`] bytes never match. Matching takes
//!   time and memory proportional to the template's parts times the URI's
//!   length, whatever the input.
//!
//! `expand` follows RFC 6570: an undefined variable is left out, and a `+`
//! or `#` value keeps percent-encoded bytes it already contains. A value
//! that [`matches`](UriTemplate::matches) returns expands back to the same
//! URI, so `expand` then `matches` gives the values back whenever they are
//! non-empty (for non-query variables) and, for `+` and `#`, contain no `%`.

mod parse;

use std::collections::BTreeMap;

use parse::{is_pct_triplet, Operator, Part};
pub use parse::{TemplateError, TemplateErrorKind, UriTemplate, MAX_TEMPLATE_LEN};

/// The longest URI, in bytes, that [`UriTemplate::matches`] considers;
/// longer ones never match.
pub const MAX_URI_LEN: usize = 8 * 1024;

impl UriTemplate {
    /// The variables of `uri` if it is an expansion of this template, with
    /// their values percent-decoded; `None` otherwise.
    ///
    /// Variables of `{?...}` and `{&...}` expressions that the URI leaves
    /// out are absent from the map; every other variable is present. See
    /// the [module documentation](self) for the rules, including the
    /// refusal of `..` path segments.
    pub fn matches(&self, uri: &str) -> Option<BTreeMap<String, String>> {
        if uri.len() > MAX_URI_LEN {
            return None;
        }
        let mut values = BTreeMap::new();
        for (part, start, end) in split(&self.parts, uri)? {
            if let Part::Expression {
                operator,
                variables,
            } = part
            {
                bind(*operator, variables, uri.get(start..end)?, &mut values)?;
            }
        }
        Some(values)
    }

    /// The URI this template stands for with `variables` filled in.
    /// Variables missing from the map are undefined and left out, as
    /// RFC 6570 says.
    pub fn expand(&self, variables: &BTreeMap<String, String>) -> String {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Literal(text) => out.push_str(text),
                Part::Expression {
                    operator,
                    variables: names,
                } => {
                    let (lead, separator) = operator.lead_and_separator();
                    let defined = names
                        .iter()
                        .filter_map(|name| Some((name, variables.get(name)?)));
                    for (index, (name, value)) in defined.enumerate() {
                        out.push_str(if index == 0 { lead } else { separator });
                        if operator.is_optional() {
                            out.push_str(name);
                            out.push('=');
                        }
                        let keep_reserved =
                            matches!(operator, Operator::Reserved | Operator::Fragment);
                        encode(value, keep_reserved, &mut out);
                    }
                }
            }
        }
        out
    }
}

impl Operator {
    /// What comes before the first value and between values.
    fn lead_and_separator(self) -> (&'static str, &'static str) {
        match self {
            Operator::Simple | Operator::Reserved => ("", ","),
            Operator::Fragment => ("#", ","),
            Operator::Path => ("/", "/"),
            Operator::Query => ("?", "&"),
            Operator::Continuation => ("&", "&"),
        }
    }
}

/// Characters a value may contain unencoded.
#[derive(Clone, Copy)]
enum Class {
    /// `ALPHA DIGIT - . _ ~`.
    Unreserved,
    /// Unreserved plus `: / ? # [ ] @ ! $ & ' ( ) * + , ; =`.
    Reserved,
}

impl Class {
    fn allows(self, b: u8) -> bool {
        let unreserved = b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~');
        match self {
            Class::Unreserved => unreserved,
            Class::Reserved => {
                unreserved
                    || matches!(
                        b,
                        b':' | b'/'
                            | b'?'
                            | b'#'
                            | b'['
                            | b']'
                            | b'@'
                            | b'!'
                            | b'$'
                            | b'&'
                            | b'\''
                            | b'('
                            | b')'
                            | b'*'
                            | b'+'
                            | b','
                            | b';'
                            | b'='
                    )
            }
        }
    }
}

/// A URI prepared for matching: the offsets where a value may start or
/// end (`cut`: a character boundary outside any `%XX`), and how far a run of
/// each character class reaches from each of them.
struct Subject<'u> {
    bytes: &'u [u8],
    cut: Vec<bool>,
    unreserved_end: Vec<usize>,
    reserved_end: Vec<usize>,
}

impl<'u> Subject<'u> {
    fn new(uri: &'u str) -> Self {
        let bytes = uri.as_bytes();
        let n = bytes.len();
        let mut cut = vec![false; n + 1];
        let mut at = 0;
        while at < n {
            cut[at] = true;
            at += unit_width(bytes, at);
        }
        cut[n] = true;
        let run_ends = |class: Class| {
            let mut ends: Vec<usize> = (0..=n).collect();
            for p in (0..n).rev() {
                if cut[p] && unit_allowed(bytes, p, class) {
                    ends[p] = ends[(p + unit_width(bytes, p)).min(n)];
                }
            }
            ends
        };
        let unreserved_end = run_ends(Class::Unreserved);
        let reserved_end = run_ends(Class::Reserved);
        Subject {
            bytes,
            cut,
            unreserved_end,
            reserved_end,
        }
    }

    /// The end of the longest run of `class` units starting at `at`.
    fn run_end(&self, at: usize, class: Class) -> usize {
        let ends = match class {
            Class::Unreserved => &self.unreserved_end,
            Class::Reserved => &self.reserved_end,
        };
        ends.get(at).copied().unwrap_or(at)
    }

    fn is_cut(&self, at: usize) -> bool {
        self.cut.get(at).copied().unwrap_or(false)
    }
}

/// The bytes of the unit at `at`: a `%XX` triplet or one character.
fn unit_width(bytes: &[u8], at: usize) -> usize {
    match bytes.get(at) {
        Some(_) if is_pct_triplet(bytes, at) => 3,
        Some(&b) if b.is_ascii() => 1,
        Some(&b) => utf8_width(b),
        None => 1,
    }
}

/// Whether the unit at `at` may stand in a value of `class`: a `%XX`
/// that expansion writes (see [`canonical_triplet`]), a non-ASCII
/// character, or an allowed ASCII character.
fn unit_allowed(bytes: &[u8], at: usize, class: Class) -> bool {
    match bytes.get(at) {
        Some(&b'%') => is_pct_triplet(bytes, at) && canonical_triplet(bytes, at, class),
        Some(&b) if b.is_ascii() => class.allows(b),
        Some(_) => true,
        None => false,
    }
}

/// Whether the `%XX` at `at` is how expansion writes its byte in a value
/// of `class`, so that the decoded value expands back to the same text. A
/// byte the class leaves unencoded is never written as `%XX` (`%7E` for
/// `~`; in a `+` or `#` value also `%2F` for `/`), and a `+` or `#` value
/// keeps a `%` before two hex digits as it is, so `%25` followed by them
/// is not how it writes a `%` there either.
fn canonical_triplet(bytes: &[u8], at: usize, class: Class) -> bool {
    let hex = |i: usize| bytes.get(i).and_then(|&b| char::from(b).to_digit(16));
    let (Some(high), Some(low)) = (hex(at + 1), hex(at + 2)) else {
        return false;
    };
    let byte = u8::try_from(high * 16 + low).unwrap_or(0);
    if byte.is_ascii() && class.allows(byte) {
        return false;
    }
    !(byte == b'%'
        && matches!(class, Class::Reserved)
        && hex(at + 3).is_some()
        && hex(at + 4).is_some())
}

/// The length of the UTF-8 sequence that `lead` starts (the input is a
/// `&str`, so this is only asked of leading bytes).
fn utf8_width(lead: u8) -> usize {
    match lead {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        _ => 2,
    }
}

/// Where a part that starts at some offset may end.
enum Ends {
    /// Nowhere: the part does not fit there.
    Nowhere,
    /// Exactly one place.
    One(usize),
    /// Every cut in `after + 1 ..= upto`; the earliest is preferred.
    Range { after: usize, upto: usize },
    /// These places, in order of preference.
    Many(Vec<usize>),
}

fn ends(part: &Part, subject: &Subject<'_>, start: usize) -> Ends {
    match part {
        Part::Literal(text) => {
            let fits = subject
                .bytes
                .get(start..)
                .is_some_and(|rest| rest.starts_with(text.as_bytes()));
            if fits {
                Ends::One(start + text.len())
            } else {
                Ends::Nowhere
            }
        }
        Part::Expression {
            operator,
            variables,
        } => {
            let (lead, separator, class) = match operator {
                Operator::Simple => (None, b',', Class::Unreserved),
                Operator::Reserved => (None, b',', Class::Reserved),
                Operator::Fragment => (Some(b'#'), b',', Class::Reserved),
                Operator::Path => (Some(b'/'), b'/', Class::Unreserved),
                Operator::Query => return query_ends(subject, start, b'?', variables),
                Operator::Continuation => return query_ends(subject, start, b'&', variables),
            };
            match last_value_start(subject, start, lead, separator, variables.len(), class) {
                Some(from) => {
                    let upto = subject.run_end(from, class);
                    if upto > from {
                        Ends::Range { after: from, upto }
                    } else {
                        Ends::Nowhere
                    }
                }
                None => Ends::Nowhere,
            }
        }
    }
}

/// For `lead? value (separator value){n-1}`: where the last value starts,
/// every earlier value running as far as it can (a separator cannot be part
/// of a value) and none empty.
fn last_value_start(
    subject: &Subject<'_>,
    start: usize,
    lead: Option<u8>,
    separator: u8,
    n: usize,
    class: Class,
) -> Option<usize> {
    let mut at = start;
    if let Some(lead) = lead {
        if subject.bytes.get(at) != Some(&lead) {
            return None;
        }
        at += 1;
    }
    for _ in 1..n {
        let end = subject.run_end(at, class);
        if end == at || subject.bytes.get(end) != Some(&separator) {
            return None;
        }
        at = end + 1;
    }
    Some(at)
}

/// Ends for `lead name=value (& name=value)*` over the expression's names,
/// each at most once: the longest first, then the empty match.
fn query_ends(subject: &Subject<'_>, start: usize, lead: u8, names: &[String]) -> Ends {
    let bytes = subject.bytes;
    if bytes.get(start) != Some(&lead) {
        return Ends::One(start);
    }
    let mut ends = vec![start];
    let mut at = start + 1;
    let mut seen: Vec<&[u8]> = Vec::new();
    loop {
        let rest = bytes.get(at..).unwrap_or_default();
        let name_end = at + rest.iter().take_while(|&&b| b != b'=' && b != b'&').count();
        let Some(name) = bytes.get(at..name_end) else {
            break;
        };
        let known = names.iter().any(|n| n.as_bytes() == name);
        if bytes.get(name_end) != Some(&b'=') || !known || seen.contains(&name) {
            break;
        }
        seen.push(name);
        let value_end = subject.run_end(name_end + 1, Class::Unreserved);
        ends.push(value_end);
        if bytes.get(value_end) != Some(&b'&') {
            break;
        }
        at = value_end + 1;
    }
    ends.reverse();
    Ends::Many(ends)
}

/// Splits `uri` into one `(part, start, end)` span per template part, or
/// `None` when it does not fit.
///
/// A backward pass computes, for each part and each offset, whether the
/// rest of the template can match the rest of the URI; an expression's
/// possible ends form a contiguous run of cuts, so a prefix count answers
/// each question at once, and the work is parts × offsets. A forward pass
/// then takes, part by part, the preferred end from which the rest fits.
fn split<'p>(parts: &'p [Part], uri: &str) -> Option<Vec<(&'p Part, usize, usize)>> {
    let subject = Subject::new(uri);
    let n = uri.len();
    let mut fits: Vec<Bits> = (0..=parts.len()).map(|_| Bits::new(n + 1)).collect();
    fits.last_mut()?.set(n);
    let mut counts = vec![0usize; n + 2];
    for (index, part) in parts.iter().enumerate().rev() {
        let (done, todo) = fits.split_at_mut(index + 1);
        let (row, next) = (done.last_mut()?, todo.first()?);
        for e in 0..=n {
            counts[e + 1] = counts[e] + usize::from(subject.is_cut(e) && next.get(e));
        }
        for start in (0..=n).filter(|&p| subject.is_cut(p)) {
            let ok = match ends(part, &subject, start) {
                Ends::Nowhere => false,
                Ends::One(end) => subject.is_cut(end) && next.get(end),
                Ends::Range { after, upto } => counts[upto + 1] > counts[after + 1],
                Ends::Many(list) => list.into_iter().any(|e| subject.is_cut(e) && next.get(e)),
            };
            if ok {
                row.set(start);
            }
        }
    }
    if !fits.first()?.get(0) {
        return None;
    }
    let mut spans = Vec::with_capacity(parts.len());
    let mut start = 0;
    for (index, part) in parts.iter().enumerate() {
        let next = fits.get(index + 1)?;
        let usable = |e: usize| subject.is_cut(e) && next.get(e);
        let end = match ends(part, &subject, start) {
            Ends::Nowhere => None,
            Ends::One(end) => Some(end).filter(|&e| usable(e)),
            Ends::Range { after, upto } => (after + 1..=upto).find(|&e| usable(e)),
            Ends::Many(list) => list.into_iter().find(|&e| usable(e)),
        }?;
        spans.push((part, start, end));
        start = end;
    }
    Some(spans)
}

/// A fixed-size set of offsets.
struct Bits(Vec<u64>);

impl Bits {
    fn new(len: usize) -> Self {
        Bits(vec![0; len.div_ceil(64)])
    }

    fn get(&self, at: usize) -> bool {
        self.0
            .get(at / 64)
            .is_some_and(|word| word >> (at % 64) & 1 == 1)
    }

    fn set(&mut self, at: usize) {
        if let Some(word) = self.0.get_mut(at / 64) {
            *word |= 1 << (at % 64);
        }
    }
}

/// Decodes the values of one matched expression into `values`; `None` when
/// a value is not UTF-8 after decoding or is refused.
fn bind(
    operator: Operator,
    names: &[String],
    text: &str,
    values: &mut BTreeMap<String, String>,
) -> Option<()> {
    if operator.is_optional() {
        let Some(pairs) = text.get(1..).filter(|pairs| !pairs.is_empty()) else {
            return Some(());
        };
        for pair in pairs.split('&') {
            let (name, raw) = pair.split_once('=')?;
            let value = decode(raw).filter(|v| !v.contains('\0'))?;
            values.insert(name.to_owned(), value);
        }
        return Some(());
    }
    let body = match operator {
        Operator::Fragment | Operator::Path => text.get(1..)?,
        _ => text,
    };
    let raw_values: Vec<&str> = match operator {
        Operator::Simple => body.split(',').collect(),
        Operator::Path => body.split('/').collect(),
        _ => vec![body],
    };
    if raw_values.len() != names.len() {
        return None;
    }
    for (name, raw) in names.iter().zip(raw_values) {
        let value = decode(raw).filter(|v| is_safe_path_value(v))?;
        values.insert(name.clone(), value);
    }
    Some(())
}

/// Percent-decodes `raw`; `None` when the bytes are not UTF-8.
fn decode(raw: &str) -> Option<String> {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while let Some(&b) = bytes.get(at) {
        if is_pct_triplet(bytes, at) {
            let hex = std::str::from_utf8(bytes.get(at + 1..at + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            at += 3;
        } else {
            out.push(b);
            at += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// No NUL, and no `..` segment when split on `/` or `\`.
fn is_safe_path_value(value: &str) -> bool {
    !value.contains('\0') && !value.split(['/', '\\']).any(|segment| segment == "..")
}

/// Appends `value`, percent-encoding every byte outside the unreserved set
/// (or, with `keep_reserved`, outside unreserved and reserved, and leaving
/// existing percent-encoded bytes alone).
fn encode(value: &str, keep_reserved: bool, out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let class = if keep_reserved {
        Class::Reserved
    } else {
        Class::Unreserved
    };
    let bytes = value.as_bytes();
    for (at, &b) in bytes.iter().enumerate() {
        let pass = class.allows(b) || (keep_reserved && is_pct_triplet(bytes, at));
        if pass {
            out.push(char::from(b));
        } else {
            out.push('%');
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 0x0F)]));
        }
    }
}
