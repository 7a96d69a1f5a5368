//! `resultType` and decoding results by method.
//!
//! Since 2026-07-28 every result carries `resultType`. The schema types it as
//! a plain string, so a decoder has to branch on its value: `"complete"` is
//! the method's own result, `"input_required"` is an [`InputRequiredResult`]
//! (allowed only for `tools/call`, `prompts/get` and `resources/read`), and
//! extensions may add values, such as `"task"` from the tasks extension. A
//! missing `resultType` reads as `"complete"`, which is how results of legacy
//! servers look.

use std::fmt;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::method::{self, Request as _};
use crate::v2026_07_28 as v;
use crate::v2026_07_28::InputRequiredResult;

/// The value of a result's `resultType`.
///
/// Equality and hashing go by the wire string, so `Other("task")` equals
/// [`ResultType::Task`]; parsing never produces the former.
#[derive(Debug, Clone, Default)]
pub enum ResultType {
    /// `"complete"`: the final answer. Also what a missing `resultType`
    /// means.
    #[default]
    Complete,
    /// `"input_required"`: an [`InputRequiredResult`]; the client supplies
    /// input and retries.
    InputRequired,
    /// `"task"`: added by the `io.modelcontextprotocol/tasks` extension.
    Task,
    /// Any other value. Clients must treat a value they do not recognise as
    /// invalid; it is kept so that it can be reported.
    Other(String),
}

impl ResultType {
    /// The wire string.
    pub fn as_str(&self) -> &str {
        match self {
            Self::Complete => "complete",
            Self::InputRequired => "input_required",
            Self::Task => "task",
            Self::Other(s) => s,
        }
    }

    /// Reads a wire string; unknown strings become [`ResultType::Other`].
    pub fn parse(s: &str) -> Self {
        match s {
            "complete" => Self::Complete,
            "input_required" => Self::InputRequired,
            "task" => Self::Task,
            other => Self::Other(other.to_owned()),
        }
    }

    /// Reads an optional field: absent means [`ResultType::Complete`].
    pub fn from_field(field: Option<&str>) -> Self {
        field.map_or(Self::Complete, Self::parse)
    }

    /// The `resultType` of a result object. `None` when the member is
    /// present but not a string; a missing member (or a value that is not
    /// an object) reads as [`ResultType::Complete`].
    pub fn of(result: &Value) -> Option<Self> {
        match result.get("resultType") {
            None => Some(Self::Complete),
            Some(Value::String(s)) => Some(Self::parse(s)),
            Some(_) => None,
        }
    }

    /// Whether the value is one of the two the core protocol defines.
    pub fn is_core(&self) -> bool {
        matches!(self.as_str(), "complete" | "input_required")
    }
}

impl PartialEq for ResultType {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for ResultType {}

impl std::hash::Hash for ResultType {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl fmt::Display for ResultType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ResultType {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ResultType {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = String::deserialize(deserializer)?;
        Ok(match Self::parse(&s) {
            Self::Other(_) => Self::Other(s),
            known => known,
        })
    }
}

/// The answer of a method that may ask for more input: its own result, or
/// an [`InputRequiredResult`].
///
/// Decoding branches on `resultType`: `"input_required"` gives
/// [`MaybeInputRequired::InputRequired`], `"complete"` or no `resultType`
/// gives [`MaybeInputRequired::Complete`], and any other value is an error.
/// Encoding writes the inner value unchanged.
#[derive(Debug, Clone, PartialEq)]
// Both variants are results of similar size that are moved once or twice;
// boxing would add an allocation to every answer for no gain.
#[allow(clippy::large_enum_variant)]
pub enum MaybeInputRequired<T> {
    /// The method's own, final result.
    Complete(T),
    /// The server needs input before it can answer.
    InputRequired(InputRequiredResult),
}

impl<T> MaybeInputRequired<T> {
    /// The final result, if this is one.
    pub fn complete(self) -> Option<T> {
        match self {
            Self::Complete(result) => Some(result),
            Self::InputRequired(_) => None,
        }
    }

    /// The request for input, if this is one.
    pub fn input_required(self) -> Option<InputRequiredResult> {
        match self {
            Self::Complete(_) => None,
            Self::InputRequired(result) => Some(result),
        }
    }

