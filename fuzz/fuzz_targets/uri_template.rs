//! URI templates: parsing any text, matching any URI against what parsed,
//! and expanding any variables, without panics; a template that expands
//! its own match of a URI (values without `%`) matches that expansion
//! again.
//!
//! Input: the template on the first line, a URI on the second, then
//! `name=value` lines.

#![no_main]

use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use mcp_server::uri_template::UriTemplate;

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
    let _ = template.matches(&expanded);
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
