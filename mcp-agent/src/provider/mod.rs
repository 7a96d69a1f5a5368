//! The wire side of the model: OpenAI Chat Completions (and the servers
//! that speak it: Ollama, vLLM, llama.cpp's server, LM Studio,
//! OpenRouter), Anthropic Messages and Gemini `generateContent`.
//!
//! The types here are provider-neutral: a [`Request`] of [`Message`]s and
//! [`ToolDeclaration`]s goes out, a [`Response`] (or a sequence of
//! [`StreamEvent`]s that assembles into one) comes back. Each provider
//! module ([`openai`], [`anthropic`], [`gemini`]) only maps between these
//! types and the provider's JSON; it decides nothing. [`stream`] holds the
//! sans-IO incremental decoders, [`retry`] the sans-IO backoff, [`key`] the
//! API keys, and [`http`] is the one module that does I/O.
//!
//! ```
//! use mcp_agent::provider::{Message, Provider, Request, ToolChoice};
//!
//! let request = Request {
//!     model: "gpt-4.1-mini".into(),
//!     system: Some("Be brief.".into()),
//!     messages: vec![Message::User { text: "Hello".into() }],
//!     tools: vec![],
//!     tool_choice: ToolChoice::Auto,
//!     max_output_tokens: Some(256),
//!     temperature: None,
//! };
//! let wire = Provider::OpenAi.encode(&request, false).expect("encodes");
//! assert_eq!(wire.path, "/chat/completions");
//! assert_eq!(wire.body["messages"][1]["content"], "Hello");
//!
//! let body = br#"{"choices":[{"index":0,"message":{"role":"assistant","content":"Hi"},
//!   "finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":1}}"#;
//! let response = Provider::OpenAi.decode(body, &Default::default()).expect("decodes");
//! assert_eq!(response.text, "Hi");
//! assert_eq!(response.usage.input_tokens, 9);
//! ```

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub mod anthropic;
pub mod gemini;
pub mod http;
pub mod key;
pub mod openai;
pub mod retry;
pub mod stream;

/// The three wire formats this crate speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Provider {
    /// OpenAI Chat Completions, and every server that speaks it.
    OpenAi,
    /// Anthropic Messages.
    Anthropic,
    /// Google Gemini `generateContent` (the Gemini Developer API).
    Gemini,
}

impl Provider {
    /// The provider's name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Self::OpenAi => "openai",
            Self::Anthropic => "anthropic",
            Self::Gemini => "gemini",
        }
    }

    /// The base URL of the provider's own service, as its official SDKs
    /// take it (OpenAI's ends in `/v1`; the others have the version in
    /// the path).
    pub fn default_base_url(self) -> &'static str {
        match self {
            Self::OpenAi => "https://api.openai.com/v1",
            Self::Anthropic => "https://api.anthropic.com",
            Self::Gemini => "https://generativelanguage.googleapis.com",
        }
    }

    /// The request for `request`, streaming or not.
    ///
    /// # Errors
    ///
    /// [`EncodeError`] when the request cannot be put on this wire (for
    /// Gemini, a model name that cannot stand in a URL path).
    pub fn encode(self, request: &Request, stream: bool) -> Result<WireRequest, EncodeError> {
        match self {
            Self::OpenAi => Ok(openai::encode(request, stream)),
            Self::Anthropic => Ok(anthropic::encode(request, stream)),
            Self::Gemini => gemini::encode(request, stream),
        }
    }

    /// Decodes a whole (non-streaming) response body.
    ///
    /// # Errors
    ///
    /// [`DecodeError`] when the body is not this provider's response, is
    /// an error object, or exceeds `limits`.
    pub fn decode(self, body: &[u8], limits: &Limits) -> Result<Response, DecodeError> {
        let value: Value = serde_json::from_slice(body).map_err(|e| DecodeError::Json {
            detail: bounded(&e.to_string()),
        })?;
        if let Some(message) = error_message(&value) {
            return Err(DecodeError::Provider { message });
        }
        match self {
            Self::OpenAi => openai::decode(&value, limits),
            Self::Anthropic => anthropic::decode(&value, limits),
            Self::Gemini => gemini::decode(&value, limits),
        }
    }

    /// A sans-IO decoder of this provider's event stream.
    pub fn stream_decoder(self, limits: Limits) -> stream::StreamDecoder {
        stream::StreamDecoder::new(self, limits)
    }

    /// How the API key goes in the request.
    pub fn auth(self) -> Auth {
        match self {
            Self::OpenAi => Auth::Bearer,
            Self::Anthropic => Auth::Header("x-api-key"),
            Self::Gemini => Auth::Header("x-goog-api-key"),
        }
    }
}

