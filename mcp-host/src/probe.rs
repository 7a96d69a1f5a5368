//! The era probe: which protocol era a server speaks, decided from what it
//! answers to `server/discover`. Sans-IO: the transports send and wait, the
//! probe only decides.
//!
//! # Call contract
//!
//! 1. [`EraProbe::new`] with the client's versions. `None` means the client
//!    speaks no modern version: go straight to `initialize`.
//! 2. Send `server/discover` naming [`EraProbe::version`], with a timeout.
//! 3. Feed what came back to [`EraProbe::on_reply`]: the result, the
//!    JSON-RPC error, [`DiscoverReply::Silence`] when nothing came in time
//!    (or the stream ended without an answer), or on HTTP the status and
//!    body of a non-2xx reply.
//! 4. On [`ProbeStep::RetryModern`], go back to 2: `version()` now names the
//!    version to retry with. Any other step is final; a further reply gives
//!    [`ProbeError::Finished`].
//!
//! The outcomes follow the dual-era rules: a `DiscoverResult` means modern;
//! a *recognised modern error* means modern too, and never falls back to
//! `initialize`; anything else, including silence, means legacy. No single
//! error code decides the fallback: an error counts as modern only when its
//! code is one the modern era defines *and* its `data` has that code's shape.

use mcp_types::error::{MissingCapabilityData, UnsupportedVersionData};
use mcp_types::jsonrpc::{ErrorObject, Message};
use mcp_types::v2026_07_28::DiscoverResult;
use mcp_types::version::{negotiate, Era, ProtocolVersion};
use mcp_types::ErrorCode;
use serde_json::Value;

/// What came back for one `server/discover` attempt.
#[derive(Debug, Clone, PartialEq)]
pub enum DiscoverReply {
    /// A success response: its `result`.
    Result(Value),
    /// An error response: its `error`.
    Error(ErrorObject),
    /// Nothing in time, or the stream ended without an answer.
    Silence,
    /// HTTP only: a reply whose status was not 2xx, with its body (possibly
    /// empty).
    HttpStatus {
        /// The HTTP status.
        status: u16,
        /// The body bytes.
        body: Vec<u8>,
    },
}

/// A modern error the probe recognises: its code is one the modern era
/// defines and its `data` has the shape that code calls for.
#[derive(Debug, Clone, PartialEq)]
pub enum ModernError {
    /// -32022: the server does not speak the requested version.
    UnsupportedVersion(UnsupportedVersionData),
    /// -32021: the request lacked a client capability.
    MissingCapability(Box<MissingCapabilityData>),
    /// -32020: an HTTP header did not match the body.
    HeaderMismatch,
}

/// Whether `error` is a recognised modern error, and which.
pub fn modern_error(error: &ErrorObject) -> Option<ModernError> {
    match error.error_code() {
        ErrorCode::UNSUPPORTED_PROTOCOL_VERSION => error
            .unsupported_version_data()?
            .ok()
            .map(ModernError::UnsupportedVersion),
        ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY => error
            .missing_capability_data()?
            .ok()
            .map(|d| ModernError::MissingCapability(Box::new(d))),
        ErrorCode::HEADER_MISMATCH => Some(ModernError::HeaderMismatch),
        _ => None,
    }
}

/// Why the probe decided the server is legacy.
#[derive(Debug, Clone, PartialEq)]
pub enum LegacyReason {
    /// No answer in time.
    Silence,
    /// An error that is not a recognised modern error.
    Error(ErrorObject),
    /// A result that is not a `DiscoverResult`.
    NotDiscover,
    /// A `DiscoverResult` whose versions we share are all legacy.
    OnlyLegacyVersions,
    /// HTTP 400, 404 or 405 without a recognised modern error in the body.
    HttpStatus(u16),
}

