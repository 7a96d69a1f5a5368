//! An in-memory map from handles to values, with bounded lifetime and size.

use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::marker::PhantomData;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use super::{Handle, HandleKind, HANDLE_BYTES};
use crate::share::{Client, Counts};

type Key = [u8; HANDLE_BYTES];

/// Values of type `V` named by handles of kind `K`, kept in this process's
/// memory.
///
/// Each entry lives for [`K::TTL`](HandleKind::TTL) from its creation (the
/// lifetime does not slide with use) and the store holds at most
/// `capacity` entries. Each entry remembers the principal that created it
/// (or none, on a server without authentication) and is only shown to that
/// principal; to anyone else it looks unknown, so a leaked handle grants
/// nothing on an authenticated server.
///
/// Expiry is checked on every access; expired entries are dropped when met
/// and, when the store is full, before refusing a new one.
///
/// One client (its principal, or on a server without authorization its
/// address: see [`share`](crate::share)) holds at most a share of the
/// store, a sixteenth of `capacity` (but at least 64, or the whole of a
/// smaller store) unless [`HandleStore::with_share`] says otherwise; past it that client is refused with
/// [`HandleError::Share`] while others are served, so no client fills the
/// store for everyone. [`HandleStore::insert_for`] counts the request's
/// client; [`HandleStore::insert`] counts the owner it is given.
pub struct HandleStore<K: HandleKind, V> {
    capacity: usize,
    entries: Mutex<Entries<V>>,
    kind: PhantomData<fn() -> K>,
}

struct Entries<V> {
    map: HashMap<Key, Entry<V>>,
    /// The same keys ordered by expiry, to drop expired entries cheaply.
    by_expiry: BTreeSet<(Instant, Key)>,
    /// How many entries each client holds.
    counts: Counts,
}

struct Entry<V> {
    value: V,
    owner: Option<String>,
    /// Who the entry counts against.
    client: Option<Client>,
    expires_at: Instant,
}

impl<V> Entries<V> {
    fn remove(&mut self, key: &Key) -> Option<Entry<V>> {
        let entry = self.map.remove(key)?;
        self.by_expiry.remove(&(entry.expires_at, *key));
        if let Some(client) = &entry.client {
            self.counts.remove(client);
        }
        Some(entry)
    }

    fn purge(&mut self, now: Instant) {
        while let Some(&(expires_at, key)) = self.by_expiry.first() {
            if expires_at > now {
                break;
            }
            self.remove(&key);
        }
    }
}

fn same_owner(owner: Option<&str>, caller: Option<&str>) -> bool {
    crate::ct::same_principal(owner.map(str::as_bytes), caller.map(str::as_bytes))
}

impl<K: HandleKind, V> HandleStore<K, V> {
    /// An empty store that holds at most `capacity` entries, of which one
    /// client holds a sixteenth (at least 64, or all of a smaller store).
    pub fn new(capacity: usize) -> Self {
        HandleStore {
            capacity,
            entries: Mutex::new(Entries {
                map: HashMap::new(),
                by_expiry: BTreeSet::new(),
                counts: Counts::new((capacity / 16).max(capacity.min(64))),
            }),
            kind: PhantomData,
        }
    }

    /// How many unexpired entries one client may hold (at least one).
    #[must_use]
    pub fn with_share(self, share: usize) -> Self {
        self.lock().counts = Counts::new(share);
        self
    }

    /// Stores `value` for `owner` under a fresh handle, counted against
    /// `owner`'s share (entries without an owner count against no share).
    ///
    /// # Errors
    ///
    /// [`HandleError::Full`] if the store holds `capacity` unexpired
    /// entries, [`HandleError::Share`] if `owner` holds its share;
    /// [`HandleError::Random`] if the random source fails.
    pub fn insert(&self, owner: Option<&str>, value: V) -> Result<Handle<K>, HandleError> {
        self.insert_at(owner, value, Instant::now())
    }

