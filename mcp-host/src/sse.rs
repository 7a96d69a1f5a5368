//! An incremental reader of `text/event-stream` bodies: bytes in, each
//! complete event out, as its `data` ([`SseReader::push`]) or with its
//! `event` type too ([`SseReader::push_events`], which the HTTP+SSE
//! transport of 2024-11-05 needs for its `endpoint` event). Comment lines
//! are skipped. The reader also keeps what a client needs to resume a broken
//! stream in the legacy era: the id of the last event it completed and the
//! reconnection delay the server asked for. The modern era has neither.

use std::time::Duration;

/// Reads server-sent events from chunks of bytes.
#[derive(Debug, Default)]
pub struct SseReader {
    buffer: Vec<u8>,
    data: Vec<String>,
    /// The `event` field of the event being read.
    kind: String,
    /// Bytes accepted for the event being read, against runaway events.
    pending: usize,
    limit: Option<usize>,
    /// The `id` field seen last, which becomes the last event id once its
    /// event is complete.
    id_buffer: String,
    last_event_id: String,
    retry: Option<Duration>,
}

/// One complete event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// Its `event` field; `message` when it had none.
    pub kind: String,
    /// Its data lines, joined by newlines.
    pub data: String,
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
        let events = self.push_events(chunk)?;
        Ok(events.into_iter().map(|e| e.data).collect())
    }

    /// Adds bytes; returns every event they complete, with its type.
    ///
    /// # Errors
    ///
    /// [`EventTooLarge`] when one event exceeds the limit.
    pub fn push_events(&mut self, chunk: &[u8]) -> Result<Vec<Event>, EventTooLarge> {
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

    /// The id of the last complete event that named one (events without an
    /// `id` field keep the previous id), to send as `Last-Event-ID` when
    /// resuming. `None` when no event had an id, or the last id was empty.
    pub fn last_event_id(&self) -> Option<&str> {
        Some(self.last_event_id.as_str()).filter(|id| !id.is_empty())
    }

    /// How long the server asked the client to wait before reconnecting,
    /// from the last valid `retry` field.
    pub fn retry(&self) -> Option<Duration> {
        self.retry
    }

    /// Ends the stream: an event not closed by a blank line still counts.
    pub fn finish(&mut self) -> Option<String> {
        let rest = std::mem::take(&mut self.buffer);
        let mut events = Vec::new();
        if !rest.is_empty() {
            self.line(&rest, &mut events);
        }
        self.line(b"", &mut events);
        events.pop().map(|e| e.data)
    }

    fn line(&mut self, line: &[u8], events: &mut Vec<Event>) {
        if line.is_empty() {
            self.last_event_id.clone_from(&self.id_buffer);
            // An event whose data is empty (a priming event that carries
            // only an id) is not delivered.
            let data = std::mem::take(&mut self.data).join("\n");
            let kind = std::mem::take(&mut self.kind);
            if !data.is_empty() {
                let kind = if kind.is_empty() {
                    String::from("message")
                } else {
                    kind
                };
                events.push(Event { kind, data });
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
        match field {
            "data" => self.data.push(value.to_owned()),
            "event" => value.clone_into(&mut self.kind),
            "id" if !value.contains('\0') => value.clone_into(&mut self.id_buffer),
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                if let Ok(ms) = value.parse() {
                    self.retry = Some(Duration::from_millis(ms));
                }
            }
            _ => {}
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
    fn ids_and_retry_are_kept_for_resumption() {
        let mut reader = SseReader::default();
        assert_eq!(reader.last_event_id(), None);
        // A priming event: an id and a delay, no data to deliver.
        let events = reader.push(b"id: s-1\nretry: 500\ndata: \n\n").expect("ok");
        assert!(events.is_empty());
        assert_eq!(reader.last_event_id(), Some("s-1"));
        assert_eq!(reader.retry(), Some(Duration::from_millis(500)));
        // An id counts once its event is complete.
        assert_eq!(
            reader.push(b"id: s-2\ndata: x").expect("ok"),
            Vec::<String>::new()
        );
        assert_eq!(reader.last_event_id(), Some("s-1"));
        assert_eq!(reader.push(b"\n\n").expect("ok"), vec!["x"]);
        assert_eq!(reader.last_event_id(), Some("s-2"));
        // Events without an id keep the last one; bad delays are ignored.
        reader.push(b"retry: soon\ndata: y\n\n").expect("ok");
        assert_eq!(reader.last_event_id(), Some("s-2"));
        assert_eq!(reader.retry(), Some(Duration::from_millis(500)));
        // An empty id clears it; an id with NUL is ignored.
        reader.push(b"id\ndata: z\n\n").expect("ok");
        assert_eq!(reader.last_event_id(), None);
        reader.push(b"id: a\0b\ndata: z\n\n").expect("ok");
        assert_eq!(reader.last_event_id(), None);
    }

    #[test]
    fn events_keep_their_type() {
        let mut reader = SseReader::default();
        let events = reader
            .push_events(b"event: endpoint\ndata: /messages/?session_id=1\n\ndata: {}\n\n")
            .expect("ok");
        let kinds: Vec<&str> = events.iter().map(|e| e.kind.as_str()).collect();
        assert_eq!(kinds, ["endpoint", "message"]);
        assert_eq!(events[0].data, "/messages/?session_id=1");
        // The type belongs to one event only.
        let events = reader.push_events(b"event: x\n\ndata: y\n\n").expect("ok");
        assert_eq!(events[0].kind, "message");
    }

    #[test]
    fn runaway_events_are_refused() {
        let mut reader = SseReader::with_limit(16);
        assert!(reader.push(b"data: 0123456789abcdef").is_err());
    }
}
