//! Runs: a hit extended to its whole length, and what shape it has.

use super::index::SCHEMES;
use super::{FragmentKind, FRAGMENT_SHOWN, MIN_RUN, PHRASE_RUN};

/// Extends the 8-byte match of `leaf[place..]` and `text[start..]` both
/// ways; returns the leaf's range, on character boundaries, and how far
/// the match reaches past `start`.
pub(super) fn extend(
    leaf: &[u8],
    place: usize,
    text: &[u8],
    start: usize,
) -> (usize, usize, usize) {
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
pub(super) fn shape(leaf: &str, from: usize, to: usize) -> Option<FragmentKind> {
    let run = leaf.get(from..to)?;
    let noise: usize = SCHEMES
        .iter()
        .map(|s| run.matches(s).count() * s.len())
        .sum();
    let bare = run.len().saturating_sub(noise);
    if bare < MIN_RUN {
        return None;
    }
    let after = |mark: &str| {
        run.split_once(mark)
            .is_some_and(|(_, a)| a.len() >= MIN_RUN)
    };
    if after("://") || after("www.") {
        return Some(FragmentKind::Url);
    }
    let words = || {
        run.split(' ').map(|w| {
            let w = SCHEMES
                .iter()
                .fold(w, |w, s| w.strip_prefix(s).unwrap_or(w));
            w.trim_matches(|c: char| !c.is_alphanumeric())
        })
    };
    let email = |w: &str| {
        w.split_once('@')
            .is_some_and(|(user, host)| !user.is_empty() && host.contains('.'))
    };
    if words().any(email) {
        return Some(FragmentKind::Email);
    }
    if words().any(|w| w.len() >= MIN_RUN && !w.chars().all(char::is_alphabetic)) {
        return Some(FragmentKind::Token);
    }
    (bare >= PHRASE_RUN).then_some(FragmentKind::Phrase)
}

/// `text` cut to [`FRAGMENT_SHOWN`] bytes on a character boundary.
pub(super) fn shown(text: &str) -> String {
    if text.len() <= FRAGMENT_SHOWN {
        return text.to_owned();
    }
    let mut end = FRAGMENT_SHOWN;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        let rows = [
            ("https://evil.example/x", Some(FragmentKind::Url)),
            ("see https://", None),
            ("www.example.org", Some(FragmentKind::Url)),
            ("bob@evil.example", Some(FragmentKind::Email)),
            ("ab12cd34ef", Some(FragmentKind::Token)),
            ("instructions,", None),
            ("password", None),
            (
                "ignore all previous instructions",
                Some(FragmentKind::Phrase),
            ),
            ("short", None),
        ];
        for (run, expected) in rows {
            assert_eq!(shape(run, 0, run.len()), expected, "{run}");
        }
    }
}
