//! OAuth scopes: the syntax of one scope token, and the hierarchy under
//! which a broad scope stands for narrower ones.

use std::collections::BTreeSet;

/// The scope that asks an authorization server for a refresh token. It
/// grants nothing at a resource server, so it is never challenged for nor
/// advertised.
pub(crate) const OFFLINE_ACCESS: &str = "offline_access";

/// Whether `scope` is one scope token of
/// [RFC 6749, section 3.3](https://datatracker.ietf.org/doc/html/rfc6749#section-3.3):
/// non-empty printable ASCII without space, `"` or `\`.
pub fn is_scope_token(scope: &str) -> bool {
    !scope.is_empty()
        && scope
            .bytes()
            .all(|b| matches!(b, 0x21 | 0x23..=0x5b | 0x5d..=0x7e))
}

/// Which scopes imply which others: a token granted `notes:write` may also
/// do what `notes:read` allows when `notes:write` implies `notes:read`.
/// Implication is transitive; cycles are harmless.
#[derive(Clone, Debug, Default)]
pub(crate) struct ScopeRules {
    /// `(broad, narrower)` pairs, sorted.
    implies: Vec<(String, String)>,
}

impl ScopeRules {
    /// Records that `broad` implies each of `narrower`.
    pub(crate) fn add(&mut self, broad: &str, narrower: &[String]) {
        for scope in narrower {
            let pair = (broad.to_owned(), scope.clone());
            if let Err(at) = self.implies.binary_search(&pair) {
                self.implies.insert(at, pair);
            }
        }
    }

    /// Every scope in `granted` together with every scope they imply,
    /// sorted and without repeats.
    pub(crate) fn expand<'a>(&self, granted: impl IntoIterator<Item = &'a str>) -> Vec<String> {
        let mut all: BTreeSet<String> = granted.into_iter().map(str::to_owned).collect();
        let mut pending: Vec<String> = all.iter().cloned().collect();
        while let Some(scope) = pending.pop() {
            let start = self.implies.partition_point(|(broad, _)| *broad < scope);
            for (_, narrower) in self.implies[start..]
                .iter()
                .take_while(|(broad, _)| *broad == scope)
            {
                if all.insert(narrower.clone()) {
                    pending.push(narrower.clone());
                }
            }
        }
        all.into_iter().collect()
    }
}

/// Joins scopes with single spaces, as the `scope` parameter and claim
/// spell them, without repeats and keeping the first order.
pub(crate) fn join<'a>(scopes: impl IntoIterator<Item = &'a str>) -> String {
    let mut out = String::new();
    let mut seen: Vec<&str> = Vec::new();
    for scope in scopes {
        if seen.contains(&scope) {
            continue;
        }
        seen.push(scope);
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(scope);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scope_token_syntax() {
        let table = [
            ("notes:read", true),
            ("https://api.example.com/notes.write", true),
            ("!#[]~", true),
            ("", false),
            ("notes read", false),
            ("say\"hi\"", false),
            ("back\\slash", false),
            ("tab\t", false),
            ("café", false),
            ("\u{7f}", false),
        ];
        for (scope, valid) in table {
            assert_eq!(is_scope_token(scope), valid, "{scope:?}");
        }
    }

    #[test]
    fn implication_is_transitive_and_survives_cycles() {
        let mut rules = ScopeRules::default();
        rules.add("admin", &["notes:write".to_owned()]);
        rules.add("notes:write", &["notes:read".to_owned()]);
        rules.add("notes:read", &["admin".to_owned(), "profile".to_owned()]);
        assert_eq!(
            rules.expand(["notes:write"]),
            ["admin", "notes:read", "notes:write", "profile"]
        );
        let plain = ScopeRules::default();
        assert_eq!(plain.expand(["b", "a", "b"]), ["a", "b"]);
        assert!(plain.expand([]).is_empty());
    }

    #[test]
    fn join_keeps_order_and_drops_repeats() {
        assert_eq!(join(["b", "a", "b", "c"]), "b a c");
        assert_eq!(join([]), "");
    }
}