/// Where the API key goes in a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Auth {
    /// `Authorization: Bearer <key>`.
    Bearer,
    /// The key alone as the value of this header.
    Header(&'static str),
}

/// A request as the provider's wire has it, without the key: the path to
/// append to the base URL, the headers other than the key's, and the JSON
/// body.
#[derive(Debug, Clone, PartialEq)]
pub struct WireRequest {
    /// Path (and query) after the base URL, starting with `/`.
    pub path: String,
    /// Headers besides the key and `content-type`.
    pub headers: Vec<(&'static str, &'static str)>,
    /// The JSON body.
    pub body: Value,
}

/// One turn to the model.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// The model's name as the provider knows it.
    pub model: String,
    /// The system prompt.
    pub system: Option<String>,
    /// The conversation so far, oldest first.
    pub messages: Vec<Message>,
    /// The tools offered, their parameters already lowered for the
    /// provider.
    pub tools: Vec<ToolDeclaration>,
    /// Whether and which tool the model must call. Ignored when `tools`
    /// is empty.
    pub tool_choice: ToolChoice,
    /// A cap on the tokens of the answer. Anthropic requires one; when
    /// `None` its encoder sends [`anthropic::DEFAULT_MAX_TOKENS`].
    pub max_output_tokens: Option<u32>,
    /// Sampling temperature (OpenAI and Gemini; Anthropic's Messages API
    /// no longer takes one, and its encoder leaves it out).
    pub temperature: Option<f64>,
}

/// One message of the conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum Message {
    /// What the user said.
    User {
        /// The text.
        text: String,
    },
    /// What the model answered: text, tool calls, or both.
    Assistant {
        /// The text (empty when the model only called tools).
        text: String,
        /// The tool calls, parallel ones included, in the model's order.
        tool_calls: Vec<ToolCall>,
    },
    /// The results of the tool calls of the previous assistant message,
    /// together (Anthropic and Gemini want them in one turn).
    ToolResults(Vec<ToolResult>),
}

/// A tool call the model made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    /// The provider's id of the call, to key the result by. Gemini may
    /// give none; then the decoder makes one starting with
    /// [`gemini::SYNTHETIC_ID_PREFIX`], which its encoder does not send
    /// back.
    pub id: String,
    /// The tool's name as it was offered to the provider.
    pub name: String,
    /// The arguments.
    pub arguments: Arguments,
    /// An opaque token the provider asks to get back with the call
    /// (Gemini's `thoughtSignature`).
    pub signature: Option<String>,
}

/// The arguments of a tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Arguments {
    /// A JSON object.
    Object(serde_json::Map<String, Value>),
    /// What the model sent was not a JSON object (OpenAI sends the
    /// arguments as a string a weak model can get wrong).
    Invalid(InvalidArguments),
}

/// Tool call arguments that are not a JSON object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InvalidArguments {
    /// The text the model sent, as it sent it (bounded by [`Limits`]).
    pub raw: String,
    /// Why it is not an object.
    pub reason: String,
}

impl InvalidArguments {
    /// A message to send back to the model as the tool's error, so that
    /// it can try again.
    pub fn message(&self) -> String {
        format!(
            "the arguments of this call are not a JSON object ({}); call the tool again with a JSON object as its arguments",
            self.reason
        )
    }
}

