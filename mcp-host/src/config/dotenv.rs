//! The text of an `envFile`, sans-IO: `KEY=VALUE` lines, with blank
//! lines and `#` comments, an optional `export ` before the key, and the
//! value bare, in single quotes (taken as written) or in double quotes
//! (where `\n`, `\r`, `\t`, `\"` and `\\` are escapes). A bare value ends
//! at a `#` that follows a space. Values are not expanded.
//!
//! A line that cannot be read is an error carrying its number and what is
//! wrong, never its text: the file holds secrets.

/// Why a line of an `envFile` cannot be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {why}")]
pub struct DotenvError {
    /// The line's number, from 1.
    pub line: usize,
    /// What is wrong with it.
    pub why: Malformed,
}

/// What is wrong with a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Malformed {
    /// No `=`.
    #[error("expected `KEY=VALUE`")]
    NoEquals,
    /// The key is empty, or not letters, digits and `_` after a letter or `_`.
    #[error("the key is not a variable name")]
    BadKey,
    /// A quoted value without its closing quote on the line.
    #[error("a quoted value without its closing quote")]
    Unclosed,
    /// Something other than a comment after the closing quote.
    #[error("text after the closing quote")]
    TrailingText,
}

/// The variables of `text`, in the order written; a key written twice
/// appears twice, and the later one wins where they are collected.
///
/// # Errors
///
/// [`DotenvError`] for the first line that cannot be read.
pub fn parse(text: &str) -> Result<Vec<(String, String)>, DotenvError> {
    let mut pairs = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let at = |why| DotenvError { line: n + 1, why };
        let line = line.trim_start();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line = line
            .strip_prefix("export")
            .filter(|rest| rest.starts_with([' ', '\t']))
            .unwrap_or(line);
        let (key, value) = line.split_once('=').ok_or(at(Malformed::NoEquals))?;
        let key = key.trim();
        if !is_name(key) {
            return Err(at(Malformed::BadKey));
        }
        pairs.push((key.to_owned(), value_of(value).map_err(at)?));
    }
    Ok(pairs)
}

fn is_name(key: &str) -> bool {
    let mut chars = key.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The value written after `=`.
fn value_of(raw: &str) -> Result<String, Malformed> {
    let text = raw.trim_start();
    let (value, rest) = match text.chars().next() {
        Some('\'') => {
            let end = text[1..].find('\'').ok_or(Malformed::Unclosed)?;
            (text[1..=end].to_owned(), &text[end + 2..])
        }
        Some('"') => double_quoted(&text[1..])?,
        _ => {
            let end = raw
                .char_indices()
                .find(|&(i, c)| c == '#' && raw[..i].ends_with([' ', '\t']))
                .map_or(raw.len(), |(i, _)| i);
            return Ok(raw[..end].trim().to_owned());
        }
    };
    let rest = rest.trim_start();
    if rest.is_empty() || rest.starts_with('#') {
        Ok(value)
    } else {
        Err(Malformed::TrailingText)
    }
}

/// The value up to the closing `"` of `text` (which starts after the
/// opening one), escapes replaced, and what follows the closing quote.
fn double_quoted(text: &str) -> Result<(String, &str), Malformed> {
    let mut value = String::new();
    let mut chars = text.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Ok((value, &text[i + 1..])),
            '\\' => match chars.next().map(|(_, c)| c) {
                Some('n') => value.push('\n'),
                Some('r') => value.push('\r'),
                Some('t') => value.push('\t'),
                Some(c @ ('"' | '\\')) => value.push(c),
                Some(c) => value.extend(['\\', c]),
                None => return Err(Malformed::Unclosed),
            },
            c => value.push(c),
        }
    }
    Err(Malformed::Unclosed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_form_of_line_reads_or_says_why_not() {
        type Pairs = &'static [(&'static str, &'static str)];
        let table: &[(&str, Result<Pairs, DotenvError>)] = &[
            ("", Ok(&[])),
            ("# a comment\n\n   \n  # indented", Ok(&[])),
            ("A=1", Ok(&[("A", "1")])),
            ("A=1\r\nB=2\n", Ok(&[("A", "1"), ("B", "2")])),
            ("  A = spaced out  ", Ok(&[("A", "spaced out")])),
            ("export A=1", Ok(&[("A", "1")])),
            ("export\tA=1", Ok(&[("A", "1")])),
            ("exported=1", Ok(&[("exported", "1")])),
            ("A=", Ok(&[("A", "")])),
            ("A=x=y", Ok(&[("A", "x=y")])),
            ("A=1 # note", Ok(&[("A", "1")])),
            ("A= # only a note", Ok(&[("A", "")])),
            ("A=#1", Ok(&[("A", "#1")])),
            ("A=http://h/#frag", Ok(&[("A", "http://h/#frag")])),
            ("A='single # \\n kept'", Ok(&[("A", "single # \\n kept")])),
            ("A=\"two\\nlines\"", Ok(&[("A", "two\nlines")])),
            (r#"A="say \"hi\" \\ \q""#, Ok(&[("A", r#"say "hi" \ \q"#)])),
            ("A=\"x\"  # note", Ok(&[("A", "x")])),
            ("A='x' ", Ok(&[("A", "x")])),
            ("A=1\nA=2", Ok(&[("A", "1"), ("A", "2")])),
            ("_under_9=ok", Ok(&[("_under_9", "ok")])),
            ("A=1\njust text", Err(at(2, Malformed::NoEquals))),
            ("=x", Err(at(1, Malformed::BadKey))),
            ("9A=x", Err(at(1, Malformed::BadKey))),
            ("MY KEY=x", Err(at(1, Malformed::BadKey))),
            ("export =x", Err(at(1, Malformed::BadKey))),
            ("A=\"open", Err(at(1, Malformed::Unclosed))),
            ("A=\"ends in \\\"", Err(at(1, Malformed::Unclosed))),
            ("A='open", Err(at(1, Malformed::Unclosed))),
            ("\nA=\"x\" y", Err(at(2, Malformed::TrailingText))),
        ];
        for (text, expected) in table {
            let expected = expected.map(|pairs| {
                pairs
                    .iter()
                    .map(|&(k, v)| (k.to_owned(), v.to_owned()))
                    .collect::<Vec<_>>()
            });
            assert_eq!(parse(text), expected, "{text:?}");
        }
    }

    fn at(line: usize, why: Malformed) -> DotenvError {
        DotenvError { line, why }
    }

    #[test]
    fn an_error_never_shows_the_line() {
        let error = parse("TOKEN=\"s3cret").expect_err("unclosed").to_string();
        assert_eq!(error, "line 1: a quoted value without its closing quote");
    }
}
