//! Which HTTP redirects the client follows, sans-IO.
//!
//! As the official clients do: a redirect is followed only when it stays
//! on the endpoint's origin (scheme, host and port) and keeps the method:
//! `307` or `308` for a POST (a `301`, `302` or `303` would turn it into a
//! GET and lose the message), any `3xx` with a `Location` for a GET. At
//! most [`MAX_REDIRECTS`] in a row. Every other redirect is refused with
//! [`ClientError::Redirect`], which names where it pointed: the
//! configured headers and tokens never go to another origin.
//!
//! ```
//! # use mcp_host::client::redirect::{next, Method};
//! let at = reqwest::Url::parse("http://127.0.0.1:8000/api/mcp").unwrap();
//! let slash = next(&at, Method::Post, 307, Some("/api/mcp/")).unwrap();
//! assert_eq!(slash.unwrap().as_str(), "http://127.0.0.1:8000/api/mcp/");
//! assert!(next(&at, Method::Post, 302, Some("/api/mcp/")).is_err());
//! assert!(next(&at, Method::Post, 307, Some("http://127.0.0.2:8000/mcp")).is_err());
//! assert_eq!(next(&at, Method::Post, 200, None).unwrap(), None);
//! ```

use super::ClientError;

/// Redirects followed in a row, at most.
pub const MAX_REDIRECTS: usize = 5;

/// Longest `Location` quoted in an error, in characters.
const QUOTED: usize = 200;

/// The request's method, as far as redirects go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// A message sent: only `307` and `308` keep it.
    Post,
    /// The event stream: any redirect keeps a GET.
    Get,
}

/// Where a reply of `status` with `location` sends a request made to
/// `at`: `None` when it is not a redirect.
///
/// # Errors
///
/// [`ClientError::Redirect`] for a redirect the client does not follow: to
/// another origin, one that would change the method, or one without a
/// usable `Location`.
pub fn next(
    at: &reqwest::Url,
    method: Method,
    status: u16,
    location: Option<&str>,
) -> Result<Option<reqwest::Url>, ClientError> {
    if !(300..400).contains(&status) || status == 304 {
        return Ok(None);
    }
    let refuse = |why: &'static str| ClientError::Redirect {
        status,
        location: location
            .map(|l| l.chars().take(QUOTED).collect())
            .unwrap_or_default(),
        why,
    };
    let Some(target) = location.and_then(|l| at.join(l).ok()) else {
        return Err(refuse("it names no usable Location"));
    };
    if method == Method::Post && !matches!(status, 307 | 308) {
        return Err(refuse(
            "only a 307 or 308 keeps the POST and its message; this one would turn it into a GET",
        ));
    }
    if target.origin() != at.origin() {
        return Err(refuse(
            "it leaves the endpoint's origin, and the configured headers and tokens never go to \
             another origin",
        ));
    }
    Ok(Some(target))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> reqwest::Url {
        reqwest::Url::parse(s).expect("url")
    }

    #[test]
    fn table() {
        let at = url("https://mcp.example:8443/api/mcp");
        let rows: [(Method, u16, Option<&str>, Option<&str>); 12] = [
            (Method::Post, 200, None, None),
            (Method::Post, 304, None, None),
            (
                Method::Post,
                307,
                Some("/api/mcp/"),
                Some("https://mcp.example:8443/api/mcp/"),
            ),
            (
                Method::Post,
                308,
                Some("mcp/"),
                Some("https://mcp.example:8443/api/mcp/"),
            ),
            (
                Method::Get,
                302,
                Some("/x"),
                Some("https://mcp.example:8443/x"),
            ),
            (
                Method::Get,
                301,
                Some("https://mcp.example:8443/y"),
                Some("https://mcp.example:8443/y"),
            ),
            (Method::Post, 301, Some("/api/mcp/"), None),
            (Method::Post, 303, Some("/api/mcp/"), None),
            (
                Method::Post,
                307,
                Some("http://mcp.example:8443/api/mcp/"),
                None,
            ),
            (
                Method::Post,
                307,
                Some("https://mcp.example/api/mcp/"),
                None,
            ),
            (Method::Get, 307, Some("https://evil.example/"), None),
            (Method::Post, 307, None, None),
        ];
        for (method, status, location, expected) in rows {
            let got = next(&at, method, status, location);
            match (expected, got) {
                (Some(e), Ok(Some(u))) => assert_eq!(u.as_str(), e, "{method:?} {status}"),
                (None, Ok(None)) => assert!(!(300..400).contains(&status) || status == 304),
                (None, Err(ClientError::Redirect { status: s, .. })) => assert_eq!(s, status),
                (e, g) => panic!("{method:?} {status} {location:?}: expected {e:?}, got {g:?}"),
            }
        }
    }

    #[test]
    fn a_long_location_is_quoted_short() {
        let at = url("http://127.0.0.1/mcp");
        let long = format!("http://evil.example/{}", "a".repeat(50_000));
        let Err(error) = next(&at, Method::Post, 307, Some(&long)) else {
            panic!("refused");
        };
        assert!(error.to_string().len() < 600, "{error}");
    }
}
