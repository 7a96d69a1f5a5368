//! Where the flow looks for its documents, and what it accepts in them:
//! the Protected Resource Metadata URLs in the spec's order, the
//! authorization server metadata URLs in the spec's order, the checks on
//! each document, and which URLs may be fetched at all. Sans-IO.
//!
//! ```
//! use mcp_host::auth::discovery::{resource_metadata_urls, server_metadata_urls};
//!
//! let server = reqwest::Url::parse("https://example.com/public/mcp").unwrap();
//! let urls: Vec<String> = resource_metadata_urls(&server, None)
//!     .into_iter()
//!     .map(String::from)
//!     .collect();
//! assert_eq!(urls, [
//!     "https://example.com/.well-known/oauth-protected-resource/public/mcp",
//!     "https://example.com/.well-known/oauth-protected-resource",
//! ]);
//!
//! let urls: Vec<String> = server_metadata_urls("https://auth.example.com/tenant1")
//!     .unwrap()
//!     .into_iter()
//!     .map(String::from)
//!     .collect();
//! assert_eq!(urls, [
//!     "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
//!     "https://auth.example.com/.well-known/openid-configuration/tenant1",
//!     "https://auth.example.com/tenant1/.well-known/openid-configuration",
//! ]);
//! ```

use std::net::IpAddr;

use reqwest::Url;

use super::error::{neutral, AuthError};
use super::metadata::{ResourceMetadata, ServerMetadata};

const RESOURCE_SUFFIX: &str = "/.well-known/oauth-protected-resource";
const OAUTH_SUFFIX: &str = "/.well-known/oauth-authorization-server";
const OPENID_SUFFIX: &str = "/.well-known/openid-configuration";

/// Which URLs the flow may fetch or send a person to.
///
/// Everything must be `https`, except `http` to a loopback address
/// (`localhost`, `127.0.0.0/8`, `::1`) when loopback is allowed, which is
/// for development: it is allowed when the MCP server itself is a
/// loopback `http` URL, so that a remote server cannot point the host at
/// services on the host's own machine. URLs with user information are
/// refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UrlPolicy {
    /// Whether `http` to a loopback address is allowed.
    pub allow_loopback_http: bool,
}

impl UrlPolicy {
    /// The policy for an MCP server at `server`.
    pub fn for_server(server: &Url) -> Self {
        Self {
            allow_loopback_http: server.scheme() == "http" && is_loopback(server),
        }
    }

    /// `url` parsed, if the policy allows it.
    ///
    /// # Errors
    ///
    /// [`AuthError::InsecureUrl`] naming `what`.
    pub fn check(&self, what: &'static str, url: &str) -> Result<Url, AuthError> {
        let refuse = |reason| AuthError::InsecureUrl {
            what,
            url: neutral(url),
            reason,
        };
        let parsed = Url::parse(url).map_err(|_| refuse("not an absolute URL"))?;
        if !parsed.username().is_empty() || parsed.password().is_some() {
            return Err(refuse("URLs with user information are not used"));
        }
        if parsed.fragment().is_some() {
            return Err(refuse("URLs with a fragment are not used"));
        }
        match parsed.scheme() {
            "https" if parsed.host().is_some() => Ok(parsed),
            "http" if is_loopback(&parsed) && self.allow_loopback_http => Ok(parsed),
            "http" if is_loopback(&parsed) => Err(refuse(
                "plain http is only used when the MCP server is itself on loopback",
            )),
            "http" => Err(refuse("plain http is only used for loopback addresses")),
            _ => Err(refuse("only https URLs are used")),
        }
    }
}

/// Whether `url`'s host is a loopback name or address.
pub fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => IpAddr::V4(ip).is_loopback(),
        Some(url::Host::Ipv6(ip)) => IpAddr::V6(ip).is_loopback(),
        None => false,
    }
}

/// `url`'s path without a trailing slash; empty for the root.
fn path_of(url: &Url) -> &str {
    url.path().trim_end_matches('/')
}

fn with_path(base: &Url, path: &str) -> Url {
    let mut url = base.clone();
    url.set_path(path);
    url.set_query(None);
    url.set_fragment(None);
    url
}

/// The Protected Resource Metadata URLs to try for an MCP server at
/// `server`, in order: the URL of the challenge when it names one, then
/// the well-known URL with the server's path inserted, then the root one
/// (RFC 9728 §3.1).
pub fn resource_metadata_urls(server: &Url, from_challenge: Option<Url>) -> Vec<Url> {
    let mut urls: Vec<Url> = from_challenge.into_iter().collect();
    let path = path_of(server);
    if !path.is_empty() {
        urls.push(with_path(server, &format!("{RESOURCE_SUFFIX}{path}")));
    }
    urls.push(with_path(server, RESOURCE_SUFFIX));
    urls.dedup();
    urls
}

