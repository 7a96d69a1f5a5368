//! The token format: sealing and opening, with no I/O besides the random
//! source and no clock (the caller passes the time).
//!
//! A token is base64url without padding of
//!
//! ```text
//! version (1) || key id (4, big-endian) || nonce (24) || ciphertext || tag (16)
//! ```
//!
//! sealed with XChaCha20-Poly1305 under the key named by the id, with the
//! version and key id as associated data. The plaintext is
//!
//! ```text
//! token id (16) || expires at, unix ms (8, big-endian) || binding digest (32)
//!     || principal: 0, or 1 || length (4, big-endian) || UTF-8 bytes
//!     || the state as JSON
//! ```

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use chacha20poly1305::{AeadInOut, Tag, XNonce};
use subtle::ConstantTimeEq;

use super::{Binding, BoundValues, KeyRing, RequestState, StateError, Unsealed};

/// The format version this server writes and reads.
pub(crate) const VERSION: u8 = 1;
/// The longest token, in characters, that is sealed or even decoded.
pub const MAX_TOKEN_LEN: usize = 64 * 1024;

const KEY_ID_LEN: usize = 4;
const NONCE_LEN: usize = 24;
const TAG_LEN: usize = 16;
const HEADER_LEN: usize = 1 + KEY_ID_LEN + NONCE_LEN;
const TOKEN_ID_LEN: usize = 16;
const DIGEST_LEN: usize = 32;

