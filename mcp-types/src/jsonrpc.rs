//! The JSON-RPC 2.0 envelope: sorting an incoming message into one of the
//! four kinds MCP uses, and the error object that error responses carry.
//!
//! MCP narrows JSON-RPC in a few ways that [`Message::from_value`] enforces:
//! a request `id` is a string or an integer and never `null`; `params`, when
//! present, is an object; and there are no batches. A classification failure
//! is a [`MessageError`] whose [`code`](MessageError::code) is the one to
//! answer with: -32700 for bytes that are not JSON, -32600 for everything
//! else.

use std::fmt;
use std::str::FromStr;

use serde::de::Error as _;
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::error::ErrorCode;

/// A request id: a string or an integer. This is the generated type of the
/// 2026-07-28 schema; the envelope is the same in both eras.
///
/// Its `Display` is the JSON spelling, so the string `"7"` and the integer
/// `7` print differently.
pub use crate::v2026_07_28::RequestId;

/// The value of the `jsonrpc` member of every message.
pub const JSONRPC_VERSION: &str = "2.0";

/// The `error` member of an error response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    /// The error code; see [`ErrorCode`] for the named ones.
    pub code: i64,
    /// A short description, ideally one sentence.
    pub message: String,
    /// Anything the sender adds. An explicit `null` is kept as
    /// `Some(Value::Null)` so that it survives a round trip.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub data: Option<Value>,
}

fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

impl ErrorObject {
    /// An error object without `data`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code: code.code(),
            message: message.into(),
            data: None,
        }
    }

    /// The code as an [`ErrorCode`].
    pub fn error_code(&self) -> ErrorCode {
        ErrorCode(self.code)
    }
}

impl From<crate::v2026_07_28::Error> for ErrorObject {
    /// Members the schema does not name (`extra`) are dropped.
    fn from(error: crate::v2026_07_28::Error) -> Self {
        Self {
            code: error.code,
            message: error.message,
            data: error.data,
        }
    }
}

impl From<ErrorObject> for crate::v2026_07_28::Error {
    fn from(error: ErrorObject) -> Self {
        Self {
            code: error.code,
            message: error.message,
            data: error.data,
            extra: Map::new(),
        }
    }
}

impl fmt::Display for ErrorObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.error_code(), self.message)
    }
}

impl std::error::Error for ErrorObject {}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::String(s) => write!(f, "{}", Value::from(s.as_str())),
            Self::Integer(n) => write!(f, "{n}"),
        }
    }
}

#[cfg(feature = "v2025-11-25")]
impl fmt::Display for crate::v2025_11_25::RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        RequestId::from(self.clone()).fmt(f)
    }
}

#[cfg(feature = "v2025-11-25")]
impl From<crate::v2025_11_25::RequestId> for RequestId {
    fn from(id: crate::v2025_11_25::RequestId) -> Self {
        match id {
            crate::v2025_11_25::RequestId::String(s) => Self::String(s),
            crate::v2025_11_25::RequestId::Integer(n) => Self::Integer(n),
        }
    }
}

#[cfg(feature = "v2025-11-25")]
impl From<RequestId> for crate::v2025_11_25::RequestId {
    fn from(id: RequestId) -> Self {
        match id {
            RequestId::String(s) => Self::String(s),
            RequestId::Integer(n) => Self::Integer(n),
        }
    }
}

/// One JSON-RPC message, sorted by kind.
///
/// Unknown top-level members are ignored when decoding. Encoding always
/// writes `"jsonrpc": "2.0"`.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// A call that expects an answer.
    Request {
        /// Never `null`.
        id: RequestId,
        /// The method name, such as `tools/call`.
        method: String,
        /// The parameters, if sent.
        params: Option<Map<String, Value>>,
    },
    /// A one-way message, never answered.
    Notification {
        /// The method name, such as `notifications/progress`.
        method: String,
        /// The parameters, if sent.
        params: Option<Map<String, Value>>,
    },
    /// A successful answer.
    Response {
        /// The id of the request answered.
        id: RequestId,
        /// The result; in MCP an object carrying `resultType`.
        result: Value,
    },
    /// A failed answer.
    ErrorResponse {
        /// The id of the request answered; `None` when the sender could
        /// not tell which request failed. Decoding accepts both a `null`
        /// and a missing `id` for that; encoding leaves `id` out, since the
        /// MCP schema types it as a string or an integer.
        id: Option<RequestId>,
        /// What went wrong.
        error: ErrorObject,
    },
}

