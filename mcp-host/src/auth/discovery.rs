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
/// Everything a server's answers lead the host to (its resource metadata,
/// the authorization servers it names, their endpoints, registration)
/// passes this policy, so that a remote server cannot aim the host at
/// services inside the person's own network:
///
/// - the scheme is `https`, except `http` to a loopback address
///   (`localhost`, `127.0.0.0/8`, `::1`) when [`allow_loopback_http`]
///   is set, which is for development;
/// - the host is not a loopback, private, link-local, shared (CGNAT),
///   unspecified, multicast, broadcast or otherwise special-use address
///   ([`special_use`]), spelled as an address or reached through a name:
///   names are checked again on the addresses they resolve to, at connect
///   time, by the flow's resolver, so DNS rebinding cannot slip past.
///   Loopback is allowed when the MCP server itself is on loopback
///   ([`allow_loopback`]), and the hosts in [`allowed_hosts`] may be
///   anywhere (a per-server setting, for an authorization server inside a
///   company network);
/// - URLs with user information or a fragment are refused.
///
/// [`allow_loopback_http`]: Self::allow_loopback_http
/// [`allow_loopback`]: Self::allow_loopback
/// [`allowed_hosts`]: Self::allowed_hosts
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UrlPolicy {
    /// Whether `http` to a loopback address is allowed.
    pub allow_loopback_http: bool,
    /// Whether loopback addresses are allowed at all.
    pub allow_loopback: bool,
    /// Host names (lower case, as in the URL) that may resolve to any
    /// address, special-use ones included.
    pub allowed_hosts: Vec<String>,
}

impl UrlPolicy {
    /// The policy for an MCP server at `server`: loopback allowed exactly
    /// when the server is itself on loopback, and plain `http` to loopback
    /// exactly when the server is a loopback `http` URL.
    pub fn for_server(server: &Url) -> Self {
        let loopback = is_loopback(server);
        Self {
            allow_loopback_http: server.scheme() == "http" && loopback,
            allow_loopback: loopback,
            allowed_hosts: Vec::new(),
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
        let loopback = is_loopback(&parsed);
        match parsed.scheme() {
            "https" if parsed.host().is_some() => {}
            "http" if loopback && self.allow_loopback_http => {}
            "http" if loopback => {
                return Err(refuse(
                    "plain http is only used when the MCP server is itself on loopback",
                ))
            }
            "http" => return Err(refuse("plain http is only used for loopback addresses")),
            _ => return Err(refuse("only https URLs are used")),
        }
        if loopback && !self.allow_loopback && !self.host_allowed(&parsed) {
            return Err(refuse(
                "loopback addresses are only used when the MCP server is itself on loopback",
            ));
        }
        let literal = match parsed.host() {
            Some(url::Host::Ipv4(ip)) => Some(IpAddr::V4(ip)),
            Some(url::Host::Ipv6(ip)) => Some(IpAddr::V6(ip)),
            _ => None,
        };
        if let Some(reason) = literal.and_then(|ip| self.refusal(&parsed, ip)) {
            return Err(refuse(reason));
        }
        Ok(parsed)
    }

    /// Why an address that `url`'s host resolved to (or spells) may not
    /// be used; `None` when it may.
    pub fn refusal(&self, url: &Url, ip: IpAddr) -> Option<&'static str> {
        self.refusal_for_host(url.host_str().unwrap_or(""), ip)
    }

    /// [`refusal`](Self::refusal) by the host's name as it stands in the
    /// URL.
    pub fn refusal_for_host(&self, host: &str, ip: IpAddr) -> Option<&'static str> {
        if self
            .allowed_hosts
            .iter()
            .any(|h| h.eq_ignore_ascii_case(host))
        {
            return None;
        }
        match special_use(ip)? {
            SpecialUse::Loopback if self.allow_loopback => None,
            use_ => Some(use_.refusal()),
        }
    }

    fn host_allowed(&self, url: &Url) -> bool {
        let host = url.host_str().unwrap_or("");
        self.allowed_hosts
            .iter()
            .any(|h| h.eq_ignore_ascii_case(host))
    }
}

