//! Who may use the app: the rules every request passes before any page or
//! action, without I/O.
//!
//! The app listens on a loopback address, but loopback is not a boundary
//! in a browser: any page the person has open can send requests to it,
//! and a DNS-rebinding page can even read the answers under a name of its
//! own. So:
//!
//! - `Host` must name the app itself (`127.0.0.1:PORT` or
//!   `localhost:PORT`), which a rebinding page cannot make its browser
//!   send.
//! - A request that changes anything (every method but `GET` and `HEAD`)
//!   must carry the app's own `Origin`, and `Sec-Fetch-Site`, when the
//!   browser sends it, must say `same-origin`.
//! - Every request but the first needs the session cookie. The URL the app
//!   prints carries a launch secret (256 random bits) that is exchanged,
//!   once, for that cookie (`HttpOnly`, `SameSite=Strict`, another 256
//!   random bits): the secret in the browser's history is spent, and the
//!   cookie is out of reach of scripts and of requests other sites start.
//!
//! Secrets are compared in constant time.

use subtle::ConstantTimeEq;

/// The session cookie's name.
pub const COOKIE: &str = "mcp_host_session";

/// What the guard makes of a request.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Serve it.
    Pass,
    /// The launch secret, right and unspent: set the session cookie (this
    /// `Set-Cookie` value) and send the browser to `/` without the secret
    /// in its address.
    Exchange(String),
    /// Refuse it with this status, and this reason for the person.
    Refuse(u16, &'static str),
}

/// The request as the guard reads it: borrowed parts of the head.
#[derive(Debug, Default, Clone, Copy)]
pub struct Head<'a> {
    /// The method, upper case.
    pub method: &'a str,
    /// The query string, without `?`.
    pub query: Option<&'a str>,
    /// Every `Host` value.
    pub hosts: &'a [&'a str],
    /// `Origin`, if sent (every value).
    pub origins: &'a [&'a str],
    /// `Sec-Fetch-Site`, if sent.
    pub fetch_site: Option<&'a str>,
    /// Every `Cookie` header value.
    pub cookies: &'a [&'a str],
}

/// The guard of one launch: its port, its launch secret (until spent) and
/// its session token.
pub struct Guard {
    port: u16,
    launch: std::sync::Mutex<Option<[u8; 32]>>,
    session: [u8; 32],
}

impl std::fmt::Debug for Guard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The secrets are never shown.
        f.debug_struct("Guard")
            .field("port", &self.port)
            .finish_non_exhaustive()
    }
}

