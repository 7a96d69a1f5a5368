//! MCP Apps (`io.modelcontextprotocol/ui`) on the host's side: the rules a
//! host applies to a server's view before it renders it, without I/O.
//!
//! - [`policy`]: the content security policy a view runs under, built
//!   from the domains its resource declares (the extension's restrictive
//!   default when it declares none, never loosened by what it writes),
//!   and the iframe's `allow` list from its permissions.
//!
//! The extension is specified in
//! [apps.mdx](https://github.com/modelcontextprotocol/ext-apps/blob/main/specification/2026-01-26/apps.mdx).

pub mod policy;

pub use policy::{PolicyError, ViewPolicy};
