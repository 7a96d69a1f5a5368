//! Storage that every replica of a server can share: short-lived values by
//! key, written only if new or only if unchanged. It is the backend of the
//! state that must outlive one request and be seen by whichever replica
//! the next request reaches: [`SharedHandleStore`](crate::handle::SharedHandleStore)
//! (handles that work on every replica) and [`SharedReplayGuard`] (ids
//! seen once: single-use sealed state, with `sealed-state`, and the `jti`
//! of DPoP proofs, with `auth`, refused on every replica once used on
//! one).
//!
//! [`MemoryShared`] keeps the values in this process, bounded, for one
//! replica and for tests; `RedisShared` (feature `redis`) keeps them in
//! Redis, with each value's lifetime as the key's expiry.
//!
//! Every operation is a single conditional step, so that two replicas
//! racing on one key never both win: [`SharedStore::insert_new`] writes
//! only an absent key, [`SharedStore::replace`] and
//! [`SharedStore::remove`] only a key that still holds what the caller
//! read.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::BoxFuture;

#[cfg(feature = "redis")]
pub(crate) mod redis;
mod replay;

#[cfg(feature = "redis")]
pub use redis::RedisShared;
pub use replay::SharedReplayGuard;

/// Why a shared store failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SharedError {
    /// The store holds as many live values as it may.
    Full,
    /// The backend failed; the text is for the server's logs.
    Backend(String),
}

impl std::fmt::Display for SharedError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SharedError::Full => f.write_str("the shared store is full"),
            SharedError::Backend(e) => write!(f, "the shared store failed: {e}"),
        }
    }
}

impl std::error::Error for SharedError {}

/// Values by key with a lifetime, shared by every replica; see the
/// [module docs](self).
pub trait SharedStore: Send + Sync + 'static {
    /// Stores `value` under `key` for `ttl` if nothing lives there;
    /// whether it did.
    fn insert_new<'a>(
        &'a self,
        key: &'a str,
        value: &'a [u8],
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, SharedError>>;

    /// The value under `key`, if one lives there.
    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<Vec<u8>>, SharedError>>;

    /// Puts `new` under `key`, keeping its lifetime, if `key` still holds
    /// `old`; whether it did.
    fn replace<'a>(
        &'a self,
        key: &'a str,
        old: &'a [u8],
        new: &'a [u8],
    ) -> BoxFuture<'a, Result<bool, SharedError>>;

    /// Removes `key` if it still holds `old`; whether it did.
    fn remove<'a>(
        &'a self,
        key: &'a str,
        old: &'a [u8],
    ) -> BoxFuture<'a, Result<bool, SharedError>>;

    /// How many live values the store holds at most, when it has a bound
    /// of its own ([`MemoryShared`]'s capacity); `None`, the default, when
    /// it has none (Redis, bounded by its memory). What is carved out of
    /// the store is sized from it, such as each principal's share of the
    /// DPoP proofs a resource server records (`auth` feature,
    /// `ResourceServerBuilder::dpop_replay_share`).
    fn capacity(&self) -> Option<usize> {
        None
    }
}

/// A [`SharedStore`] in this process's memory, holding at most `capacity`
/// live values: expired ones are dropped when met and, when it is full,
/// before a new one is refused.
#[derive(Debug)]
pub struct MemoryShared {
    capacity: usize,
    values: Mutex<Values>,
}

#[derive(Debug, Default)]
struct Values {
    map: HashMap<String, (Vec<u8>, Instant)>,
    /// The same keys by expiry, to drop the expired ones cheaply.
    by_expiry: BTreeSet<(Instant, String)>,
}

impl Values {
    fn live(&mut self, key: &str, now: Instant) -> Option<&mut (Vec<u8>, Instant)> {
        let expired = self.map.get(key)?.1 <= now;
        if expired {
            self.drop_key(key);
            return None;
        }
        self.map.get_mut(key)
    }

    fn drop_key(&mut self, key: &str) {
        if let Some((_, expires)) = self.map.remove(key) {
            self.by_expiry.remove(&(expires, key.to_owned()));
        }
    }

    fn purge(&mut self, now: Instant) {
        while let Some((expires, key)) = self.by_expiry.first().cloned() {
            if expires > now {
                break;
            }
            self.by_expiry.pop_first();
            self.map.remove(&key);
        }
    }
}

