//! Comparison of values an attacker may probe by timing.

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// Whether `a` and `b` are the same bytes, in a time that depends on their
/// lengths only through hashing them: the digests are compared, so neither
/// the first differing byte nor a difference in length ends the
/// comparison early.
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let a = Sha256::digest(a);
    let b = Sha256::digest(b);
    a.as_slice().ct_eq(b.as_slice()).into()
}

/// Whether two optional principals are the same: both absent (a server
/// without authentication), or both present and equal.
pub(crate) fn same_principal(a: Option<&[u8]>, b: Option<&[u8]>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => same_bytes(a, b),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_and_unequal_of_every_length() {
        assert!(same_bytes(b"", b""));
        assert!(same_bytes(b"https://as|alice", b"https://as|alice"));
        assert!(!same_bytes(b"https://as|alice", b"https://as|alicf"));
        assert!(!same_bytes(b"https://as|alice", b"https://as|alice2"));
        assert!(!same_bytes(b"", b"a"));
        assert!(same_principal(None, None));
        assert!(!same_principal(Some(b"a"), None));
        assert!(!same_principal(None, Some(b"a")));
        assert!(same_principal(Some(b"a"), Some(b"a")));
    }
}