/// The metadata URLs to try for the authorization server `issuer`, in the
/// spec's order: RFC 8414 with the issuer's path inserted, OpenID Connect
/// Discovery with it inserted, then OpenID Connect Discovery appended to
/// the path; for an issuer without a path, RFC 8414 then OpenID.
///
/// # Errors
///
/// [`AuthError::InsecureUrl`] when `issuer` is not a URL with a host, or
/// has a query or fragment (RFC 8414 §2).
pub fn server_metadata_urls(issuer: &str) -> Result<Vec<Url>, AuthError> {
    let refuse = |reason| AuthError::InsecureUrl {
        what: "issuer",
        url: neutral(issuer),
        reason,
    };
    let url = Url::parse(issuer).map_err(|_| refuse("not an absolute URL"))?;
    if url.host().is_none() {
        return Err(refuse("no host"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(refuse("an issuer has no query or fragment"));
    }
    let path = path_of(&url);
    Ok(if path.is_empty() {
        vec![
            with_path(&url, OAUTH_SUFFIX),
            with_path(&url, OPENID_SUFFIX),
        ]
    } else {
        vec![
            with_path(&url, &format!("{OAUTH_SUFFIX}{path}")),
            with_path(&url, &format!("{OPENID_SUFFIX}{path}")),
            with_path(&url, &format!("{path}{OPENID_SUFFIX}")),
        ]
    })
}

/// The canonical URI of the MCP server at `server` (RFC 8707 §2): no
/// fragment, no query, and no trailing slash on an empty path. Scheme and
/// host are already lowercase once parsed.
pub fn canonical_resource(server: &Url) -> String {
    let mut url = server.clone();
    url.set_fragment(None);
    url.set_query(None);
    let text = url.to_string();
    if url.path() == "/" {
        text.trim_end_matches('/').to_owned()
    } else {
        text
    }
}

/// Checks that a Protected Resource Metadata document is about the server
/// at `server`: its `resource` has the same origin and a path that is
/// the server's path or a parent of it, on segment boundaries. Scheme and
/// host compare without case.
///
/// # Errors
///
/// [`AuthError::ResourceMismatch`], or [`AuthError::NoAuthorizationServer`]
/// when the document names no authorization server.
pub fn check_resource(server: &Url, metadata: &ResourceMetadata) -> Result<(), AuthError> {
    let mismatch = || AuthError::ResourceMismatch {
        expected: canonical_resource(server),
        found: neutral(&metadata.resource),
    };
    let resource = Url::parse(&metadata.resource).map_err(|_| mismatch())?;
    if resource.origin() != server.origin() || resource.fragment().is_some() {
        return Err(mismatch());
    }
    let (parent, child) = (path_of(&resource), path_of(server));
    let within = child == parent
        || child
            .strip_prefix(parent)
            .is_some_and(|rest| rest.starts_with('/'));
    if !within {
        return Err(mismatch());
    }
    if metadata.authorization_servers.is_empty() {
        return Err(AuthError::NoAuthorizationServer);
    }
    Ok(())
}

/// Checks authorization server metadata found for `issuer`: the document's
/// `issuer` must be `issuer`, character for character (RFC 8414 §3.3), and
/// PKCE with `S256` must be supported.
///
/// # Errors
///
/// [`AuthError::IssuerMismatch`] or [`AuthError::NoPkce`].
pub fn check_server_metadata(issuer: &str, metadata: &ServerMetadata) -> Result<(), AuthError> {
    if metadata.issuer != issuer {
        return Err(AuthError::IssuerMismatch {
            expected: issuer.to_owned(),
            found: neutral(&metadata.issuer),
        });
    }
    if !metadata.supports_s256() {
        return Err(AuthError::NoPkce(issuer.to_owned()));
    }
    Ok(())
}

/// The metadata an authorization server at the MCP server's origin is
/// taken to have when there is neither Protected Resource Metadata nor
/// authorization server metadata: the default endpoints of the
/// 2025-03-26 revision of MCP, at the origin. PKCE with `S256` was
/// required of every client then, so it is assumed.
pub fn default_server_metadata(server: &Url) -> ServerMetadata {
    let origin = server.origin().ascii_serialization();
    ServerMetadata {
        issuer: origin.clone(),
        authorization_endpoint: Some(format!("{origin}/authorize")),
        token_endpoint: Some(format!("{origin}/token")),
        registration_endpoint: Some(format!("{origin}/register")),
        code_challenge_methods_supported: Some(vec![String::from("S256")]),
        ..ServerMetadata::default()
    }
}

/// The issuer taken for an MCP server that publishes no Protected Resource
/// Metadata (the 2025-03-26 revision): its origin.
pub fn fallback_issuer(server: &Url) -> String {
    server.origin().ascii_serialization()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).expect("url")
    }

    fn strings(urls: Vec<Url>) -> Vec<String> {
        urls.into_iter().map(String::from).collect()
    }

    #[test]
    fn resource_metadata_order() {
        let server = url("http://127.0.0.1:5/mcp");
        assert_eq!(
            strings(resource_metadata_urls(&server, None)),
            [
                "http://127.0.0.1:5/.well-known/oauth-protected-resource/mcp",
                "http://127.0.0.1:5/.well-known/oauth-protected-resource"
            ]
        );
        let header = url("http://127.0.0.1:5/custom/metadata/location.json");
        assert_eq!(
            strings(resource_metadata_urls(&server, Some(header)))[0],
            "http://127.0.0.1:5/custom/metadata/location.json"
        );
        let root = url("https://mcp.example.com/");
        assert_eq!(
            strings(resource_metadata_urls(&root, None)),
            ["https://mcp.example.com/.well-known/oauth-protected-resource"]
        );
        let query = url("https://mcp.example.com/a/b/?x=1");
        assert_eq!(
            strings(resource_metadata_urls(&query, None))[0],
            "https://mcp.example.com/.well-known/oauth-protected-resource/a/b"
        );
    }

    #[test]
    fn server_metadata_order() {
        assert_eq!(
            strings(server_metadata_urls("https://auth.example.com").expect("ok")),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration"
            ]
        );
        assert_eq!(
            strings(server_metadata_urls("https://auth.example.com/").expect("ok")).len(),
            2
        );
        assert!(server_metadata_urls("https://a.example/?q").is_err());
        assert!(server_metadata_urls("not a url").is_err());
    }

    fn prm(resource: &str) -> ResourceMetadata {
        ResourceMetadata {
            resource: resource.to_owned(),
            authorization_servers: vec!["https://as.example".into()],
            scopes_supported: None,
        }
    }

    #[test]
    fn resource_must_be_this_server() {
        let server = url("https://mcp.example.com/public/mcp");
        for ok in [
            "https://mcp.example.com/public/mcp",
            "https://mcp.example.com/public/mcp/",
            "https://mcp.example.com/public",
            "https://mcp.example.com",
            "HTTPS://MCP.EXAMPLE.COM/public/mcp",
            "https://mcp.example.com:443/public/mcp",
        ] {
            check_resource(&server, &prm(ok)).unwrap_or_else(|e| panic!("{ok}: {e}"));
        }
        for bad in [
            "https://evil.example.com/public/mcp",
            "http://mcp.example.com/public/mcp",
            "https://mcp.example.com:8443/public/mcp",
            "https://mcp.example.com/pub",
            "https://mcp.example.com/public/mcp/deeper",
            "https://mcp.example.com/other",
            "https://mcp.example.com/public/mcp#frag",
            "mcp.example.com",
        ] {
            assert!(
                matches!(
                    check_resource(&server, &prm(bad)),
                    Err(AuthError::ResourceMismatch { .. })
                ),
                "{bad}"
            );
        }
        let mut none = prm("https://mcp.example.com/public/mcp");
        none.authorization_servers.clear();
        assert_eq!(
            check_resource(&server, &none),
            Err(AuthError::NoAuthorizationServer)
        );
    }

    #[test]
    fn canonical_uri() {
        assert_eq!(
            canonical_resource(&url("HTTPS://MCP.Example.com/")),
            "https://mcp.example.com"
        );
        assert_eq!(
            canonical_resource(&url("https://mcp.example.com/mcp?x#y")),
            "https://mcp.example.com/mcp"
        );
        assert_eq!(
            canonical_resource(&url("https://mcp.example.com:8443")),
            "https://mcp.example.com:8443"
        );
    }

    #[test]
    fn issuer_and_pkce_are_checked() {
        let good = ServerMetadata {
            issuer: "https://as.example".into(),
            code_challenge_methods_supported: Some(vec!["plain".into(), "S256".into()]),
            ..ServerMetadata::default()
        };
        assert!(check_server_metadata("https://as.example", &good).is_ok());
        // Character for character: a trailing slash is another issuer.
        assert!(matches!(
            check_server_metadata("https://as.example/", &good),
            Err(AuthError::IssuerMismatch { .. })
        ));
        let plain = ServerMetadata {
            code_challenge_methods_supported: Some(vec!["plain".into()]),
            ..good.clone()
        };
        assert!(matches!(
            check_server_metadata("https://as.example", &plain),
            Err(AuthError::NoPkce(_))
        ));
        let absent = ServerMetadata {
            code_challenge_methods_supported: None,
            ..good
        };
        assert!(matches!(
            check_server_metadata("https://as.example", &absent),
            Err(AuthError::NoPkce(_))
        ));
    }

    #[test]
    fn url_policy() {
        let remote = UrlPolicy::for_server(&url("https://mcp.example.com/mcp"));
        let local = UrlPolicy::for_server(&url("http://localhost:3000/mcp"));
        assert!(!remote.allow_loopback_http);
        assert!(local.allow_loopback_http);
        assert!(remote.check("u", "https://as.example/x").is_ok());
        for bad in [
            "http://as.example/x",
            "http://127.0.0.1:8080/x",
            "file:///etc/passwd",
            "javascript:alert(1)",
            "ftp://as.example/",
            "https://user:pw@as.example/",
            "https://as.example/#f",
            "relative/path",
        ] {
            assert!(remote.check("u", bad).is_err(), "{bad}");
        }
        for ok in [
            "http://127.0.0.1:8080/x",
            "http://localhost/x",
            "http://[::1]:9/x",
            "http://127.1.2.3/x",
        ] {
            assert!(local.check("u", ok).is_ok(), "{ok}");
        }
        assert!(local.check("u", "http://10.0.0.1/x").is_err());
        assert!(local.check("u", "http://localhost.evil.com/x").is_err());
    }
}
