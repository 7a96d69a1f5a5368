//! Sans-IO decoding of streaming turns: bytes of a `text/event-stream`
//! body in, [`StreamEvent`]s out, and at the end the same [`Response`] the
//! non-streaming decode of the same content gives.
//!
//! Both paths build the response with one [`Assembler`], so the two
//! cannot drift apart, and both are held to the same [`Limits`].
//!
//! Events are split by [`mcp_host::sse::SseReader`], the host's own
//! incremental reader (bounded per event, tested against chunking at any
//! byte): the providers send plain `data:` events, and Anthropic's
//! `event:` names repeat the `type` its data carries, so nothing is lost
//! by reading data alone.
//!
//! ```
//! use mcp_agent::provider::{Provider, StreamEvent};
//!
//! let mut decoder = Provider::OpenAi.stream_decoder(Default::default());
//! let events = decoder
//!     .push(b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n")
//!     .expect("valid");
//! assert_eq!(events, vec![StreamEvent::TextDelta("Hi".into())]);
//! decoder
//!     .push(b"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
//!     .expect("valid");
//! assert_eq!(decoder.finish().expect("complete").text, "Hi");
//! ```

use mcp_host::sse::SseReader;
use serde_json::Value;

use super::{
    anthropic, bounded, error_message, gemini, openai, Arguments, DecodeError, FinishReason,
    Limits, Provider, Response, StreamEvent, ToolCall, Usage,
};

/// Builds a [`Response`] piece by piece, within [`Limits`], and records
/// the [`StreamEvent`] each piece makes.
#[derive(Debug)]
pub struct Assembler {
    limits: Limits,
    text: String,
    calls: Vec<PartialCall>,
    finish: Option<FinishReason>,
    usage: Usage,
    events: Vec<StreamEvent>,
}

#[derive(Debug)]
struct PartialCall {
    id: String,
    name: String,
    arguments: String,
    signature: Option<String>,
}

impl Assembler {
    /// An empty response, held to `limits`.
    pub fn new(limits: Limits) -> Self {
        Self {
            limits,
            text: String::new(),
            calls: Vec::new(),
            finish: None,
            usage: Usage::default(),
            events: Vec::new(),
        }
    }

    /// Appends text.
    ///
    /// # Errors
    ///
    /// [`DecodeError::TooLarge`] past [`Limits::max_text_bytes`].
    pub fn text(&mut self, delta: &str) -> Result<(), DecodeError> {
        if delta.is_empty() {
            return Ok(());
        }
        if self.text.len() + delta.len() > self.limits.max_text_bytes {
            return Err(DecodeError::TooLarge {
                what: "text",
                limit: self.limits.max_text_bytes,
            });
        }
        self.text.push_str(delta);
        self.events.push(StreamEvent::TextDelta(delta.to_owned()));
        Ok(())
    }

    /// Starts a tool call; returns its index.
    ///
    /// # Errors
    ///
    /// [`DecodeError::TooLarge`] past [`Limits::max_tool_calls`], or when
    /// the id or name exceed [`Limits::max_argument_bytes`].
    pub fn start_call(
        &mut self,
        id: &str,
        name: &str,
        signature: Option<&str>,
    ) -> Result<usize, DecodeError> {
        if self.calls.len() >= self.limits.max_tool_calls {
            return Err(DecodeError::TooLarge {
                what: "tool calls",
                limit: self.limits.max_tool_calls,
            });
        }
        let longest = id.len().max(name.len()) + signature.map_or(0, str::len);
        if longest > self.limits.max_argument_bytes {
            return Err(DecodeError::TooLarge {
                what: "a tool call's id, name or signature",
                limit: self.limits.max_argument_bytes,
            });
        }
        let index = self.calls.len();
        self.calls.push(PartialCall {
            id: id.to_owned(),
            name: name.to_owned(),
            arguments: String::new(),
            signature: signature.map(str::to_owned),
        });
        self.events.push(StreamEvent::ToolCallStarted {
            index,
            id: id.to_owned(),
            name: name.to_owned(),
        });
        Ok(index)
    }

