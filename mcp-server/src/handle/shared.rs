//! Handles whose values live in a [`SharedStore`], so that a handle minted
//! by one replica resolves on every other.

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{Handle, HandleError, HandleKind};
use crate::shared::{SharedError, SharedStore};

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
    kind: PhantomData<fn() -> (K, V)>,
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
            kind: PhantomData,
        }
    }
}

impl<K: HandleKind, V: Serialize + DeserializeOwned> SharedHandleStore<K, V> {
    /// Handles of kind `K` kept in `store`.
    pub fn new(store: Arc<dyn SharedStore>) -> Self {
        SharedHandleStore {
            store,
            kind: PhantomData,
        }
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
    /// [`HandleError::Full`] when the store is full,
    /// [`HandleError::Unavailable`] when it fails, [`HandleError::Random`]
    /// when the random source does.
    pub async fn insert(&self, owner: Option<&str>, value: &V) -> Result<Handle<K>, HandleError> {
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
                Err(SharedError::Full) => return Err(HandleError::Full { kind: K::PREFIX }),
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
