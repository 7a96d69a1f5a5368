//! Error codes, the typed `data` payloads that go with them, and
//! constructors for the error objects the protocol defines.
//!
//! Codes come in bands:
//!
//! | band | meaning |
//! |---|---|
//! | -32768 ..= -32000 | reserved by JSON-RPC 2.0; applications should pick codes outside it |
//! | -32099 ..= -32020 | kept by MCP for its own codes; only the defined ones may be sent |
//! | -32019 ..= -32000 | legacy band; nothing new is allocated, receivers read no meaning into it |
//!
//! Two codes were used by earlier revisions and are retired: they must not be
//! sent any more, but a tolerant receiver still understands
//! [`ErrorCode::RESOURCE_NOT_FOUND_LEGACY`].

use std::fmt;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::jsonrpc::ErrorObject;
use crate::v2026_07_28::ClientCapabilities;

/// A JSON-RPC error code, with names for every code MCP gives a meaning to.
///
/// The wrapped integer is public so that application codes can be built
/// directly: `ErrorCode(-1)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ErrorCode(pub i64);

impl ErrorCode {
    /// -32700: the bytes received were not valid JSON.
    pub const PARSE_ERROR: Self = Self(-32700);
    /// -32600: valid JSON, but not a valid JSON-RPC message.
    pub const INVALID_REQUEST: Self = Self(-32600);
    /// -32601: the method is unknown, or sits behind a server capability
    /// that was not advertised.
    pub const METHOD_NOT_FOUND: Self = Self(-32601);
    /// -32602: the parameters are wrong. MCP also uses it for missing
    /// required `_meta` keys, unknown tools or prompts, bad cursors and
    /// unknown resources.
    pub const INVALID_PARAMS: Self = Self(-32602);
    /// -32603: the receiver failed in a way it did not expect.
    pub const INTERNAL_ERROR: Self = Self(-32603);
    /// -32020: an HTTP header is missing, malformed or disagrees with the
    /// body. Since 2026-07-28.
    pub const HEADER_MISMATCH: Self = Self(-32020);
    /// -32021: the request needs a client capability it did not declare.
    /// Since 2026-07-28; `data` is [`MissingCapabilityData`].
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: Self = Self(-32021);
    /// -32022: the server does not serve the requested protocol version.
    /// Since 2026-07-28; `data` is [`UnsupportedVersionData`].
    pub const UNSUPPORTED_PROTOCOL_VERSION: Self = Self(-32022);
    /// -32002: **retired.** Earlier revisions used it for an unknown
    /// resource; that is now [`ErrorCode::INVALID_PARAMS`]. Never send it,
    /// but accept it from older servers.
    pub const RESOURCE_NOT_FOUND_LEGACY: Self = Self(-32002);
    /// -32042: **retired.** 2025-11-25 used it to demand a URL-mode
    /// elicitation. It must not be sent and will not be reused.
    pub const URL_ELICITATION_REQUIRED: Self = Self(-32042);

    /// The integer on the wire.
    pub const fn code(self) -> i64 {
        self.0
    }

    /// A short name for a code MCP defines (including the retired ones),
    /// or `None` for any other code.
    pub const fn name(self) -> Option<&'static str> {
        Some(match self.0 {
            -32700 => "ParseError",
            -32600 => "InvalidRequest",
            -32601 => "MethodNotFound",
            -32602 => "InvalidParams",
            -32603 => "InternalError",
            -32020 => "HeaderMismatch",
            -32021 => "MissingRequiredClientCapability",
            -32022 => "UnsupportedProtocolVersion",
            -32002 => "ResourceNotFound",
            -32042 => "UrlElicitationRequired",
            _ => return None,
        })
    }

    /// Whether the code lies in -32099 ..= -32020, the band MCP keeps for
    /// codes of its own. Implementations must not invent codes there.
    pub const fn is_spec_reserved(self) -> bool {
        -32099 <= self.0 && self.0 <= -32020
    }

    /// Whether the code lies in -32019 ..= -32000, the legacy band. Receivers
    /// must not read meaning into these codes, except the retired -32002.
    pub const fn is_legacy_range(self) -> bool {
        -32019 <= self.0 && self.0 <= -32000
    }

    /// Whether the code lies in -32768 ..= -32000, the band JSON-RPC 2.0
    /// reserves. Application-defined codes should come from outside it.
    pub const fn is_jsonrpc_reserved(self) -> bool {
        -32768 <= self.0 && self.0 <= -32000
    }

    /// Whether the code is one of the two retired codes, which must no
    /// longer be sent.
    pub const fn is_retired(self) -> bool {
        matches!(self.0, -32002 | -32042)
    }

    /// Whether the code was introduced by the modern era (2026-07-28):
    /// -32020, -32021 or -32022. A peer answering with one of these speaks
    /// the modern protocol, which is what a dual-era client's probe looks for.
    pub const fn is_modern(self) -> bool {
        matches!(self.0, -32022..=-32020)
    }
}

