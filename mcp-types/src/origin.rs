//! Which origins an MCP Apps view may declare in its CSP lists (its
//! resource's `_meta.ui.csp`): pure rules, no I/O, the same for the server
//! that declares them and the host that writes them into a policy.
//!
//! A host writes these strings into a Content Security Policy (one per
//! `connect-src`, `img-src`, `frame-src` ... source), so an entry must be
//! exactly one origin: `scheme://host[:port]`, nothing before the host,
//! nothing after the port. The rules:
//!
//! | entry | accepted |
//! | --- | --- |
//! | `https://cdn.example.com`, `wss://live.example.com:8443` | yes |
//! | `http://localhost:5173`, `ws://127.0.0.1:9000`, `http://[::1]` | yes: plain text to loopback only, for development |
//! | `https://*.example.com` | in `resourceDomains` only, the one list the specification gives wildcard subdomains for |
//! | `http://example.com` | no: plain text off loopback |
//! | `https://cdn.example.com/lib/` | no: a path |
//! | `https://user@example.com` | no: credentials |
//! | `*`, `https:`, `'self'`, `https://*` | no: not one origin |

use std::fmt;

/// Why an origin in a view's CSP lists is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum OriginError {
    /// Not `scheme://host`: a bare host, a scheme alone, a keyword.
    NotAnOrigin,
    /// A scheme other than `https` and `wss` (or `http` and `ws` on
    /// loopback).
    Scheme,
    /// `http` or `ws` to a host other than loopback.
    PlainText,
    /// A path, query or fragment after the host.
    Path,
    /// `user@` or `user:password@` before the host.
    Credentials,
    /// A host that is not a DNS name or an IP literal.
    Host,
    /// A port that is not a number from 1 to 65535.
    Port,
    /// A wildcard where none is allowed, or one other than a leading
    /// `*.` before at least two labels.
    Wildcard,
}

impl fmt::Display for OriginError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            OriginError::NotAnOrigin => {
                "write one origin, `https://host` or `https://host:port`"
            }
            OriginError::Scheme => "the scheme must be `https` or `wss`",
            OriginError::PlainText => {
                "plain `http` and `ws` are allowed to loopback only (localhost, 127.0.0.1, [::1]); use `https` or `wss`"
            }
            OriginError::Path => "an origin has no path, query or fragment: drop what follows the host",
            OriginError::Credentials => "an origin carries no credentials: drop the `user@`",
            OriginError::Host => "the host must be a DNS name or an IP address",
            OriginError::Port => "the port must be a number from 1 to 65535",
            OriginError::Wildcard => {
                "a wildcard is allowed only in `resourceDomains`, as a leading `*.` before a domain of two labels or more (`https://*.example.com`)"
            }
        })
    }
}

impl std::error::Error for OriginError {}

/// Whether wildcard subdomains are allowed in the list being checked:
/// in `resourceDomains` only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wildcards {
    /// A leading `*.` is allowed.
    Allowed,
    /// No wildcard.
    Refused,
}

/// Checks one entry of a CSP list.
///
/// ```
/// use mcp_types::origin::{check, OriginError, Wildcards};
///
/// assert!(check("https://cdn.example.com", Wildcards::Refused).is_ok());
/// assert!(check("http://localhost:5173", Wildcards::Refused).is_ok());
/// assert_eq!(check("http://example.com", Wildcards::Refused), Err(OriginError::PlainText));
/// assert_eq!(check("'unsafe-eval'", Wildcards::Allowed), Err(OriginError::NotAnOrigin));
/// ```
///
/// # Errors
///
/// [`OriginError`] says why an entry is refused.
pub fn check(origin: &str, wildcards: Wildcards) -> Result<(), OriginError> {
    let (scheme, rest) = origin.split_once("://").ok_or(OriginError::NotAnOrigin)?;
    let secure = match scheme.to_ascii_lowercase().as_str() {
        "https" | "wss" => true,
        "http" | "ws" => false,
        _ => return Err(OriginError::Scheme),
    };
    if rest.contains(['/', '?', '#']) {
        return Err(OriginError::Path);
    }
    if rest.contains('@') {
        return Err(OriginError::Credentials);
    }
    let (host, port) = split_port(rest)?;
    if let Some(port) = port {
        check_port(port)?;
    }
    let name = match host.strip_prefix("*.") {
        Some(_) if wildcards == Wildcards::Refused => return Err(OriginError::Wildcard),
        Some(name) if !name.contains('.') => return Err(OriginError::Wildcard),
        Some(name) => name,
        None => host,
    };
    check_host(name)?;
    if !secure && !is_loopback(host) {
        return Err(OriginError::PlainText);
    }
    Ok(())
}

