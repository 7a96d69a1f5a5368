//! The span of one request and the request metrics beside it.
//!
//! A [`RequestSpan`] is opened where the router first knows a request's
//! method and id, and ends where its answer is made: in one piece for
//! stdio and HTTP, modern and legacy. With no subscriber interested in the
//! target and without the `metrics` feature, opening one costs a load and
//! a compare, and nothing about the request is read, hashed, timed or
//! kept.

use std::sync::Arc;
use std::time::Instant;

use mcp_types::v2026_07_28::RequestId;
use tracing::field::Empty;

use crate::server::{Grant, Outcome};

/// The handshake era of a request: `initialize` and sessions (legacy), or
/// none (modern, 2026-07-28).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Era {
    Modern,
    #[cfg_attr(not(feature = "legacy"), allow(dead_code))]
    Legacy,
}

impl Era {
    fn as_str(self) -> &'static str {
        match self {
            Era::Modern => "modern",
            Era::Legacy => "legacy",
        }
    }
}

/// The most bytes of a client's string (method, name, id) put in a field:
/// a client chooses them, and a log line need not carry megabytes.
const MAX_FIELD: usize = 256;

/// One request's span (target `mcp_server::request`, level DEBUG) and its
/// place among the requests in flight. Ended by [`RequestSpan::end`], or
/// as `cancelled` when dropped first (the client left, the request was
/// cancelled).
///
/// The fields: `era`, `method`, `about` (the tool or prompt; the digest of
/// the resource's URI or the task's id, which may be bearer secrets), `id`, `principal` (the first
/// 8 bytes of the SHA-256 of the grant's principal, in hex, on a protected
/// server), then `outcome` (`ok`, `error`, `cancelled`), `code` (the
/// JSON-RPC error code of an error) and `duration_ms`. Never arguments,
/// results or tokens.
///
/// A pointer wide, and empty when nothing listens: it is part of every
/// request's future, which is moved whole, and a disabled span, a start
/// time and an outcome would add a hundred bytes to each move.
pub(crate) struct RequestSpan(Option<Box<Live>>);

/// What a request span holds while something listens.
struct Live {
    span: tracing::Span,
    /// The method as a metric label (empty without the `metrics` feature).
    method: &'static str,
    started: Instant,
    /// How it ended, once it did: the outcome and the error code.
    ended: Option<(&'static str, Option<i64>)>,
    /// Whether the call's arguments were recorded, and its result is to be.
    io: bool,
}

impl RequestSpan {
    /// Opens the span of request `id` of `method` about `name` (asked only
    /// if the span is recorded), which came with `grant`.
    pub(crate) fn open<'a>(
        era: Era,
        method: &str,
        id: &RequestId,
        name: impl FnOnce() -> Option<&'a str>,
        grant: Option<&Arc<Grant>>,
    ) -> RequestSpan {
        let span = tracing::debug_span!(
            target: "mcp_server::request",
            "request",
            era = era.as_str(),
            method = clip(method),
            about = Empty,
            id = Empty,
            principal = Empty,
            outcome = Empty,
            code = Empty,
            duration_ms = Empty,
            arguments = Empty,
            result = Empty,
        );
        if span.is_disabled() && !cfg!(feature = "metrics") {
            return RequestSpan(None);
        }
        if !span.is_disabled() {
            if let Some(name) = name() {
                // A URI may carry a handle and a task id is one: a log
                // line is read by more people than the secret was for.
                if method.starts_with("resources/") || method.starts_with("tasks/") {
                    span.record("about", super::redacted(name));
                } else {
                    span.record("about", clip(name));
                }
            }
            span.record("id", clip(&id.to_string()));
            if let Some(principal) = principal(grant) {
                span.record("principal", principal);
            }
        }
        crate::observe::request_started();
        RequestSpan(Some(Box::new(Live {
            span,
            method: crate::observe::method_label(method),
            started: Instant::now(),
            ended: None,
            io: false,
        })))
    }

