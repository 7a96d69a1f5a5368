//! The little of a browser's cookie store that one sign-in at one origin
//! needs: names, values and paths (RFC 6265 section 5), nothing of domains,
//! expiry dates or flags.

use reqwest::header::{HeaderMap, SET_COOKIE};
use reqwest::Url;

#[derive(Debug)]
struct Cookie {
    name: String,
    value: String,
    path: String,
}

/// Cookies set by one origin.
#[derive(Debug, Default)]
pub(super) struct Jar {
    cookies: Vec<Cookie>,
}

impl Jar {
    /// Keeps the cookies a response to `url` set. A cookie set with an
    /// empty value or a `Max-Age` of zero or less is removed, which is how
    /// servers clear them.
    pub(super) fn store(&mut self, url: &Url, headers: &HeaderMap) {
        for header in headers.get_all(SET_COOKIE) {
            let Ok(text) = header.to_str() else { continue };
            let mut parts = text.split(';');
            let Some((name, value)) = parts.next().and_then(|pair| pair.split_once('=')) else {
                continue;
            };
            let (name, value) = (name.trim(), value.trim());
            let mut path = default_path(url.path()).to_owned();
            let mut cleared = value.is_empty();
            for attribute in parts {
                let (key, attribute_value) = attribute.split_once('=').unwrap_or((attribute, ""));
                let attribute_value = attribute_value.trim();
                match key.trim().to_ascii_lowercase().as_str() {
                    "path" if attribute_value.starts_with('/') => path = attribute_value.to_owned(),
                    "max-age" => {
                        cleared |= attribute_value.parse::<i64>().is_ok_and(|age| age <= 0);
                    }
                    _ => {}
                }
            }
            self.cookies
                .retain(|cookie| cookie.name != name || cookie.path != path);
            if !cleared {
                self.cookies.push(Cookie {
                    name: name.to_owned(),
                    value: value.to_owned(),
                    path,
                });
            }
        }
    }

    /// The `Cookie` header for a request to `url`, if any cookie applies.
    pub(super) fn header(&self, url: &Url) -> Option<String> {
        let pairs: Vec<String> = self
            .cookies
            .iter()
            .filter(|cookie| path_matches(url.path(), &cookie.path))
            .map(|cookie| format!("{}={}", cookie.name, cookie.value))
            .collect();
        (!pairs.is_empty()).then(|| pairs.join("; "))
    }
}

/// The path a cookie gets without a `Path` attribute: the request path up
/// to its last `/`, or `/`.
fn default_path(request_path: &str) -> &str {
    match request_path.rfind('/') {
        Some(0) | None => "/",
        Some(end) => &request_path[..end],
    }
}

fn path_matches(request_path: &str, cookie_path: &str) -> bool {
    match request_path.strip_prefix(cookie_path) {
        Some(rest) => rest.is_empty() || cookie_path.ends_with('/') || rest.starts_with('/'),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn set(jar: &mut Jar, url: &str, cookies: &[&str]) {
        let mut headers = HeaderMap::new();
        for cookie in cookies {
            headers.append(SET_COOKIE, HeaderValue::from_str(cookie).unwrap());
        }
        jar.store(&Url::parse(url).unwrap(), &headers);
    }

    fn header(jar: &Jar, url: &str) -> Option<String> {
        jar.header(&Url::parse(url).unwrap())
    }

    #[test]
    fn sends_cookies_only_under_their_path() {
        let mut jar = Jar::default();
        set(
            &mut jar,
            "http://a/auth",
            &[
                "_interaction=one; path=/interaction/one; httponly",
                "_session=s; path=/; samesite=lax",
            ],
        );
        assert_eq!(
            header(&jar, "http://a/interaction/one").as_deref(),
            Some("_interaction=one; _session=s")
        );
        assert_eq!(
            header(&jar, "http://a/interaction/onetwo").as_deref(),
            Some("_session=s")
        );
        assert_eq!(
            header(&jar, "http://a/auth/one").as_deref(),
            Some("_session=s")
        );
    }

    #[test]
    fn replaces_and_clears() {
        let mut jar = Jar::default();
        set(&mut jar, "http://a/", &["a=1; path=/", "b=2; path=/"]);
        set(
            &mut jar,
            "http://a/",
            &[
                "a=3; path=/",
                "b=; path=/; expires=Thu, 01 Jan 1970 00:00:00 GMT",
            ],
        );
        assert_eq!(header(&jar, "http://a/x").as_deref(), Some("a=3"));
        set(&mut jar, "http://a/", &["a=4; Max-Age=0; path=/"]);
        assert_eq!(header(&jar, "http://a/x"), None);
    }

    #[test]
    fn default_path_is_the_request_folder() {
        assert_eq!(default_path("/"), "/");
        assert_eq!(default_path("/auth"), "/");
        assert_eq!(default_path("/interaction/uid/login"), "/interaction/uid");
    }
}