/// The kinds of address a server's answers may not send the host to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpecialUse {
    /// `127.0.0.0/8`, `::1`.
    Loopback,
    /// `10/8`, `172.16/12`, `192.168/16`, `fc00::/7`.
    Private,
    /// `169.254/16`, `fe80::/10`.
    LinkLocal,
    /// `100.64/10`, shared address space (carrier-grade NAT).
    Shared,
    /// `0.0.0.0/8`, `::`.
    Unspecified,
    /// `224/4`, `ff00::/8`.
    Multicast,
    /// `255.255.255.255`.
    Broadcast,
    /// Protocol assignments, documentation, benchmarking and reserved
    /// ranges: `192.0.0/24`, `192.0.2/24`, `198.18/15`, `198.51.100/24`,
    /// `203.0.113/24`, `240/4`, `2001:db8::/32`, and IPv6 site-local
    /// `fec0::/10`.
    Reserved,
}

impl SpecialUse {
    fn refusal(self) -> &'static str {
        match self {
            Self::Loopback => {
                "loopback addresses are only used when the MCP server is itself on loopback"
            }
            Self::Private => "private network addresses are not used",
            Self::LinkLocal => "link-local addresses are not used",
            Self::Shared => "shared (carrier-grade NAT) addresses are not used",
            Self::Unspecified => "the unspecified address is not used",
            Self::Multicast => "multicast addresses are not used",
            Self::Broadcast => "the broadcast address is not used",
            Self::Reserved => "reserved or documentation addresses are not used",
        }
    }
}

/// What kind of special-use address `ip` is, if any. IPv4 addresses
/// embedded in IPv6 ones (IPv4-mapped `::ffff:0:0/96`, IPv4-compatible
/// `::/96`, NAT64 `64:ff9b::/96` and 6to4 `2002::/16`) are judged as the
/// IPv4 address they carry.
pub fn special_use(ip: IpAddr) -> Option<SpecialUse> {
    match ip {
        IpAddr::V4(v4) => special_v4(v4),
        IpAddr::V6(v6) => special_v6(v6),
    }
}

fn special_v4(ip: std::net::Ipv4Addr) -> Option<SpecialUse> {
    let [a, b, c, _] = ip.octets();
    Some(match (a, b, c) {
        (127, ..) => SpecialUse::Loopback,
        (10, ..) | (192, 168, _) => SpecialUse::Private,
        (172, 16..=31, _) => SpecialUse::Private,
        (169, 254, _) => SpecialUse::LinkLocal,
        (100, 64..=127, _) => SpecialUse::Shared,
        (0, ..) => SpecialUse::Unspecified,
        (224..=239, ..) => SpecialUse::Multicast,
        _ if ip.is_broadcast() => SpecialUse::Broadcast,
        (192, 0, 0 | 2) | (198, 18 | 19, _) | (198, 51, 100) | (203, 0, 113) => {
            SpecialUse::Reserved
        }
        (240..=255, ..) => SpecialUse::Reserved,
        _ => return None,
    })
}

