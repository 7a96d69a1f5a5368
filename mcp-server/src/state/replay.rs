//! Single use: a server-side record of the tokens already redeemed.

use std::collections::{BTreeSet, HashSet};
use std::fmt;
use std::sync::{Mutex, PoisonError};
use std::time::SystemTime;

/// A server-side record of sealed-state tokens already used, for state that
/// must be consumed at most once (a one-time redemption, a payment step).
///
/// Sealing alone cannot give this: an authentic, unexpired token opens as
/// often as it is presented. Every token carries a random 16-byte id inside
/// its protected payload; [`RequestState::open_once`](super::RequestState::open_once)
/// opens the token, then asks the guard whether that id is new.
///
/// All replicas of a server must share one guard (for example one backed
/// by a shared store with a conditional insert) for the promise to hold
/// across them; [`MemoryReplayGuard`] covers a single process.
pub trait ReplayGuard {
    /// Records `id` and returns `true` if it was not seen before; returns
    /// `false` if it was, or if the guard cannot record it (it must then
    /// refuse rather than forget). The record need only outlive
    /// `expires_at`, after which the token is refused as expired anyway.
    fn first_use(&self, id: &[u8; 16], expires_at: SystemTime, now: SystemTime) -> bool;
}

/// A [`ReplayGuard`] in this process's memory, holding at most `capacity`
/// unexpired ids.
///
/// When full it first forgets ids whose tokens have expired; if it is still
/// full it refuses new tokens until some expire. Size it for the peak rate
/// of single-use openings times the state lifetime.
pub struct MemoryReplayGuard {
    capacity: usize,
    seen: Mutex<Seen>,
}

#[derive(Default)]
struct Seen {
    ids: HashSet<[u8; 16]>,
    /// The same ids, ordered by expiry, to forget the oldest cheaply.
    by_expiry: BTreeSet<(SystemTime, [u8; 16])>,
}

impl MemoryReplayGuard {
    /// A guard that remembers at most `capacity` unexpired ids.
    pub fn new(capacity: usize) -> Self {
        MemoryReplayGuard {
            capacity,
            seen: Mutex::new(Seen::default()),
        }
    }

    /// How many ids are remembered now (expired ones included until the
    /// next purge).
    pub fn len(&self) -> usize {
        self.lock().ids.len()
    }

    /// Whether no id is remembered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Seen> {
        // The set stays consistent even if a holder panicked.
        self.seen.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl ReplayGuard for MemoryReplayGuard {
    fn first_use(&self, id: &[u8; 16], expires_at: SystemTime, now: SystemTime) -> bool {
        let mut seen = self.lock();
        if seen.ids.contains(id) {
            return false;
        }
        if seen.ids.len() >= self.capacity {
            while let Some(&(expiry, old)) = seen.by_expiry.first() {
                if expiry > now {
                    break;
                }
                seen.by_expiry.pop_first();
                seen.ids.remove(&old);
            }
            if seen.ids.len() >= self.capacity {
                return false;
            }
        }
        seen.ids.insert(*id);
        seen.by_expiry.insert((expires_at, *id));
        true
    }
}

impl fmt::Debug for MemoryReplayGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryReplayGuard")
            .field("capacity", &self.capacity)
            .field("len", &self.len())
            .finish()
    }
}

/// A replay guard that every replica shares: the ids of used tokens kept
/// in a [`SharedStore`](crate::shared::SharedStore) (Redis, with the
/// `redis` feature), each until its token expires (and a second more, for
/// clocks that differ between replicas). A token used on one replica is
/// then refused on all of them.
///
/// It is asynchronous, so it does not implement [`ReplayGuard`]: open
/// single-use state with [`SharedReplayGuard::open_once`].
#[derive(Clone)]
pub struct SharedReplayGuard {
    store: std::sync::Arc<dyn crate::shared::SharedStore>,
}

impl fmt::Debug for SharedReplayGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SharedReplayGuard").finish_non_exhaustive()
    }
}

impl SharedReplayGuard {
    /// A guard keeping its ids in `store`.
    pub fn new(store: std::sync::Arc<dyn crate::shared::SharedStore>) -> Self {
        SharedReplayGuard { store }
    }

    /// Records `id` and returns `true` if no replica had recorded it;
    /// `false` if one had, or if the store cannot record it (refusing
    /// rather than forgetting).
    pub async fn first_use(&self, id: &[u8; 16], expires_at: SystemTime, now: SystemTime) -> bool {
        let left = expires_at.duration_since(now).unwrap_or_default();
        let ttl = left.saturating_add(std::time::Duration::from_secs(1));
        let hex: String = id.iter().map(|b| format!("{b:02x}")).collect();
        matches!(
            self.store
                .insert_new(&format!("replay:{hex}"), b"1", ttl)
                .await,
            Ok(true)
        )
    }

    /// [`RequestState::open`](super::RequestState::open), then refuses the
    /// token if any replica has seen its id, so the state is consumed at
    /// most once across all of them.
    ///
    /// # Errors
    ///
    /// As for [`RequestState::open`](super::RequestState::open), and
    /// [`StateError::Replayed`](super::StateError::Replayed) if the token
    /// was already used (or the store cannot record it).
    pub async fn open_once<T: super::RequestState>(
        &self,
        token: &str,
        keys: &super::KeyRing,
        binding: &super::Binding<'_>,
        now: SystemTime,
    ) -> Result<T, super::StateError> {
        let unsealed = T::unseal(token, keys, binding, now)?;
        if self
            .first_use(&unsealed.token_id, unsealed.expires_at, now)
            .await
        {
            Ok(unsealed.value)
        } else {
            Err(super::StateError::Replayed)
        }
    }
}
