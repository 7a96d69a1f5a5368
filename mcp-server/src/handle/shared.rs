//! Handles whose values live in a [`SharedStore`], so that a handle minted
//! by one replica resolves on every other.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{Handle, HandleError, HandleKind};
use crate::share::Client;
use crate::shared::{SharedError, SharedStore};

/// How many handles one client may mint on one replica within a handle
/// lifetime, unless [`SharedHandleStore::with_share`] says otherwise.
pub const DEFAULT_SHARE: usize = 1024;

/// How many times an update is tried again when another replica changed
/// the value between its read and its write.
const MAX_ATTEMPTS: usize = 32;

/// What is stored for one handle.
#[derive(Serialize, Deserialize)]
struct Entry<V> {
    owner: Option<String>,
    value: V,
}

/// Values of type `V` named by handles of kind `K`, kept in a
/// [`SharedStore`] that every replica reaches: the same promises as
/// [`HandleStore`](super::HandleStore) (192 random bits, [`K::TTL`](HandleKind::TTL)
/// from creation, only the creating principal sees the value), across
/// replicas.
///
/// The store is addressed by a SHA-256 digest of the handle, never by the
/// handle itself, so that whoever reads the backend's keys cannot use them
/// as handles. Values travel as JSON. Updates are optimistic: read, change,
/// write if unchanged, and try again (at most 32 times) if another replica
/// wrote first, so the change may run more than once.
///
/// Each replica bounds what one client (see [`share`](crate::share)) puts
/// in the store: at most a share ([`DEFAULT_SHARE`] unless
/// [`SharedHandleStore::with_share`] says otherwise) of handles minted by
/// [`SharedHandleStore::insert_for`] (or, by owner, [`SharedHandleStore::insert`])
/// within one handle lifetime. Past it that client gets
/// [`HandleError::Share`] while others are served. A replica counts what
/// it minted, not what is left (removal on another replica is not seen
/// here), so the share bounds the rate at which a client fills the store.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use std::sync::Arc;
/// use mcp_server::handle::{Handle, SharedHandleStore};
/// use mcp_server::shared::MemoryShared;
///
/// enum Cart {}
/// mcp_server::handle_kind!(Cart, prefix = "cart", ttl_secs = 1800);
///
/// // `RedisShared` (feature `redis`) in place of `MemoryShared` shares
/// // the carts between replicas.
/// let carts: SharedHandleStore<Cart, Vec<String>> =
///     SharedHandleStore::new(Arc::new(MemoryShared::default()));
/// let cart = carts.insert(Some("alice"), &vec!["tea".into()]).await?;
/// let text = cart.to_string();
///
/// let back: Handle<Cart> = text.parse()?;
/// carts.update(&back, Some("alice"), |items| items.push("milk".into())).await?;
/// assert_eq!(carts.get(&back, Some("alice")).await?, ["tea", "milk"]);
/// assert!(carts.get(&back, Some("mallory")).await.is_err());
/// # Ok(())
/// # }
/// ```
pub struct SharedHandleStore<K: HandleKind, V> {
    store: Arc<dyn SharedStore>,
    minted: Arc<Mutex<Minted>>,
    kind: PhantomData<fn() -> (K, V)>,
}

/// When each client's handles minted on this replica expire, oldest first.
#[derive(Debug)]
struct Minted {
    by_client: HashMap<Client, VecDeque<Instant>>,
    share: usize,
}

impl Minted {
    /// Counts one more handle for `client`, expiring at `until`, unless it
    /// has its share of unexpired ones: then the share.
    fn take(&mut self, client: &Client, now: Instant, until: Instant) -> Result<(), usize> {
        if self.by_client.len() > 1024 && !self.by_client.contains_key(client) {
            // Clients that never came back leave nothing behind.
            self.by_client.retain(|_, expiries| {
                expiries.retain(|e| *e > now);
                !expiries.is_empty()
            });
        }
        let expiries = self.by_client.entry(client.clone()).or_default();
        while expiries.front().is_some_and(|e| *e <= now) {
            expiries.pop_front();
        }
        if expiries.len() >= self.share {
            return Err(self.share);
        }
        expiries.push_back(until);
        Ok(())
    }
}

impl<K: HandleKind, V> fmt::Debug for SharedHandleStore<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SharedHandleStore")
            .field("kind", &K::PREFIX)
            .finish_non_exhaustive()
    }
}

impl<K: HandleKind, V> Clone for SharedHandleStore<K, V> {
    fn clone(&self) -> Self {
        SharedHandleStore {
            store: self.store.clone(),
            minted: self.minted.clone(),
            kind: PhantomData,
        }
    }
}

impl<K: HandleKind, V: Serialize + DeserializeOwned> SharedHandleStore<K, V> {
    /// Handles of kind `K` kept in `store`.
    pub fn new(store: Arc<dyn SharedStore>) -> Self {
        SharedHandleStore {
            store,
            minted: Arc::new(Mutex::new(Minted {
                by_client: HashMap::new(),
                share: DEFAULT_SHARE,
            })),
            kind: PhantomData,
        }
    }

    /// How many handles one client may mint on this replica within one
    /// handle lifetime (at least one).
    #[must_use]
    pub fn with_share(self, share: usize) -> Self {
        self.minted
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .share = share.max(1);
        self
    }