    /// Stores `value` for the principal of `cx` (if any) under a fresh
    /// handle, counted against the share of the request's client: its
    /// principal, or on a server without authorization its address.
    ///
    /// # Errors
    ///
    /// As for [`HandleStore::insert`].
    pub fn insert_for(&self, cx: &crate::Context, value: V) -> Result<Handle<K>, HandleError> {
        self.insert_as(cx.principal(), cx.client(), value, Instant::now())
    }

    /// [`HandleStore::insert`] at the given time.
    ///
    /// # Errors
    ///
    /// As for [`HandleStore::insert`].
    pub fn insert_at(
        &self,
        owner: Option<&str>,
        value: V,
        now: Instant,
    ) -> Result<Handle<K>, HandleError> {
        self.insert_as(owner, owner.map(Client::principal), value, now)
    }

    fn insert_as(
        &self,
        owner: Option<&str>,
        client: Option<Client>,
        value: V,
        now: Instant,
    ) -> Result<Handle<K>, HandleError> {
        let mut entries = self.lock();
        if let Some(client) = &client {
            if entries.counts.full(client) {
                entries.purge(now);
                if entries.counts.full(client) {
                    crate::observe::limit_refused("handle_share");
                    return Err(HandleError::Share {
                        kind: K::PREFIX,
                        max: entries.counts.share(),
                    });
                }
            }
        }
        if entries.map.len() >= self.capacity {
            entries.purge(now);
            if entries.map.len() >= self.capacity {
                crate::observe::limit_refused("handle_store");
                return Err(HandleError::Full { kind: K::PREFIX });
            }
        }
        let handle = Handle::<K>::mint()?;
        let expires_at = now.checked_add(K::TTL).unwrap_or(now);
        let key = handle.key();
        // 192 random bits do not collide; keep the index exact anyway.
        entries.remove(&key);
        entries.by_expiry.insert((expires_at, key));
        if let Some(client) = &client {
            entries.counts.add(client);
        }
        let entry = Entry {
            value,
            owner: owner.map(str::to_owned),
            client,
            expires_at,
        };
        entries.map.insert(key, entry);
        Ok(handle)
    }

    /// Runs `f` on the value `handle` names, if `caller` created it and it
    /// has not expired. The store is locked while `f` runs, so `f` must not
    /// use the store.
    ///
    /// # Errors
    ///
    /// [`HandleError::Unknown`] if no such entry exists for `caller`,
    /// [`HandleError::Expired`] if it has expired (it is dropped).
    pub fn with<R>(
        &self,
        handle: &Handle<K>,
        caller: Option<&str>,
        f: impl FnOnce(&mut V) -> R,
    ) -> Result<R, HandleError> {
        self.with_at(handle, caller, Instant::now(), f)
    }

    /// [`HandleStore::with`] at the given time.
    ///
    /// # Errors
    ///
    /// As for [`HandleStore::with`].
    pub fn with_at<R>(
        &self,
        handle: &Handle<K>,
        caller: Option<&str>,
        now: Instant,
        f: impl FnOnce(&mut V) -> R,
    ) -> Result<R, HandleError> {
        let mut entries = self.lock();
        let key = handle.key();
        let entry = Self::check(&mut entries, &key, caller, now)?;
        Ok(f(&mut entry.value))
    }

