//! Transports: they move bytes between a peer and a [`Server`](crate::Server)
//! and hold no protocol logic of their own.

#[cfg(feature = "http")]
pub mod http;
pub mod stdio;
