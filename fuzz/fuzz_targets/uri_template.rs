//! URI templates: parsing any text, matching any URI against what parsed,
//! and expanding any variables, without panics, and two oracles:
//!
//! - what a template expands matches the template again whenever the
//!   values are ones matching promises to give back (every non-query
//!   variable defined and non-empty, no NUL, no `..` segment, no `%` in a
//!   reserved expansion, within the URI length), and the values it matches
//!   expand to the very same URI;
//! - a template that expands its own match of any URI (values without
//!   `%`) matches that expansion again.
//!
//! Input: the template on the first line, a URI on the second, then
//! `name=value` lines.

#![no_main]

use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use mcp_server::uri_template::{UriTemplate, MAX_URI_LEN};

/// The variables of each expression of a template that parsed, with the
/// expression's operator (`None` for simple expansion).
fn expressions(source: &str) -> Vec<(Option<char>, Vec<&str>)> {
    let mut found = Vec::new();
    let mut rest = source;
    while let Some(start) = rest.find('{') {
        let Some(end) = rest[start..].find('}') else {
            break;
        };
        let body = &rest[start + 1..start + end];
        let (operator, names) = match body.chars().next() {
            Some(c @ ('+' | '#' | '/' | '?' | '&')) => (Some(c), &body[1..]),
            _ => (None, body),
        };
        found.push((operator, names.split(',').collect()));
        rest = &rest[start + end + 1..];
    }
    found
}

/// Whether only query expressions (`{?...}`, `{&...}`) follow the first
/// one: a query value runs to the next pair, so literal text after it is
/// taken into the value, and matching makes no promise there.
fn queries_last(source: &str) -> bool {
    let Some(start) = [source.find("{?"), source.find("{&")]
        .into_iter()
        .flatten()
        .min()
    else {
        return true;
    };
    let mut rest = &source[start..];
    while !rest.is_empty() {
        if !(rest.starts_with("{?") || rest.starts_with("{&")) {
            return false;
        }
        match rest.find('}') {
            Some(end) => rest = &rest[end + 1..],
            None => return false,
        }
    }
    true
}

/// Whether matching promises to give back an expansion of `variables`.
fn promised(source: &str, variables: &BTreeMap<String, String>, expanded: &str) -> bool {
    if expanded.len() > MAX_URI_LEN || !queries_last(source) {
        return false;
    }
    expressions(source).into_iter().all(|(operator, names)| {
        names.into_iter().all(|name| {
            let value = variables.get(name).map(String::as_str);
            if value.is_some_and(|v| v.contains('\0')) {
                return false;
            }
            match operator {
                Some('?' | '&') => true,
                _ => value.is_some_and(|v| {
                    !v.is_empty()
                        && !v.split(['/', '\\']).any(|segment| segment == "..")
                        && !(matches!(operator, Some('+' | '#')) && v.contains('%'))
                }),
            }
        })
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut lines = text.split('\n');
    let source = lines.next().unwrap_or_default();
    let uri = lines.next().unwrap_or_default();
    let variables: BTreeMap<String, String> = lines
        .filter_map(|line| line.split_once('='))
        .map(|(name, value)| (name.to_owned(), value.to_owned()))
        .collect();
    let Ok(template) = UriTemplate::parse(source) else {
        return;
    };
    let expanded = template.expand(&variables);
    // A reserved expansion passes `%XX` in a value through, so a value
    // with `%` there need not come back as it went in.
    let reserved_percent = (source.contains("{+") || source.contains("{#"))
        && variables.values().any(|v| v.contains('%'));
    match template.matches(&expanded) {
        Some(_) if reserved_percent => {}
        Some(values) => assert_eq!(
            template.expand(&values),
            expanded,
            "{source:?} matched its expansion as {values:?}, which expands elsewhere"
        ),
        None => assert!(
            !promised(source, &variables, &expanded),
            "{source:?} expanded {variables:?} to {expanded:?}, which it does not match"
        ),
    }
    // Reserved expansion (`{+x}`, `{#x}`) passes `%XX` in a value through
    // as it is (RFC 6570, 3.2.3), so a value holding a literal `%` cannot
    // come back unchanged: only the others must survive a round trip.
    let values = template
        .matches(uri)
        .filter(|values| values.values().all(|v| !v.contains('%')));
    if let Some(values) = values {
        let again = template.expand(&values);
        assert!(
            template.matches(&again).is_some(),
            "{source:?} matched {uri:?} as {values:?}, but not its expansion {again:?}"
        );
    }
});
