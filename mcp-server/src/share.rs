//! Who a request counts against when one replica shares out what it holds:
//! requests in flight, handles, legacy sessions, tasks.
//!
//! A [`Client`] is the request's principal on a protected server, and
//! otherwise the address of its peer: an IPv4 address whole, an IPv6
//! address by its /64 (one host usually holds a whole /64). Behind a
//! reverse proxy every peer is the proxy, so the address of the client is
//! read from `X-Forwarded-For` when, and only when, the peer is one of the
//! proxies the operator named ([`forwarded`]).
//!
//! The rules here are pure: the transport finds the peer and calls in.
//! Shares are kept per replica, in memory; nothing here is shared between
//! replicas, so a client reaching `n` replicas may hold `n` shares.

use std::fmt;
use std::net::IpAddr;
use std::sync::Arc;

/// The party a request counts against: its principal, or its network
/// address when the server has no authorization.
///
/// Two requests of the same principal (or, on a server without
/// authorization, from the same address or IPv6 /64) are the same client.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Client(Who);

#[derive(Clone, PartialEq, Eq, Hash)]
enum Who {
    Principal(Arc<str>),
    /// An IPv4 address as a mapped IPv6 address, or an IPv6 /64 prefix.
    Address(u128),
}

impl Client {
    /// The client that is `principal`.
    pub fn principal(principal: impl Into<Arc<str>>) -> Self {
        Client(Who::Principal(principal.into()))
    }

    /// The client at `address`: IPv4 (or IPv4-mapped IPv6) whole, other
    /// IPv6 addresses by their /64.
    pub fn address(address: IpAddr) -> Self {
        Client(Who::Address(match address.to_canonical() {
            IpAddr::V4(ip) => u128::from(ip.to_ipv6_mapped()),
            IpAddr::V6(ip) => u128::from(ip) >> 64 << 64,
        }))
    }
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Who::Principal(principal) => f.debug_tuple("Principal").field(principal).finish(),
            Who::Address(_) => write!(f, "Address({self})"),
        }
    }
}

/// The principal, or the address (an IPv6 one as its /64 prefix).
impl fmt::Display for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Who::Principal(principal) => f.write_str(principal),
            Who::Address(bits) => {
                let ip = std::net::Ipv6Addr::from(*bits);
                match ip.to_ipv4_mapped() {
                    Some(v4) => write!(f, "{v4}"),
                    None => write!(f, "{ip}/64"),
                }
            }
        }
    }
}

/// The address of the client behind `peer`: `peer` itself unless it is one
/// of the `trusted` proxies, in which case the right-most address of the
/// `X-Forwarded-For` values (`forwarded_for`, in the order the header lines
/// came) that is not itself a trusted proxy. Each proxy appends the address
/// it received from, so entries to the left of the first untrusted one were
/// written by the client and prove nothing. An entry that is not an IP
/// address stops the walk there and `peer` stands: a misconfigured proxy
/// must not turn every client into one made-up name.
pub fn forwarded<'a>(
    peer: IpAddr,
    trusted: &[IpAddr],
    forwarded_for: impl IntoIterator<Item = &'a str>,
) -> IpAddr {
    let is_trusted = |ip: &IpAddr| {
        trusted
            .iter()
            .any(|t| t.to_canonical() == ip.to_canonical())
    };
    if !is_trusted(&peer) {
        return peer;
    }
    let entries: Vec<&str> = forwarded_for
        .into_iter()
        .flat_map(|line| line.split(','))
        .map(str::trim)
        .filter(|entry| !entry.is_empty())
        .collect();
    for entry in entries.iter().rev() {
        match parse_entry(entry) {
            Some(ip) if is_trusted(&ip) => continue,
            Some(ip) => return ip,
            None => return peer,
        }
    }
    peer
}

/// One `X-Forwarded-For` entry: an address, perhaps bracketed or with a
/// port as some proxies write it.
fn parse_entry(entry: &str) -> Option<IpAddr> {
    if let Ok(ip) = entry.parse() {
        return Some(ip);
    }
    if let Some(rest) = entry.strip_prefix('[') {
        return rest.split_once(']')?.0.parse().ok();
    }
    let (host, port) = entry.rsplit_once(':')?;
    port.parse::<u16>().ok()?;
    host.parse::<std::net::Ipv4Addr>().ok().map(IpAddr::V4)
}

tokio::task_local! {
    /// The address of the client of the request being dispatched, set by
    /// the HTTP transport around its call into the server, so that the
    /// context built for the request can say who the client is without
    /// every layer between passing it along.
    static PEER: IpAddr;
}

