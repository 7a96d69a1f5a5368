//! When to try a request again, and after how long: a sans-IO policy
//! that takes the time as an argument.
//!
//! Retried: 408, 409, 429 and 5xx statuses, and a connection that broke
//! or timed out before any byte of the body arrived. Never retried: other
//! statuses, and anything once streamed output has reached the caller.
//! The delay is the provider's own when it gives one (`retry-after-ms`,
//! `Retry-After` in seconds or as an HTTP date, or the `RetryInfo` of a
//! Gemini error body), else exponential backoff with jitter; the attempts
//! and the total wait are capped. `x-should-retry`, which OpenAI and
//! Anthropic send, overrides the status.
//!
//! ```
//! use std::time::Duration;
//! use mcp_agent::provider::retry::{Decision, Failure, Hints, RetryPolicy};
//!
//! let policy = RetryPolicy::default();
//! let hints = Hints { retry_after: Some(Duration::from_secs(2)), should_retry: None };
//! let decision = policy.decide(1, Duration::ZERO, Failure::Status(429), &hints, 0.0);
//! assert_eq!(decision, Decision::Retry(Duration::from_secs(2)));
//! assert_eq!(
//!     policy.decide(1, Duration::ZERO, Failure::Status(400), &hints, 0.0),
//!     Decision::GiveUp,
//! );
//! ```

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;

/// The caps and the backoff of retries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included.
    pub max_attempts: u32,
    /// The backoff before the second attempt; it doubles for each one
    /// after.
    pub base_delay: Duration,
    /// The longest backoff of this policy's own.
    pub max_delay: Duration,
    /// The longest total wait across all retries of one request; a
    /// provider's delay that would pass it ends the retries.
    pub max_total_wait: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 4,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(20),
            max_total_wait: Duration::from_secs(60),
        }
    }
}

/// How an attempt failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// The provider answered with this status.
    Status(u16),
    /// The connection broke or timed out before any byte of the body.
    Connection,
    /// Streamed output had reached the caller when the attempt failed,
    /// or part of the body had arrived.
    AfterOutput,
    /// The answer arrived but cannot be used (not the provider's shape,
    /// too large, cut): the provider would most likely answer the same.
    Unusable,
}

/// What the provider said about retrying.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Hints {
    /// How long the provider asked to wait.
    pub retry_after: Option<Duration>,
    /// `x-should-retry`: the provider's own verdict.
    pub should_retry: Option<bool>,
}

/// What to do after a failed attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Wait this long, then try again.
    Retry(Duration),
    /// Report the failure.
    GiveUp,
}

impl RetryPolicy {
    /// The decision after `attempts` attempts (1 after the first) that
    /// together waited `waited`, the last failing as `failure`. `jitter`
    /// in `[0, 1]` shortens the backoff by up to a quarter (values outside
    /// are clamped).
    pub fn decide(
        &self,
        attempts: u32,
        waited: Duration,
        failure: Failure,
        hints: &Hints,
        jitter: f64,
    ) -> Decision {
        let retryable = match failure {
            Failure::AfterOutput | Failure::Unusable => return Decision::GiveUp,
            Failure::Connection => true,
            Failure::Status(status) => hints
                .should_retry
                .unwrap_or(matches!(status, 408 | 409 | 429 | 500..=599)),
        };
        if !retryable || attempts >= self.max_attempts {
            return Decision::GiveUp;
        }
        let delay = hints
            .retry_after
            .unwrap_or_else(|| self.backoff(attempts, jitter));
        match waited.checked_add(delay) {
            Some(total) if total <= self.max_total_wait => Decision::Retry(delay),
            _ => Decision::GiveUp,
        }
    }

    fn backoff(&self, attempts: u32, jitter: f64) -> Duration {
        let doubling = 2u32.saturating_pow(attempts.saturating_sub(1));
        let delay = self.base_delay.saturating_mul(doubling).min(self.max_delay);
        delay.mul_f64(1.0 - jitter.clamp(0.0, 1.0) / 4.0)
    }
}

/// The hints of a response's headers (names in any case), at `now`.
pub fn hints<'a>(headers: impl IntoIterator<Item = (&'a str, &'a str)>, now: SystemTime) -> Hints {
    let mut out = Hints::default();
    let mut retry_after_ms = None;
    for (name, value) in headers {
        let value = value.trim();
        if name.eq_ignore_ascii_case("retry-after-ms") {
            retry_after_ms = value.parse::<f64>().ok().and_then(duration_from_secs_ms);
        } else if name.eq_ignore_ascii_case("retry-after") {
            out.retry_after = retry_after(value, now);
        } else if name.eq_ignore_ascii_case("x-should-retry") {
            out.should_retry = match value {
                "true" => Some(true),
                "false" => Some(false),
                _ => None,
            };
        }
    }
    out.retry_after = retry_after_ms.or(out.retry_after);
    out
}