    /// Whether this is the final result.
    pub fn is_complete(&self) -> bool {
        matches!(self, Self::Complete(_))
    }
}

impl<T: Serialize> Serialize for MaybeInputRequired<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Complete(result) => result.serialize(serializer),
            Self::InputRequired(result) => result.serialize(serializer),
        }
    }
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for MaybeInputRequired<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let value = Value::deserialize(deserializer)?;
        match ResultType::of(&value) {
            Some(ResultType::Complete) => T::deserialize(value)
                .map(Self::Complete)
                .map_err(D::Error::custom),
            Some(ResultType::InputRequired) => InputRequiredResult::deserialize(value)
                .map(Self::InputRequired)
                .map_err(D::Error::custom),
            Some(other) => Err(D::Error::custom(format_args!(
                "unrecognised resultType `{other}`"
            ))),
            None => Err(D::Error::custom("resultType must be a string")),
        }
    }
}

/// A result of a 2026-07-28 client request, decoded by [`decode_result`].
///
/// Variants are named like those of the generated
/// [`ClientRequest`](crate::v2026_07_28::ClientRequest) union.
#[derive(Debug, Clone, PartialEq)]
// As with the generated unions, variants hold results unboxed.
#[allow(clippy::large_enum_variant)]
pub enum DecodedResult {
    /// `server/discover`.
    Discover(v::DiscoverResult),
    /// `tools/list`.
    ListTools(v::ListToolsResult),
    /// `tools/call`, complete.
    CallTool(v::CallToolResult),
    /// `prompts/list`.
    ListPrompts(v::ListPromptsResult),
    /// `prompts/get`, complete.
    GetPrompt(v::GetPromptResult),
    /// `resources/list`.
    ListResources(v::ListResourcesResult),
    /// `resources/templates/list`.
    ListResourceTemplates(v::ListResourceTemplatesResult),
    /// `resources/read`, complete.
    ReadResource(v::ReadResourceResult),
    /// `subscriptions/listen`, sent when the server closes the stream.
    SubscriptionsListen(v::SubscriptionsListenResult),
    /// `completion/complete`.
    Complete(v::CompleteResult),
    /// Any of `tools/call`, `prompts/get` and `resources/read`, asking for
    /// input.
    InputRequired(InputRequiredResult),
}

/// Why [`decode_result`] could not decode a result.
#[derive(Debug)]
#[non_exhaustive]
pub enum DecodeResultError {
    /// The method is not a 2026-07-28 client request.
    UnknownMethod {
        /// The method given.
        method: String,
        /// The undecoded result.
        value: Value,
    },
    /// `resultType` is neither `"complete"` nor `"input_required"`; for
    /// example `"task"` from an extension. The value is kept so that a
    /// caller that negotiated the extension can decode it.
    UnrecognizedResultType {
        /// The value found.
        result_type: ResultType,
        /// The undecoded result.
        value: Value,
    },
    /// `resultType` is `"input_required"` on a method that may not ask for
    /// input.
    InputRequiredNotAllowed {
        /// The method.
        method: &'static str,
        /// The undecoded result.
        value: Value,
    },
    /// The result does not fit the method's result type, or `resultType`
    /// is not a string.
    Invalid {
        /// The method.
        method: &'static str,
        /// What did not fit.
        error: serde_json::Error,
    },
}

impl fmt::Display for DecodeResultError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnknownMethod { method, .. } => write!(f, "`{method}` is not a known request"),
            Self::UnrecognizedResultType { result_type, .. } => {
                write!(f, "unrecognised resultType `{result_type}`")
            }
            Self::InputRequiredNotAllowed { method, .. } => {
                write!(f, "`{method}` may not answer with input_required")
            }
            Self::Invalid { method, error } => write!(f, "invalid `{method}` result: {error}"),
        }
    }
}

impl std::error::Error for DecodeResultError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Invalid { error, .. } => Some(error),
            _ => None,
        }
    }
}

