//! The identity of a request, and the digest that ties state to it.

use serde::Serialize;
use sha2::{Digest, Sha256};

use super::StateError;
use crate::Context;

/// Named values encoded as JSON, with the first encoding error kept for
/// later (so builders stay infallible).
#[derive(Clone, Debug, Default)]
pub(crate) struct Values<'a> {
    entries: Vec<(&'a str, Vec<u8>)>,
    error: Option<String>,
}

impl<'a> Values<'a> {
    fn push<V: Serialize + ?Sized>(&mut self, name: &'a str, value: &V) {
        match serde_json::to_vec(value) {
            Ok(json) => self.entries.push((name, json)),
            Err(e) => {
                self.error
                    .get_or_insert_with(|| format!("bound field `{name}`: {e}"));
            }
        }
    }

    fn is_empty(&self) -> bool {
        self.entries.is_empty() && self.error.is_none()
    }

    /// SHA-256 over the state type, the method and the values of `fields`
    /// in that order, each length-prefixed so no two inputs collide.
    ///
    /// The values must name exactly `fields`, each once.
    pub(crate) fn digest(
        &self,
        type_name: &str,
        method: &str,
        fields: &'static [&'static str],
    ) -> Result<[u8; 32], StateError> {
        if let Some(error) = &self.error {
            return Err(StateError::Encode(error.clone()));
        }
        let mismatch = StateError::BindingMismatch { expected: fields };
        if self.entries.len() != fields.len() {
            return Err(mismatch);
        }
        let mut hash = Sha256::new();
        hash.update(b"mcp-server request-state binding v1");
        feed(&mut hash, type_name.as_bytes());
        feed(&mut hash, method.as_bytes());
        for field in fields {
            let mut found = self.entries.iter().filter(|(name, _)| name == field);
            match (found.next(), found.next()) {
                (Some((_, json)), None) => {
                    feed(&mut hash, field.as_bytes());
                    feed(&mut hash, json);
                }
                _ => return Err(mismatch),
            }
        }
        Ok(hash.finalize().into())
    }
}

fn feed(hash: &mut Sha256, bytes: &[u8]) {
    hash.update((bytes.len() as u64).to_be_bytes());
    hash.update(bytes);
}

/// The identity of the request being served, which sealed state is tied
/// to: the method, the authenticated principal, and the values of the
/// request that the state type marks `#[state(bind)]`.
///
/// Build it the same way when sealing and when opening. On the first round
/// the bound values may be left out: the state itself supplies them. On a
/// retry, supply every bound field from the *current* request's params by
/// the field's name, so state minted for another request is refused with
/// [`StateError::WrongRequest`].
///
/// Values are compared by their JSON encoding, so a `&str` matches a
/// `String` field and any integer type matches another holding the same
/// number. Bind plain values (strings, numbers, ids); a map whose
/// iteration order varies, such as a `HashMap`, would not encode the same
/// way twice.
///
/// ```
/// use mcp_server::state::Binding;
///
/// let order_id = "ord_42";
/// let binding = Binding::new("tools/call")
///     .with_principal(Some("alice"))
///     .bind("order_id", order_id);
/// # let _ = binding;
/// ```
#[derive(Clone, Debug)]
pub struct Binding<'a> {
    pub(crate) method: &'a str,
    pub(crate) principal: Option<&'a str>,
    pub(crate) values: Values<'a>,
}

impl<'a> Binding<'a> {
    /// The binding of a request of `method` with no principal and no bound
    /// values yet.
    pub fn new(method: &'a str) -> Self {
        Binding {
            method,
            principal: None,
            values: Values::default(),
        }
    }

    /// The method and principal of the request `context` serves.
    pub fn from_context(context: &'a Context) -> Self {
        Binding::new(context.method()).with_principal(context.principal())
    }

    /// Sets the authenticated principal; `None` for an unauthenticated
    /// request.
    pub fn with_principal(mut self, principal: Option<&'a str>) -> Self {
        self.principal = principal;
        self
    }

    /// Adds the current request's value for the bound field `name`.
    ///
    /// If `value` fails to serialize, sealing and opening report
    /// [`StateError::Encode`].
    pub fn bind<V: Serialize + ?Sized>(mut self, name: &'a str, value: &V) -> Self {
        self.values.push(name, value);
        self
    }

    /// The method this binding names.
    pub fn method(&self) -> &'a str {
        self.method
    }

    /// The principal this binding names, if any.
    pub fn principal(&self) -> Option<&'a str> {
        self.principal
    }

    /// Whether bound values were supplied (or attempted).
    pub(crate) fn has_values(&self) -> bool {
        !self.values.is_empty()
    }
}

/// The values of the fields a state type marks `#[state(bind)]`, reported
/// by the derived [`RequestState`](super::RequestState) implementation.
///
/// Generated code fills it; servers use [`Binding::bind`] instead.
#[doc(hidden)]
#[derive(Debug, Default)]
pub struct BoundValues {
    pub(crate) values: Values<'static>,
}

impl BoundValues {
    /// Records the value of the bound field `name`.
    #[doc(hidden)]
    pub fn __push<V: Serialize + ?Sized>(&mut self, name: &'static str, value: &V) {
        self.values.push(name, value);
    }
}
