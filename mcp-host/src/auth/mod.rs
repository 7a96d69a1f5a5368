//! OAuth 2.1 for servers over Streamable HTTP, as the MCP authorization
//! spec has it: the host is the OAuth client, the MCP server a protected
//! resource, and the authorization server whatever the server names.
//!
//! With the `oauth` feature (on by default), every HTTP server gets an
//! [`OAuthClient`] unless its configuration says otherwise. When the
//! server answers `401`, the client reads its challenge, finds its
//! Protected Resource Metadata and the authorization server's metadata,
//! checks both, gets a client id (pre-registered, a Client ID Metadata
//! Document, or dynamic registration, in that order), has the person log
//! in with PKCE through the [`Login`] seam, and sends the request again
//! with the token. A `403 insufficient_scope` steps the token up to the
//! union of the scopes; tokens are refreshed before they expire; and
//! everything is bounded: three authorizations and two step-ups per
//! request at most. stdio servers never use any of this: the spec has
//! them take credentials from their environment.
//!
//! ```no_run
//! use std::sync::Arc;
//! use mcp_host::auth::{FileStore, LoopbackLogin, OAuthClient, OAuthSettings};
//! use mcp_host::client::{Client, ClientOptions, NoInput, Target};
//! use mcp_host::ServerId;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let url = "https://notes.example.com/mcp";
//! let oauth = OAuthClient::new(
//!     "notes",
//!     url,
//!     OAuthSettings::default(),
//!     Arc::new(FileStore::in_state_dir()?),
//!     Some(Arc::new(LoopbackLogin::default())),
//! )?;
//! let options = ClientOptions { oauth: Some(Arc::new(oauth)), ..ClientOptions::default() };
//! let target = Target::Http { url: url.to_owned(), headers: Vec::new() };
//! let client = Client::connect(ServerId::new("notes")?, target, Arc::new(NoInput), options, None).await?;
//! # let _ = client;
//! # Ok(())
//! # }
//! ```
//!
//! # Layers
//!
//! - Sans-IO rules: [`challenge`] (`WWW-Authenticate`), [`discovery`]
//!   (where the metadata is, what it must say, which URLs may be used),
//!   [`flow`] (scopes, the authorization URL, the checks on the redirect,
//!   token requests), [`pkce`], and the documents in [`metadata`].
//! - [`secret`]: tokens and secrets that never show in `Debug`.
//! - [`store`]: where registrations and tokens live, a file of mode `0600`
//!   by default.
//! - [`login`]: the seam to the person, and a loopback implementation.
//! - [`assertion`]: `private_key_jwt` client authentication.
//! - [`dpop`]: sender-constrained tokens (RFC 9449): the key, the proofs,
//!   and when to bind.
//! - [`source`]: where the JWTs of the JWT bearer grant (workload
//!   identity) and of enterprise-managed authorization come from.
//! - [`OAuthClient`]: the driver the HTTP transport calls.

pub mod assertion;
pub mod challenge;
mod client;
pub mod discovery;
pub mod dpop;
mod error;
mod fetch;
pub mod flow;
pub mod login;
pub mod metadata;
pub mod pkce;
pub mod secret;
pub mod source;
pub mod store;

pub use assertion::AssertionKey;
pub use challenge::BearerChallenge;
pub(crate) use client::Budget;
pub use client::{
    EnterpriseSettings, Grant, OAuthClient, OAuthSettings, Refusal, MAX_AUTHORIZATIONS,
    MAX_NONCE_RETRIES, MAX_STEP_UPS,
};
pub use dpop::{DpopKey, DpopUse};
pub use error::AuthError;
pub use fetch::{Lookup, SystemLookup};
pub use flow::ClientAuth;
pub use login::{Login, LoginPrompt, LoopbackLogin, Redirect};
pub use secret::Secret;
pub use source::TokenSource;
pub use store::{CredentialStore, FileStore, MemoryStore, RegisteredClient, Tokens};