impl Message {
    /// Sorts a decoded JSON value into a message.
    ///
    /// # Errors
    ///
    /// A [`MessageError`] with code -32600 when the value is not a valid MCP
    /// JSON-RPC message: not an object, a batch, a wrong or missing
    /// `jsonrpc`, a `null` or mistyped request id, non-object `params`, or a
    /// shape that fits no kind.
    pub fn from_value(value: Value) -> Result<Self, MessageError> {
        let object = match value {
            Value::Object(object) => object,
            Value::Array(_) => return Err(MessageErrorKind::Batch.into()),
            _ => return Err(MessageErrorKind::NotAnObject.into()),
        };
        // The id is read first so that a failure can still name the request
        // it belongs to.
        let id = read_id(object.get("id"));
        let known_id = id.clone().ok().flatten();
        classify(object, id).map_err(|kind| MessageError { kind, id: known_id })
    }

    /// Parses and sorts UTF-8 JSON bytes.
    ///
    /// # Errors
    ///
    /// A [`MessageError`] with code -32700 when the bytes are not JSON, and
    /// otherwise as [`Message::from_value`].
    pub fn from_slice(bytes: &[u8]) -> Result<Self, MessageError> {
        let value = serde_json::from_slice(bytes).map_err(MessageError::parse)?;
        Self::from_value(value)
    }

    /// The request id: present on requests, responses and most error
    /// responses.
    pub fn id(&self) -> Option<&RequestId> {
        match self {
            Self::Request { id, .. } | Self::Response { id, .. } => Some(id),
            Self::ErrorResponse { id, .. } => id.as_ref(),
            Self::Notification { .. } => None,
        }
    }

    /// The method of a request or notification.
    pub fn method(&self) -> Option<&str> {
        match self {
            Self::Request { method, .. } | Self::Notification { method, .. } => Some(method),
            Self::Response { .. } | Self::ErrorResponse { .. } => None,
        }
    }

    /// The message as a JSON value, as its `Serialize` writes it.
    pub fn to_value(&self) -> Value {
        // Every part of a message is a JSON value, a string or an integer,
        // so encoding cannot fail; `Null` is never produced in practice.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// Sorts an object, given the outcome of reading its `id`.
fn classify(
    mut object: Map<String, Value>,
    id: Result<Option<RequestId>, MessageErrorKind>,
) -> Result<Message, MessageErrorKind> {
    if object.get("jsonrpc").and_then(Value::as_str) != Some(JSONRPC_VERSION) {
        return Err(MessageErrorKind::Version);
    }
    let has_result = object.contains_key("result");
    let has_error = object.contains_key("error");
    match object.remove("method") {
        Some(_) if has_result || has_error => Err(MessageErrorKind::Ambiguous),
        Some(Value::String(method)) => {
            let params = read_params(object.remove("params"))?;
            if object.contains_key("id") {
                let id = id?.ok_or(MessageErrorKind::NullId)?;
                Ok(Message::Request { id, method, params })
            } else {
                Ok(Message::Notification { method, params })
            }
        }
        Some(_) => Err(MessageErrorKind::MethodNotString),
        None if has_result && has_error => Err(MessageErrorKind::Ambiguous),
        None if has_result => {
            let id = id?.ok_or(MessageErrorKind::NullId)?;
            let result = object.remove("result").unwrap_or(Value::Null);
            Ok(Message::Response { id, result })
        }
        None if has_error => {
            let id = id?;
            let error = object.remove("error").unwrap_or(Value::Null);
            let error =
                ErrorObject::deserialize(error).map_err(|_| MessageErrorKind::MalformedError)?;
            Ok(Message::ErrorResponse { id, error })
        }
        None => Err(MessageErrorKind::Unclassifiable),
    }
}

/// `Ok(None)` for an absent or `null` id, `Err` for an id of the wrong type.
fn read_id(id: Option<&Value>) -> Result<Option<RequestId>, MessageErrorKind> {
    match id {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(RequestId::String(s.clone()))),
        Some(Value::Number(n)) => n
            .as_i64()
            .map(|n| Some(RequestId::Integer(n)))
            .ok_or(MessageErrorKind::InvalidId),
        Some(_) => Err(MessageErrorKind::InvalidId),
    }
}

fn read_params(params: Option<Value>) -> Result<Option<Map<String, Value>>, MessageErrorKind> {
    match params {
        None => Ok(None),
        Some(Value::Object(params)) => Ok(Some(params)),
        Some(_) => Err(MessageErrorKind::ParamsNotObject),
    }
}

impl FromStr for Message {
    type Err = MessageError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::from_slice(s.as_bytes())
    }
}

