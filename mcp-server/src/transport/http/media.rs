//! The media types of a POST, judged from its headers alone, before its
//! body is read.
//!
//! A message must come as `application/json` (parameters such as
//! `charset` are allowed): anything else gets 415. This also closes the
//! door a browser leaves open, where a cross-origin `text/plain` POST is
//! sent without a preflight.
//!
//! The client must accept both answers the server may give, a JSON object
//! and an event stream: the specification asks every client to list both
//! in `Accept`, and which one a request gets is the server's choice (a
//! tool that reports progress streams). An `Accept` is read as HTTP reads
//! it: wildcards (`*/*`, `application/*`, `text/*`) count, a range with
//! `q=0` refuses, and the most specific range that matches a type decides
//! for it. A POST with no `Accept` at all gets 406 too: the HTTP reading
//! of a missing header ("anything") is what the specification's "MUST
//! include" takes away, and a client that sends none was not written for
//! this transport.

use axum::http::{header, HeaderMap};

/// The media types the endpoint answers with, as the client must accept.
const ANSWERS: [(&str, &str); 2] = [("application", "json"), ("text", "event-stream")];

/// Whether `Content-Type` is `application/json`, with any parameters.
pub(super) fn is_json(headers: &HeaderMap) -> bool {
    let Some(value) = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
    else {
        return false;
    };
    let essence = value.split(';').next().unwrap_or("").trim();
    essence.eq_ignore_ascii_case("application/json")
}

/// Whether every `Accept` header of the request together allows both
/// answers.
pub(super) fn accepts_answers(headers: &HeaderMap) -> bool {
    let mut ranges = headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(Range::parse)
        .peekable();
    if ranges.peek().is_none() {
        return false;
    }
    let ranges: Vec<Range<'_>> = ranges.collect();
    ANSWERS
        .iter()
        .all(|&(kind, sub)| quality(&ranges, kind, sub) > 0)
}

/// One media range of an `Accept`, with its weight in thousandths.
struct Range<'a> {
    kind: &'a str,
    sub: &'a str,
    quality: u16,
}

impl<'a> Range<'a> {
    /// A range such as `text/*;q=0.5`; `None` for one that is not
    /// `type/subtype`. Parameters other than `q` do not narrow the match
    /// here: ours have none.
    fn parse(text: &'a str) -> Option<Self> {
        let mut parts = text.split(';');
        let (kind, sub) = parts.next()?.trim().split_once('/')?;
        let (kind, sub) = (kind.trim(), sub.trim());
        if kind.is_empty() || sub.is_empty() || (kind == "*" && sub != "*") {
            return None;
        }
        let mut quality = 1000;
        for parameter in parts {
            if let Some((name, value)) = parameter.split_once('=') {
                if name.trim().eq_ignore_ascii_case("q") {
                    quality = weight(value.trim())?;
                }
            }
        }
        Some(Range { kind, sub, quality })
    }

    /// How closely the range names `kind/sub`: 2 exactly, 1 by `kind/*`,
    /// 0 by `*/*`, `None` when it does not match.
    fn specificity(&self, kind: &str, sub: &str) -> Option<u8> {
        let kind_matches = self.kind == "*" || self.kind.eq_ignore_ascii_case(kind);
        let sub_matches = self.sub == "*" || self.sub.eq_ignore_ascii_case(sub);
        if !(kind_matches && sub_matches) {
            return None;
        }
        Some(u8::from(self.kind != "*") + u8::from(self.sub != "*"))
    }
}

/// A `q` value (`0` to `1`, at most three decimals) in thousandths;
/// `None` when it is not one.
fn weight(text: &str) -> Option<u16> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    if fraction.len() > 3 || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let thousandths = match whole {
        "0" => format!("{fraction:0<3}").parse().ok()?,
        "1" if fraction.bytes().all(|b| b == b'0') => 1000,
        _ => return None,
    };
    Some(thousandths)
}

/// The weight the most specific matching range gives `kind/sub` (the
/// highest among equally specific ones), or 0 when none matches.
fn quality(ranges: &[Range<'_>], kind: &str, sub: &str) -> u16 {
    ranges
        .iter()
        .filter_map(|r| Some((r.specificity(kind, sub)?, r.quality)))
        .max()
        .map_or(0, |(_, quality)| quality)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn with(name: header::HeaderName, values: &[&'static str]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append(name.clone(), HeaderValue::from_static(value));
        }
        headers
    }

    #[test]
    fn content_types() {
        let json = |v: &'static str| is_json(&with(header::CONTENT_TYPE, &[v]));
        assert!(json("application/json"));
        assert!(json("Application/JSON; charset=utf-8"));
        assert!(json(" application/json ;charset=UTF-8"));
        for refused in [
            "text/plain",
            "text/plain; charset=application/json",
            "application/json-seq",
            "application/jsonx",
            "application/*",
            "multipart/form-data; boundary=x",
            "",
        ] {
            assert!(!json(refused), "{refused:?} was taken for JSON");
        }
        assert!(!is_json(&HeaderMap::new()), "a missing Content-Type");
    }

    #[test]
    fn accept_headers() {
        let accepts = |v: &[&'static str]| accepts_answers(&with(header::ACCEPT, v));
        for allowed in [
            "application/json, text/event-stream",
            "text/event-stream,application/json",
            "*/*",
            "application/*, text/*",
            "application/json;q=0.1, text/event-stream;q=1.0",
            "application/json, */*;q=0.01",
            "text/html, application/json, text/event-stream; charset=utf-8",
            "APPLICATION/JSON, Text/Event-Stream",
        ] {
            assert!(accepts(&[allowed]), "{allowed:?} was refused");
        }
        assert!(accepts(&["application/json", "text/event-stream"]));
        for refused in [
            "application/json",
            "text/event-stream",
            "application/*",
            "text/html",
            "*/*;q=0",
            "application/json;q=0, */*",
            "*/*, text/event-stream;q=0.000",
            "application/json, text/event-stream;q=2",
            "application/json, text/event-stream;q=0.0001",
            "json, event-stream",
            "*/json, text/event-stream",
            "",
            " , ",
        ] {
            assert!(!accepts(&[refused]), "{refused:?} was allowed");
        }
        assert!(!accepts_answers(&HeaderMap::new()), "a missing Accept");
    }

    #[test]
    fn weights() {
        assert_eq!(weight("1"), Some(1000));
        assert_eq!(weight("1.000"), Some(1000));
        assert_eq!(weight("0.5"), Some(500));
        assert_eq!(weight("0.05"), Some(50));
        assert_eq!(weight("0"), Some(0));
        for bad in ["1.5", "2", "-1", "0.1234", ".5", "0.x", ""] {
            assert_eq!(weight(bad), None, "{bad:?}");
        }
    }
}
