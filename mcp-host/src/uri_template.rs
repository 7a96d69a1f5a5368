//! Whether a URI could come from a resource template (RFC 6570), to find
//! the server that serves a URI nobody listed.
//!
//! Matching is deliberately loose and always linear: each expression
//! `{..}` stands for one or more characters, with no `/`, `?` or `#` among
//! them unless its operator is `+` or `#` (reserved expansion), and zero
//! or more for the query operators `?` and `&`. Literal text must match
//! exactly. A template or URI over [`MAX_LEN`] characters matches nothing.

/// Longest template or URI compared, in characters.
pub(crate) const MAX_LEN: usize = 8192;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    Char(char),
    /// An expression: whether it may span `/`, `?` and `#`, and whether
    /// it may be empty.
    Expression {
        reserved: bool,
        optional: bool,
    },
}

fn tokens(template: &str) -> Option<Vec<Token>> {
    let mut tokens = Vec::new();
    let mut chars = template.chars();
    while let Some(c) = chars.next() {
        if c != '{' {
            tokens.push(Token::Char(c));
            continue;
        }
        let body: String = chars.by_ref().take_while(|c| *c != '}').collect();
        let operator = body.chars().next()?;
        tokens.push(Token::Expression {
            reserved: matches!(operator, '+' | '#' | '?' | '&'),
            optional: matches!(operator, '?' | '&'),
        });
    }
    Some(tokens)
}

/// Whether `uri` is one of the URIs `template` can expand to, as loosely
/// as the module says.
pub(crate) fn matches(template: &str, uri: &str) -> bool {
    if template.chars().count() > MAX_LEN || uri.chars().count() > MAX_LEN {
        return false;
    }
    let Some(tokens) = tokens(template) else {
        return false;
    };
    // The states of a Thompson simulation: `2 * i` is "before token i",
    // `2 * i + 1` is "inside expression i, one character or more in".
    let mut states = vec![false; 2 * tokens.len() + 2];
    let close = |states: &mut Vec<bool>| {
        for i in 0..tokens.len() {
            let inside = states[2 * i + 1];
            let skippable = matches!(tokens[i], Token::Expression { optional: true, .. });
            if inside || (states[2 * i] && skippable) {
                states[2 * i + 2] = true;
            }
        }
    };
    states[0] = true;
    close(&mut states);
    for c in uri.chars() {
        let mut next = vec![false; states.len()];
        for (i, token) in tokens.iter().enumerate() {
            match *token {
                Token::Char(expected) if states[2 * i] && expected == c => next[2 * i + 2] = true,
                Token::Expression { reserved, .. }
                    if (states[2 * i] || states[2 * i + 1])
                        && (reserved || !matches!(c, '/' | '?' | '#')) =>
                {
                    next[2 * i + 1] = true;
                }
                _ => {}
            }
        }
        close(&mut next);
        states = next;
        if !states.contains(&true) {
            return false;
        }
    }
    states[2 * tokens.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple_expressions_stay_within_a_segment() {
        assert!(matches(
            "test://template/{id}/data",
            "test://template/7/data"
        ));
        assert!(matches("notes://{handle}", "notes://note_abc"));
        assert!(!matches("notes://{handle}", "notes://"));
        assert!(!matches(
            "test://template/{id}/data",
            "test://template/a/b/data"
        ));
        assert!(!matches(
            "test://template/{id}/data",
            "test://template/7/datum"
        ));
        assert!(matches("file:///{dir}/{name}.txt", "file:///tmp/a.b.txt"));
    }

    #[test]
    fn reserved_and_query_expressions() {
        assert!(matches("file://{+path}", "file://a/b/c"));
        assert!(matches("search://q{?term,page}", "search://q"));
        assert!(matches(
            "search://q{?term,page}",
            "search://q?term=x&page=2"
        ));
        assert!(!matches("search://q{?term}", "search://r"));
    }

    #[test]
    fn literal_templates_and_bad_ones() {
        assert!(matches("test://static-text", "test://static-text"));
        assert!(!matches("test://static-text", "test://static-tex"));
        assert!(!matches("test://{}", "test://x"));
        assert!(!matches(&"{a}".repeat(MAX_LEN), "x"));
        // Many expressions in a row against a long URI stay linear.
        let template = "{a}".repeat(200) + "!";
        assert!(!matches(&template, &"x".repeat(4000)));
    }
}
