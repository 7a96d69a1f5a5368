//! Tokens already verified, so that a token sent again costs a hash and a
//! lookup. Entries are keyed by the SHA-256 digest of the token (the
//! token itself is never kept), bounded in number, and end at the token's
//! expiry or after a maximum age, whichever comes first. Eviction is
//! first in, first out: constant work per insertion.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use ring::digest::{digest, SHA256};
use subtle::ConstantTimeEq as _;

use super::Grant;

/// The SHA-256 digest of a token. Digests compare in constant time.
#[derive(Clone, Copy)]
pub(crate) struct Digest([u8; 32]);

impl Digest {
    pub(crate) fn of(token: &str) -> Digest {
        let mut bytes = [0u8; 32];
        bytes.copy_from_slice(digest(&SHA256, token.as_bytes()).as_ref());
        Digest(bytes)
    }
}

impl PartialEq for Digest {
    fn eq(&self, other: &Self) -> bool {
        self.0.ct_eq(&other.0).into()
    }
}

impl Eq for Digest {}

impl std::hash::Hash for Digest {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

struct Entry {
    grant: Arc<Grant>,
    until: SystemTime,
    /// Tells this entry from an earlier one of the same digest in the
    /// eviction queue.
    generation: u64,
}

#[derive(Default)]
struct Entries {
    map: HashMap<Digest, Entry>,
    /// Digests in insertion order, with the generation they went in with.
    order: VecDeque<(Digest, u64)>,
    next_generation: u64,
}

/// A bounded cache of verified tokens. A capacity of 0 turns it off.
pub(crate) struct TokenCache {
    entries: Mutex<Entries>,
    capacity: usize,
    max_age: Duration,
}

impl std::fmt::Debug for TokenCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenCache")
            .field("capacity", &self.capacity)
            .field("max_age", &self.max_age)
            .finish_non_exhaustive()
    }
}

impl TokenCache {
    pub(crate) fn new(capacity: usize, max_age: Duration) -> Self {
        TokenCache {
            entries: Mutex::new(Entries::default()),
            capacity,
            max_age,
        }
    }

    pub(crate) fn enabled(&self) -> bool {
        self.capacity > 0 && !self.max_age.is_zero()
    }

    /// The grant of a token verified before and still fresh at `now`.
    pub(crate) fn get(&self, digest: &Digest, now: SystemTime) -> Option<Arc<Grant>> {
        let mut entries = self.entries.lock().ok()?;
        let entry = entries.map.get(digest)?;
        if now < entry.until {
            return Some(entry.grant.clone());
        }
        entries.map.remove(digest);
        None
    }

    /// Keeps `grant` for the token of `digest`, verified at `now`, until
    /// it expires or the maximum age passes. A grant that is already past
    /// its expiry (accepted within a verifier's leeway) is not kept.
    pub(crate) fn insert(&self, digest: Digest, grant: Arc<Grant>, now: SystemTime) {
        if !self.enabled() {
            return;
        }
        let oldest = now.checked_add(self.max_age).unwrap_or(now);
        let until = grant.expires_at().map_or(oldest, |exp| exp.min(oldest));
        if until <= now {
            return;
        }
        let Ok(mut entries) = self.entries.lock() else {
            return;
        };
        let entries = &mut *entries;
        let fresh = !entries.map.contains_key(&digest);
        while fresh && entries.map.len() >= self.capacity {
            let Some((old, generation)) = entries.order.pop_front() else {
                break;
            };
            if entries
                .map
                .get(&old)
                .is_some_and(|e| e.generation == generation)
            {
                entries.map.remove(&old);
            }
        }
        // Entries dropped on lookup leave their place in the queue behind:
        // sweep them out once the queue holds twice the capacity.
        if entries.order.len() >= 2 * self.capacity {
            let map = &entries.map;
            entries
                .order
                .retain(|(d, g)| map.get(d).is_some_and(|e| e.generation == *g));
        }
        let generation = entries.next_generation;
        entries.next_generation += 1;
        entries.order.push_back((digest, generation));
        entries.map.insert(
            digest,
            Entry {
                grant,
                until,
                generation,
            },
        );
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.entries.lock().map_or(0, |e| e.map.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::UNIX_EPOCH;

    fn at(seconds: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(seconds)
    }

    fn grant(subject: &str, exp: Option<u64>) -> Arc<Grant> {
        let grant = Grant::new("https://auth.example.com", subject);
        Arc::new(match exp {
            Some(exp) => grant.with_expiry(at(exp)),
            None => grant,
        })
    }

    #[test]
    fn entries_end_at_expiry_or_max_age() {
        let cache = TokenCache::new(10, Duration::from_secs(300));
        let (a, b) = (Digest::of("token a"), Digest::of("token b"));
        cache.insert(a, grant("a", Some(1_100)), at(1_000));
        cache.insert(b, grant("b", None), at(1_000));
        assert_eq!(
            cache.get(&a, at(1_099)).map(|g| g.subject().to_owned()),
            Some("a".into())
        );
        assert!(cache.get(&a, at(1_100)).is_none(), "expired");
        assert!(cache.get(&b, at(1_299)).is_some());
        assert!(cache.get(&b, at(1_300)).is_none(), "past the maximum age");
        assert_eq!(cache.len(), 0, "dropped when found stale");
        cache.insert(a, grant("a", Some(990)), at(1_000));
        assert!(
            cache.get(&a, at(1_000)).is_none(),
            "a grant already past expiry is not kept"
        );
    }

    #[test]
    fn the_cache_is_bounded_first_in_first_out() {
        let cache = TokenCache::new(3, Duration::from_secs(300));
        let digests: Vec<Digest> = (0..10).map(|i| Digest::of(&format!("token {i}"))).collect();
        for (i, digest) in digests.iter().enumerate() {
            cache.insert(*digest, grant(&i.to_string(), None), at(1_000));
            assert!(cache.len() <= 3);
        }
        let kept: Vec<bool> = digests
            .iter()
            .map(|d| cache.get(d, at(1_001)).is_some())
            .collect();
        assert_eq!(
            kept,
            [false, false, false, false, false, false, false, true, true, true]
        );
        // Re-inserting a digest gives it a new place; the stale place does
        // not evict the new entry.
        cache.insert(digests[7], grant("7 again", None), at(1_001));
        for i in 0..1_000 {
            cache.insert(
                Digest::of(&format!("more {i}")),
                grant("x", None),
                at(1_002),
            );
            assert!(cache.len() <= 3);
        }
        let order_len = cache.entries.lock().map_or(0, |e| e.order.len());
        assert!(order_len <= 6, "{order_len}");
    }

    #[test]
    fn off_when_empty() {
        let cache = TokenCache::new(0, Duration::from_secs(300));
        assert!(!cache.enabled());
        let digest = Digest::of("t");
        cache.insert(digest, grant("a", None), at(1));
        assert!(cache.get(&digest, at(1)).is_none());
    }

    #[test]
    fn digests_differ_per_token() {
        assert!(Digest::of("a") == Digest::of("a"));
        assert!(Digest::of("a") != Digest::of("b"));
    }
}
