//! Sealed request state (being written).

/// The keys that seal and open request state (being written).
#[derive(Debug, Default)]
pub struct KeyRing {
    _private: (),
}