impl Arguments {
    /// Parses arguments sent as a JSON string.
    pub fn parse(raw: &str) -> Self {
        let trimmed = raw.trim();
        if trimmed.is_empty() {
            return Self::Object(serde_json::Map::new());
        }
        match serde_json::from_str::<Value>(trimmed) {
            Ok(Value::Object(map)) => Self::Object(map),
            Ok(other) => Self::Invalid(InvalidArguments {
                raw: raw.to_owned(),
                reason: format!("a JSON {}", json_kind(&other)),
            }),
            Err(e) => Self::Invalid(InvalidArguments {
                raw: raw.to_owned(),
                reason: format!("invalid JSON: {e}"),
            }),
        }
    }

    /// The arguments as JSON text, as OpenAI wants them back.
    pub fn to_json_string(&self) -> String {
        match self {
            Self::Object(map) => Value::Object(map.clone()).to_string(),
            Self::Invalid(invalid) => invalid.raw.clone(),
        }
    }

    /// The arguments as an object, as Anthropic and Gemini want them
    /// back: invalid arguments become an empty object (their result
    /// carries the error).
    pub fn to_object(&self) -> Value {
        match self {
            Self::Object(map) => Value::Object(map.clone()),
            Self::Invalid(_) => Value::Object(serde_json::Map::new()),
        }
    }
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The result of one tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResult {
    /// The id of the call it answers.
    pub call_id: String,
    /// The tool's name as offered to the provider (Gemini keys results by
    /// name).
    pub name: String,
    /// Text and images, in order.
    pub content: Vec<ToolContent>,
    /// Whether the tool failed.
    pub is_error: bool,
}

/// A piece of a tool result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum ToolContent {
    /// Text.
    Text(String),
    /// An image.
    Image {
        /// Its MIME type, such as `image/png`.
        mime_type: String,
        /// Its bytes, base64-encoded (standard alphabet, padded).
        data: String,
    },
}

impl ToolResult {
    /// The text parts joined by newlines.
    pub fn text(&self) -> String {
        let texts: Vec<&str> = self
            .content
            .iter()
            .filter_map(|c| match c {
                ToolContent::Text(t) => Some(t.as_str()),
                ToolContent::Image { .. } => None,
            })
            .collect();
        texts.join("\n")
    }

    /// The images, as `(mime_type, data)`.
    pub fn images(&self) -> impl Iterator<Item = (&str, &str)> {
        self.content.iter().filter_map(|c| match c {
            ToolContent::Image { mime_type, data } => Some((mime_type.as_str(), data.as_str())),
            ToolContent::Text(_) => None,
        })
    }
}

/// A tool offered to the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDeclaration {
    /// The name as the provider sees it.
    pub name: String,
    /// What the tool does.
    pub description: String,
    /// The JSON Schema of the arguments, already lowered for the provider.
    pub parameters: Value,
    /// Ask the provider to hold the model to the schema (OpenAI and
    /// Anthropic `strict`; Gemini has no such flag).
    pub strict: bool,
}

/// Whether and which tool the model must call.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ToolChoice {
    /// The model decides.
    #[default]
    Auto,
    /// No tool calls.
    None,
    /// At least one tool call.
    Required,
    /// A call of this tool.
    Tool(String),
}

/// The model's answer to one turn.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Response {
    /// The text, concatenated.
    pub text: String,
    /// The tool calls, in the model's order.
    pub tool_calls: Vec<ToolCall>,
    /// Why the model stopped.
    pub finish: FinishReason,
    /// Tokens used.
    pub usage: Usage,
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum FinishReason {
    /// It finished its answer (or hit a stop sequence).
    #[default]
    Stop,
    /// It ran out of output tokens.
    Length,
    /// It wants the results of its tool calls. Also reported when a
    /// provider says "stop" but the answer holds tool calls (Gemini does).
    ToolCalls,
    /// The provider withheld or cut the answer (safety, recitation,
    /// refusal).
    ContentFilter,
    /// A reason this crate does not map, as the provider spelt it
    /// (bounded).
    Other(String),
    /// The stream ended without a reason.
    Unknown,
}