/// Decodes the `result` of a 2026-07-28 response, given the method of the
/// request it answers.
///
/// # Errors
///
/// See [`DecodeResultError`]: an unknown method, a `resultType` other than
/// the two core values, `input_required` on a method that may not use it,
/// or a result that does not fit.
// Inline, as is `decode_input_response`: compiled only into the crates
// that decode results (a server decodes none), rather than into every
// build of the types. Each pulls in the decoders of every result it may
// meet: four fifths of the crate's LLVM IR when it was compiled here.
#[inline]
pub fn decode_result(method: &str, value: Value) -> Result<DecodedResult, DecodeResultError> {
    let Some(entry) = method::V2026_07_28
        .iter()
        .find(|e| e.kind == method::MethodKind::Request && e.method == method)
    else {
        return Err(DecodeResultError::UnknownMethod {
            method: method.to_owned(),
            value,
        });
    };
    let method = entry.method;
    let invalid = |error| DecodeResultError::Invalid { method, error };
    match ResultType::of(&value) {
        Some(ResultType::Complete) => {}
        Some(ResultType::InputRequired) if entry.input_required => {
            return from_value(value)
                .map(DecodedResult::InputRequired)
                .map_err(invalid)
        }
        Some(ResultType::InputRequired) => {
            return Err(DecodeResultError::InputRequiredNotAllowed { method, value })
        }
        Some(result_type) => {
            return Err(DecodeResultError::UnrecognizedResultType { result_type, value })
        }
        None => {
            return Err(invalid(serde::de::Error::custom(
                "resultType must be a string",
            )))
        }
    }
    let decoded = match method {
        v::DiscoverRequest::METHOD => from_value(value).map(DecodedResult::Discover),
        v::ListToolsRequest::METHOD => from_value(value).map(DecodedResult::ListTools),
        v::CallToolRequest::METHOD => from_value(value).map(DecodedResult::CallTool),
        v::ListPromptsRequest::METHOD => from_value(value).map(DecodedResult::ListPrompts),
        v::GetPromptRequest::METHOD => from_value(value).map(DecodedResult::GetPrompt),
        v::ListResourcesRequest::METHOD => from_value(value).map(DecodedResult::ListResources),
        v::ListResourceTemplatesRequest::METHOD => {
            from_value(value).map(DecodedResult::ListResourceTemplates)
        }
        v::ReadResourceRequest::METHOD => from_value(value).map(DecodedResult::ReadResource),
        v::SubscriptionsListenRequest::METHOD => {
            from_value(value).map(DecodedResult::SubscriptionsListen)
        }
        v::CompleteRequest::METHOD => from_value(value).map(DecodedResult::Complete),
        _ => {
            return Err(DecodeResultError::UnknownMethod {
                method: method.to_owned(),
                value,
            })
        }
    };
    decoded.map_err(invalid)
}

fn from_value<T: DeserializeOwned>(value: Value) -> Result<T, serde_json::Error> {
    T::deserialize(value)
}