impl TryFrom<Value> for Message {
    type Error = MessageError;

    fn try_from(value: Value) -> Result<Self, Self::Error> {
        Self::from_value(value)
    }
}

impl From<Message> for Value {
    fn from(message: Message) -> Self {
        message.to_value()
    }
}

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("jsonrpc", JSONRPC_VERSION)?;
        match self {
            Self::Request { id, method, params } => {
                map.serialize_entry("id", id)?;
                map.serialize_entry("method", method)?;
                if let Some(params) = params {
                    map.serialize_entry("params", params)?;
                }
            }
            Self::Notification { method, params } => {
                map.serialize_entry("method", method)?;
                if let Some(params) = params {
                    map.serialize_entry("params", params)?;
                }
            }
            Self::Response { id, result } => {
                map.serialize_entry("id", id)?;
                map.serialize_entry("result", result)?;
            }
            Self::ErrorResponse { id, error } => {
                if let Some(id) = id {
                    map.serialize_entry("id", id)?;
                }
                map.serialize_entry("error", error)?;
            }
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Self::from_value(value).map_err(D::Error::custom)
    }
}

/// Why a value is not a valid MCP JSON-RPC message.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum MessageErrorKind {
    /// The bytes are not JSON; carries the parser's explanation.
    Parse(String),
    /// A JSON array: batches are not part of MCP.
    Batch,
    /// A JSON value that is neither an object nor an array.
    NotAnObject,
    /// `jsonrpc` is missing or not `"2.0"`.
    Version,
    /// A request or result response whose `id` is `null`, or a result
    /// response without `id`.
    NullId,
    /// An `id` that is neither a string nor an integer in the `i64` range.
    InvalidId,
    /// `method` is not a string.
    MethodNotString,
    /// `params` is not an object.
    ParamsNotObject,
    /// `error` is not an object with an integer `code` and a string
    /// `message`.
    MalformedError,
    /// The object mixes kinds: `method` together with `result` or
    /// `error`, or both `result` and `error`.
    Ambiguous,
    /// The object has none of `method`, `result` and `error`.
    Unclassifiable,
}

/// A failure to read a JSON-RPC message, carrying the request id when it
/// could still be read so that the error response can name it.
#[derive(Debug, Clone, PartialEq)]
pub struct MessageError {
    kind: MessageErrorKind,
    id: Option<RequestId>,
}

impl MessageError {
    fn parse(error: serde_json::Error) -> Self {
        MessageErrorKind::Parse(error.to_string()).into()
    }

    /// What was wrong.
    pub fn kind(&self) -> &MessageErrorKind {
        &self.kind
    }

    /// The id of the offending message, when it was a valid id.
    pub fn id(&self) -> Option<&RequestId> {
        self.id.as_ref()
    }

    /// The code to answer with: -32700 for invalid JSON, -32600 otherwise.
    pub fn code(&self) -> ErrorCode {
        match self.kind {
            MessageErrorKind::Parse(_) => ErrorCode::PARSE_ERROR,
            _ => ErrorCode::INVALID_REQUEST,
        }
    }

    /// The error object to send back.
    pub fn to_error_object(&self) -> ErrorObject {
        ErrorObject::new(self.code(), self.to_string())
    }

    /// The complete error response to send back, naming the request when
    /// its id could be read.
    pub fn to_response(&self) -> Message {
        Message::ErrorResponse {
            id: self.id.clone(),
            error: self.to_error_object(),
        }
    }
}

impl From<MessageErrorKind> for MessageError {
    fn from(kind: MessageErrorKind) -> Self {
        Self { kind, id: None }
    }
}

