//! The keys of one authorization server as last fetched, and when to fetch
//! them again. Pure: the caller passes the time and does the fetching.
//!
//! Call contract: [`KeySet::lookup`] for each token. On
//! [`Lookup::Fetch`], fetch the set (one fetch at a time per set), then
//! report [`KeySet::loaded`] or [`KeySet::failed`] and look up again with
//! [`KeySet::find`]. Fetches are at least `min_interval` apart whatever
//! the tokens say, so a flood of made-up key ids costs the authorization
//! server one request per interval.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::compact::Algorithm;
use super::jwk::Jwk;

/// How often a set may be fetched, and how long keys are trusted without
/// a refresh.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Refresh {
    /// The least time between two fetches.
    pub(crate) min_interval: Duration,
    /// How old a set may grow before a token prompts a refresh (the old
    /// keys serve until the refresh succeeds).
    pub(crate) max_age: Duration,
}

/// What to do about a token's key.
#[derive(Clone, Debug)]
pub(crate) enum Lookup {
    /// Check the signature with this key.
    Found(Arc<Jwk>),
    /// Fetch the set first: the key is unknown or the set is old, and a
    /// fetch is allowed now.
    Fetch,
    /// No key fits and no fetch is allowed yet.
    Missing,
}

/// The keys last fetched.
#[derive(Debug, Default)]
pub(crate) struct KeySet {
    keys: Vec<Arc<Jwk>>,
    loaded_at: Option<Instant>,
    tried_at: Option<Instant>,
}

impl KeySet {
    /// What to do for a token signed with `alg` under the key `kid`.
    pub(crate) fn lookup(
        &self,
        kid: Option<&str>,
        alg: Algorithm,
        now: Instant,
        refresh: Refresh,
    ) -> Lookup {
        let may_fetch = self
            .tried_at
            .is_none_or(|at| now.saturating_duration_since(at) >= refresh.min_interval);
        let stale = self
            .loaded_at
            .is_none_or(|at| now.saturating_duration_since(at) >= refresh.max_age);
        match self.find(kid, alg) {
            Some(_) if stale && may_fetch => Lookup::Fetch,
            Some(key) => Lookup::Found(key),
            None if may_fetch => Lookup::Fetch,
            None => Lookup::Missing,
        }
    }

    /// The key for `kid` that fits `alg`. A token without a key id, or one
    /// naming a key id the set does not have while the set has exactly one
    /// fitting key without an id, gets that one key.
    pub(crate) fn find(&self, kid: Option<&str>, alg: Algorithm) -> Option<Arc<Jwk>> {
        if let Some(kid) = kid {
            let named = self
                .keys
                .iter()
                .find(|k| k.kid.as_deref() == Some(kid) && k.fits(alg));
            if let Some(key) = named {
                return Some(key.clone());
            }
        }
        let mut fitting = self
            .keys
            .iter()
            .filter(|k| k.fits(alg) && (kid.is_none() || k.kid.is_none()));
        match (fitting.next(), fitting.next()) {
            (Some(key), None) => Some(key.clone()),
            _ => None,
        }
    }

    /// Replaces the keys with a freshly fetched set.
    pub(crate) fn loaded(&mut self, keys: Vec<Jwk>, now: Instant) {
        self.keys = keys.into_iter().map(Arc::new).collect();
        self.loaded_at = Some(now);
        self.tried_at = Some(now);
    }

    /// Records a fetch that failed; the keys held so far stay.
    pub(crate) fn failed(&mut self, now: Instant) {
        self.tried_at = Some(now);
    }

    /// Whether a fetch ever succeeded.
    pub(crate) fn ever_loaded(&self) -> bool {
        self.loaded_at.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::jwt::jwk::key_set;
    use serde_json::json;

    const REFRESH: Refresh = Refresh {
        min_interval: Duration::from_secs(30),
        max_age: Duration::from_secs(3600),
    };

    fn keys(kids: &[Option<&str>]) -> Vec<Jwk> {
        let keys: Vec<_> = kids
            .iter()
            .map(|kid| {
                let mut key = json!({"kty": "OKP", "crv": "Ed25519", "x": "CQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQk"});
                if let Some(kid) = kid {
                    key["kid"] = json!(kid);
                }
                key
            })
            .collect();
        key_set(&json!({ "keys": keys })).expect("a set")
    }

    fn kind(lookup: &Lookup) -> &'static str {
        match lookup {
            Lookup::Found(_) => "found",
            Lookup::Fetch => "fetch",
            Lookup::Missing => "missing",
        }
    }

    #[test]
    fn unknown_keys_are_fetched_at_a_bounded_rate() {
        let t0 = Instant::now();
        let mut set = KeySet::default();
        let ed = Algorithm::EdDsa;
        assert_eq!(
            kind(&set.lookup(Some("a"), ed, t0, REFRESH)),
            "fetch",
            "nothing loaded yet"
        );
        set.loaded(keys(&[Some("a")]), t0);
        assert_eq!(kind(&set.lookup(Some("a"), ed, t0, REFRESH)), "found");
        assert_eq!(
            kind(&set.lookup(Some("a"), Algorithm::Es256, t0, REFRESH)),
            "missing"
        );
        let soon = t0 + Duration::from_secs(29);
        for _ in 0..1000 {
            assert_eq!(
                kind(&set.lookup(Some("made-up"), ed, soon, REFRESH)),
                "missing"
            );
        }
        let later = t0 + Duration::from_secs(30);
        assert_eq!(
            kind(&set.lookup(Some("made-up"), ed, later, REFRESH)),
            "fetch"
        );
        set.failed(later);
        assert_eq!(
            kind(&set.lookup(Some("made-up"), ed, later, REFRESH)),
            "missing"
        );
        assert_eq!(
            kind(&set.lookup(Some("a"), ed, later, REFRESH)),
            "found",
            "kept after a failure"
        );
    }

    #[test]
    fn old_sets_are_refreshed_and_serve_meanwhile() {
        let t0 = Instant::now();
        let mut set = KeySet::default();
        set.loaded(keys(&[Some("a")]), t0);
        let old = t0 + Duration::from_secs(3600);
        assert_eq!(
            kind(&set.lookup(Some("a"), Algorithm::EdDsa, old, REFRESH)),
            "fetch"
        );
        set.failed(old);
        assert_eq!(
            kind(&set.lookup(Some("a"), Algorithm::EdDsa, old, REFRESH)),
            "found"
        );
        assert!(set.ever_loaded());
    }

    #[test]
    fn keys_without_ids() {
        let mut set = KeySet::default();
        let t0 = Instant::now();
        set.loaded(keys(&[None]), t0);
        assert!(set.find(None, Algorithm::EdDsa).is_some());
        assert!(
            set.find(Some("x"), Algorithm::EdDsa).is_some(),
            "the one key without an id"
        );
        set.loaded(keys(&[None, None]), t0);
        assert!(set.find(None, Algorithm::EdDsa).is_none(), "ambiguous");
        set.loaded(keys(&[Some("a"), Some("b")]), t0);
        assert!(set.find(None, Algorithm::EdDsa).is_none(), "ambiguous");
        assert!(set.find(Some("c"), Algorithm::EdDsa).is_none());
        set.loaded(keys(&[Some("a")]), t0);
        assert!(set.find(None, Algorithm::EdDsa).is_some());
    }
}
