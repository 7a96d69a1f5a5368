//! Sealed request state: typed data that survives the rounds of a
//! multi-round-trip request without the server keeping it.
//!
//! When a handler answers `input_required`, it can hand the client an
//! opaque `requestState` string that the retry echoes back. The client is
//! untrusted, so this module seals the state: it is encrypted and
//! authenticated under a server key, and tied to the principal, to a short
//! expiry and to the request it was made for. Opening it on any other
//! request, by anyone else, after it expired, or with a single byte changed
//! is refused.
//!
//! ```
//! use std::time::SystemTime;
//!
//! use mcp_server::state::{Binding, KeyRing, StateError};
//! use mcp_server::RequestState;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, RequestState)]
//! #[state(ttl_secs = 120)]
//! struct Checkout {
//!     #[state(bind)]
//!     order_id: String,
//!     step: u8,
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let keys = KeyRing::generate(1)?;
//!
//! // First round: seal what the retry needs and send it as `requestState`.
//! let first = Binding::new("tools/call").with_principal(Some("alice"));
//! let token = Checkout { order_id: "ord_42".into(), step: 1 }.seal(&keys, &first)?;
//!
//! // Retry: name the same request, with the bound values from its params.
//! let retry = Binding::new("tools/call")
//!     .with_principal(Some("alice"))
//!     .bind("order_id", "ord_42");
//! let state = Checkout::open(&token, &keys, &retry, SystemTime::now())?;
//! assert_eq!(state.step, 1);
//!
//! // The same token on a call about another order is refused.
//! let other = Binding::new("tools/call")
//!     .with_principal(Some("alice"))
//!     .bind("order_id", "ord_43");
//! let refused = Checkout::open(&token, &keys, &other, SystemTime::now());
//! assert!(matches!(refused, Err(StateError::WrongRequest)));
//! # Ok(())
//! # }
//! ```
//!
//! # What the seal does not do
//!
//! A sealed token can be presented again as long as it has not expired: the
//! seal proves the server made it, for this principal and request, not that
//! it is fresh. State that must be consumed at most once needs a
//! server-side record; see [`ReplayGuard`] and [`RequestState::open_once`],
//! and [`SharedReplayGuard`] for a record every replica shares.
//!
//! The token format is described in the source of the `token` module; it is
//! not a stable interface, only this module's functions are.

mod binding;
mod error;
mod keys;
mod replay;
mod token;

use std::time::{Duration, SystemTime};

use serde::de::DeserializeOwned;
use serde::Serialize;

pub use crate::shared::SharedReplayGuard;
pub use binding::{Binding, BoundValues};
pub use error::StateError;
pub use keys::{KeyRing, KeyRingError, KEY_LEN};
pub use replay::{MemoryReplayGuard, ReplayGuard};
pub use token::MAX_TOKEN_LEN;

/// The lifetime of sealed state when the type does not set
/// `#[state(ttl_secs = ...)]`.
pub const DEFAULT_TTL: Duration = Duration::from_secs(300);

#[doc = include_str!("state/derive.md")]
pub trait RequestState: Serialize + DeserializeOwned {
    /// How long sealed state stays valid.
    const TTL: Duration;

    /// The names of the fields marked `#[state(bind)]`, in declaration
    /// order: the values a [`Binding`] must supply when opening.
    const BIND: &'static [&'static str];

    /// A name for the type, mixed into the request digest so state sealed
    /// as one type is refused as another.
    #[doc(hidden)]
    const __NAME: &'static str;

    /// Reports the value of each field in [`Self::BIND`].
    #[doc(hidden)]
    fn __bind_values(&self, values: &mut BoundValues);

    /// Seals this state into a token to send as `requestState`, valid for
    /// [`Self::TTL`] from now.
    ///
    /// The token is tied to the binding's method and principal and to the
    /// values of this value's bound fields. If the binding also carries
    /// bound values, they must match this value's.
    ///
    /// # Errors
    ///
    /// - [`StateError::WrongRequest`] if the binding's bound values differ
    ///   from this value's;
    /// - [`StateError::BindingMismatch`] if the binding carries bound values
    ///   but not exactly the fields in [`Self::BIND`];
    /// - [`StateError::Encode`] if the state does not serialize or is too
    ///   large;
    /// - [`StateError::Random`] if the operating system's random source
    ///   fails.
    fn seal(&self, keys: &KeyRing, binding: &Binding<'_>) -> Result<String, StateError> {
        self.seal_at(keys, binding, SystemTime::now())
    }

    /// [`RequestState::seal`] with the current time given, for tests and
    /// for servers that read the clock once per request.
    ///
    /// # Errors
    ///
    /// As for [`RequestState::seal`].
    fn seal_at(
        &self,
        keys: &KeyRing,
        binding: &Binding<'_>,
        now: SystemTime,
    ) -> Result<String, StateError> {
        token::seal(self, keys, binding, now)
    }

    /// Opens a token that a retry echoed back, checking that it is
    /// authentic, unexpired at `now`, issued to the binding's principal,
    /// and made for the same request (method, state type and bound values).
    ///
    /// # Errors
    ///
    /// One [`StateError`] per reason for refusal: `Malformed`,
    /// `UnsupportedVersion`, `UnknownKey`, `Tampered`, `Expired`,
    /// `WrongPrincipal`, `WrongRequest`, or `Decode` when an authentic
    /// token does not decode into this type. `BindingMismatch` and
    /// `Encode` report a binding that does not supply exactly the fields
    /// in [`Self::BIND`], or a bound value that does not serialize.
    fn open(
        token: &str,
        keys: &KeyRing,
        binding: &Binding<'_>,
        now: SystemTime,
    ) -> Result<Self, StateError> {
        Self::unseal(token, keys, binding, now).map(|unsealed| unsealed.value)
    }

    /// [`RequestState::open`], also returning the token's id and expiry,
    /// for servers that keep their own record of used tokens.
    ///
    /// # Errors
    ///
    /// As for [`RequestState::open`].
    fn unseal(
        token: &str,
        keys: &KeyRing,
        binding: &Binding<'_>,
        now: SystemTime,
    ) -> Result<Unsealed<Self>, StateError> {
        token::open(token, keys, binding, now)
    }

    /// [`RequestState::open`], then refuses the token if `guard` has seen
    /// its id before, so the state is consumed at most once.
    ///
    /// # Errors
    ///
    /// As for [`RequestState::open`], and [`StateError::Replayed`] if the
    /// token was already used (or the guard cannot record it).
    fn open_once(
        token: &str,
        keys: &KeyRing,
        binding: &Binding<'_>,
        now: SystemTime,
        guard: &dyn ReplayGuard,
    ) -> Result<Self, StateError> {
        let unsealed = Self::unseal(token, keys, binding, now)?;
        if guard.first_use(&unsealed.token_id, unsealed.expires_at, now) {
            Ok(unsealed.value)
        } else {
            Err(StateError::Replayed)
        }
    }
}

/// State opened by [`RequestState::unseal`], with the token's metadata.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Unsealed<T> {
    /// The state.
    pub value: T,
    /// The token's random id, distinct for every seal.
    pub token_id: [u8; 16],
    /// When the token stops opening.
    pub expires_at: SystemTime,
}