    /// Appends to the arguments of call `index`.
    ///
    /// # Errors
    ///
    /// [`DecodeError::Sequence`] for a call never started,
    /// [`DecodeError::TooLarge`] past [`Limits::max_argument_bytes`].
    pub fn arguments(&mut self, index: usize, delta: &str) -> Result<(), DecodeError> {
        let limit = self.limits.max_argument_bytes;
        let call = self
            .calls
            .get_mut(index)
            .ok_or_else(|| DecodeError::Sequence {
                detail: format!("arguments for tool call {index}, which never started"),
            })?;
        if delta.is_empty() {
            return Ok(());
        }
        if call.arguments.len() + delta.len() > limit {
            return Err(DecodeError::TooLarge {
                what: "a tool call's arguments",
                limit,
            });
        }
        call.arguments.push_str(delta);
        self.events.push(StreamEvent::ToolCallArgumentsDelta {
            index,
            delta: delta.to_owned(),
        });
        Ok(())
    }

    /// Records the token counts so far.
    pub fn usage(&mut self, usage: Usage) {
        self.usage = usage;
        self.events.push(StreamEvent::Usage(usage));
    }

    /// Records why the model stopped ("stop" with tool calls read as
    /// [`FinishReason::ToolCalls`]).
    pub fn finish(&mut self, reason: FinishReason) {
        let reason = match reason {
            FinishReason::Stop if !self.calls.is_empty() => FinishReason::ToolCalls,
            reason => reason,
        };
        self.finish = Some(reason.clone());
        self.events.push(StreamEvent::Finished(reason));
    }

    /// How many tool calls have started.
    pub fn call_count(&self) -> usize {
        self.calls.len()
    }

    /// Whether a finish reason was recorded.
    pub fn finished(&self) -> bool {
        self.finish.is_some()
    }

    /// The events recorded since the last call.
    pub fn take_events(&mut self) -> Vec<StreamEvent> {
        std::mem::take(&mut self.events)
    }

    /// The response, its arguments parsed.
    pub fn into_response(self) -> Response {
        let tool_calls: Vec<ToolCall> = self
            .calls
            .into_iter()
            .map(|call| ToolCall {
                arguments: Arguments::parse(&call.arguments),
                id: call.id,
                name: call.name,
                signature: call.signature,
            })
            .collect();
        Response {
            text: self.text,
            tool_calls,
            finish: self.finish.unwrap_or(FinishReason::Unknown),
            usage: self.usage,
        }
    }
}

/// The per-provider bookkeeping of a stream.
#[derive(Debug)]
enum State {
    OpenAi(openai::StreamState),
    Anthropic(anthropic::StreamState),
    Gemini,
}

/// Decodes one provider's event stream.
///
/// Call contract: feed the body's bytes to [`push`](Self::push) in the
/// order they arrive, in chunks of any size, and hand each returned event
/// to the caller; when the body ends call [`finish`](Self::finish). An
/// error from `push` ends the stream: later calls are refused.
#[derive(Debug)]
pub struct StreamDecoder {
    provider: Provider,
    reader: SseReader,
    state: State,
    assembler: Assembler,
    done: bool,
    failed: bool,
}

impl StreamDecoder {
    /// A decoder for `provider`'s stream within `limits`.
    pub fn new(provider: Provider, limits: Limits) -> Self {
        let state = match provider {
            Provider::OpenAi => State::OpenAi(openai::StreamState::default()),
            Provider::Anthropic => State::Anthropic(anthropic::StreamState::default()),
            Provider::Gemini => State::Gemini,
        };
        Self {
            provider,
            reader: SseReader::with_limit(limits.max_event_bytes),
            state,
            assembler: Assembler::new(limits),
            done: false,
            failed: false,
        }
    }

    /// Adds bytes of the body; returns the events they complete.
    ///
    /// # Errors
    ///
    /// [`DecodeError`] for an event that is not JSON or not the
    /// provider's, an error event, an event past the end, or anything
    /// past [`Limits`].
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<StreamEvent>, DecodeError> {
        self.guard()?;
        match self.reader.push(bytes) {
            Ok(data) => self.events(data),
            Err(too_large) => Err(self.fail(too_large.0)),
        }
    }

