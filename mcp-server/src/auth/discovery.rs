//! Where an authorization server publishes its metadata
//! ([RFC 8414, section 3](https://datatracker.ietf.org/doc/html/rfc8414#section-3),
//! and OpenID Connect Discovery), which URLs may be fetched at all, and
//! the checks a metadata document must pass before its `jwks_uri` is
//! trusted. Pure.

use reqwest::Url;
use serde_json::Value;

/// Why a URL may not be used for the authorization server.
pub(crate) fn check_url(url: &Url) -> Result<(), &'static str> {
    if !url.username().is_empty() || url.password().is_some() {
        return Err("it carries credentials");
    }
    if url.fragment().is_some() {
        return Err("it has a fragment");
    }
    match url.scheme() {
        "https" if url.host_str().is_some() => Ok(()),
        "http" if is_loopback(url) => Ok(()),
        "http" => Err("plain http is allowed only to loopback addresses"),
        _ => Err("it is not an https URL"),
    }
}

/// Whether the URL's host is `localhost` or a loopback address.
pub(crate) fn is_loopback(url: &Url) -> bool {
    let Some(host) = url.host_str() else {
        return false;
    };
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || bare
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// The metadata URLs of `issuer`, in the order they are tried: OAuth
/// metadata with the well-known segment inserted before the issuer's
/// path, then OpenID Connect's inserted, then OpenID Connect's appended
/// (for an issuer with a path).
pub(crate) fn metadata_urls(issuer: &Url) -> Vec<Url> {
    let origin = issuer.origin().ascii_serialization();
    let path = issuer.path().trim_end_matches('/');
    let mut urls = vec![
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{origin}/.well-known/openid-configuration{path}"),
    ];
    if !path.is_empty() {
        urls.push(format!("{origin}{path}/.well-known/openid-configuration"));
    }
    urls.iter().filter_map(|u| Url::parse(u).ok()).collect()
}

/// The `jwks_uri` of a metadata document fetched for `issuer`: only from
/// a document whose `issuer` is exactly `issuer`, and only a URL that may
/// be fetched.
pub(crate) fn jwks_uri(metadata: &Value, issuer: &str) -> Result<Url, String> {
    match metadata.get("issuer") {
        Some(Value::String(named)) if named == issuer => {}
        Some(_) => return Err("the metadata names another issuer".to_owned()),
        None => return Err("the metadata names no issuer".to_owned()),
    }
    let Some(Value::String(uri)) = metadata.get("jwks_uri") else {
        return Err("the metadata has no `jwks_uri`".to_owned());
    };
    let url = Url::parse(uri).map_err(|_| "the `jwks_uri` is not a URL".to_owned())?;
    check_url(&url).map_err(|why| format!("the `jwks_uri` cannot be used: {why}"))?;
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn url(text: &str) -> Url {
        Url::parse(text).expect("a URL")
    }

    #[test]
    fn metadata_url_order() {
        let strings = |issuer: &str| -> Vec<String> {
            metadata_urls(&url(issuer))
                .iter()
                .map(Url::to_string)
                .collect()
        };
        assert_eq!(
            strings("https://auth.example.com"),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration",
            ]
        );
        assert_eq!(
            strings("https://auth.example.com/"),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration",
            ]
        );
        assert_eq!(
            strings("https://auth.example.com:8443/tenant1"),
            [
                "https://auth.example.com:8443/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com:8443/.well-known/openid-configuration/tenant1",
                "https://auth.example.com:8443/tenant1/.well-known/openid-configuration",
            ]
        );
    }

    #[test]
    fn which_urls_may_be_fetched() {
        let table = [
            ("https://auth.example.com/keys", Ok(())),
            ("http://127.0.0.1:8080/keys", Ok(())),
            ("http://127.9.9.9/keys", Ok(())),
            ("http://[::1]:8080/keys", Ok(())),
            ("http://localhost/keys", Ok(())),
            (
                "http://auth.example.com/keys",
                Err("plain http is allowed only to loopback addresses"),
            ),
            (
                "http://10.0.0.1/keys",
                Err("plain http is allowed only to loopback addresses"),
            ),
            ("ftp://auth.example.com/keys", Err("it is not an https URL")),
            ("file:///etc/passwd", Err("it is not an https URL")),
            (
                "https://user:pw@auth.example.com/keys",
                Err("it carries credentials"),
            ),
            ("https://auth.example.com/keys#a", Err("it has a fragment")),
        ];
        for (text, expected) in table {
            assert_eq!(check_url(&url(text)), expected, "{text}");
        }
    }

    #[test]
    fn metadata_must_name_the_issuer() {
        let issuer = "https://auth.example.com";
        let good = json!({"issuer": issuer, "jwks_uri": "https://auth.example.com/jwks"});
        assert_eq!(
            jwks_uri(&good, issuer).map(|u| u.to_string()),
            Ok("https://auth.example.com/jwks".to_owned())
        );
        let table = [
            json!({"issuer": "https://attacker.example", "jwks_uri": "https://auth.example.com/jwks"}),
            json!({"issuer": "https://auth.example.com/", "jwks_uri": "https://auth.example.com/jwks"}),
            json!({"jwks_uri": "https://auth.example.com/jwks"}),
            json!({"issuer": issuer}),
            json!({"issuer": issuer, "jwks_uri": 5}),
            json!({"issuer": issuer, "jwks_uri": "http://auth.example.com/jwks"}),
            json!({"issuer": issuer, "jwks_uri": "not a url"}),
        ];
        for metadata in table {
            assert!(jwks_uri(&metadata, issuer).is_err(), "{metadata}");
        }
    }
}