    /// Stores `value` for the principal of `cx` (if any) under a fresh
    /// handle, counted against the share of the request's client: its
    /// principal, or on a server without authorization its address.
    ///
    /// # Errors
    ///
    /// As for [`SharedHandleStore::insert`].
    pub async fn insert_for(
        &self,
        cx: &crate::Context,
        value: &V,
    ) -> Result<Handle<K>, HandleError> {
        self.insert_as(cx.principal(), cx.client(), value).await
    }

    fn key(handle: &Handle<K>) -> String {
        let digest = Sha256::digest(handle.key());
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        format!("handle:{}:{hex}", K::PREFIX)
    }

    fn failed(_: SharedError) -> HandleError {
        HandleError::Unavailable { kind: K::PREFIX }
    }

    /// Stores `value` for `owner` under a fresh handle.
    ///
    /// # Errors
    ///
    /// [`HandleError::Full`] when the store is full, [`HandleError::Share`]
    /// when `owner` minted its share here, [`HandleError::Unavailable`]
    /// when the store fails, [`HandleError::Random`] when the random
    /// source does.
    pub async fn insert(&self, owner: Option<&str>, value: &V) -> Result<Handle<K>, HandleError> {
        self.insert_as(owner, owner.map(Client::principal), value)
            .await
    }

    async fn insert_as(
        &self,
        owner: Option<&str>,
        client: Option<Client>,
        value: &V,
    ) -> Result<Handle<K>, HandleError> {
        if let Some(client) = &client {
            let now = Instant::now();
            let until = now.checked_add(K::TTL).unwrap_or(now);
            self.minted
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take(client, now, until)
                .map_err(|max| {
                    crate::observe::limit_refused("handle_share");
                    HandleError::Share {
                        kind: K::PREFIX,
                        max,
                    }
                })?;
        }
        let entry = Entry {
            owner: owner.map(str::to_owned),
            value,
        };
        let bytes =
            serde_json::to_vec(&entry).map_err(|_| HandleError::Unavailable { kind: K::PREFIX })?;
        // 192 random bits do not collide; a second draw costs nothing.
        for _ in 0..2 {
            let handle = Handle::<K>::mint()?;
            match self
                .store
                .insert_new(&Self::key(&handle), &bytes, K::TTL)
                .await
            {
                Ok(true) => return Ok(handle),
                Ok(false) => {}
                Err(SharedError::Full) => {
                    crate::observe::limit_refused("handle_store");
                    return Err(HandleError::Full { kind: K::PREFIX });
                }
                Err(e) => return Err(Self::failed(e)),
            }
        }
        Err(HandleError::Random)
    }

    /// The entry `handle` names for `caller`, and its stored bytes.
    async fn read(
        &self,
        handle: &Handle<K>,
        caller: Option<&str>,
    ) -> Result<(Vec<u8>, Entry<V>), HandleError> {
        let unknown = HandleError::Unknown { kind: K::PREFIX };
        let bytes = self
            .store
            .get(&Self::key(handle))
            .await
            .map_err(Self::failed)?
            .ok_or(unknown.clone())?;
        // What cannot be read as this kind's entry is nobody's handle.
        let entry: Entry<V> = serde_json::from_slice(&bytes).map_err(|_| unknown.clone())?;
        let owner = entry.owner.as_deref().map(str::as_bytes);
        if !crate::ct::same_principal(owner, caller.map(str::as_bytes)) {
            return Err(unknown);
        }
        Ok((bytes, entry))
    }

    /// The value `handle` names, if `caller` created it and it lives.
    ///
    /// # Errors
    ///
    /// [`HandleError::Unknown`] when there is no such entry for `caller`
    /// (never issued, removed, expired, or another principal's);
    /// [`HandleError::Unavailable`] when the store fails.
    pub async fn get(&self, handle: &Handle<K>, caller: Option<&str>) -> Result<V, HandleError> {
        Ok(self.read(handle, caller).await?.1.value)
    }

    /// Applies `change` to the value `handle` names and returns what it
    /// returned. `change` runs again if another replica wrote the value
    /// between this one's read and write.
    ///
    /// # Errors
    ///
    /// As [`SharedHandleStore::get`], and [`HandleError::Unavailable`]
    /// when other replicas keep writing first.
    pub async fn update<R>(
        &self,
        handle: &Handle<K>,
        caller: Option<&str>,
        mut change: impl FnMut(&mut V) -> R,
    ) -> Result<R, HandleError> {
        let key = Self::key(handle);
        for _ in 0..MAX_ATTEMPTS {
            let (before, mut entry) = self.read(handle, caller).await?;
            let out = change(&mut entry.value);
            let after = serde_json::to_vec(&entry)
                .map_err(|_| HandleError::Unavailable { kind: K::PREFIX })?;
            if self
                .store
                .replace(&key, &before, &after)
                .await
                .map_err(Self::failed)?
            {
                return Ok(out);
            }
        }
        Err(HandleError::Unavailable { kind: K::PREFIX })
    }

    /// Removes the entry `handle` names and returns its value, if `caller`
    /// created it and it lives.
    ///
    /// # Errors
    ///
    /// As [`SharedHandleStore::update`].
    pub async fn remove(&self, handle: &Handle<K>, caller: Option<&str>) -> Result<V, HandleError> {
        let key = Self::key(handle);
        for _ in 0..MAX_ATTEMPTS {
            let (before, entry) = self.read(handle, caller).await?;
            if self
                .store
                .remove(&key, &before)
                .await
                .map_err(Self::failed)?
            {
                return Ok(entry.value);
            }
        }
        Err(HandleError::Unavailable { kind: K::PREFIX })
    }
}