fn duration_from_secs_ms(ms: f64) -> Option<Duration> {
    (0.0..1e12)
        .contains(&ms)
        .then(|| Duration::from_secs_f64(ms / 1000.0))
}

/// A `Retry-After` value: delay seconds, or an IMF-fixdate
/// (`Sun, 06 Nov 1994 08:49:37 GMT`) read against `now` (a date past is
/// no wait).
pub fn retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        return value.parse().ok().map(Duration::from_secs);
    }
    let at = UNIX_EPOCH + Duration::from_secs(http_date(value)?);
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// Seconds since the epoch of an IMF-fixdate.
fn http_date(value: &str) -> Option<u64> {
    let (_, rest) = value.split_once(", ")?;
    let fields: Vec<&str> = rest.split(' ').collect();
    let [day, month, year, time, "GMT"] = fields.as_slice() else {
        return None;
    };
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = MONTHS.iter().position(|m| m == month)? as u64 + 1;
    let day: u64 = digits(day, 2)?;
    let year: u64 = digits(year, 4)?;
    let clock: Vec<&str> = time.split(':').collect();
    let [h, m, s] = clock.as_slice() else {
        return None;
    };
    let (h, m, s): (u64, u64, u64) = (digits(h, 2)?, digits(m, 2)?, digits(s, 2)?);
    if !(1..=31).contains(&day) || year < 1970 || h > 23 || m > 59 || s > 60 {
        return None;
    }
    Some(days_from_civil(year, month, day) * 86_400 + h * 3600 + m * 60 + s)
}

fn digits(text: &str, len: usize) -> Option<u64> {
    (text.len() == len && text.bytes().all(|b| b.is_ascii_digit()))
        .then(|| text.parse().ok())
        .flatten()
}