/// Token counts of one turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// Input tokens, cached ones included (for Anthropic, `input_tokens`
    /// plus the cache reads and writes, which it counts apart).
    pub input_tokens: u64,
    /// Output tokens, reasoning ones included.
    pub output_tokens: u64,
    /// Input tokens read from the provider's cache, where reported.
    pub cached_input_tokens: Option<u64>,
}

/// One event of a streaming turn.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    /// More text.
    TextDelta(String),
    /// A tool call began.
    ToolCallStarted {
        /// Its position among the turn's tool calls.
        index: usize,
        /// The provider's call id.
        id: String,
        /// The tool's name.
        name: String,
    },
    /// More of a tool call's arguments, as JSON text.
    ToolCallArgumentsDelta {
        /// The position of the call.
        index: usize,
        /// The next piece.
        delta: String,
    },
    /// Token counts so far (later events supersede earlier ones).
    Usage(Usage),
    /// The model stopped.
    Finished(FinishReason),
}

/// Bounds on what a provider can make this crate hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Bytes of answer text.
    pub max_text_bytes: usize,
    /// Bytes of one tool call's arguments.
    pub max_argument_bytes: usize,
    /// Tool calls in one answer.
    pub max_tool_calls: usize,
    /// Bytes of a non-streaming response body.
    pub max_body_bytes: usize,
    /// Bytes of one event of a stream.
    pub max_event_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_text_bytes: 4 << 20,
            max_argument_bytes: 1 << 20,
            max_tool_calls: 128,
            max_body_bytes: 16 << 20,
            max_event_bytes: 4 << 20,
        }
    }
}

/// A request that cannot be put on a provider's wire.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// The model name has characters a URL path cannot carry as they are.
    #[error("the model name {0:?} has characters that cannot stand in a request path")]
    ModelName(String),
}

/// A provider's answer this crate cannot take.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// Not JSON.
    #[error("the provider's answer is not JSON: {detail}")]
    Json {
        /// The parser's message.
        detail: String,
    },
    /// JSON, but not shaped as the provider's response.
    #[error("the provider's answer is not a response: {detail}")]
    Shape {
        /// What was wrong.
        detail: String,
    },
    /// The provider answered with an error object (in a body or mid-stream).
    #[error("the provider reported an error: {message}")]
    Provider {
        /// The provider's message, bounded, control characters escaped.
        message: String,
    },
    /// Something grew past its limit.
    #[error("the provider's answer exceeds the limit of {limit} on {what}")]
    TooLarge {
        /// What grew.
        what: &'static str,
        /// The limit.
        limit: usize,
    },
    /// An event came after the end of the stream, or the stream ended
    /// before the provider said it was complete.
    #[error("the stream is out of order: {detail}")]
    Sequence {
        /// What was wrong.
        detail: String,
    },
}

/// The longest provider text put in an error message.
pub const MAX_ERROR_TEXT: usize = 512;

/// `text` cut to [`MAX_ERROR_TEXT`] characters with control characters
/// escaped, fit for an error message.
pub fn bounded(text: &str) -> String {
    let mut out = String::new();
    for (n, c) in text.chars().enumerate() {
        if n == MAX_ERROR_TEXT {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// The message of a provider's error object: all three put it at
/// `error.message` (Anthropic inside `{"type":"error", ...}`, Gemini
/// beside `code` and `status`), bounded.
pub fn error_message(value: &Value) -> Option<String> {
    let error = value.get("error")?;
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .unwrap_or_else(|| error.to_string());
    let status = error
        .get("status")
        .or_else(|| error.get("type"))
        .and_then(Value::as_str);
    Some(bounded(&match status {
        Some(status) => format!("{status}: {message}"),
        None => message,
    }))
}