fn unix_ms(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// The digest of the request the state `value` was made for.
fn own_digest<T: RequestState>(value: &T, method: &str) -> Result<[u8; 32], StateError> {
    let mut bound = BoundValues::default();
    value.__bind_values(&mut bound);
    bound.values.digest(T::__NAME, method, T::BIND)
}

pub(crate) fn seal<T: RequestState>(
    value: &T,
    keys: &KeyRing,
    binding: &Binding<'_>,
    now: SystemTime,
) -> Result<String, StateError> {
    let digest = own_digest(value, binding.method)?;
    if binding.has_values() {
        let claimed = binding.values.digest(T::__NAME, binding.method, T::BIND)?;
        if !bool::from(claimed.ct_eq(&digest)) {
            return Err(StateError::WrongRequest);
        }
    }
    let mut random = [0; NONCE_LEN + TOKEN_ID_LEN];
    getrandom::fill(&mut random).map_err(|_| StateError::Random)?;
    let (nonce, token_id) = random.split_at(NONCE_LEN);
    let ttl_ms = u64::try_from(T::TTL.as_millis()).unwrap_or(u64::MAX);
    let expires = unix_ms(now).saturating_add(ttl_ms);

    let key = keys.active();
    let mut buf = Vec::with_capacity(256);
    buf.push(VERSION);
    buf.extend_from_slice(&key.id.to_be_bytes());
    buf.extend_from_slice(nonce);
    buf.extend_from_slice(token_id);
    buf.extend_from_slice(&expires.to_be_bytes());
    buf.extend_from_slice(&digest);
    match binding.principal {
        None => buf.push(0),
        Some(principal) => {
            let len = u32::try_from(principal.len())
                .map_err(|_| StateError::Encode("the principal is too long".into()))?;
            buf.push(1);
            buf.extend_from_slice(&len.to_be_bytes());
            buf.extend_from_slice(principal.as_bytes());
        }
    }
    serde_json::to_writer(&mut buf, value).map_err(|e| StateError::Encode(e.to_string()))?;
    if (buf.len() + TAG_LEN).div_ceil(3) * 4 > MAX_TOKEN_LEN {
        return Err(StateError::Encode(format!(
            "the sealed state would exceed {MAX_TOKEN_LEN} characters; keep less in it"
        )));
    }

    let (header, plaintext) = buf.split_at_mut(HEADER_LEN);
    let nonce = XNonce::try_from(&header[1 + KEY_ID_LEN..]).map_err(|_| StateError::Random)?;
    let tag = key
        .cipher
        .encrypt_inout_detached(&nonce, &header[..1 + KEY_ID_LEN], plaintext.into())
        .map_err(|_| StateError::Encode("the state is too long to seal".into()))?;
    buf.extend_from_slice(&tag);
    Ok(URL_SAFE_NO_PAD.encode(&buf))
}

pub(crate) fn open<T: RequestState>(
    token: &str,
    keys: &KeyRing,
    binding: &Binding<'_>,
    now: SystemTime,
) -> Result<Unsealed<T>, StateError> {
    // Errors of the server's own making come first, whatever the token.
    let expected = binding.values.digest(T::__NAME, binding.method, T::BIND)?;

    if token.len() > MAX_TOKEN_LEN {
        return Err(StateError::Malformed);
    }
    let mut buf = URL_SAFE_NO_PAD
        .decode(token)
        .map_err(|_| StateError::Malformed)?;
    if buf.len() < HEADER_LEN + TAG_LEN {
        return Err(StateError::Malformed);
    }
    if buf[0] != VERSION {
        return Err(StateError::UnsupportedVersion);
    }
    let (header, rest) = buf.split_at_mut(HEADER_LEN);
    let mut key_id = [0; KEY_ID_LEN];
    key_id.copy_from_slice(&header[1..1 + KEY_ID_LEN]);
    let key = keys
        .find(u32::from_be_bytes(key_id))
        .ok_or(StateError::UnknownKey)?;
    let nonce = XNonce::try_from(&header[1 + KEY_ID_LEN..]).map_err(|_| StateError::Malformed)?;
    let (ciphertext, tag) = rest.split_at_mut(rest.len() - TAG_LEN);
    let tag = Tag::try_from(&*tag).map_err(|_| StateError::Malformed)?;
    key.cipher
        .decrypt_inout_detached(&nonce, &header[..1 + KEY_ID_LEN], ciphertext.into(), &tag)
        .map_err(|_| StateError::Tampered)?;

    let plain = Plaintext::parse(ciphertext)?;
    if unix_ms(now) >= plain.expires_ms {
        return Err(StateError::Expired);
    }
    if !same_principal(plain.principal, binding.principal) {
        return Err(StateError::WrongPrincipal);
    }
    if !bool::from(plain.digest.ct_eq(&expected)) {
        return Err(StateError::WrongRequest);
    }
    let value = serde_json::from_slice(plain.data).map_err(|e| {
        // serde_json's messages may quote the data; report where, not what.
        StateError::Decode(format!(
            "{:?} error at line {} column {}",
            e.classify(),
            e.line(),
            e.column()
        ))
    })?;
    Ok(Unsealed {
        value,
        token_id: plain.token_id,
        expires_at: UNIX_EPOCH + Duration::from_millis(plain.expires_ms),
    })
}

/// Compares principals without an early exit on the first differing byte
/// or on a difference in length.
fn same_principal(sealed: Option<&[u8]>, presented: Option<&str>) -> bool {
    crate::ct::same_principal(sealed, presented.map(str::as_bytes))
}

/// The authenticated plaintext, split into its fields.
struct Plaintext<'a> {
    token_id: [u8; TOKEN_ID_LEN],
    expires_ms: u64,
    digest: [u8; DIGEST_LEN],
    principal: Option<&'a [u8]>,
    data: &'a [u8],
}

impl<'a> Plaintext<'a> {
    /// Authentic plaintext that does not parse can only come from a
    /// different build of this code with the same key.
    fn parse(bytes: &'a [u8]) -> Result<Self, StateError> {
        let bad = || StateError::Decode("the sealed header is incomplete".into());
        let (token_id, rest) = bytes.split_first_chunk::<TOKEN_ID_LEN>().ok_or_else(bad)?;
        let (expires, rest) = rest.split_first_chunk::<8>().ok_or_else(bad)?;
        let (digest, rest) = rest.split_first_chunk::<DIGEST_LEN>().ok_or_else(bad)?;
        let (tag, rest) = rest.split_first().ok_or_else(bad)?;
        let (principal, data) = match tag {
            0 => (None, rest),
            1 => {
                let (len, rest) = rest.split_first_chunk::<4>().ok_or_else(bad)?;
                let len = usize::try_from(u32::from_be_bytes(*len)).map_err(|_| bad())?;
                if rest.len() < len {
                    return Err(bad());
                }
                let (principal, data) = rest.split_at(len);
                (Some(principal), data)
            }
            _ => return Err(bad()),
        };
        Ok(Plaintext {
            token_id: *token_id,
            expires_ms: u64::from_be_bytes(*expires),
            digest: *digest,
            principal,
            data,
        })
    }
}