/// Days from 1970-01-01 to a date of the proleptic Gregorian calendar
/// (the civil-from-days algorithm run backwards), for years from 1970.
fn days_from_civil(year: u64, month: u64, day: u64) -> u64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year / 400;
    let year_of_era = year - era * 400;
    let month_from_march = (month + 9) % 12;
    let day_of_year = (153 * month_from_march + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The `retryDelay` of a `google.rpc.RetryInfo` detail in a Gemini error
/// body (`"37s"`, `"1.5s"`).
pub fn gemini_retry_delay(body: &Value) -> Option<Duration> {
    let details = body.get("error")?.get("details")?.as_array()?;
    details.iter().find_map(|detail| {
        let kind = detail.get("@type")?.as_str()?;
        if !kind.ends_with("google.rpc.RetryInfo") {
            return None;
        }
        let seconds: f64 = detail
            .get("retryDelay")?
            .as_str()?
            .strip_suffix('s')?
            .parse()
            .ok()?;
        duration_from_secs_ms(seconds * 1000.0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: fn(u64) -> Duration = Duration::from_secs;
    const MS: fn(u64) -> Duration = Duration::from_millis;

    #[test]
    fn decisions() {
        let policy = RetryPolicy::default();
        let none = Hints::default();
        let after = |d| Hints {
            retry_after: Some(d),
            should_retry: None,
        };
        let verdict = |v| Hints {
            retry_after: None,
            should_retry: Some(v),
        };
        let table: &[(u32, Duration, Failure, Hints, f64, Decision)] = &[
            (
                1,
                S(0),
                Failure::Status(429),
                none,
                0.0,
                Decision::Retry(MS(500)),
            ),
            (
                2,
                S(0),
                Failure::Status(503),
                none,
                0.0,
                Decision::Retry(MS(1000)),
            ),
            (
                3,
                S(0),
                Failure::Status(500),
                none,
                1.0,
                Decision::Retry(MS(1500)),
            ),
            (
                1,
                S(0),
                Failure::Status(408),
                none,
                0.0,
                Decision::Retry(MS(500)),
            ),
            (
                1,
                S(0),
                Failure::Status(409),
                none,
                0.0,
                Decision::Retry(MS(500)),
            ),
            (
                1,
                S(0),
                Failure::Connection,
                none,
                0.0,
                Decision::Retry(MS(500)),
            ),
            (1, S(0), Failure::Status(400), none, 0.0, Decision::GiveUp),
            (1, S(0), Failure::Status(401), none, 0.0, Decision::GiveUp),
            (1, S(0), Failure::Status(404), none, 0.0, Decision::GiveUp),
            (1, S(0), Failure::AfterOutput, none, 0.0, Decision::GiveUp),
            (1, S(0), Failure::Unusable, none, 0.0, Decision::GiveUp),
            (4, S(0), Failure::Status(500), none, 0.0, Decision::GiveUp),
            (
                1,
                S(0),
                Failure::Status(429),
                after(S(7)),
                0.0,
                Decision::Retry(S(7)),
            ),
            (
                1,
                S(55),
                Failure::Status(429),
                after(S(7)),
                0.0,
                Decision::GiveUp,
            ),
            (
                1,
                S(0),
                Failure::Status(429),
                after(S(61)),
                0.0,
                Decision::GiveUp,
            ),
            (
                1,
                S(0),
                Failure::Status(400),
                verdict(true),
                0.0,
                Decision::Retry(MS(500)),
            ),
            (
                1,
                S(0),
                Failure::Status(503),
                verdict(false),
                0.0,
                Decision::GiveUp,
            ),
            (
                1,
                S(0),
                Failure::Status(429),
                none,
                7.0,
                Decision::Retry(MS(375)),
            ),
        ];
        for (attempts, waited, failure, hints, jitter, expected) in table {
            let got = policy.decide(*attempts, *waited, *failure, hints, *jitter);
            assert_eq!(
                got, *expected,
                "{attempts} {waited:?} {failure:?} {hints:?} {jitter}"
            );
        }
    }

    #[test]
    fn backoff_is_capped() {
        let policy = RetryPolicy {
            max_attempts: 100,
            max_total_wait: Duration::MAX,
            ..RetryPolicy::default()
        };
        let got = policy.decide(60, S(0), Failure::Status(500), &Hints::default(), 0.0);
        assert_eq!(got, Decision::Retry(policy.max_delay));
    }

    #[test]
    fn header_hints() {
        // Tue, 15 Nov 1994 08:12:31 GMT
        let now = UNIX_EPOCH + S(784_887_151);
        let table: &[(&[(&str, &str)], Hints)] = &[
            (
                &[("Retry-After", "3")],
                Hints {
                    retry_after: Some(S(3)),
                    should_retry: None,
                },
            ),
            (
                &[("retry-after", "Tue, 15 Nov 1994 08:12:41 GMT")],
                Hints {
                    retry_after: Some(S(10)),
                    should_retry: None,
                },
            ),
            (
                &[("retry-after", "Tue, 15 Nov 1994 08:12:21 GMT")],
                Hints {
                    retry_after: Some(S(0)),
                    should_retry: None,
                },
            ),
            (
                &[("retry-after", "2"), ("retry-after-ms", "250")],
                Hints {
                    retry_after: Some(MS(250)),
                    should_retry: None,
                },
            ),
            (&[("retry-after", "soon")], Hints::default()),
            (&[("retry-after", "-1")], Hints::default()),
            (
                &[("retry-after", "Tue, 32 Nov 1994 08:12:41 GMT")],
                Hints::default(),
            ),
            (&[("retry-after-ms", "NaN")], Hints::default()),
            (
                &[("X-Should-Retry", "false")],
                Hints {
                    retry_after: None,
                    should_retry: Some(false),
                },
            ),
        ];
        for (headers, expected) in table {
            assert_eq!(
                hints(headers.iter().copied(), now),
                *expected,
                "{headers:?}"
            );
        }
    }

    #[test]
    fn http_dates() {
        let table = [
            ("Thu, 01 Jan 1970 00:00:00 GMT", Some(0)),
            ("Sun, 06 Nov 1994 08:49:37 GMT", Some(784_111_777)),
            ("Tue, 29 Feb 2028 12:00:00 GMT", Some(1_835_438_400)),
            ("Sunday, 06-Nov-94 08:49:37 GMT", None),
            ("Sun Nov  6 08:49:37 1994", None),
            ("Sun, 06 Nov 1994 08:49:37 UTC", None),
        ];
        for (text, expected) in table {
            assert_eq!(http_date(text), expected, "{text}");
        }
    }

    #[test]
    fn gemini_retry_info() {
        let body = serde_json::json!({"error": {"code": 429, "details": [
            {"@type": "type.googleapis.com/google.rpc.QuotaFailure"},
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "37s"}
        ]}});
        assert_eq!(gemini_retry_delay(&body), Some(S(37)));
        let bad = serde_json::json!({"error": {"details": [
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "-3s"}
        ]}});
        assert_eq!(gemini_retry_delay(&bad), None);
    }
}