impl fmt::Display for MessageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            MessageErrorKind::Parse(detail) => write!(f, "Parse error: {detail}"),
            MessageErrorKind::Batch => f.write_str("Invalid Request: batches are not supported"),
            MessageErrorKind::NotAnObject => {
                f.write_str("Invalid Request: a message must be a JSON object")
            }
            MessageErrorKind::Version => {
                f.write_str("Invalid Request: \"jsonrpc\" must be \"2.0\"")
            }
            MessageErrorKind::NullId => {
                f.write_str("Invalid Request: \"id\" must be present and not null")
            }
            MessageErrorKind::InvalidId => {
                f.write_str("Invalid Request: \"id\" must be a string or an integer")
            }
            MessageErrorKind::MethodNotString => {
                f.write_str("Invalid Request: \"method\" must be a string")
            }
            MessageErrorKind::ParamsNotObject => {
                f.write_str("Invalid Request: \"params\" must be an object")
            }
            MessageErrorKind::MalformedError => f.write_str(
                "Invalid Request: \"error\" must hold an integer code and a string message",
            ),
            MessageErrorKind::Ambiguous => {
                f.write_str("Invalid Request: the message mixes request and response members")
            }
            MessageErrorKind::Unclassifiable => f.write_str(
                "Invalid Request: the message has none of \"method\", \"result\" and \"error\"",
            ),
        }
    }
}