    /// The live entry `key` names for `caller`; drops it if expired.
    fn check<'e>(
        entries: &'e mut Entries<V>,
        key: &Key,
        caller: Option<&str>,
        now: Instant,
    ) -> Result<&'e mut Entry<V>, HandleError> {
        let unknown = HandleError::Unknown { kind: K::PREFIX };
        let expired = match entries.map.get(key) {
            Some(entry) if same_owner(entry.owner.as_deref(), caller) => entry.expires_at <= now,
            _ => return Err(unknown),
        };
        if expired {
            entries.remove(key);
            return Err(HandleError::Expired { kind: K::PREFIX });
        }
        entries.map.get_mut(key).ok_or(unknown)
    }

    /// A copy of the value `handle` names; see [`HandleStore::with`].
    ///
    /// # Errors
    ///
    /// As for [`HandleStore::with`].
    pub fn get(&self, handle: &Handle<K>, caller: Option<&str>) -> Result<V, HandleError>
    where
        V: Clone,
    {
        self.with(handle, caller, |value| value.clone())
    }

    /// Removes the entry `handle` names and returns its value, if `caller`
    /// created it and it has not expired.
    ///
    /// # Errors
    ///
    /// As for [`HandleStore::with`].
    pub fn remove(&self, handle: &Handle<K>, caller: Option<&str>) -> Result<V, HandleError> {
        self.remove_at(handle, caller, Instant::now())
    }

    /// [`HandleStore::remove`] at the given time.
    ///
    /// # Errors
    ///
    /// As for [`HandleStore::with`].
    pub fn remove_at(
        &self,
        handle: &Handle<K>,
        caller: Option<&str>,
        now: Instant,
    ) -> Result<V, HandleError> {
        let mut entries = self.lock();
        let key = handle.key();
        Self::check(&mut entries, &key, caller, now)?;
        entries
            .remove(&key)
            .map(|entry| entry.value)
            .ok_or(HandleError::Unknown { kind: K::PREFIX })
    }

    /// How many entries are held, expired ones included until dropped.
    pub fn len(&self) -> usize {
        self.lock().map.len()
    }

    /// Whether the store holds no entry.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> MutexGuard<'_, Entries<V>> {
        // Entries stay consistent even if a holder panicked (in `f`).
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<K: HandleKind, V> fmt::Debug for HandleStore<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HandleStore")
            .field("kind", &K::PREFIX)
            .field("capacity", &self.capacity)
            .field("len", &self.len())
            .finish()
    }
}

/// Why a handle could not be stored or resolved. The messages are written
/// for the model that sent the handle: they say what happened and that a
/// new handle is needed.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum HandleError {
    /// No entry for this handle: never issued, removed, expired and
    /// dropped, or created by another principal.
    Unknown {
        /// The prefix of the handle's kind.
        kind: &'static str,
    },
    /// The entry's lifetime is over.
    Expired {
        /// The prefix of the handle's kind.
        kind: &'static str,
    },
    /// The store is full of unexpired entries.
    Full {
        /// The prefix of the handle's kind.
        kind: &'static str,
    },
    /// The client holds its whole share of the store's entries.
    Share {
        /// The prefix of the handle's kind.
        kind: &'static str,
        /// The share: how many unexpired entries one client may hold.
        max: usize,
    },
    /// The operating system's random source failed.
    Random,
    /// The shared store behind the handles failed, or other replicas kept
    /// changing the value (see
    /// [`SharedHandleStore`](super::SharedHandleStore)).
    Unavailable {
        /// The prefix of the handle's kind.
        kind: &'static str,
    },
}

impl fmt::Display for HandleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HandleError::Unknown { kind } => write!(
                f,
                "unknown `{kind}` handle; it may have expired or been removed: create a new one"
            ),
            HandleError::Expired { kind } => {
                write!(f, "the `{kind}` handle has expired: create a new one")
            }
            HandleError::Full { kind } => write!(
                f,
                "too many `{kind}` handles are open; try again after some expire"
            ),
            HandleError::Share { kind, max } => write!(
                f,
                "this client already holds {max} `{kind}` handles, its whole share; remove some it no longer needs, or try again after some expire"
            ),
            HandleError::Random => f.write_str("the operating system's random source failed"),
            HandleError::Unavailable { kind } => write!(
                f,
                "the `{kind}` handles cannot be reached just now: try again later"
            ),
        }
    }
}

impl std::error::Error for HandleError {}