/// A secret as URL-safe text.
fn hex(bytes: &[u8; 32]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl Guard {
    /// A guard for the app on `port`, with fresh secrets.
    ///
    /// # Errors
    ///
    /// When the operating system's random source fails.
    pub fn new(port: u16) -> Result<Self, String> {
        let mut launch = [0u8; 32];
        let mut session = [0u8; 32];
        getrandom::fill(&mut launch)
            .and_then(|()| getrandom::fill(&mut session))
            .map_err(|e| format!("no random source for the app's secrets: {e}"))?;
        Ok(Guard {
            port,
            launch: std::sync::Mutex::new(Some(launch)),
            session,
        })
    }

    /// The address to open: the app with its launch secret, while unspent.
    pub fn launch_url(&self) -> Option<String> {
        let launch = self.lock();
        launch
            .as_ref()
            .map(|secret| format!("http://127.0.0.1:{}/?key={}", self.port, hex(secret)))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<[u8; 32]>> {
        self.launch
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Judges one request.
    pub fn check(&self, head: &Head<'_>) -> Verdict {
        let [host] = head.hosts else {
            return Verdict::Refuse(400, "one Host header is needed");
        };
        if !self.is_own(host) {
            return Verdict::Refuse(403, "this address is not the app's");
        }
        let safe = matches!(head.method, "GET" | "HEAD");
        match head.origins {
            [] if safe => {}
            [origin] if self.is_own_origin(origin) => {}
            [] => return Verdict::Refuse(403, "a change needs the app's own Origin"),
            _ => return Verdict::Refuse(403, "a request from another site is refused"),
        }
        if let Some(site) = head.fetch_site {
            let allowed = site == "same-origin" || (safe && site == "none");
            if !allowed {
                return Verdict::Refuse(403, "a request from another site is refused");
            }
        }
        if self.has_session(head.cookies) {
            return Verdict::Pass;
        }
        if head.method == "GET" {
            if let Some(offered) = head.query.and_then(key_of) {
                let mut launch = self.lock();
                let right = launch.as_ref().is_some_and(|secret| {
                    bool::from(hex(secret).as_bytes().ct_eq(offered.as_bytes()))
                });
                if right {
                    // Spent: the address in the history opens nothing.
                    *launch = None;
                    return Verdict::Exchange(format!(
                        "{COOKIE}={}; HttpOnly; SameSite=Strict; Path=/",
                        hex(&self.session)
                    ));
                }
            }
        }
        Verdict::Refuse(
            401,
            "open the address mcp-host web printed; it works once, in one browser",
        )
    }

    /// Whether `host` is the app: its loopback name or address and its port.
    fn is_own(&self, host: &str) -> bool {
        let port = self.port.to_string();
        match host.rsplit_once(':') {
            Some((name, p)) => {
                p == port && (name == "127.0.0.1" || name.eq_ignore_ascii_case("localhost"))
            }
            None => false,
        }
    }

    fn is_own_origin(&self, origin: &str) -> bool {
        origin
            .strip_prefix("http://")
            .is_some_and(|host| self.is_own(host))
    }

    fn has_session(&self, cookies: &[&str]) -> bool {
        let expected = hex(&self.session);
        let mut found = false;
        for pair in cookies.iter().flat_map(|line| line.split(';')) {
            if let Some((name, value)) = pair.trim().split_once('=') {
                if name == COOKIE {
                    found |= bool::from(expected.as_bytes().ct_eq(value.as_bytes()));
                }
            }
        }
        found
    }
}

/// The `key` parameter of a query string.
fn key_of(query: &str) -> Option<&str> {
    query.split('&').find_map(|pair| pair.strip_prefix("key="))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard() -> Guard {
        Guard::new(4000).expect("random")
    }

    fn secret(guard: &Guard) -> String {
        guard
            .launch_url()
            .and_then(|url| url.split_once("key=").map(|(_, k)| k.to_owned()))
            .expect("unspent")
    }

    fn get<'a>(query: Option<&'a str>, cookies: &'a [&'a str]) -> Head<'a> {
        Head {
            method: "GET",
            query,
            hosts: &["127.0.0.1:4000"],
            cookies,
            ..Head::default()
        }
    }

    #[test]
    fn the_launch_secret_is_exchanged_once_for_the_cookie() {
        let guard = guard();
        let key = format!("key={}", secret(&guard));
        let Verdict::Exchange(set_cookie) = guard.check(&get(Some(&key), &[])) else {
            panic!("the secret opens the app");
        };
        assert!(set_cookie.contains("HttpOnly"), "{set_cookie}");
        assert!(set_cookie.contains("SameSite=Strict"), "{set_cookie}");
        assert!(
            !set_cookie.contains(&key[4..]),
            "the cookie is not the launch secret"
        );
        assert_eq!(guard.launch_url(), None);
        // Spent.
        assert_eq!(guard.check(&get(Some(&key), &[])).status(), Some(401));
        let cookie = set_cookie.split(';').next().expect("pair").to_owned();
        assert_eq!(guard.check(&get(None, &[&cookie])), Verdict::Pass);
        assert_eq!(
            guard.check(&get(None, &[&format!("{COOKIE}=00")])).status(),
            Some(401)
        );
        assert_eq!(guard.check(&get(Some("key=00"), &[])).status(), Some(401));
    }

    #[test]
    fn a_foreign_host_origin_or_site_is_refused() {
        let guard = guard();
        let key = format!("key={}", secret(&guard));
        let Verdict::Exchange(set_cookie) = guard.check(&get(Some(&key), &[])) else {
            panic!("the secret opens the app");
        };
        let cookie = set_cookie.split(';').next().expect("pair").to_owned();
        let cookies = [cookie.as_str()];
        let with =
            |method, hosts: &'static [&'static str], origins: &'static [&'static str], site| {
                guard
                    .check(&Head {
                        method,
                        hosts,
                        origins,
                        fetch_site: site,
                        cookies: &cookies,
                        query: None,
                    })
                    .status()
            };
        // Rebinding: the browser names the attacker's host.
        assert_eq!(with("GET", &["evil.example:4000"], &[], None), Some(403));
        assert_eq!(with("GET", &["127.0.0.1:4001"], &[], None), Some(403));
        assert_eq!(
            with("GET", &["127.0.0.1:4000", "127.0.0.1:4000"], &[], None),
            Some(400)
        );
        assert_eq!(with("GET", &["localhost:4000"], &[], None), None);
        // A change from another site, or with no Origin at all.
        assert_eq!(
            with("POST", &["127.0.0.1:4000"], &["http://evil.example"], None),
            Some(403)
        );
        assert_eq!(with("POST", &["127.0.0.1:4000"], &[], None), Some(403));
        assert_eq!(
            with(
                "POST",
                &["127.0.0.1:4000"],
                &["http://127.0.0.1:4000"],
                Some("cross-site")
            ),
            Some(403)
        );
        assert_eq!(
            with(
                "POST",
                &["127.0.0.1:4000"],
                &["http://127.0.0.1:4000"],
                Some("same-origin")
            ),
            None
        );
        assert_eq!(
            with("GET", &["127.0.0.1:4000"], &[], Some("cross-site")),
            Some(403)
        );
        assert_eq!(with("GET", &["127.0.0.1:4000"], &[], Some("none")), None);
    }

    #[test]
    fn debug_shows_no_secret() {
        let guard = guard();
        let shown = format!("{guard:?}");
        assert!(!shown.contains(&secret(&guard)), "{shown}");
    }

    impl Verdict {
        fn status(&self) -> Option<u16> {
            match self {
                Verdict::Refuse(status, _) => Some(*status),
                _ => None,
            }
        }
    }
}