/// The host and the port, if any; an IPv6 literal keeps its brackets.
fn split_port(rest: &str) -> Result<(&str, Option<&str>), OriginError> {
    if rest.starts_with('[') {
        let end = rest.find(']').ok_or(OriginError::Host)?;
        let (host, after) = rest.split_at(end + 1);
        return match after.strip_prefix(':') {
            Some(port) => Ok((host, Some(port))),
            None if after.is_empty() => Ok((host, None)),
            None => Err(OriginError::Host),
        };
    }
    Ok(match rest.split_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (rest, None),
    })
}

fn check_port(port: &str) -> Result<(), OriginError> {
    if port == "*" {
        return Err(OriginError::Wildcard);
    }
    match port.parse::<u16>() {
        Ok(n) if n > 0 && port.bytes().all(|b| b.is_ascii_digit()) => Ok(()),
        _ => Err(OriginError::Port),
    }
}

fn check_host(host: &str) -> Result<(), OriginError> {
    if host.contains('*') {
        return Err(OriginError::Wildcard);
    }
    if let Some(literal) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        return literal
            .parse::<std::net::Ipv6Addr>()
            .map(drop)
            .map_err(|_| OriginError::Host);
    }
    let label_ok = |label: &str| {
        !label.is_empty()
            && label.len() <= 63
            && label
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-')
            && !label.starts_with('-')
            && !label.ends_with('-')
    };
    if host.is_empty() || host.len() > 253 || !host.split('.').all(label_ok) {
        return Err(OriginError::Host);
    }
    Ok(())
}

fn is_loopback(host: &str) -> bool {
    let host = host.to_ascii_lowercase();
    host == "localhost"
        || host == "[::1]"
        || host
            .parse::<std::net::Ipv4Addr>()
            .is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_are_accepted_or_refused_with_their_reason() {
        use OriginError::*;
        let cases: &[(&str, Wildcards, Result<(), OriginError>)] = &[
            ("https://cdn.example.com", Wildcards::Refused, Ok(())),
            ("wss://live.example.com:8443", Wildcards::Refused, Ok(())),
            ("HTTPS://CDN.Example.com", Wildcards::Refused, Ok(())),
            ("http://localhost:5173", Wildcards::Refused, Ok(())),
            ("ws://127.0.0.1:9000", Wildcards::Refused, Ok(())),
            ("http://[::1]", Wildcards::Refused, Ok(())),
            ("https://[2001:db8::1]:443", Wildcards::Refused, Ok(())),
            ("https://*.example.com", Wildcards::Allowed, Ok(())),
            ("https://*.example.com", Wildcards::Refused, Err(Wildcard)),
            ("https://*.com", Wildcards::Allowed, Err(Wildcard)),
            ("https://*", Wildcards::Allowed, Err(Wildcard)),
            ("https://a.*.example.com", Wildcards::Allowed, Err(Wildcard)),
            ("https://example.com:*", Wildcards::Allowed, Err(Wildcard)),
            ("*", Wildcards::Allowed, Err(NotAnOrigin)),
            ("https:", Wildcards::Refused, Err(NotAnOrigin)),
            ("'self'", Wildcards::Refused, Err(NotAnOrigin)),
            ("cdn.example.com", Wildcards::Refused, Err(NotAnOrigin)),
            ("ftp://example.com", Wildcards::Refused, Err(Scheme)),
            ("data://example.com", Wildcards::Refused, Err(Scheme)),
            ("http://example.com", Wildcards::Refused, Err(PlainText)),
            ("ws://10.0.0.1", Wildcards::Refused, Err(PlainText)),
            ("https://cdn.example.com/", Wildcards::Refused, Err(Path)),
            ("https://cdn.example.com/lib", Wildcards::Refused, Err(Path)),
            ("https://cdn.example.com?x", Wildcards::Refused, Err(Path)),
            (
                "https://user@example.com",
                Wildcards::Refused,
                Err(Credentials),
            ),
            ("https://", Wildcards::Refused, Err(Host)),
            ("https://exa mple.com", Wildcards::Refused, Err(Host)),
            ("https://example.com;", Wildcards::Refused, Err(Host)),
            ("https://'self'", Wildcards::Refused, Err(Host)),
            ("https://-bad.example.com", Wildcards::Refused, Err(Host)),
            ("https://example..com", Wildcards::Refused, Err(Host)),
            ("https://[::1", Wildcards::Refused, Err(Host)),
            ("https://example.com:0", Wildcards::Refused, Err(Port)),
            ("https://example.com:70000", Wildcards::Refused, Err(Port)),
            ("https://example.com:+80", Wildcards::Refused, Err(Port)),
        ];
        for (origin, wildcards, expected) in cases {
            assert_eq!(check(origin, *wildcards), *expected, "{origin}");
        }
    }
}