/// Decodes one answer of a retry's `inputResponses`, given the input request
/// it answers: the three answer types share no tag, and an `ElicitResult`
/// with only `action` could pass for others, so the request decides.
///
/// # Errors
///
/// When the answer does not fit the type the request calls for.
#[inline]
pub fn decode_input_response(
    request: &v::InputRequest,
    value: Value,
) -> Result<v::InputResponse, serde_json::Error> {
    Ok(match request {
        v::InputRequest::CreateMessage(_) => {
            serde_json::from_value::<v::CreateMessageResult>(value)?.into()
        }
        v::InputRequest::ListRoots(_) => {
            serde_json::from_value::<v::ListRootsResult>(value)?.into()
        }
        v::InputRequest::Elicit(_) => serde_json::from_value::<v::ElicitResult>(value)?.into(),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::method::{MethodKind, V2026_07_28};
    use crate::test_support;

    #[test]
    fn result_type_wire_strings() {
        for (s, t) in [
            ("complete", ResultType::Complete),
            ("input_required", ResultType::InputRequired),
            ("task", ResultType::Task),
            ("later", ResultType::Other("later".into())),
        ] {
            assert_eq!(ResultType::parse(s), t);
            assert_eq!(t.as_str(), s);
            assert_eq!(serde_json::to_value(&t).ok(), Some(json!(s)));
            let back: ResultType = serde_json::from_value(json!(s)).expect("string");
            assert_eq!(back, t);
        }
        assert!(matches!(ResultType::parse("task"), ResultType::Task));
        assert_eq!(ResultType::Other("task".into()), ResultType::Task);
        assert!(ResultType::Complete.is_core() && ResultType::InputRequired.is_core());
        assert!(!ResultType::Task.is_core());
    }

    #[test]
    fn missing_result_type_is_complete() {
        assert_eq!(ResultType::default(), ResultType::Complete);
        assert_eq!(ResultType::from_field(None), ResultType::Complete);
        assert_eq!(
            ResultType::of(&json!({"content": []})),
            Some(ResultType::Complete)
        );
        assert_eq!(ResultType::of(&json!({"resultType": 1})), None);
        assert_eq!(
            ResultType::of(&json!({"resultType": "input_required"})),
            Some(ResultType::InputRequired)
        );
    }

    #[test]
    fn maybe_input_required_branches() {
        type M = MaybeInputRequired<v::CallToolResult>;
        let done: M = serde_json::from_value(json!({"resultType": "complete", "content": []}))
            .expect("complete");
        assert!(done.is_complete());
        let legacy: M = serde_json::from_value(json!({"content": []})).expect("legacy");
        assert!(legacy.is_complete());
        let ask: M =
            serde_json::from_value(json!({"resultType": "input_required", "requestState": "s"}))
                .expect("input required");
        let ask = ask.input_required().expect("input required");
        assert_eq!(ask.request_state.as_deref(), Some("s"));
        let err = serde_json::from_value::<M>(json!({"resultType": "task", "content": []}))
            .expect_err("task is not core");
        assert!(err.to_string().contains("task"), "{err}");
        assert!(serde_json::from_value::<M>(json!({"resultType": "complete"})).is_err());
    }

    #[test]
    fn maybe_input_required_encodes_inner_value() {
        let text = json!({"resultType": "input_required", "requestState": "abc"});
        let m: MaybeInputRequired<v::GetPromptResult> =
            serde_json::from_value(text.clone()).expect("decode");
        assert_eq!(serde_json::to_value(&m).ok(), Some(text));
    }

    #[test]
    fn decode_by_method() {
        let tools = decode_result(
            "tools/list",
            json!({"resultType": "complete", "tools": [], "ttlMs": 0, "cacheScope": "public"}),
        )
        .expect("tools/list");
        assert!(matches!(tools, DecodedResult::ListTools(ref r) if r.tools.is_empty()));
        let call = decode_result("tools/call", json!({"content": []})).expect("legacy-shaped");
        assert!(matches!(call, DecodedResult::CallTool(_)));
        let ask = decode_result(
            "resources/read",
            json!({"resultType": "input_required", "requestState": "x"}),
        )
        .expect("input required");
        assert!(matches!(ask, DecodedResult::InputRequired(_)));
    }

    #[test]
    fn decode_errors_keep_the_value() {
        let value = json!({"resultType": "task", "task": {"taskId": "t"}});
        match decode_result("tools/call", value.clone()) {
            Err(DecodeResultError::UnrecognizedResultType {
                result_type,
                value: kept,
            }) => {
                assert_eq!(result_type, ResultType::Task);
                assert_eq!(kept, value);
            }
            other => panic!("unexpected {other:?}"),
        }
        let value = json!({"resultType": "input_required", "requestState": "x"});
        assert!(matches!(
            decode_result("tools/list", value.clone()),
            Err(DecodeResultError::InputRequiredNotAllowed { method: "tools/list", value: ref kept }) if *kept == value
        ));
        assert!(matches!(
            decode_result("tools/frobnicate", json!({})),
            Err(DecodeResultError::UnknownMethod { ref method, .. }) if method == "tools/frobnicate"
        ));
        assert!(matches!(
            decode_result("notifications/cancelled", json!({})),
            Err(DecodeResultError::UnknownMethod { .. })
        ));
        assert!(matches!(
            decode_result("tools/call", json!({"resultType": "complete"})),
            Err(DecodeResultError::Invalid {
                method: "tools/call",
                ..
            })
        ));
        assert!(matches!(
            decode_result("tools/call", json!({"resultType": false, "content": []})),
            Err(DecodeResultError::Invalid { .. })
        ));
    }

    /// Every request of the 2026-07-28 method table decodes a minimal
    /// complete result, so `decode_result` has an arm for each.
    #[test]
    fn decode_covers_every_request() {
        let minimal = |method: &str| match method {
            "server/discover" => {
                json!({"resultType": "complete", "supportedVersions": [], "capabilities": {}, "ttlMs": 0, "cacheScope": "private"})
            }
            "tools/list" => json!({"resultType": "complete", "tools": []}),
            "prompts/list" => json!({"resultType": "complete", "prompts": []}),
            "resources/list" => json!({"resultType": "complete", "resources": []}),
            "resources/templates/list" => {
                json!({"resultType": "complete", "resourceTemplates": []})
            }
            "resources/read" => json!({"resultType": "complete", "contents": []}),
            "tools/call" => json!({"resultType": "complete", "content": []}),
            "prompts/get" => json!({"resultType": "complete", "messages": []}),
            "subscriptions/listen" => {
                json!({"resultType": "complete", "_meta": {"io.modelcontextprotocol/subscriptionId": 1}})
            }
            "completion/complete" => {
                json!({"resultType": "complete", "completion": {"values": []}})
            }
            other => panic!("no minimal result for {other}; extend this test"),
        };
        for entry in V2026_07_28.iter().filter(|e| e.kind == MethodKind::Request) {
            let decoded = decode_result(entry.method, minimal(entry.method));
            assert!(decoded.is_ok(), "{}: {decoded:?}", entry.method);
        }
    }

    /// Each result example of the corpus decodes under the method whose
    /// result it is.
    #[test]
    fn spec_result_examples_decode() {
        let cases = [
            ("DiscoverResult", "server/discover"),
            ("ListToolsResult", "tools/list"),
            ("CallToolResult", "tools/call"),
            ("ListPromptsResult", "prompts/list"),
            ("GetPromptResult", "prompts/get"),
            ("ListResourcesResult", "resources/list"),
            ("ListResourceTemplatesResult", "resources/templates/list"),
            ("ReadResourceResult", "resources/read"),
            ("SubscriptionsListenResult", "subscriptions/listen"),
            ("CompleteResult", "completion/complete"),
        ];
        for (def, method) in cases {
            let examples = test_support::examples(def);
            assert!(!examples.is_empty(), "no examples for {def}");
            for (name, value) in examples {
                let decoded = decode_result(method, value);
                assert!(
                    decoded
                        .as_ref()
                        .is_ok_and(|d| !matches!(d, DecodedResult::InputRequired(_))),
                    "{def}/{name}: {decoded:?}"
                );
            }
        }
        for (name, value) in test_support::examples("InputRequiredResult") {
            for method in ["tools/call", "prompts/get", "resources/read"] {
                let decoded = decode_result(method, value.clone());
                assert!(
                    matches!(decoded, Ok(DecodedResult::InputRequired(_))),
                    "{name} under {method}: {decoded:?}"
                );
            }
        }
    }

    #[test]
    fn input_responses_decode_by_the_request_they_answer() {
        let elicit: v::InputRequest = serde_json::from_value(serde_json::json!({
            "method": "elicitation/create",
            "params": {"mode": "form", "message": "ok?", "requestedSchema": {"type": "object", "properties": {}}}
        }))
        .expect("an elicitation request");
        let roots: v::InputRequest =
            serde_json::from_value(serde_json::json!({"method": "roots/list"}))
                .expect("a roots request");
        let answer = serde_json::json!({"action": "decline"});
        let decoded = decode_input_response(&elicit, answer.clone()).expect("an elicit result");
        assert_eq!(decoded.type_name(), "ElicitResult");
        assert!(decode_input_response(&roots, answer).is_err());
        let decoded =
            decode_input_response(&roots, serde_json::json!({"roots": []})).expect("roots");
        assert_eq!(decoded.type_name(), "ListRootsResult");
    }
}
