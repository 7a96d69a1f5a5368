//! [`SharedReplayGuard`]: ids seen once, recorded in a [`SharedStore`] so
//! that every replica refuses what one has seen.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use super::{SharedError, SharedStore};

/// The prefix of every key the guard writes.
const PREFIX: &str = "replay:";

/// A replay guard that every replica shares: the ids of used tokens kept
/// in a [`SharedStore`] (Redis, with the `redis` feature), each until its
/// token expires (and a second more, for clocks that differ between
/// replicas). A token used on one replica is then refused on all of them.
///
/// It serves single-use sealed state (with `sealed-state`,
/// `SharedReplayGuard::open_once`) and the `jti` of DPoP proofs (with
/// `auth`, `ResourceServerBuilder::replay_guard`); each use writes under
/// its own namespace, so their ids never meet.
#[derive(Clone)]
pub struct SharedReplayGuard {
    store: Arc<dyn SharedStore>,
}

impl fmt::Debug for SharedReplayGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SharedReplayGuard").finish_non_exhaustive()
    }
}

impl SharedReplayGuard {
    /// A guard keeping its ids in `store`.
    pub fn new(store: Arc<dyn SharedStore>) -> Self {
        SharedReplayGuard { store }
    }

    /// Records the 16-byte id of a sealed-state token and returns `true`
    /// if no replica had recorded it; `false` if one had, or if the store
    /// cannot record it (refusing rather than forgetting).
    pub async fn first_use(&self, id: &[u8; 16], expires_at: SystemTime, now: SystemTime) -> bool {
        matches!(self.record("", id, expires_at, now).await, Ok(true))
    }

    /// How many ids the guard holds at most, when its store says
    /// ([`SharedStore::capacity`]).
    #[cfg_attr(not(feature = "auth"), allow(dead_code))]
    pub(crate) fn capacity(&self) -> Option<usize> {
        self.store.capacity()
    }

    /// Records `id` under `namespace` until `expires_at`: `Ok(true)` if
    /// no replica had recorded it there. The key is `replay:` followed by
    /// the namespace and a colon (nothing for the empty namespace, which
    /// is sealed state's) and `id` in hex.
    pub(crate) async fn record(
        &self,
        namespace: &str,
        id: &[u8],
        expires_at: SystemTime,
        now: SystemTime,
    ) -> Result<bool, SharedError> {
        let left = expires_at.duration_since(now).unwrap_or_default();
        let ttl = left.saturating_add(Duration::from_secs(1));
        let mut key = String::with_capacity(PREFIX.len() + namespace.len() + 1 + 2 * id.len());
        key.push_str(PREFIX);
        if !namespace.is_empty() {
            key.push_str(namespace);
            key.push(':');
        }
        for b in id {
            key.push_str(&format!("{b:02x}"));
        }
        self.store.insert_new(&key, b"1", ttl).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shared::MemoryShared;

    fn now<T>(future: impl std::future::Future<Output = T>) -> T {
        futures_util::FutureExt::now_or_never(future).expect("the memory store never waits")
    }

    #[test]
    fn namespaces_keep_ids_apart() {
        let store = Arc::new(MemoryShared::new(8));
        let guard = SharedReplayGuard::new(store.clone());
        let at = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        let later = at + Duration::from_secs(60);
        let id = [7u8; 16];
        assert_eq!(guard.capacity(), Some(8), "the store's");
        assert!(now(guard.first_use(&id, later, at)));
        assert!(!now(guard.first_use(&id, later, at)));
        assert_eq!(now(guard.record("dpop", &id, later, at)), Ok(true));
        assert_eq!(now(guard.record("dpop", &id, later, at)), Ok(false));
        assert_eq!(
            now(store.get(&format!("replay:{}", "07".repeat(16)))),
            Ok(Some(b"1".to_vec()))
        );
        assert_eq!(
            now(store.get(&format!("replay:dpop:{}", "07".repeat(16)))),
            Ok(Some(b"1".to_vec()))
        );
    }
}