impl From<i64> for ErrorCode {
    fn from(code: i64) -> Self {
        Self(code)
    }
}

impl From<ErrorCode> for i64 {
    fn from(code: ErrorCode) -> Self {
        code.0
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) if self.is_retired() => write!(f, "{} ({name}, retired)", self.0),
            Some(name) => write!(f, "{} ({name})", self.0),
            None => write!(f, "{}", self.0),
        }
    }
}

/// The `data` of an [`ErrorCode::UNSUPPORTED_PROTOCOL_VERSION`] error.
///
/// Members other than the two below are ignored when decoding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UnsupportedVersionData {
    /// The versions the server serves; the client should retry with one of
    /// them that it also speaks.
    pub supported: Vec<String>,
    /// The version the client asked for.
    pub requested: String,
}

/// The `data` of an [`ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY`] error.
///
/// Members other than the one below are ignored when decoding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MissingCapabilityData {
    /// The client capabilities the server would need to see declared on
    /// the request to process it.
    pub required_capabilities: ClientCapabilities,
}

/// The optional `data` of a resource-not-found error, which is an
/// [`ErrorCode::INVALID_PARAMS`] error since 2026-07-28.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceNotFoundData {
    /// The URI that named no resource.
    pub uri: String,
}

impl ErrorObject {
    /// A -32700 error for bytes that are not JSON.
    pub fn parse_error(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::PARSE_ERROR, message)
    }

    /// A -32600 error for JSON that is not a valid JSON-RPC message.
    pub fn invalid_request(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::INVALID_REQUEST, message)
    }

    /// A -32601 error naming the method that is not served.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("Method not found: {method}"),
        )
    }

    /// A -32602 error.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::INVALID_PARAMS, message)
    }

    /// A -32603 error.
    pub fn internal_error(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::INTERNAL_ERROR, message)
    }

    /// A -32020 error: HTTP headers missing, malformed or disagreeing with
    /// the body.
    pub fn header_mismatch(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::HEADER_MISMATCH, message)
    }

    /// A -32022 error listing the versions the server does serve.
    pub fn unsupported_protocol_version<I, S>(supported: I, requested: impl Into<String>) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let data = UnsupportedVersionData {
            supported: supported.into_iter().map(Into::into).collect(),
            requested: requested.into(),
        };
        let message = format!(
            "Unsupported protocol version {}; supported: {}",
            data.requested,
            data.supported.join(", ")
        );
        Self::new(ErrorCode::UNSUPPORTED_PROTOCOL_VERSION, message).with_data(data)
    }

    /// A -32021 error naming the client capabilities the request needs.
    pub fn missing_required_client_capability(required: ClientCapabilities) -> Self {
        let data = MissingCapabilityData {
            required_capabilities: required,
        };
        Self::new(
            ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
            "The request needs a client capability that was not declared",
        )
        .with_data(data)
    }

    /// The error for a `resources/read` of an unknown URI: -32602 with
    /// `data.uri`, never the retired -32002.
    pub fn resource_not_found(uri: &str) -> Self {
        let data = ResourceNotFoundData {
            uri: uri.to_owned(),
        };
        Self::new(
            ErrorCode::INVALID_PARAMS,
            format!("Resource not found: {uri}"),
        )
        .with_data(data)
    }

    /// Attaches `data`, encoded as JSON.
    ///
    /// The data types of this module always encode; for a value whose
    /// `Serialize` fails the error object is returned without `data`.
    pub fn with_data(mut self, data: impl Serialize) -> Self {
        self.data = serde_json::to_value(data).ok();
        self
    }

    /// Decodes `data` as `T`; `None` when there is no `data`.
    ///
    /// # Errors
    ///
    /// The inner `Err` when `data` does not have the shape of `T`.
    pub fn data_as<T: DeserializeOwned>(&self) -> Option<Result<T, serde_json::Error>> {
        self.data.as_ref().map(T::deserialize)
    }

    /// The typed `data` of a -32022 error; `None` for any other code or
    /// when `data` is absent.
    ///
    /// # Errors
    ///
    /// The inner `Err` when `data` lacks `supported` or `requested`.
    pub fn unsupported_version_data(
        &self,
    ) -> Option<Result<UnsupportedVersionData, serde_json::Error>> {
        self.data_for(ErrorCode::UNSUPPORTED_PROTOCOL_VERSION)
    }

    /// The typed `data` of a -32021 error; `None` for any other code or
    /// when `data` is absent.
    ///
    /// # Errors
    ///
    /// The inner `Err` when `data.requiredCapabilities` is missing or
    /// malformed.
    pub fn missing_capability_data(
        &self,
    ) -> Option<Result<MissingCapabilityData, serde_json::Error>> {
        self.data_for(ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY)
    }

    /// Whether this error reports an unknown resource, in either spelling:
    /// -32602 carrying `data.uri`, or the retired -32002 that older servers
    /// still send.
    pub fn is_resource_not_found(&self) -> bool {
        let code = self.error_code();
        code == ErrorCode::RESOURCE_NOT_FOUND_LEGACY
            || (code == ErrorCode::INVALID_PARAMS && self.data_uri().is_some())
    }

    fn data_uri(&self) -> Option<&str> {
        self.data.as_ref()?.as_object().and_then(uri_of)
    }

    fn data_for<T: DeserializeOwned>(
        &self,
        code: ErrorCode,
    ) -> Option<Result<T, serde_json::Error>> {
        if self.error_code() == code {
            self.data_as()
        } else {
            None
        }
    }
}

