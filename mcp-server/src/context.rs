//! What a handler knows about the request it serves.

use std::sync::Arc;

use mcp_types::v2026_07_28::{ClientCapabilities, InputResponses};

use crate::state::KeyRing;

/// The request a tool, prompt or resource handler is serving: who asks, what
/// the client declared on this very request, and what a retry of a
/// multi-round-trip request brings back.
///
/// The runtime builds one per request; nothing in it outlives the request,
/// so any replica of a server can serve any request.
#[derive(Clone, Debug, Default)]
pub struct Context {
    method: String,
    principal: Option<String>,
    client_capabilities: ClientCapabilities,
    input_responses: Option<InputResponses>,
    request_state: Option<String>,
    keys: Option<Arc<KeyRing>>,
}

impl Context {
    /// A context for a request of `method` whose client declared
    /// `client_capabilities`.
    pub fn new(method: impl Into<String>, client_capabilities: ClientCapabilities) -> Self {
        Context {
            method: method.into(),
            client_capabilities,
            ..Context::default()
        }
    }

    /// Sets the authenticated principal (for example the subject of an
    /// access token); sealed state is bound to it.
    pub fn with_principal(mut self, principal: impl Into<String>) -> Self {
        self.principal = Some(principal.into());
        self
    }

    /// Sets the answers and the state a retry carries.
    pub fn with_retry(
        mut self,
        input_responses: Option<InputResponses>,
        request_state: Option<String>,
    ) -> Self {
        self.input_responses = input_responses;
        self.request_state = request_state;
        self
    }

    /// Sets the keys that seal and open request state.
    pub fn with_keys(mut self, keys: Arc<KeyRing>) -> Self {
        self.keys = Some(keys);
        self
    }

    /// The JSON-RPC method being served, such as `tools/call`.
    pub fn method(&self) -> &str {
        &self.method
    }

    /// The authenticated principal, if the transport established one.
    pub fn principal(&self) -> Option<&str> {
        self.principal.as_deref()
    }

    /// The capabilities the client declared on this request.
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        &self.client_capabilities
    }

    /// The answers a retry brings to earlier input requests.
    pub fn input_responses(&self) -> Option<&InputResponses> {
        self.input_responses.as_ref()
    }

    /// The opaque state a retry echoes back, as received (untrusted).
    pub fn request_state(&self) -> Option<&str> {
        self.request_state.as_deref()
    }

    /// The keys for sealing state, if the server configured them.
    pub fn keys(&self) -> Option<&KeyRing> {
        self.keys.as_deref()
    }
}