    /// Records the call's `arguments` (JSON, cut at [`MAX_IO`] bytes), for
    /// a tool the server traces; the result is then recorded as well.
    pub(crate) fn record_arguments(
        &mut self,
        arguments: Option<&serde_json::Map<String, serde_json::Value>>,
    ) {
        let Some(live) = self.0.as_mut().filter(|live| !live.span.is_disabled()) else {
            return;
        };
        let text = arguments.map_or_else(
            || String::from("{}"),
            |a| serde_json::Value::from(a.clone()).to_string(),
        );
        live.span.record("arguments", clip_to(&text, MAX_IO));
        live.io = true;
    }

    /// Whether the call's arguments were recorded, so that its result is
    /// to be.
    #[cfg_attr(not(feature = "legacy"), allow(dead_code))]
    pub(crate) fn wants_result(&self) -> bool {
        self.0.as_ref().is_some_and(|live| live.io)
    }

    /// Records the answer `message` as the call's `result` (cut at
    /// [`MAX_IO`] bytes), when its arguments were recorded.
    pub(crate) fn record_result(&self, message: &[u8]) {
        if let Some(live) = self.0.as_ref().filter(|live| live.io) {
            let text = String::from_utf8_lossy(message);
            live.span.record("result", clip_to(&text, MAX_IO));
        }
    }

    /// No span: for a call that is no request of its own.
    pub(crate) fn none() -> RequestSpan {
        RequestSpan(None)
    }

    /// Enters the span, if it is recorded, until the guard drops.
    pub(crate) fn enter(&self) -> Option<tracing::span::Entered<'_>> {
        self.0
            .as_ref()
            .filter(|live| !live.span.is_disabled())
            .map(|live| live.span.enter())
    }

    /// The span, to instrument a future with.
    pub(crate) fn span(&self) -> tracing::Span {
        self.0
            .as_ref()
            .map_or_else(tracing::Span::none, |live| live.span.clone())
    }

    /// Ends the request: answered, with the JSON-RPC error `code` if it
    /// failed. What it records is recorded when the span drops.
    pub(crate) fn end(&mut self, code: Option<i64>) {
        if let Some(live) = &mut self.0 {
            let outcome = match code {
                None => "ok",
                Some(_) => "error",
            };
            live.ended = Some((outcome, code));
        }
    }

    /// Ends the request with `outcome`, which it passes on. A stream ends
    /// the request as `ok` once it is open: a `subscriptions/listen` may
    /// stay open for hours, and is no request in flight meanwhile.
    #[cfg_attr(not(feature = "legacy"), allow(dead_code))]
    pub(crate) fn done(mut self, outcome: Outcome) -> Outcome {
        if let Outcome::Reply { message, .. } = &outcome {
            self.record_result(message.as_bytes());
        }
        self.end(outcome.error_code());
        outcome
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        let (outcome, code) = self.ended.unwrap_or(("cancelled", None));
        let seconds = self.started.elapsed().as_secs_f64();
        if !self.span.is_disabled() {
            self.span.record("outcome", outcome);
            if let Some(code) = code {
                self.span.record("code", code);
            }
            self.span.record("duration_ms", seconds * 1e3);
        }
        crate::observe::request_ended(self.method, outcome, seconds);
    }
}

/// The most bytes of a traced tool's arguments or result a span records.
pub(crate) const MAX_IO: usize = 1024;

/// `text`, cut to at most [`MAX_FIELD`] bytes at a character boundary.
fn clip(text: &str) -> &str {
    clip_to(text, MAX_FIELD)
}

/// `text`, cut to at most `max` bytes at a character boundary.
fn clip_to(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The first 8 bytes of the SHA-256 of `grant`'s principal, in hex: enough
/// to tell the requests of one principal from another's, nothing to read
/// the principal or the token from.
#[cfg(feature = "auth")]
fn principal(grant: Option<&Arc<Grant>>) -> Option<String> {
    use sha2::{Digest as _, Sha256};
    let digest = Sha256::digest(grant?.principal().as_bytes());
    Some(digest[..8].iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(not(feature = "auth"))]
fn principal(grant: Option<&Arc<Grant>>) -> Option<String> {
    grant.map(|grant| match **grant {})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_fields_are_clipped_at_a_character() {
        assert_eq!(clip("tools/call"), "tools/call");
        let long = "é".repeat(MAX_FIELD);
        let clipped = clip(&long);
        assert!(clipped.len() <= MAX_FIELD && clipped.len() >= MAX_FIELD - 1);
        assert!(clipped.chars().all(|c| c == 'é'));
    }
}