fn uri_of(data: &Map<String, Value>) -> Option<&str> {
    data.get("uri").and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::test_support;

    const NAMED: [ErrorCode; 10] = [
        ErrorCode::PARSE_ERROR,
        ErrorCode::INVALID_REQUEST,
        ErrorCode::METHOD_NOT_FOUND,
        ErrorCode::INVALID_PARAMS,
        ErrorCode::INTERNAL_ERROR,
        ErrorCode::HEADER_MISMATCH,
        ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
        ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
        ErrorCode::RESOURCE_NOT_FOUND_LEGACY,
        ErrorCode::URL_ELICITATION_REQUIRED,
    ];

    #[test]
    fn codes_have_their_wire_values() {
        let values: Vec<i64> = NAMED.iter().map(|c| c.code()).collect();
        assert_eq!(
            values,
            [-32700, -32600, -32601, -32602, -32603, -32020, -32021, -32022, -32002, -32042]
        );
        assert!(NAMED.iter().all(|c| c.name().is_some()));
        assert_eq!(ErrorCode(-1).name(), None);
    }

    #[test]
    fn bands() {
        assert!(ErrorCode::HEADER_MISMATCH.is_spec_reserved());
        assert!(ErrorCode(-32099).is_spec_reserved());
        assert!(!ErrorCode(-32100).is_spec_reserved());
        assert!(!ErrorCode(-32019).is_spec_reserved());
        assert!(ErrorCode(-32019).is_legacy_range());
        assert!(ErrorCode(-32000).is_legacy_range());
        assert!(ErrorCode::RESOURCE_NOT_FOUND_LEGACY.is_legacy_range());
        assert!(!ErrorCode(-31999).is_legacy_range());
        assert!(!ErrorCode::HEADER_MISMATCH.is_legacy_range());
        assert!(ErrorCode(-32768).is_jsonrpc_reserved());
        assert!(!ErrorCode(-32769).is_jsonrpc_reserved());
        assert!(!ErrorCode(42).is_jsonrpc_reserved());
    }

    #[test]
    fn retired_and_modern_codes() {
        let retired: Vec<_> = NAMED.iter().filter(|c| c.is_retired()).collect();
        assert_eq!(
            retired,
            [
                &ErrorCode::RESOURCE_NOT_FOUND_LEGACY,
                &ErrorCode::URL_ELICITATION_REQUIRED
            ]
        );
        let modern: Vec<i64> = NAMED
            .iter()
            .filter(|c| c.is_modern())
            .map(|c| c.0)
            .collect();
        assert_eq!(modern, [-32020, -32021, -32022]);
        assert!(!ErrorCode(-32023).is_modern());
    }

    #[test]
    fn display_and_serde() {
        assert_eq!(
            ErrorCode::UNSUPPORTED_PROTOCOL_VERSION.to_string(),
            "-32022 (UnsupportedProtocolVersion)"
        );
        assert_eq!(ErrorCode(7).to_string(), "7");
        assert_eq!(
            ErrorCode::RESOURCE_NOT_FOUND_LEGACY.to_string(),
            "-32002 (ResourceNotFound, retired)"
        );
        assert_eq!(
            serde_json::to_value(ErrorCode::PARSE_ERROR).ok(),
            Some(json!(-32700))
        );
        let back: ErrorCode = serde_json::from_value(json!(-32601)).expect("integer code");
        assert_eq!(back, ErrorCode::METHOD_NOT_FOUND);
    }

    #[test]
    fn unsupported_version_object() {
        let err = ErrorObject::unsupported_protocol_version(["2026-07-28"], "1999-01-01");
        assert_eq!(err.code, -32022);
        assert_eq!(
            err.data,
            Some(json!({"supported": ["2026-07-28"], "requested": "1999-01-01"}))
        );
        let data = err
            .unsupported_version_data()
            .expect("present")
            .expect("valid");
        assert_eq!(data.supported, ["2026-07-28"]);
        assert_eq!(data.requested, "1999-01-01");
        assert!(err.missing_capability_data().is_none());
    }

    #[test]
    fn missing_capability_object() {
        let caps: ClientCapabilities =
            serde_json::from_value(json!({"elicitation": {}})).expect("capabilities");
        let err = ErrorObject::missing_required_client_capability(caps.clone());
        assert_eq!(err.code, -32021);
        assert_eq!(
            err.data,
            Some(json!({"requiredCapabilities": {"elicitation": {}}}))
        );
        let data = err
            .missing_capability_data()
            .expect("present")
            .expect("valid");
        assert_eq!(data.required_capabilities, caps);
    }

    #[test]
    fn resource_not_found_uses_invalid_params() {
        let err = ErrorObject::resource_not_found("file:///nope");
        assert_eq!(err.error_code(), ErrorCode::INVALID_PARAMS);
        assert_eq!(err.data, Some(json!({"uri": "file:///nope"})));
        assert!(err.is_resource_not_found());
        assert!(
            ErrorObject::new(ErrorCode::RESOURCE_NOT_FOUND_LEGACY, "gone").is_resource_not_found()
        );
        assert!(!ErrorObject::invalid_params("bad cursor").is_resource_not_found());
    }

    #[test]
    fn malformed_data_is_reported_not_panicked() {
        let err = ErrorObject::new(ErrorCode::UNSUPPORTED_PROTOCOL_VERSION, "x")
            .with_data(json!({"supported": "not a list"}));
        assert!(matches!(err.unsupported_version_data(), Some(Err(_))));
        let bare = ErrorObject::new(ErrorCode::UNSUPPORTED_PROTOCOL_VERSION, "x");
        assert!(bare.unsupported_version_data().is_none());
    }

    #[test]
    fn method_not_found_names_the_method() {
        let err = ErrorObject::method_not_found("tools/frobnicate");
        assert_eq!(err.code, -32601);
        assert!(err.message.contains("tools/frobnicate"));
    }

    /// The constructors of the three modern errors produce responses that
    /// the 2026-07-28 schema accepts under their own definitions.
    #[test]
    fn modern_errors_validate_against_schema() {
        let caps: ClientCapabilities =
            serde_json::from_value(json!({"sampling": {}})).expect("capabilities");
        let cases = [
            (
                "UnsupportedProtocolVersionError",
                ErrorObject::unsupported_protocol_version(["2026-07-28"], "2024-01-01"),
            ),
            (
                "MissingRequiredClientCapabilityError",
                ErrorObject::missing_required_client_capability(caps),
            ),
            (
                "HeaderMismatchError",
                ErrorObject::header_mismatch("Mcp-Method differs"),
            ),
        ];
        for (def, error) in cases {
            let response = json!({"jsonrpc": "2.0", "id": 1, "error": error});
            test_support::assert_valid("2026-07-28", def, &response);
        }
    }

    /// Every error example of the 2026-07-28 corpus decodes, and the typed
    /// data of the modern ones reads back.
    #[test]
    fn spec_error_examples_decode() {
        for def in [
            "UnsupportedProtocolVersionError",
            "MissingRequiredClientCapabilityError",
            "HeaderMismatchError",
        ] {
            let examples = test_support::examples(def);
            assert!(!examples.is_empty(), "no examples for {def}");
            for (name, value) in examples {
                let error: ErrorObject = serde_json::from_value(value["error"].clone())
                    .unwrap_or_else(|e| panic!("{def}/{name}: {e}"));
                assert!(error.error_code().is_modern(), "{def}/{name}");
                if let Some(data) = error.unsupported_version_data() {
                    assert!(data.is_ok(), "{def}/{name}");
                }
                if let Some(data) = error.missing_capability_data() {
                    assert!(data.is_ok(), "{def}/{name}");
                }
            }
        }
    }
}