/// Runs `future` with `peer` as the address of its request's client.
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) async fn with_peer<F: std::future::Future>(
    peer: Option<IpAddr>,
    future: F,
) -> F::Output {
    match peer {
        Some(peer) => PEER.scope(peer, future).await,
        None => future.await,
    }
}

/// The address [`with_peer`] set for the request being dispatched.
pub(crate) fn peer() -> Option<IpAddr> {
    PEER.try_with(|peer| *peer).ok()
}

/// How many places each client holds of one resource, bounded per client:
/// the bookkeeping every share uses. A client with none has no entry, so
/// clients that leave leave nothing behind.
#[derive(Debug)]
pub(crate) struct Counts {
    held: std::collections::HashMap<Client, usize>,
    share: usize,
}

impl Counts {
    /// Counts of which each client may hold `share` (at least one).
    pub(crate) fn new(share: usize) -> Self {
        Counts {
            held: std::collections::HashMap::new(),
            share: share.max(1),
        }
    }

    /// The most one client may hold.
    pub(crate) fn share(&self) -> usize {
        self.share
    }

    /// How many `client` holds.
    pub(crate) fn held(&self, client: &Client) -> usize {
        self.held.get(client).copied().unwrap_or(0)
    }

    /// Whether `client` holds its whole share.
    pub(crate) fn full(&self, client: &Client) -> bool {
        self.held(client) >= self.share
    }

    /// Counts one more place for `client`.
    pub(crate) fn add(&mut self, client: &Client) {
        *self.held.entry(client.clone()).or_insert(0) += 1;
    }

    /// Counts one place fewer for `client`.
    pub(crate) fn remove(&mut self, client: &Client) {
        if let Some(held) = self.held.get_mut(client) {
            *held -= 1;
            if *held == 0 {
                self.held.remove(client);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn addresses_group_ipv6_by_64_and_ipv4_whole() {
        assert_eq!(
            Client::address(ip("2001:db8:1:2::1")),
            Client::address(ip("2001:db8:1:2:ffff::9"))
        );
        assert_ne!(
            Client::address(ip("2001:db8:1:2::1")),
            Client::address(ip("2001:db8:1:3::1"))
        );
        assert_ne!(
            Client::address(ip("127.0.0.2")),
            Client::address(ip("127.0.0.3"))
        );
        assert_eq!(
            Client::address(ip("::ffff:127.0.0.2")),
            Client::address(ip("127.0.0.2"))
        );
        assert_ne!(
            Client::principal("127.0.0.2"),
            Client::address(ip("127.0.0.2"))
        );
        assert_eq!(
            format!("{:?}", Client::address(ip("2001:db8:1:2::1"))),
            "Address(2001:db8:1:2::/64)"
        );
    }

    #[test]
    fn the_forwarded_address_counts_only_behind_a_trusted_proxy() {
        let proxy = ip("127.0.0.1");
        let trusted = [proxy];
        // Not a proxy: the header is the client's own words.
        assert_eq!(
            forwarded(ip("127.0.0.9"), &trusted, ["10.0.0.1"]),
            ip("127.0.0.9")
        );
        // Behind the proxy: the right-most entry, which the proxy wrote.
        assert_eq!(
            forwarded(proxy, &trusted, ["6.6.6.6, 10.0.0.7"]),
            ip("10.0.0.7")
        );
        // Lines in order, trusted hops skipped, ports and brackets read.
        assert_eq!(
            forwarded(proxy, &trusted, ["6.6.6.6", "10.0.0.7:5123, 127.0.0.1"]),
            ip("10.0.0.7")
        );
        assert_eq!(
            forwarded(proxy, &trusted, ["[2001:db8::5]:443"]),
            ip("2001:db8::5")
        );
        // Nothing usable: the proxy itself.
        assert_eq!(forwarded(proxy, &trusted, ["unknown"]), proxy);
        assert_eq!(forwarded(proxy, &trusted, ["6.6.6.6, junk"]), proxy);
        assert_eq!(forwarded(proxy, &trusted, []), proxy);
    }

    #[test]
    fn counts_leave_nothing_behind() {
        let mut counts = Counts::new(2);
        let a = Client::principal("a");
        counts.add(&a);
        assert!(!counts.full(&a));
        counts.add(&a);
        assert!(counts.full(&a));
        counts.remove(&a);
        counts.remove(&a);
        counts.remove(&a);
        assert_eq!(counts.held(&a), 0);
        assert!(counts.held.is_empty());
    }
}
