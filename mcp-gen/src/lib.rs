//! Rust types from JSON Schema, faithful enough for protocol messages.
//!
//! ```
//! let schema = serde_json::json!({
//!     "$defs": {
//!         "Shape": {
//!             "anyOf": [{ "$ref": "#/$defs/Circle" }, { "$ref": "#/$defs/Square" }]
//!         },
//!         "Circle": {
//!             "type": "object",
//!             "properties": { "kind": { "const": "circle" }, "radius": { "type": "number" } },
//!             "required": ["kind", "radius"]
//!         },
//!         "Square": {
//!             "type": "object",
//!             "properties": { "kind": { "const": "square" }, "side": { "type": "number" } },
//!             "required": ["kind", "side"]
//!         }
//!     }
//! });
//! let code = mcp_gen::Settings::new().generate(&schema)?;
//! assert!(code.contains("pub enum Shape"));
//! assert!(code.contains("pub struct Circle"));
//! # Ok::<(), mcp_gen::Error>(())
//! ```
//!
//! # What the generated code does
//! - **Unions** (`anyOf`, `oneOf`) become enums. Decoding picks the member
//!   by the fields that tell members apart: a constant tag such as `method`
//!   or `type`, required keys, the kinds of values, and, among the members
//!   still standing, the one that declares the most of the keys present. It
//!   never takes the first member that happens to parse. A union with a
//!   constant tag reads its object once, keeping only the entries before
//!   the tag, and hands them with the rest to the member the tag names (a
//!   second tag is refused); other unions read the value whole first.
//! - **Constants** become unit structs that accept and emit exactly their
//!   value, so a struct with `"method": {"const": "tools/call"}` refuses any
//!   other method on its own, and writes the method back out.
//! - **Open objects** (no `additionalProperties`, or `true`, or `{}`) keep
//!   unknown keys in a flattened map; nothing is lost on a round trip.
//!   `additionalProperties: false` becomes `deny_unknown_fields`.
//! - `allOf` (and `$ref` with sibling keywords) is merged into one struct;
//!   `type` arrays and `null` members make unions or `Option`s; `integer` is
//!   `i64` and `number` is `serde_json::Number` (so `1` stays `1`); identical
//!   inline enums and constants are generated once; recursive types are boxed where needed;
//!   names that are not Rust identifiers are renamed with `serde(rename)`.
//!
//! The output depends only on `serde` (with `derive`) and `serde_json`.
//! Include each generated file in a module of its own: it carries a private
//! support module.
//!
//! # From build.rs
//! ```no_run
//! // build.rs
//! fn main() -> Result<(), mcp_gen::Error> {
//!     let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").unwrap()).join("types.rs");
//!     mcp_gen::Settings::new().compile("schema.json", out)?;
//!     Ok(())
//! }
//! ```
//! and in the crate: `mod types { include!(concat!(env!("OUT_DIR"), "/types.rs")); }`
//! (in a binary, with `#[allow(dead_code)]` on the module for the items it
//! does not use). `examples/gen-build` in the repository is a complete crate
//! doing this.
//! [`compile_schema`] is the one-call form.
//!
//! # Typed clients
//! [`ClientSettings`] generates, from a server's tool list (`mcp-gen client
//! --tools FILE`, or `compile` in build.rs), a module per tool with its
//! argument and output types and a client with one method per tool, over
//! `mcp_host::typed`; see that module for what a call does. The list is a
//! peer's data, so the same lowering runs in an untrusted mode: a construct
//! with no faithful Rust type becomes `serde_json::Value` with a doc comment
//! saying why (the file never fails for a schema), every identifier is
//! sanitised and deduplicated, doc text is neutralised line by line, and the
//! work on one schema is bounded. The generated code needs `mcp-host`,
//! `serde` and `serde_json`.
//!
//! # Layout
//! - `bundle.rs` (nested `$defs` of bundled definitions moved to the
//!   root), `lower.rs` (JSON Schema to the intermediate form of `ir.rs`, names from
//!   `naming.rs`, recursion boxed by `boxing.rs`) and `render/` (Rust from
//!   it): the engine, pure.
//! - `settings.rs` and `compile.rs`: the front end for schemas (the
//!   builder, files, build.rs).
//! - `client/`: the front end for tool lists (`input.rs` reads the list,
//!   `render.rs` writes the tool modules and the client).
//! - `main.rs`: the command line.

#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod boxing;
mod bundle;
mod client;
mod compile;
mod error;
mod ir;
mod lower;
mod naming;
mod render;
mod settings;

pub use client::ClientSettings;
pub use compile::{compile_schema, write_if_changed};
pub use error::Error;
pub use settings::Settings;

impl Settings {
    /// Generates Rust source for every definition of `schema` (and for the
    /// root, when it describes a value). Pure: no file or environment access.
    ///
    /// # Errors
    /// When the schema holds something that cannot become Rust; the error
    /// names the JSON pointer of the node.
    pub fn generate(&self, schema: &serde_json::Value) -> Result<String, Error> {
        let schema = bundle::hoist_nested_defs(schema)?;
        let settings = self.with_reused(&schema);
        let defs = lower::lower(&schema, &settings)?;
        render::render(&defs, &settings)
    }
}