fn special_v6(ip: std::net::Ipv6Addr) -> Option<SpecialUse> {
    let s = ip.segments();
    if ip.is_loopback() {
        return Some(SpecialUse::Loopback);
    }
    if ip.is_unspecified() {
        return Some(SpecialUse::Unspecified);
    }
    let embedded = |hi: u16, lo: u16| {
        let [a, b] = hi.to_be_bytes();
        let [c, d] = lo.to_be_bytes();
        std::net::Ipv4Addr::new(a, b, c, d)
    };
    match s {
        // IPv4-mapped and IPv4-compatible: the IPv4 address decides.
        [0, 0, 0, 0, 0, 0xffff, hi, lo] | [0, 0, 0, 0, 0, 0, hi, lo] => {
            return special_v4(embedded(hi, lo))
        }
        [0x64, 0xff9b, 0, 0, 0, 0, hi, lo] => return special_v4(embedded(hi, lo)),
        [0x2002, hi, lo, ..] => return special_v4(embedded(hi, lo)),
        _ => {}
    }
    Some(match s[0] {
        0xfc00..=0xfdff => SpecialUse::Private,
        0xfe80..=0xfebf => SpecialUse::LinkLocal,
        0xfec0..=0xfeff => SpecialUse::Reserved,
        0xff00..=0xffff => SpecialUse::Multicast,
        0x2001 if s[1] == 0x0db8 => SpecialUse::Reserved,
        _ => return None,
    })
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
/// required of every client then, so it is assumed; the current spec has
/// clients refuse a server whose PKCE support is unknown, so the flow only
/// uses this when the person turned the fallback on for the server
/// (`OAuthSettings::legacy_endpoint_fallback`).
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
            dpop_signing_alg_values_supported: None,
            dpop_bound_access_tokens_required: false,
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

    #[test]
    fn special_use_addresses() {
        use SpecialUse::*;
        let table: &[(&str, Option<SpecialUse>)] = &[
            ("127.0.0.1", Some(Loopback)),
            ("127.255.0.9", Some(Loopback)),
            ("::1", Some(Loopback)),
            ("10.0.0.1", Some(Private)),
            ("172.16.0.1", Some(Private)),
            ("172.31.255.255", Some(Private)),
            ("172.32.0.1", None),
            ("192.168.1.1", Some(Private)),
            ("fc00::1", Some(Private)),
            ("fd12:3456::1", Some(Private)),
            ("169.254.169.254", Some(LinkLocal)),
            ("fe80::1", Some(LinkLocal)),
            ("100.64.0.1", Some(Shared)),
            ("100.127.255.255", Some(Shared)),
            ("100.128.0.1", None),
            ("0.0.0.0", Some(Unspecified)),
            ("0.1.2.3", Some(Unspecified)),
            ("::", Some(Unspecified)),
            ("224.0.0.1", Some(Multicast)),
            ("ff02::1", Some(Multicast)),
            ("255.255.255.255", Some(Broadcast)),
            ("192.0.2.1", Some(Reserved)),
            ("198.18.0.1", Some(Reserved)),
            ("203.0.113.7", Some(Reserved)),
            ("240.0.0.1", Some(Reserved)),
            ("2001:db8::1", Some(Reserved)),
            // IPv4 inside IPv6 is judged as the IPv4 address.
            ("::ffff:10.0.0.1", Some(Private)),
            ("::ffff:127.0.0.1", Some(Loopback)),
            ("::ffff:169.254.169.254", Some(LinkLocal)),
            ("::ffff:93.184.216.34", None),
            ("::10.0.0.1", Some(Private)),
            ("64:ff9b::a00:1", Some(Private)),
            ("2002:a00:1::1", Some(Private)),
            ("2002:5db8:d822::1", None),
            // Public addresses pass.
            ("93.184.216.34", None),
            ("8.8.8.8", None),
            ("2606:4700::1111", None),
        ];
        for (text, expected) in table {
            let ip: IpAddr = text.parse().expect(text);
            assert_eq!(special_use(ip), *expected, "{text}");
        }
    }

    #[test]
    fn special_use_addresses_are_refused_by_the_policy() {
        let remote = UrlPolicy::for_server(&url("https://mcp.example.com/mcp"));
        let local = UrlPolicy::for_server(&url("http://127.0.0.1:3000/mcp"));
        assert!(!remote.allow_loopback);
        assert!(local.allow_loopback);
        for bad in [
            "https://10.0.0.1/token",
            "https://192.168.0.10/.well-known/oauth-authorization-server",
            "https://169.254.169.254/latest/meta-data",
            "https://[fe80::1]/x",
            "https://[::ffff:10.0.0.1]/x",
            "https://100.64.1.1/x",
            "https://0.0.0.0/x",
            "https://127.0.0.1/x",
            "https://localhost/x",
            "https://[::1]/x",
        ] {
            let error = remote.check("token endpoint", bad).expect_err(bad);
            assert!(
                matches!(
                    error,
                    AuthError::InsecureUrl {
                        what: "token endpoint",
                        ..
                    }
                ),
                "{bad}: {error}"
            );
        }
        // A server on loopback may name loopback, never the private network.
        assert!(local.check("u", "https://127.0.0.1/x").is_ok());
        assert!(local.check("u", "http://localhost:9/x").is_ok());
        assert!(local.check("u", "https://10.0.0.1/x").is_err());
        // A resolved address is judged by the name it was resolved for.
        let ip = |t: &str| t.parse::<IpAddr>().expect("ip");
        assert_eq!(
            remote.refusal_for_host("as.example.com", ip("10.1.2.3")),
            Some("private network addresses are not used")
        );
        assert_eq!(
            remote.refusal_for_host("as.example.com", ip("93.184.216.34")),
            None
        );
        // Named hosts may be anywhere.
        let mut corporate = remote.clone();
        corporate.allowed_hosts.push("sso.corp.example".into());
        assert_eq!(
            corporate.refusal_for_host("SSO.corp.example", ip("10.1.2.3")),
            None
        );
        assert!(corporate
            .check("u", "https://sso.corp.example/token")
            .is_ok());
        assert_eq!(
            corporate.refusal_for_host("other.corp.example", ip("10.1.2.3")),
            Some("private network addresses are not used")
        );
    }
}