/// Why the probe failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProbeError {
    /// The server is modern but shares no version with the client.
    #[error("the server supports {supported:?}, none of which this client speaks")]
    NoCommonVersion {
        /// The versions the server listed.
        supported: Vec<String>,
    },
    /// The server is modern and refused discovery for a reason a retry
    /// cannot fix.
    #[error("the server refused discovery with error {}", .0.code)]
    Refused(ErrorObject),
    /// An HTTP status that says neither modern nor legacy, such as 401 or
    /// 500.
    #[error("discovery failed with HTTP status {0}")]
    HttpStatus(u16),
    /// `on_reply` was called after a final step.
    #[error("the probe has already finished")]
    Finished,
}

/// What to do after a reply.
#[derive(Debug, Clone, PartialEq)]
pub enum ProbeStep {
    /// The server is modern: send every request with `version`.
    Modern {
        /// The version both sides speak, the newest such.
        version: ProtocolVersion,
        /// What the server said about itself.
        result: Box<DiscoverResult>,
    },
    /// The server is modern but refused the version asked for: send
    /// discover again with `version`. Never fall back to `initialize`.
    RetryModern {
        /// The versions the server listed.
        supported: Vec<ProtocolVersion>,
        /// The one to try next, also [`EraProbe::version`].
        version: ProtocolVersion,
    },
    /// The server is legacy: run the `initialize` handshake.
    Legacy(LegacyReason),
    /// The probe failed; no fallback applies.
    Failed(ProbeError),
}

/// The era probe for one server.
#[derive(Debug, Clone)]
pub struct EraProbe {
    /// The client's modern versions.
    modern: Vec<ProtocolVersion>,
    /// All the client's versions.
    all: Vec<ProtocolVersion>,
    current: ProtocolVersion,
    tried: Vec<ProtocolVersion>,
    finished: bool,
}

impl EraProbe {
    /// A probe for a client that speaks `versions`; it asks first for the
    /// newest modern one. `None` when none is modern.
    pub fn new(versions: &[ProtocolVersion]) -> Option<Self> {
        let modern: Vec<_> = versions
            .iter()
            .filter(|v| v.era() == Some(Era::Modern))
            .cloned()
            .collect();
        let current = modern.iter().max()?.clone();
        Some(Self {
            modern,
            all: versions.to_vec(),
            current,
            tried: Vec::new(),
            finished: false,
        })
    }

    /// The version to name in the next `server/discover`.
    pub fn version(&self) -> &ProtocolVersion {
        &self.current
    }

    /// Classifies one reply.
    pub fn on_reply(&mut self, reply: DiscoverReply) -> ProbeStep {
        if self.finished {
            return ProbeStep::Failed(ProbeError::Finished);
        }
        let step = self.classify(reply);
        self.finished = !matches!(step, ProbeStep::RetryModern { .. });
        step
    }

    fn classify(&mut self, reply: DiscoverReply) -> ProbeStep {
        match reply {
            DiscoverReply::Result(value) => self.on_result(value),
            DiscoverReply::Error(error) => self.on_error(error),
            DiscoverReply::Silence => ProbeStep::Legacy(LegacyReason::Silence),
            DiscoverReply::HttpStatus { status, body } => {
                match Message::from_slice(&body) {
                    Ok(Message::ErrorResponse { error, .. }) if modern_error(&error).is_some() => {
                        return self.on_error(error)
                    }
                    _ => {}
                }
                match status {
                    400 | 404 | 405 => ProbeStep::Legacy(LegacyReason::HttpStatus(status)),
                    other => ProbeStep::Failed(ProbeError::HttpStatus(other)),
                }
            }
        }
    }

    fn on_result(&mut self, value: Value) -> ProbeStep {
        let Ok(result) = serde_json::from_value::<DiscoverResult>(value) else {
            return ProbeStep::Legacy(LegacyReason::NotDiscover);
        };
        if result
            .result_type
            .as_deref()
            .is_some_and(|t| t != "complete")
        {
            return ProbeStep::Legacy(LegacyReason::NotDiscover);
        }
        let supported: Vec<_> = result
            .supported_versions
            .iter()
            .map(|v| ProtocolVersion::parse(v))
            .collect();
        if let Some(version) = negotiate(&self.modern, &supported) {
            return ProbeStep::Modern {
                version,
                result: Box::new(result),
            };
        }
        if negotiate(&self.all, &supported).is_some() {
            return ProbeStep::Legacy(LegacyReason::OnlyLegacyVersions);
        }
        ProbeStep::Failed(ProbeError::NoCommonVersion {
            supported: result.supported_versions,
        })
    }

