//! The resource-server half of OAuth 2.1 for Streamable HTTP (the `auth`
//! feature): the server publishes its Protected Resource Metadata, refuses
//! requests without a good bearer token (or, when enabled, a DPoP-bound
//! token with its proof, RFC 9449), and checks the scopes each tool
//! declares.
//!
//! ```
//! use mcp_server::auth::ResourceServer;
//! use mcp_server::transport::http::{self, HttpConfig};
//! use mcp_server::{tool, tools, Server};
//!
//! struct Notes;
//!
//! #[tools]
//! impl Notes {
//!     /// Adds a note.
//!     #[tool(scopes = ["notes:write"])]
//!     fn add_note(&self, text: String) -> String {
//!         text
//!     }
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // The URL clients reach the endpoint at, and the authorization server
//! // whose tokens it accepts.
//! let resource = ResourceServer::builder("https://notes.example.com/mcp", ["https://auth.example.com"])
//!     .scopes_supported(["notes:read"])
//!     .require_scopes(["notes:read"])
//!     .implies("notes:write", ["notes:read"])
//!     .build()?;
//! let server = Server::builder(Notes).tools().authorization(resource).build()?;
//! // `http::serve(server, addr, shutdown)`, or mount the router:
//! let config = HttpConfig { allowed_hosts: vec!["notes.example.com".into()], ..HttpConfig::default() };
//! let app = http::router(server, "/mcp", config);
//! # let _ = app;
//! # Ok(())
//! # }
//! ```
//!
//! What a protected endpoint does, in order, for every POST, GET and
//! DELETE (the `Host`/`Origin` check against DNS rebinding comes first,
//! and nothing of the body is read before the token passes):
//!
//! | request | answer |
//! | --- | --- |
//! | no `Authorization: Bearer` header (or another scheme) | 401, `WWW-Authenticate: Bearer scope="…", resource_metadata="…"` |
//! | the same, on a server that takes DPoP-bound tokens ([`DpopPolicy`]) | 401, the `Bearer` challenge and `DPoP algs="…", scope="…", resource_metadata="…"`, or the `DPoP` one alone when DPoP is required |
//! | `access_token` in the query string, a form body, two `Authorization` headers, `Bearer` without a token | 400, `error="invalid_request"` |
//! | a token that does not verify, has expired, or is for another audience or issuer | 401, `error="invalid_token"` with a description in our own words |
//! | a DPoP-bound token (`cnf.jkt`) sent as `Bearer`; a `Bearer` token where DPoP is required; a `DPoP` token not bound to its proof's key | 401, `error="invalid_token"` |
//! | `Authorization: DPoP` without one good `DPoP` proof: missing, malformed, not signed by the key in its `jwk`, for another method or URL, older than 5 minutes, for another token (`ath`), or a `jti` seen before (on any replica sharing the [replay guard](ResourceServerBuilder::replay_guard)) | 401, `DPoP error="invalid_dpop_proof"` |
//! | a good proof without the current nonce, when the server [asks for one](ResourceServerBuilder::dpop_nonce) | 401, `DPoP error="use_dpop_nonce"` and a `DPoP-Nonce` header (sent with every 401 then) |
//! | a token without the server-wide scopes, or a `tools/call` without the tool's scopes | 403, `error="insufficient_scope"`, `scope` naming every scope the request needs |
//! | a good DPoP request whose principal holds its whole [share of the recorded proofs](ResourceServerBuilder::dpop_replay_share) (nothing is recorded for it; other principals are served) | 429, `Retry-After` (the seconds until its oldest proof expires), no challenge |
//! | tokens cannot be verified, or proofs recorded, now (the authorization server or the shared store is unreachable) | 503 |
//!
//! Every refusal carries a JSON-RPC error body (`-32600`, or `-32603` for
//! 429 and 503), whose `data.error` names the OAuth error (a 429's `data`
//! names the limit instead, `dpop_replay_share`). It has no `id` unless
//! the router had read the request (a tool's missing scope), as the
//! transport answers other requests it cannot read: the MCP schema has
//! no null id. The metadata is served, without a
//! token, at the path-based well-known URI of the resource
//! (`/.well-known/oauth-protected-resource/mcp` for `https://host/mcp`),
//! at the one of the router's own path when it differs, and at the root
//! `/.well-known/oauth-protected-resource`. A router nested under a prefix
//! in an application of your own serves them under that prefix too: merge
//! it at the root instead, or route the well-known paths to it.
//!
//! The token's issuer and subject become the request's principal
//! ([`Grant::principal`]), which sealed `requestState` and
//! [`HandleStore`](crate::handle::HandleStore) entries are bound to, and
//! legacy sessions too: a token for another subject cannot resume them.
//! Handlers read the whole grant through
//! [`Context::grant`](crate::Context::grant). Over stdio nothing is
//! enforced: the spec leaves stdio servers to take credentials from their
//! environment.
//!
//! # Where things are
//!
//! - [`resource`](ResourceServer): the configuration, the metadata
//!   document, and [`ResourceServer::authorize`], the one call per
//!   request. `bearer` finds the token and its scheme, `challenge` words
//!   each [`Refusal`], `metadata` builds the document, `scope` holds the
//!   scope-token syntax and the hierarchy of
//!   [`ResourceServerBuilder::implies`]. All pure.
//! - `dpop` holds the rules of DPoP proofs (`dpop/proof`: RFC 9449,
//!   section 4.3, against the resource URL as `htu`) and the stateless
//!   server nonces (`dpop/nonce`), pure; [`ResourceServer::authorize`]
//!   records each proof's `jti` in the
//!   [`SharedReplayGuard`](crate::shared::SharedReplayGuard), within the
//!   principal's share of it, which `dpop/share` counts per replica.
//! - [`TokenVerifier`] is the interface verifiers implement (its docs show
//!   one over RFC 7662 introspection); [`JwtVerifier`] is the one for JWT
//!   access tokens. Its pure parts are `jwt/compact` (the compact form),
//!   `jwt/claims` (strictly typed claims and their checks), `jwt/jwk`
//!   (keys and signatures on `ring`) and `jwt/keys` (when to fetch keys
//!   again); `discovery` says where metadata lives and which URLs may be
//!   fetched, and `fetch` fetches them.
//! - `cache` remembers verified tokens by their SHA-256 digest.

mod bearer;
mod cache;
mod challenge;
mod discovery;
mod dpop;
mod fetch;
mod grant;
mod jwt;
mod metadata;
mod resource;
mod scope;
mod verifier;

pub use challenge::Refusal;
pub use dpop::DpopPolicy;
pub use grant::Grant;
pub use jwt::{JwtVerifier, JwtVerifierBuilder};
pub use resource::{ConfigError, ResourceServer, ResourceServerBuilder};
pub use scope::is_scope_token;
pub use verifier::{AccessToken, Rejection, TokenError, TokenVerifier};

pub(crate) use dpop::DPOP_NONCE;
pub(crate) use metadata::{well_known_path, WELL_KNOWN};
