//! Cutting input into lines under the size limit, without I/O: a driver
//! hands [`Lines`] whatever its reader has buffered.

use std::borrow::Cow;

/// One line of input, cut by [`Lines`].
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Line<'a> {
    /// A whole line, with its newline (none on a last line without one):
    /// borrowed from the buffer it was found in whole, which is most lines.
    Message(Cow<'a, [u8]>),
    /// A line longer than the limit; its bytes were skipped, not kept.
    TooLong,
    /// The end of input.
    Eof,
}

/// Cuts input into lines of at most `limit` bytes before the newline. A
/// longer line is skipped to its end and reported, never buffered whole.
#[derive(Debug)]
pub(super) struct Lines {
    limit: usize,
    line: Vec<u8>,
    skipping: bool,
}

impl Lines {
    pub(super) fn new(limit: usize) -> Self {
        Lines {
            limit,
            line: Vec::new(),
            skipping: false,
        }
    }

    /// Takes bytes from `buffer`, which is empty at the end of input.
    /// Returns how many bytes were used and the line they completed, if
    /// any; the caller consumes that many bytes and calls again.
    pub(super) fn feed<'a>(&mut self, buffer: &'a [u8]) -> (usize, Option<Line<'a>>) {
        if buffer.is_empty() {
            let line = if std::mem::take(&mut self.skipping) {
                Line::TooLong
            } else if self.line.is_empty() {
                Line::Eof
            } else {
                Line::Message(Cow::Owned(std::mem::take(&mut self.line)))
            };
            return (0, Some(line));
        }
        let Some(end) = memchr::memchr(b'\n', buffer) else {
            if !self.skipping {
                self.line.extend_from_slice(buffer);
                if self.line.len() > self.limit {
                    self.line = Vec::new();
                    self.skipping = true;
                }
            }
            return (buffer.len(), None);
        };
        if std::mem::take(&mut self.skipping) || self.line.len() + end > self.limit {
            self.line.clear();
            return (end + 1, Some(Line::TooLong));
        }
        if self.line.is_empty() {
            return (end + 1, Some(Line::Message(Cow::Borrowed(&buffer[..=end]))));
        }
        let mut line = std::mem::take(&mut self.line);
        line.extend_from_slice(&buffer[..=end]);
        (end + 1, Some(Line::Message(Cow::Owned(line))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lines cut from `chunks` handed over one by one, up to the end.
    fn cut<'a>(chunks: &[&'a [u8]], limit: usize) -> Vec<Line<'a>> {
        let mut lines = Lines::new(limit);
        let mut out = Vec::new();
        for chunk in chunks {
            let mut rest = *chunk;
            while !rest.is_empty() {
                let (used, line) = lines.feed(rest);
                rest = &rest[used..];
                out.extend(line);
            }
        }
        loop {
            let (_, line) = lines.feed(b"");
            match line {
                Some(Line::Eof) | None => return out,
                Some(line) => out.push(line),
            }
        }
    }

    fn message(text: &str) -> Line<'_> {
        Line::Message(Cow::Borrowed(text.as_bytes()))
    }

    #[test]
    fn lines_are_cut_at_newlines_across_chunks() {
        assert_eq!(
            cut(&[b"ab\ncd", b"e\nf"], 10),
            [message("ab\n"), message("cde\n"), message("f")]
        );
    }

    #[test]
    fn long_lines_are_skipped_and_reported() {
        assert_eq!(
            cut(&[b"abcd\nxy\n"], 4),
            [message("abcd\n"), message("xy\n")]
        );
        assert_eq!(cut(&[b"abcde\nxy\n"], 4), [Line::TooLong, message("xy\n")]);
        assert_eq!(
            cut(&[b"abc", b"de", b"fg\nxy\n"], 4),
            [Line::TooLong, message("xy\n")]
        );
        assert_eq!(cut(&[b"abcdef"], 4), [Line::TooLong]);
    }
}
