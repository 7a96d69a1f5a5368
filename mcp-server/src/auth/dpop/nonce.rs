//! Server-provided nonces (RFC 9449, section 9), stateless so that any
//! replica accepts what another issued: a nonce is an HMAC-SHA-256, under
//! a secret the replicas share, of the time slot it was issued in. The
//! nonce of the current slot and of the one before are accepted, so a
//! nonce lives one to two slots.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use ring::hmac;

use crate::ct::same_bytes;

/// How long a slot lasts, in seconds.
pub(crate) const SLOT_SECONDS: u64 = 300;

/// The least length of the secret, in bytes.
pub(crate) const MIN_SECRET_BYTES: usize = 32;

/// What the MAC covers before the slot, so that it is never the MAC of
/// anything else made with the same secret.
const CONTEXT: &[u8] = b"mcp-toolkit-server dpop-nonce v1\0";

/// Issues and checks nonces.
pub(crate) struct Nonces {
    key: hmac::Key,
}

impl std::fmt::Debug for Nonces {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Nonces").finish_non_exhaustive()
    }
}

impl Nonces {
    /// Nonces made with `secret`, or `None` when it is shorter than
    /// [`MIN_SECRET_BYTES`].
    pub(crate) fn new(secret: &[u8]) -> Option<Nonces> {
        (secret.len() >= MIN_SECRET_BYTES).then(|| Nonces {
            key: hmac::Key::new(hmac::HMAC_SHA256, secret),
        })
    }

    /// The nonce to hand out at `now` (seconds since the epoch).
    pub(crate) fn current(&self, now: u64) -> String {
        self.of_slot(now / SLOT_SECONDS)
    }

    /// Whether `nonce` is the one of the slot of `now` or of the slot
    /// before; both are compared, each in constant time.
    pub(crate) fn accepts(&self, nonce: &str, now: u64) -> bool {
        let slot = now / SLOT_SECONDS;
        let current = same_bytes(nonce.as_bytes(), self.of_slot(slot).as_bytes());
        let previous = same_bytes(
            nonce.as_bytes(),
            self.of_slot(slot.saturating_sub(1)).as_bytes(),
        );
        current | previous
    }

    fn of_slot(&self, slot: u64) -> String {
        let mut context = hmac::Context::with_key(&self.key);
        context.update(CONTEXT);
        context.update(&slot.to_be_bytes());
        URL_SAFE_NO_PAD.encode(context.sign().as_ref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: u64 = 1_800_000_000;

    #[test]
    fn a_nonce_lives_its_slot_and_the_next() {
        let nonces = Nonces::new(&[7; 32]).expect("a long secret");
        let start = NOW - NOW % SLOT_SECONDS;
        let nonce = nonces.current(start);
        assert_eq!(nonce.len(), 43);
        assert_eq!(nonces.current(start + SLOT_SECONDS - 1), nonce);
        assert!(nonces.accepts(&nonce, start));
        assert!(nonces.accepts(&nonce, start + 2 * SLOT_SECONDS - 1));
        assert!(!nonces.accepts(&nonce, start + 2 * SLOT_SECONDS));
        assert!(!nonces.accepts(&nonce, start - 1), "not before its slot");
        assert_ne!(nonces.current(start + SLOT_SECONDS), nonce);
    }

    #[test]
    fn replicas_sharing_the_secret_agree_and_others_do_not() {
        let one = Nonces::new(&[7; 32]).expect("a long secret");
        let other_replica = Nonces::new(&[7; 32]).expect("a long secret");
        let other_server = Nonces::new(&[8; 32]).expect("a long secret");
        let nonce = one.current(NOW);
        assert!(other_replica.accepts(&nonce, NOW));
        assert!(!other_server.accepts(&nonce, NOW));
        for bad in ["", "x", &nonce[1..], &format!("{nonce}A")] {
            assert!(!one.accepts(bad, NOW), "{bad}");
        }
    }

    #[test]
    fn short_secrets_are_refused() {
        assert!(Nonces::new(&[1; 31]).is_none());
        assert!(Nonces::new(&[1; 32]).is_some());
    }
}