    /// Decodes the data of one event (for callers that split events
    /// themselves).
    ///
    /// # Errors
    ///
    /// As [`push`](Self::push).
    pub fn push_event(&mut self, data: &str) -> Result<Vec<StreamEvent>, DecodeError> {
        self.guard()?;
        self.events(vec![data.to_owned()])
    }

    /// Whether the provider said the stream is complete.
    pub fn is_complete(&self) -> bool {
        self.done
    }

    /// Ends the stream and returns the assembled response.
    ///
    /// # Errors
    ///
    /// [`DecodeError::Sequence`] when the provider had not completed the
    /// stream (it was cut), or an error from the last unterminated event.
    pub fn finish(mut self) -> Result<Response, DecodeError> {
        self.guard()?;
        if let Some(last) = self.reader.finish() {
            self.events(vec![last])?;
        }
        if !self.done {
            return Err(DecodeError::Sequence {
                detail: format!(
                    "the {} stream ended before the provider completed it",
                    self.provider.name()
                ),
            });
        }
        Ok(self.assembler.into_response())
    }

    fn guard(&self) -> Result<(), DecodeError> {
        if self.failed {
            return Err(DecodeError::Sequence {
                detail: "the stream already failed".to_owned(),
            });
        }
        Ok(())
    }

    fn fail(&mut self, limit: usize) -> DecodeError {
        self.failed = true;
        DecodeError::TooLarge {
            what: "one event of the stream",
            limit,
        }
    }

    fn events(&mut self, data: Vec<String>) -> Result<Vec<StreamEvent>, DecodeError> {
        for data in data {
            if let Err(e) = self.event(&data) {
                self.failed = true;
                return Err(e);
            }
        }
        Ok(self.assembler.take_events())
    }

    fn event(&mut self, data: &str) -> Result<(), DecodeError> {
        // The reader bounds an event that arrives in pieces; one that
        // arrives whole in a large chunk is bounded here.
        let limit = self.assembler.limits.max_event_bytes;
        if data.len() > limit {
            return Err(DecodeError::TooLarge {
                what: "one event of the stream",
                limit,
            });
        }
        // Gemini has no closing event, so a chunk after the one with the
        // finish reason is taken as it comes rather than failing a turn.
        if self.done && self.provider != Provider::Gemini {
            return Err(DecodeError::Sequence {
                detail: "an event after the end of the stream".to_owned(),
            });
        }
        if data.trim() == "[DONE]" {
            if self.provider == Provider::OpenAi {
                self.done = true;
                return Ok(());
            }
            return Err(DecodeError::Shape {
                detail: "[DONE] is not an event of this provider".to_owned(),
            });
        }
        let value: Value = serde_json::from_str(data).map_err(|e| DecodeError::Json {
            detail: bounded(&e.to_string()),
        })?;
        if let Some(message) = error_message(&value) {
            return Err(DecodeError::Provider { message });
        }
        let asm = &mut self.assembler;
        match &mut self.state {
            State::OpenAi(state) => openai::chunk(&value, state, asm),
            State::Anthropic(state) => {
                self.done = anthropic::event(&value, state, asm)?;
                Ok(())
            }
            State::Gemini => {
                gemini::chunk(&value, asm)?;
                // Gemini has no closing event: the chunk with a finish
                // reason is the last.
                self.done = asm.finished();
                Ok(())
            }
        }
    }
}

/// A JSON object's field as `u64`, 0 when absent or not a count.
pub(crate) fn count(value: &Value, key: &str) -> u64 {
    value.get(key).and_then(Value::as_u64).unwrap_or(0)
}

/// A JSON object's field as `&str`.
pub(crate) fn str_field<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

/// A shape error.
pub(crate) fn shape(detail: &str) -> DecodeError {
    DecodeError::Shape {
        detail: detail.to_owned(),
    }
}

/// A JSON object's field as an array: empty when absent or null.
pub(crate) fn array<'a>(value: &'a Value, key: &str) -> Result<&'a [Value], DecodeError> {
    match value.get(key) {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(items)) => Ok(items),
        Some(_) => Err(DecodeError::Shape {
            detail: format!("`{key}` is not an array"),
        }),
    }
}
