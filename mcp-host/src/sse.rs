//! An incremental reader of `text/event-stream` bodies: bytes in, the
//! `data` of each complete event out. Comment lines, `event`, `id` and
//! `retry` fields are skipped; the protocol has no use for them.

/// Reads server-sent events from chunks of bytes.
#[derive(Debug, Default)]
pub struct SseReader {
    buffer: Vec<u8>,
    data: Vec<String>,
    /// Bytes accepted for the event being read, against runaway events.
    pending: usize,
    limit: Option<usize>,
}

/// An event grew past the reader's limit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("an event of the stream exceeds {0} bytes")]
pub struct EventTooLarge(pub usize);

impl SseReader {
    /// A reader that refuses events larger than `limit` bytes.
    pub fn with_limit(limit: usize) -> Self {
        Self {
            limit: Some(limit),
            ..Self::default()
        }
    }

    /// Adds bytes; returns the data of every event they complete.
    ///
    /// # Errors
    ///
    /// [`EventTooLarge`] when one event exceeds the limit.
    pub fn push(&mut self, chunk: &[u8]) -> Result<Vec<String>, EventTooLarge> {
        self.buffer.extend_from_slice(chunk);
        self.pending += chunk.len();
        let mut events = Vec::new();
        while let Some(end) = self.buffer.iter().position(|b| *b == b'\n') {
            let mut line: Vec<u8> = self.buffer.drain(..=end).collect();
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            self.line(&line, &mut events);
        }
        if let Some(limit) = self.limit {
            if self.pending > limit {
                return Err(EventTooLarge(limit));
            }
        }
        Ok(events)
    }

    /// Ends the stream: an event not closed by a blank line still counts.
    pub fn finish(&mut self) -> Option<String> {
        let rest = std::mem::take(&mut self.buffer);
        let mut events = Vec::new();
        if !rest.is_empty() {
            self.line(&rest, &mut events);
        }
        self.line(b"", &mut events);
        events.pop()
    }

    fn line(&mut self, line: &[u8], events: &mut Vec<String>) {
        if line.is_empty() {
            if !self.data.is_empty() {
                events.push(self.data.join("\n"));
                self.data.clear();
            }
            self.pending = self.buffer.len();
            return;
        }
        if line.starts_with(b":") {
            return;
        }
        let line = String::from_utf8_lossy(line);
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (&*line, ""),
        };
        if field == "data" {
            self.data.push(value.to_owned());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_across_chunks() {
        let mut reader = SseReader::default();
        assert!(reader
            .push(b": keep-alive\n\ndata: {\"a\"")
            .expect("ok")
            .is_empty());
        let events = reader
            .push(b":1}\r\n\r\nevent: message\ndata: x\n")
            .expect("ok");
        assert_eq!(events, vec!["{\"a\":1}"]);
        assert_eq!(reader.push(b"\n").expect("ok"), vec!["x"]);
    }

    #[test]
    fn multi_line_data_and_unterminated_end() {
        let mut reader = SseReader::default();
        let events = reader
            .push(b"data: one\ndata:two\nid: 4\n\ndata: last")
            .expect("ok");
        assert_eq!(events, vec!["one\ntwo"]);
        assert_eq!(reader.finish(), Some("last".to_owned()));
        assert_eq!(reader.finish(), None);
    }

    #[test]
    fn runaway_events_are_refused() {
        let mut reader = SseReader::with_limit(16);
        assert!(reader.push(b"data: 0123456789abcdef").is_err());
    }
}