    fn on_error(&mut self, error: ErrorObject) -> ProbeStep {
        match modern_error(&error) {
            None => ProbeStep::Legacy(LegacyReason::Error(error)),
            Some(ModernError::UnsupportedVersion(data)) => {
                self.tried.push(self.current.clone());
                let supported: Vec<_> = data
                    .supported
                    .iter()
                    .map(|v| ProtocolVersion::parse(v))
                    .collect();
                // Prefer a version not tried yet; a version the server lists
                // yet refused may be tried once more (the refusal may have
                // been transient), never a third time.
                let tried = |v: &ProtocolVersion| self.tried.iter().filter(|t| *t == v).count();
                let with_tries = |n: usize| -> Vec<ProtocolVersion> {
                    self.modern
                        .iter()
                        .filter(|v| tried(v) == n)
                        .cloned()
                        .collect()
                };
                let next = negotiate(&with_tries(0), &supported)
                    .or_else(|| negotiate(&with_tries(1), &supported));
                match next {
                    Some(version) => {
                        self.current = version.clone();
                        ProbeStep::RetryModern { supported, version }
                    }
                    None => ProbeStep::Failed(ProbeError::NoCommonVersion {
                        supported: data.supported,
                    }),
                }
            }
            Some(_) => ProbeStep::Failed(ProbeError::Refused(error)),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const MODERN: ProtocolVersion = ProtocolVersion::V2026_07_28;

    fn client() -> EraProbe {
        EraProbe::new(&[MODERN, ProtocolVersion::V2025_11_25]).expect("a modern version")
    }

    fn discover(versions: &[&str]) -> Value {
        json!({"resultType": "complete", "supportedVersions": versions, "capabilities": {"tools": {}},
               "ttlMs": 0, "cacheScope": "public"})
    }

    fn error(code: i64, data: Option<Value>) -> ErrorObject {
        ErrorObject {
            code,
            message: "no".into(),
            data,
        }
    }

    #[test]
    fn discover_result_means_modern() {
        let mut probe = client();
        assert_eq!(probe.version(), &MODERN);
        match probe.on_reply(DiscoverReply::Result(discover(&["2026-07-28"]))) {
            ProbeStep::Modern { version, result } => {
                assert_eq!(version, MODERN);
                assert!(result.capabilities.tools.is_some());
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            probe.on_reply(DiscoverReply::Silence),
            ProbeStep::Failed(ProbeError::Finished)
        );
    }

    #[test]
    fn unsupported_version_retries_modern_never_legacy() {
        let future = ProtocolVersion::parse("2027-01-01");
        let mut probe = EraProbe::new(&[future.clone(), MODERN]).expect("modern");
        assert_eq!(probe.version(), &future);
        let refused = error(
            -32022,
            Some(json!({"supported": ["2026-07-28"], "requested": "2027-01-01"})),
        );
        match probe.on_reply(DiscoverReply::Error(refused.clone())) {
            ProbeStep::RetryModern { version, supported } => {
                assert_eq!(version, MODERN);
                assert_eq!(supported, vec![MODERN]);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(probe.version(), &MODERN);
        // Refused although listed: one more try of the same version, then
        // no loop, and never a fallback.
        let again = error(
            -32022,
            Some(json!({"supported": ["2026-07-28"], "requested": "2026-07-28"})),
        );
        assert!(matches!(
            probe.on_reply(DiscoverReply::Error(again.clone())),
            ProbeStep::RetryModern { version, .. } if version == MODERN
        ));
        assert!(matches!(
            probe.on_reply(DiscoverReply::Error(again)),
            ProbeStep::Failed(ProbeError::NoCommonVersion { .. })
        ));
    }

    #[test]
    fn unsupported_version_with_nothing_shared_fails() {
        let mut probe = client();
        let refused = error(
            -32022,
            Some(json!({"supported": ["2031-01-01"], "requested": "2026-07-28"})),
        );
        assert!(matches!(
            probe.on_reply(DiscoverReply::Error(refused)),
            ProbeStep::Failed(ProbeError::NoCommonVersion { supported }) if supported == ["2031-01-01"]
        ));
    }

    #[test]
    fn other_errors_and_silence_mean_legacy() {
        for code in [-32601, -32602, -32600, -32603, -32000, 1] {
            let e = error(code, None);
            assert_eq!(
                client().on_reply(DiscoverReply::Error(e.clone())),
                ProbeStep::Legacy(LegacyReason::Error(e)),
                "code {code}"
            );
        }
        assert_eq!(
            client().on_reply(DiscoverReply::Silence),
            ProbeStep::Legacy(LegacyReason::Silence)
        );
    }

    #[test]
    fn the_code_alone_does_not_decide() {
        // -32022 without the data a modern server sends is not recognised.
        let bare = error(-32022, None);
        assert!(matches!(
            client().on_reply(DiscoverReply::Error(bare)),
            ProbeStep::Legacy(LegacyReason::Error(_))
        ));
        let wrong = error(-32022, Some(json!({"whatever": 1})));
        assert!(matches!(
            client().on_reply(DiscoverReply::Error(wrong)),
            ProbeStep::Legacy(_)
        ));
        // A recognised -32021 is modern: a refusal, not a fallback.
        let missing = error(-32021, Some(json!({"requiredCapabilities": {"roots": {}}})));
        assert!(matches!(
            client().on_reply(DiscoverReply::Error(missing)),
            ProbeStep::Failed(ProbeError::Refused(_))
        ));
        assert!(matches!(
            client().on_reply(DiscoverReply::Error(error(-32020, None))),
            ProbeStep::Failed(ProbeError::Refused(_))
        ));
    }

    #[test]
    fn results_that_are_not_discover_mean_legacy() {
        for value in [
            json!({}),
            json!({"content": []}),
            json!("x"),
            json!({"resultType": "input_required", "supportedVersions": [], "capabilities": {}}),
        ] {
            assert_eq!(
                client().on_reply(DiscoverReply::Result(value)),
                ProbeStep::Legacy(LegacyReason::NotDiscover)
            );
        }
        assert_eq!(
            client().on_reply(DiscoverReply::Result(discover(&["2025-11-25"]))),
            ProbeStep::Legacy(LegacyReason::OnlyLegacyVersions)
        );
        assert!(matches!(
            client().on_reply(DiscoverReply::Result(discover(&["2031-01-01"]))),
            ProbeStep::Failed(ProbeError::NoCommonVersion { .. })
        ));
    }

    #[test]
    fn http_400_reads_the_body() {
        let modern_body = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32022, "message": "v",
            "data": {"supported": ["2026-07-28"], "requested": "2027-01-01"}}});
        let mut probe =
            EraProbe::new(&[ProtocolVersion::parse("2027-01-01"), MODERN]).expect("modern");
        assert!(matches!(
            probe.on_reply(DiscoverReply::HttpStatus {
                status: 400,
                body: modern_body.to_string().into_bytes()
            }),
            ProbeStep::RetryModern { .. }
        ));
        for (status, body) in [
            (400, Vec::new()),
            (400, b"Bad Request: no session".to_vec()),
            (404, Vec::new()),
            (405, Vec::new()),
            (
                400,
                json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32000, "message": "init first"}})
                    .to_string()
                    .into_bytes(),
            ),
        ] {
            assert_eq!(
                client().on_reply(DiscoverReply::HttpStatus { status, body }),
                ProbeStep::Legacy(LegacyReason::HttpStatus(status))
            );
        }
        assert_eq!(
            client().on_reply(DiscoverReply::HttpStatus {
                status: 401,
                body: Vec::new()
            }),
            ProbeStep::Failed(ProbeError::HttpStatus(401))
        );
    }

    #[test]
    fn legacy_only_clients_skip_the_probe() {
        assert!(EraProbe::new(&[ProtocolVersion::V2025_11_25]).is_none());
    }
}
