//! Helpers shared by the tests of the workspace: the workspace's own
//! programs, built as the suite builds them ([`build`]); where the
//! Model Context Protocol spec files live, and which example files they hold
//! ([`spec`]); a real OAuth authorization server to test against, with a
//! program to sign in at it ([`oauth`]); the install of the pinned Node
//! packages such tests run ([`npm`]); of the pinned Debian packages
//! ([`debian`]); and a Redis of a test's own ([`redis`]).
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

pub mod build;
pub mod debian;
pub mod npm;
pub mod oauth;
pub mod redis;
pub mod spec;
