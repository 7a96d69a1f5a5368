//! Rust identifiers for schema names.
//!
//! Every name that reaches the output passes through here, so the rendered
//! code can build identifiers without checking them again.

use heck::{ToSnakeCase, ToUpperCamelCase};

/// Strict and reserved keywords of every edition, plus `gen` (2024).
const KEYWORDS: &[&str] = &[
    "Self", "abstract", "as", "async", "await", "become", "box", "break", "const", "continue",
    "crate", "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if",
    "impl", "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub",
    "ref", "return", "self", "static", "struct", "super", "trait", "true", "try", "type", "typeof",
    "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Whether `s` is a plain identifier that is not a keyword.
pub(crate) fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    (first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && s != "_"
        && !KEYWORDS.contains(&s)
}

/// Makes `candidate` a valid identifier: a leading digit gets a prefix, a
/// keyword gets a trailing underscore, an empty name becomes `fallback`.
fn repair(candidate: String, prefix: &str, fallback: &str) -> String {
    // Letters beyond ASCII are dropped: every identifier is plain ASCII.
    let candidate: String = candidate
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    let candidate = if candidate.is_empty() || candidate.chars().all(|c| c == '_') {
        fallback.to_owned()
    } else if candidate.starts_with(|c: char| c.is_ascii_digit()) {
        format!("{prefix}{candidate}")
    } else {
        candidate
    };
    if KEYWORDS.contains(&candidate.as_str()) {
        format!("{candidate}_")
    } else {
        candidate
    }
}

/// A type name: kept verbatim when it already is an identifier starting with
/// an upper-case letter (`JSONRPCMessage` stays as the schema spells it),
/// converted to UpperCamelCase otherwise.
pub(crate) fn type_name(raw: &str) -> String {
    if is_ident(raw) && raw.starts_with(|c: char| c.is_ascii_uppercase()) {
        raw.to_owned()
    } else {
        repair(raw.to_upper_camel_case(), "T", "Type")
    }
}

/// UpperCamelCase of any text, for names built from parts.
pub(crate) fn camel(raw: &str) -> String {
    raw.to_upper_camel_case()
}

/// A field name for the wire name `wire`: namespaced keys keep their local
/// part (`io.modelcontextprotocol/protocolVersion` becomes
/// `protocol_version`), leading `$` and `_` are dropped, the rest is
/// snake_case.
pub(crate) fn field_name(wire: &str) -> String {
    let local = wire.rsplit('/').next().unwrap_or(wire);
    let trimmed = local.trim_start_matches(['$', '_']);
    let snake = trimmed.to_snake_case();
    let snake = if snake.is_empty() {
        wire.to_snake_case()
    } else {
        snake
    };
    repair(snake, "n", "value")
}

/// The words of an UpperCamelCase name; an acronym is one word
/// (`JSONRPCRequest` is `JSONRPC`, `Request`).
pub(crate) fn words(name: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = name.char_indices().collect();
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..chars.len() {
        let (at, c) = chars[i];
        let prev = chars[i - 1].1;
        let next_lower = chars
            .get(i + 1)
            .is_some_and(|(_, n)| n.is_ascii_lowercase());
        let boundary = c.is_ascii_uppercase()
            && (prev.is_ascii_lowercase()
                || prev.is_ascii_digit()
                || (prev.is_ascii_uppercase() && next_lower));
        if boundary {
            out.push(&name[start..at]);
            start = at;
        }
    }
    out.push(&name[start..]);
    out
}

/// Drops the words that every name shares at its start and at its end
/// (`CallToolRequest`, `ListToolsRequest` become `CallTool`, `ListTools`).
/// Names are returned unchanged when stripping would leave one empty, make
/// two equal, or produce something that is not an identifier.
pub(crate) fn strip_common(names: &[String]) -> Vec<String> {
    if names.len() < 2 {
        return names.to_vec();
    }
    let split: Vec<Vec<&str>> = names.iter().map(|n| words(n)).collect();
    let shortest = split.iter().map(Vec::len).min().unwrap_or(0);
    let common = |pick: &dyn Fn(&Vec<&str>, usize) -> Option<String>| {
        (0..shortest)
            .take_while(|&i| {
                let first = pick(&split[0], i);
                first.is_some() && split.iter().all(|w| pick(w, i) == first)
            })
            .count()
    };
    let front = |w: &Vec<&str>, i: usize| w.get(i).map(|s| (*s).to_owned());
    let back = |w: &Vec<&str>, i: usize| w.len().checked_sub(i + 1).map(|j| w[j].to_owned());
    let prefix = common(&front);
    let suffix = common(&back);
    if prefix + suffix == 0 || prefix + suffix >= shortest {
        return names.to_vec();
    }
    let stripped: Vec<String> = split
        .iter()
        .map(|w| w[prefix..w.len() - suffix].concat())
        .collect();
    let unique = stripped
        .iter()
        .enumerate()
        .all(|(i, s)| !stripped[..i].contains(s));
    if unique && stripped.iter().all(|s| is_ident(s)) {
        stripped
    } else {
        names.to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_names() {
        assert_eq!(field_name("mimeType"), "mime_type");
        assert_eq!(field_name("_meta"), "meta");
        assert_eq!(field_name("$schema"), "schema");
        assert_eq!(field_name("type"), "type_");
        assert_eq!(
            field_name("io.modelcontextprotocol/protocolVersion"),
            "protocol_version"
        );
        assert_eq!(field_name("2fa"), "n2fa");
        assert_eq!(field_name("_"), "value");
        assert_eq!(field_name("ñandú"), "and");
        assert_eq!(field_name("日本"), "value");
        assert_eq!(field_name("a\u{202e}b"), "a_b");
    }

    #[test]
    fn type_names() {
        assert_eq!(type_name("JSONRPCMessage"), "JSONRPCMessage");
        assert_eq!(type_name("io.example/thing"), "IoExampleThing");
        assert_eq!(type_name("self"), "Self_");
        assert_eq!(type_name("3d"), "T3d");
        assert_eq!(type_name("Ærø"), "r");
        assert_eq!(type_name("🦀"), "Type");
    }

    #[test]
    fn words_split_acronyms() {
        assert_eq!(words("JSONRPCRequest"), ["JSONRPC", "Request"]);
        assert_eq!(
            words("ElicitRequestURLParams"),
            ["Elicit", "Request", "URL", "Params"]
        );
        assert_eq!(words("Result"), ["Result"]);
    }

    #[test]
    fn common_words_are_stripped() {
        let names = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            strip_common(&names(&["CallToolRequest", "ListToolsRequest"])),
            ["CallTool", "ListTools"]
        );
        assert_eq!(
            strip_common(&names(&["JSONRPCRequest", "JSONRPCNotification"])),
            ["Request", "Notification"]
        );
        assert_eq!(
            strip_common(&names(&["Result", "DiscoverResult"])),
            ["Result", "DiscoverResult"]
        );
        assert_eq!(
            strip_common(&names(&["TextContent", "ResourceLink"])),
            ["TextContent", "ResourceLink"]
        );
    }
}
