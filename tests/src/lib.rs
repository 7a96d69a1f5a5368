//! Helpers shared by the tests of the workspace: the workspace's own
//! programs, built as the suite builds them ([`build`]); where the
//! Model Context Protocol spec files live, and which example files they hold
//! ([`spec`]); a real OAuth authorization server to test against, with a
//! program to sign in at it ([`oauth`]); the install of the pinned Node
//! packages such tests run ([`npm`]); of the pinned Debian packages
//! ([`debian`]); a Redis of a test's own ([`redis`]); and a real headless
//! Chromium, driven over WebDriver, that can reach loopback only
//! ([`browser`]).
//!
//! ```
//! use mcp_tests::spec;
//!
//! let schema = spec::spec_dir().join(spec::SCHEMA_2026);
//! assert!(schema.is_file());
//!
//! for (type_name, path) in spec::examples_2026() {
//!     assert!(!type_name.is_empty());
//!     assert_eq!(path.extension().unwrap(), "json");
//! }
//! ```

#![deny(missing_docs)]

pub mod browser;
pub mod build;
pub mod debian;
pub mod npm;
pub mod oauth;
pub mod redis;
pub mod spec;

/// The Rust blocks of the README and the guides under `docs/`, compiled
/// (and run, unless marked `no_run`) as this crate's doctests; a block
/// marked `ignore` is a sketch on purpose and says so in its first line.
/// Their `mcp-host` command lines are run by `mcp-host-app/tests/docs.rs`.
#[cfg(doctest)]
mod documentation {
    #[doc = include_str!("../../README.md")]
    struct Readme;
    #[doc = include_str!("../../docs/server.md")]
    struct Server;
    #[doc = include_str!("../../docs/host.md")]
    struct Host;
    #[doc = include_str!("../../docs/production.md")]
    struct Production;
    #[doc = include_str!("../../docs/types.md")]
    struct Types;
}