impl std::error::Error for MessageError {}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;
    use crate::test_support;

    fn classify(value: Value) -> Result<Message, MessageError> {
        Message::from_value(value)
    }

    fn kind_of(value: Value) -> MessageErrorKind {
        match classify(value) {
            Err(e) => e.kind().clone(),
            Ok(m) => panic!("expected an error, got {m:?}"),
        }
    }

    #[test]
    fn request() {
        let m = classify(json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {}}))
            .expect("request");
        assert_eq!(
            m,
            Message::Request {
                id: RequestId::Integer(7),
                method: "tools/list".into(),
                params: Some(Map::new())
            }
        );
        assert_eq!(m.id(), Some(&RequestId::Integer(7)));
        assert_eq!(m.method(), Some("tools/list"));
    }

    #[test]
    fn notification_has_no_id() {
        let m = classify(json!({"jsonrpc": "2.0", "method": "notifications/cancelled"}))
            .expect("notification");
        assert_eq!(
            m,
            Message::Notification {
                method: "notifications/cancelled".into(),
                params: None
            }
        );
        assert_eq!(m.id(), None);
    }

    #[test]
    fn responses() {
        let ok =
            classify(json!({"jsonrpc": "2.0", "id": "a", "result": {"resultType": "complete"}}))
                .expect("response");
        assert_eq!(
            ok,
            Message::Response {
                id: RequestId::String("a".into()),
                result: json!({"resultType": "complete"})
            }
        );
        let err = classify(
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "bad"}}),
        )
        .expect("error response");
        assert_eq!(
            err,
            Message::ErrorResponse {
                id: None,
                error: ErrorObject::new(ErrorCode::PARSE_ERROR, "bad")
            }
        );
        let no_id =
            classify(json!({"jsonrpc": "2.0", "error": {"code": 1, "message": "m", "data": null}}))
                .expect("error response without id");
        match no_id {
            Message::ErrorResponse { id: None, error } => assert_eq!(error.data, Some(Value::Null)),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn rejects_null_ids() {
        assert_eq!(
            kind_of(json!({"jsonrpc": "2.0", "id": null, "method": "ping"})),
            MessageErrorKind::NullId
        );
        assert_eq!(
            kind_of(json!({"jsonrpc": "2.0", "id": null, "result": {}})),
            MessageErrorKind::NullId
        );
        assert_eq!(
            kind_of(json!({"jsonrpc": "2.0", "result": {}})),
            MessageErrorKind::NullId
        );
    }

    #[test]
    fn rejects_bad_ids() {
        for id in [
            json!(1.5),
            json!(true),
            json!([1]),
            json!({}),
            json!(u64::MAX),
        ] {
            assert_eq!(
                kind_of(json!({"jsonrpc": "2.0", "id": id, "method": "ping"})),
                MessageErrorKind::InvalidId,
                "id {id}"
            );
        }
        assert_eq!(
            kind_of(json!({"jsonrpc": "2.0", "id": 1.5, "error": {"code": 1, "message": "m"}})),
            MessageErrorKind::InvalidId
        );
    }

    #[test]
    fn rejects_wrong_or_missing_version() {
        for v in [json!("1.0"), json!(2.0), json!(null)] {
            let e =
                classify(json!({"jsonrpc": v, "id": 3, "method": "ping"})).expect_err("version");
            assert_eq!(e.kind(), &MessageErrorKind::Version);
            assert_eq!(e.id(), Some(&RequestId::Integer(3)), "the id is kept");
            assert_eq!(e.code(), ErrorCode::INVALID_REQUEST);
        }
        assert_eq!(
            kind_of(json!({"id": 1, "method": "ping"})),
            MessageErrorKind::Version
        );
    }

    #[test]
    fn rejects_batches_and_scalars() {
        assert_eq!(
            kind_of(json!([{"jsonrpc": "2.0", "method": "x"}])),
            MessageErrorKind::Batch
        );
        for v in [json!(null), json!(1), json!("s"), json!(true)] {
            assert_eq!(kind_of(v), MessageErrorKind::NotAnObject);
        }
    }

    #[test]
    fn rejects_malformed_members() {
        assert_eq!(
            kind_of(json!({"jsonrpc": "2.0", "id": 1, "method": 5})),
            MessageErrorKind::MethodNotString
        );
        assert_eq!(
            kind_of(json!({"jsonrpc": "2.0", "id": 1, "method": "m", "params": [1, 2]})),
            MessageErrorKind::ParamsNotObject
        );
        assert_eq!(
            kind_of(json!({"jsonrpc": "2.0", "id": 1, "error": {"code": "x", "message": "m"}})),
            MessageErrorKind::MalformedError
        );
        assert_eq!(
            kind_of(json!({"jsonrpc": "2.0", "id": 1, "method": "m", "result": {}})),
            MessageErrorKind::Ambiguous
        );
        assert_eq!(
            kind_of(
                json!({"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": 1, "message": "m"}})
            ),
            MessageErrorKind::Ambiguous
        );
        assert_eq!(
            kind_of(json!({"jsonrpc": "2.0", "id": 1})),
            MessageErrorKind::Unclassifiable
        );
    }

    #[test]
    fn invalid_json_is_a_parse_error() {
        let e = Message::from_str("{\"jsonrpc\": ").expect_err("truncated");
        assert_eq!(e.code(), ErrorCode::PARSE_ERROR);
        assert!(matches!(e.kind(), MessageErrorKind::Parse(_)));
        let e = Message::from_slice(b"\xff\xfe").expect_err("not UTF-8");
        assert_eq!(e.code().code(), -32700);
        let response = e.to_response().to_value();
        assert_eq!(response.get("id"), None);
        assert_eq!(response["error"]["code"], json!(-32700));
        test_support::assert_valid("2026-07-28", "JSONRPCErrorResponse", &response);
    }

    #[test]
    fn error_response_names_the_request_when_possible() {
        let e = Message::from_str(r#"{"jsonrpc":"2.0","id":"x","method":"m","params":3}"#)
            .expect_err("bad params");
        assert_eq!(
            e.to_response().to_value(),
            json!({"jsonrpc": "2.0", "id": "x", "error": {"code": -32600, "message": e.to_string()}})
        );
    }

    #[test]
    fn serde_matches_to_value() {
        let text = r#"{"jsonrpc":"2.0","id":"r1","method":"tools/call","params":{"name":"t"}}"#;
        let m: Message = serde_json::from_str(text).expect("deserialize");
        assert_eq!(serde_json::to_value(&m).ok(), Some(m.to_value()));
        assert_eq!(
            m.to_value(),
            serde_json::from_str::<Value>(text).expect("json")
        );
        assert!(serde_json::from_str::<Message>("[]").is_err());
    }

    #[test]
    fn request_id_display_is_json() {
        assert_eq!(RequestId::Integer(7).to_string(), "7");
        assert_eq!(RequestId::String("7".into()).to_string(), "\"7\"");
        assert_eq!(RequestId::String("a\"b".into()).to_string(), r#""a\"b""#);
    }

    #[cfg(feature = "v2025-11-25")]
    #[test]
    fn legacy_request_ids_convert() {
        let legacy = crate::v2025_11_25::RequestId::String("x".into());
        assert_eq!(legacy.to_string(), "\"x\"");
        assert_eq!(
            RequestId::from(legacy.clone()),
            RequestId::String("x".into())
        );
        assert_eq!(
            crate::v2025_11_25::RequestId::from(RequestId::from(legacy.clone())),
            legacy
        );
    }

    #[test]
    fn error_object_round_trips() {
        let text = r#"{"code":-32602,"message":"Invalid cursor","data":{"cursor":"x"}}"#;
        let e: ErrorObject = serde_json::from_str(text).expect("error object");
        assert_eq!(e.error_code(), ErrorCode::INVALID_PARAMS);
        assert_eq!(
            serde_json::to_value(&e).ok(),
            Some(serde_json::from_str::<Value>(text).expect("json"))
        );
        assert_eq!(e.to_string(), "-32602 (InvalidParams): Invalid cursor");
    }

    /// Every example of the corpus that is a whole JSON-RPC message is
    /// sorted into the kind its schema definition names, and re-encodes to
    /// the same JSON.
    #[test]
    fn spec_examples_classify() {
        let mut seen = 0;
        for (def, name, value) in test_support::all_examples() {
            if value.get("jsonrpc").is_none() {
                continue;
            }
            seen += 1;
            let m = classify(value.clone()).unwrap_or_else(|e| panic!("{def}/{name}: {e}"));
            let expected = if def.ends_with("Error") {
                "error"
            } else if def.ends_with("Notification") {
                "notification"
            } else if def.ends_with("Response") {
                "response"
            } else {
                "request"
            };
            let got = match &m {
                Message::Request { .. } => "request",
                Message::Notification { .. } => "notification",
                Message::Response { .. } => "response",
                Message::ErrorResponse { .. } => "error",
            };
            assert_eq!(got, expected, "{def}/{name}");
            assert_eq!(m.to_value(), value, "{def}/{name}");
        }
        assert!(seen > 20, "only {seen} JSON-RPC examples found");
    }

    /// What [`Message`] writes is valid under the schema's message union.
    #[test]
    fn encodings_validate_against_schema() {
        let messages = [
            Message::Request {
                id: RequestId::Integer(1),
                method: "tools/list".into(),
                params: Some(Map::new()),
            },
            Message::Notification {
                method: "notifications/cancelled".into(),
                params: None,
            },
            Message::Response {
                id: RequestId::String("a".into()),
                result: json!({"resultType": "complete"}),
            },
            Message::ErrorResponse {
                id: Some(RequestId::Integer(2)),
                error: ErrorObject::internal_error("boom").with_data(json!([1])),
            },
            Message::ErrorResponse {
                id: None,
                error: ErrorObject::parse_error("bad"),
            },
        ];
        for m in messages {
            test_support::assert_valid("2026-07-28", "JSONRPCMessage", &m.to_value());
            test_support::assert_valid("2025-11-25", "JSONRPCMessage", &m.to_value());
        }
    }

    #[test]
    fn converts_to_and_from_the_generated_error() {
        let ours = ErrorObject::resource_not_found("file:///x");
        let generated = crate::v2026_07_28::Error::from(ours.clone());
        assert_eq!(generated.code, -32602);
        assert_eq!(ErrorObject::from(generated), ours);
    }

    /// The bare error objects of the corpus decode as [`ErrorObject`].
    #[test]
    fn spec_bare_errors_decode() {
        for def in [
            "ParseError",
            "InvalidParamsError",
            "MethodNotFoundError",
            "InternalError",
        ] {
            for (name, value) in test_support::examples(def) {
                let e: ErrorObject = serde_json::from_value(value.clone())
                    .unwrap_or_else(|e| panic!("{def}/{name}: {e}"));
                assert_eq!(serde_json::to_value(&e).ok(), Some(value), "{def}/{name}");
            }
        }
    }

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            "[a-z0-9./]{0,8}".prop_map(Value::from),
        ];
        leaf.prop_recursive(3, 24, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
                prop::collection::btree_map(
                    prop_oneof![
                        Just("jsonrpc".to_owned()),
                        Just("id".to_owned()),
                        Just("method".to_owned()),
                        Just("params".to_owned()),
                        Just("result".to_owned()),
                        Just("error".to_owned()),
                        Just("code".to_owned()),
                        Just("message".to_owned()),
                        "[a-z]{1,4}",
                    ],
                    inner,
                    0..6
                )
                .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        /// Classification never panics, and whatever it accepts re-encodes
        /// to a message that classifies the same way.
        #[test]
        fn classification_is_total_and_stable(value in json_value()) {
            if let Ok(m) = Message::from_value(value) {
                let again = Message::from_value(m.to_value());
                prop_assert_eq!(again.ok(), Some(m));
            }
        }

        /// A valid envelope around any id of the right type is accepted.
        #[test]
        fn any_integer_or_string_id_is_accepted(n in any::<i64>(), s in ".*") {
            for id in [json!(n), json!(s.clone())] {
                let m = Message::from_value(json!({"jsonrpc": "2.0", "id": id, "method": "ping"}));
                prop_assert!(m.is_ok());
            }
        }
    }
}
