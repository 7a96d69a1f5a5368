//! Procedural macros that will turn plain Rust functions and types into
//! Model Context Protocol tools, prompts and resources, with their schemas
//! and argument checks generated at compile time.
//!
//! No macro is written yet: the crate exists so the workspace has its final
//! shape, and it exports nothing.

#![deny(missing_docs)]
