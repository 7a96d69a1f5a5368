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

/// Opening single-use state with the guard every replica shares.
impl crate::shared::SharedReplayGuard {
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