impl MemoryShared {
    /// A store of at most `capacity` live values.
    pub fn new(capacity: usize) -> Self {
        MemoryShared {
            capacity,
            values: Mutex::new(Values::default()),
        }
    }

    /// How many values are held, expired ones included until dropped.
    pub fn len(&self) -> usize {
        self.lock().map.len()
    }

    /// Whether no value is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Values> {
        // Each operation leaves the map whole, even if a holder panicked.
        self.values.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn insert_now(&self, key: &str, value: &[u8], ttl: Duration) -> Result<bool, SharedError> {
        let now = Instant::now();
        let mut values = self.lock();
        if values.live(key, now).is_some() {
            return Ok(false);
        }
        if values.map.len() >= self.capacity {
            values.purge(now);
            if values.map.len() >= self.capacity {
                return Err(SharedError::Full);
            }
        }
        let expires = now.checked_add(ttl).unwrap_or(now);
        values.by_expiry.insert((expires, key.to_owned()));
        values.map.insert(key.to_owned(), (value.to_vec(), expires));
        Ok(true)
    }
}

impl Default for MemoryShared {
    /// A store of 10,000 values.
    fn default() -> Self {
        MemoryShared::new(10_000)
    }
}

impl SharedStore for MemoryShared {
    fn insert_new<'a>(
        &'a self,
        key: &'a str,
        value: &'a [u8],
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, SharedError>> {
        Box::pin(std::future::ready(self.insert_now(key, value, ttl)))
    }

    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<Vec<u8>>, SharedError>> {
        let found = self
            .lock()
            .live(key, Instant::now())
            .map(|(value, _)| value.clone());
        Box::pin(std::future::ready(Ok(found)))
    }

    fn replace<'a>(
        &'a self,
        key: &'a str,
        old: &'a [u8],
        new: &'a [u8],
    ) -> BoxFuture<'a, Result<bool, SharedError>> {
        let mut values = self.lock();
        let replaced = match values.live(key, Instant::now()) {
            Some((value, _)) if value.as_slice() == old => {
                *value = new.to_vec();
                true
            }
            _ => false,
        };
        Box::pin(std::future::ready(Ok(replaced)))
    }

    fn remove<'a>(
        &'a self,
        key: &'a str,
        old: &'a [u8],
    ) -> BoxFuture<'a, Result<bool, SharedError>> {
        let mut values = self.lock();
        let holds =
            matches!(values.live(key, Instant::now()), Some((value, _)) if value.as_slice() == old);
        if holds {
            values.drop_key(key);
        }
        Box::pin(std::future::ready(Ok(holds)))
    }

    fn capacity(&self) -> Option<usize> {
        Some(self.capacity)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now<T>(future: BoxFuture<'_, T>) -> T {
        futures_util::FutureExt::now_or_never(future).expect("the memory store never waits")
    }

    #[test]
    fn writes_are_conditional() {
        let store = MemoryShared::new(4);
        let hour = Duration::from_secs(3600);
        assert_eq!(now(store.insert_new("k", b"a", hour)), Ok(true));
        assert_eq!(now(store.insert_new("k", b"b", hour)), Ok(false));
        assert_eq!(now(store.replace("k", b"x", b"c")), Ok(false));
        assert_eq!(now(store.replace("k", b"a", b"c")), Ok(true));
        assert_eq!(now(store.get("k")), Ok(Some(b"c".to_vec())));
        assert_eq!(now(store.remove("k", b"a")), Ok(false));
        assert_eq!(now(store.remove("k", b"c")), Ok(true));
        assert_eq!(now(store.get("k")), Ok(None));
        assert_eq!(now(store.replace("gone", b"", b"x")), Ok(false));
    }

    #[test]
    fn a_full_store_drops_expired_values_then_refuses() {
        let store = MemoryShared::new(2);
        let hour = Duration::from_secs(3600);
        assert_eq!(
            now(store.insert_new("brief", b"1", Duration::ZERO)),
            Ok(true)
        );
        assert_eq!(now(store.get("brief")), Ok(None), "expired at once");
        assert_eq!(now(store.insert_new("a", b"1", hour)), Ok(true));
        assert_eq!(now(store.insert_new("b", b"1", hour)), Ok(true));
        assert_eq!(
            now(store.insert_new("c", b"1", hour)),
            Err(SharedError::Full)
        );
        assert_eq!(store.len(), 2);
    }
}
