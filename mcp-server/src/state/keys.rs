//! The keys that seal and open request state, with rotation.

use std::fmt;

use chacha20poly1305::{KeyInit, XChaCha20Poly1305};

/// The length in bytes of a sealing key.
pub const KEY_LEN: usize = 32;

/// One key: its id (written into every token it seals) and the cipher
/// initialised with it. The cipher wipes the key when dropped.
pub(crate) struct SealKey {
    pub(crate) id: u32,
    pub(crate) cipher: XChaCha20Poly1305,
}

impl SealKey {
    fn new(id: u32, key: &[u8; KEY_LEN]) -> Self {
        SealKey {
            id,
            cipher: XChaCha20Poly1305::new(key.into()),
        }
    }
}

/// The keys a server seals and opens request state with.
///
/// One key is *active*: every new token is sealed with it and carries its
/// id. Older keys are kept only to open tokens sealed before a rotation;
/// retire them once their tokens have expired (the longest state lifetime
/// after the rotation). Every replica of a server must hold the same ring.
///
/// Ids are chosen by the operator and must be distinct within a ring. The
/// key bytes are never printed: `Debug` shows the ids only, and each key is
/// wiped from memory when the ring is dropped.
///
/// ```
/// use mcp_server::state::KeyRing;
///
/// # fn main() -> Result<(), mcp_server::state::KeyRingError> {
/// let mut keys = KeyRing::new(1, [7; 32]);
/// keys.rotate(2, KeyRing::generate_key()?)?;
/// assert_eq!(keys.active_id(), 2);
/// assert_eq!(keys.ids().collect::<Vec<_>>(), [2, 1]);
/// # Ok(())
/// # }
/// ```
pub struct KeyRing {
    active: SealKey,
    previous: Vec<SealKey>,
}

impl KeyRing {
    /// A ring whose only key is `key`, known by `id`.
    ///
    /// The key must be 32 bytes from a cryptographically secure source (see
    /// [`KeyRing::generate_key`]), kept secret and shared by every replica.
    pub fn new(id: u32, key: [u8; KEY_LEN]) -> Self {
        KeyRing {
            active: SealKey::new(id, &key),
            previous: Vec::new(),
        }
    }

    /// A ring with one freshly generated key, known by `id`.
    ///
    /// Suits a single process whose state need not survive a restart: the
    /// key exists nowhere else, so other replicas cannot open its tokens.
    ///
    /// # Errors
    ///
    /// [`KeyRingError::Random`] if the operating system's random source
    /// fails.
    pub fn generate(id: u32) -> Result<Self, KeyRingError> {
        Ok(KeyRing::new(id, KeyRing::generate_key()?))
    }

    /// 32 bytes from the operating system's secure random source, to use
    /// as a key.
    ///
    /// # Errors
    ///
    /// [`KeyRingError::Random`] if the random source fails.
    pub fn generate_key() -> Result<[u8; KEY_LEN], KeyRingError> {
        let mut key = [0; KEY_LEN];
        getrandom::fill(&mut key).map_err(|_| KeyRingError::Random)?;
        Ok(key)
    }

    /// Adds an older key that still opens tokens but no longer seals any.
    ///
    /// # Errors
    ///
    /// [`KeyRingError::DuplicateId`] if the ring already holds a key with
    /// this id.
    pub fn with_previous(mut self, id: u32, key: [u8; KEY_LEN]) -> Result<Self, KeyRingError> {
        self.check_unused(id)?;
        self.previous.push(SealKey::new(id, &key));
        Ok(self)
    }

    /// Makes `key` the active key; the key that was active until now keeps
    /// opening the tokens it sealed.
    ///
    /// # Errors
    ///
    /// [`KeyRingError::DuplicateId`] if the ring already holds a key with
    /// this id; the ring is left unchanged.
    pub fn rotate(&mut self, id: u32, key: [u8; KEY_LEN]) -> Result<(), KeyRingError> {
        self.check_unused(id)?;
        let old = std::mem::replace(&mut self.active, SealKey::new(id, &key));
        self.previous.insert(0, old);
        Ok(())
    }

    /// Drops the older key `id`, so tokens it sealed are refused from now
    /// on. Returns whether such a key was held; the active key cannot be
    /// retired (rotate first).
    pub fn retire(&mut self, id: u32) -> bool {
        let before = self.previous.len();
        self.previous.retain(|key| key.id != id);
        self.previous.len() != before
    }

    /// The id of the key new tokens are sealed with.
    pub fn active_id(&self) -> u32 {
        self.active.id
    }

    /// The ids of every key held, the active one first, then the older ones
    /// from the most recent.
    pub fn ids(&self) -> impl Iterator<Item = u32> + '_ {
        std::iter::once(&self.active)
            .chain(&self.previous)
            .map(|key| key.id)
    }

    pub(crate) fn active(&self) -> &SealKey {
        &self.active
    }

    pub(crate) fn find(&self, id: u32) -> Option<&SealKey> {
        std::iter::once(&self.active)
            .chain(&self.previous)
            .find(|key| key.id == id)
    }

    fn check_unused(&self, id: u32) -> Result<(), KeyRingError> {
        match self.find(id) {
            Some(_) => Err(KeyRingError::DuplicateId(id)),
            None => Ok(()),
        }
    }
}

impl fmt::Debug for KeyRing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KeyRing")
            .field("active", &self.active.id)
            .field(
                "previous",
                &self.previous.iter().map(|key| key.id).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

/// Why a [`KeyRing`] could not be built or changed.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeyRingError {
    /// The ring already holds a key with this id.
    DuplicateId(u32),
    /// The operating system's random source failed.
    Random,
}

impl fmt::Display for KeyRingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyRingError::DuplicateId(id) => {
                write!(
                    f,
                    "the key ring already holds a key with id {id}; give each key its own id"
                )
            }
            KeyRingError::Random => f.write_str("the operating system's random source failed"),
        }
    }
}

impl std::error::Error for KeyRingError {}
