//! One line of the audit log, built without I/O.

use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::approval::ToolCall;

/// What of a call's arguments the log keeps.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Arguments {
    /// Only the SHA-256 of their canonical JSON. The default.
    #[default]
    Digest,
    /// The arguments, with the values of these keys (at any depth,
    /// compared without regard to case) replaced by `"<redacted>"`; the
    /// digest too.
    Redacted(Vec<String>),
}

/// One tool call decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditRecord {
    /// When the decision was made, RFC 3339 in UTC.
    pub time: String,
    /// The server's id.
    pub server: String,
    /// The tool's own name on the server.
    pub tool: String,
    /// The host's name for it.
    pub qualified: String,
    /// SHA-256 of the arguments' RFC 8785 JSON, hex.
    pub arguments_digest: String,
    /// The arguments, redacted, when the log keeps them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
    /// `allowed`, `denied` or `refused`.
    pub decision: String,
    /// How it was made: `policy`, `schema`, `quarantine`, or the
    /// approver's label (`prompt`, `yes`).
    pub how: String,
    /// Why it was denied or refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// `ok`, `tool-error` (the tool reported an error), `error` (the call
    /// failed) or `not-sent`.
    pub outcome: String,
    /// The error of a failed call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// From the decision to the outcome, in milliseconds.
    pub duration_ms: u64,
    /// The flow policy's account of a decision it made (`how` is `flow`):
    /// the untrusted sources in the context and who endorsed the call, if
    /// anyone did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flow: Option<Value>,
}

impl AuditRecord {
    /// The record of `call`, decided at `time` as `decision` by `how`,
    /// not sent (yet): [`AuditRecord::sent`] fills the outcome in.
    pub fn new(
        call: &ToolCall,
        kept: &Arguments,
        time: SystemTime,
        decision: &str,
        how: &str,
    ) -> Self {
        Self::of(
            (call.server().as_str(), call.tool(), call.qualified()),
            call.arguments(),
            kept,
            time,
            decision,
            how,
        )
    }

    /// As [`AuditRecord::new`], by names and arguments.
    pub fn of(
        (server, tool, qualified): (&str, &str, &str),
        arguments: &Map<String, Value>,
        kept: &Arguments,
        time: SystemTime,
        decision: &str,
        how: &str,
    ) -> Self {
        let arguments = Value::Object(arguments.clone());
        Self {
            time: rfc3339(time),
            server: server.to_owned(),
            tool: tool.to_owned(),
            qualified: qualified.to_owned(),
            arguments_digest: crate::digest::digest(&arguments),
            arguments: match kept {
                Arguments::Digest => None,
                Arguments::Redacted(keys) => Some(redact(&arguments, keys)),
            },
            decision: decision.to_owned(),
            how: how.to_owned(),
            reason: None,
            outcome: String::from("not-sent"),
            error: None,
            duration_ms: 0,
            flow: None,
        }
    }

    /// The record with the flow policy's account of its decision.
    pub fn with_flow(mut self, flow: Value) -> Self {
        self.flow = Some(flow);
        self
    }

    /// The record with the reason of a denial or refusal.
    pub fn because(mut self, reason: impl Into<String>) -> Self {
        self.reason = Some(reason.into());
        self
    }

    /// The record of a call that was sent and took `took`: `ok`,
    /// `tool-error`, or `error` with the message.
    pub fn sent(mut self, outcome: Result<bool, String>, took: Duration) -> Self {
        self.duration_ms = u64::try_from(took.as_millis()).unwrap_or(u64::MAX);
        match outcome {
            Ok(false) => self.outcome = String::from("ok"),
            Ok(true) => self.outcome = String::from("tool-error"),
            Err(error) => {
                self.outcome = String::from("error");
                self.error = Some(error);
            }
        }
        self
    }
}

/// `value` with the value of every key in `keys` (at any depth, without
/// regard to case) replaced by `"<redacted>"`.
pub fn redact(value: &Value, keys: &[String]) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let v = if keys.iter().any(|key| key.eq_ignore_ascii_case(k)) {
                        Value::from("<redacted>")
                    } else {
                        redact(v, keys)
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(|v| redact(v, keys)).collect()),
        other => other.clone(),
    }
}

/// `time` as RFC 3339 in UTC, to the millisecond: `2026-07-28T09:30:00.250Z`.
pub fn rfc3339(time: SystemTime) -> String {
    let since = time
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default();
    let secs = since.as_secs();
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil(i64::try_from(days).unwrap_or(0));
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60,
        since.subsec_millis()
    )
}

/// The proleptic Gregorian date `days` after 1970-01-01 (H. Hinnant's
/// days-to-civil algorithm).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = u32::try_from(doy - (153 * mp + 2) / 5 + 1).unwrap_or(1);
    let month = u32::try_from(if mp < 10 { mp + 3 } else { mp - 9 }).unwrap_or(1);
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn times_are_rfc3339_utc() {
        let at = |secs: u64, millis: u64| {
            rfc3339(SystemTime::UNIX_EPOCH + Duration::from_millis(secs * 1000 + millis))
        };
        assert_eq!(at(0, 0), "1970-01-01T00:00:00.000Z");
        assert_eq!(at(951_782_400, 5), "2000-02-29T00:00:00.005Z");
        assert_eq!(at(1_785_231_000, 250), "2026-07-28T09:30:00.250Z");
    }

    #[test]
    fn records_keep_a_digest_or_redacted_arguments() {
        let Value::Object(arguments) = json!({"city": "Oslo", "auth": {"Token": "s3cret"}}) else {
            unreachable!()
        };
        let names = ("w", "weather", "w__weather");
        let plain = AuditRecord::of(
            names,
            &arguments,
            &Arguments::Digest,
            SystemTime::UNIX_EPOCH,
            "allowed",
            "yes",
        );
        assert_eq!(plain.arguments, None);
        assert_eq!(
            plain.arguments_digest,
            crate::digest::digest(&json!(arguments))
        );
        let line = serde_json::to_string(&plain).expect("encodes");
        assert!(!line.contains("s3cret") && !line.contains("Oslo"), "{line}");
        let kept = Arguments::Redacted(vec!["token".into()]);
        let record = AuditRecord::of(
            names,
            &arguments,
            &kept,
            SystemTime::UNIX_EPOCH,
            "allowed",
            "yes",
        )
        .sent(Err("boom".into()), Duration::from_millis(12));
        assert_eq!(
            record.arguments,
            Some(json!({"city": "Oslo", "auth": {"Token": "<redacted>"}}))
        );
        assert_eq!((record.outcome.as_str(), record.duration_ms), ("error", 12));
        assert_eq!(record.error.as_deref(), Some("boom"));
    }
}
