//! Helpers for the prompt, resource and URI template tests: a tiny
//! executor and validation against the specification's JSON schema.

#![allow(dead_code)] // each test file uses a different part

use std::future::Future;
use std::path::PathBuf;
use std::pin::pin;
use std::task::{Context as TaskContext, Poll, Waker};

use mcp_server::Context;
use serde::Serialize;
use serde_json::Value;

/// Runs a future that needs no I/O to completion.
pub fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = TaskContext::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
        std::thread::yield_now();
    }
}

/// A context for a request of `method` from a client that declared nothing.
pub fn cx(method: &str) -> Context {
    Context::new(method, Default::default())
}

/// The specification folder: `MCP_SPEC_DIR`, else `../shared/spec` beside
/// the workspace. Fails the test with directions when it is missing.
fn spec_dir() -> PathBuf {
    let dir = match std::env::var_os("MCP_SPEC_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/spec"),
    };
    assert!(
        dir.join("schema").is_dir(),
        "the MCP specification folder was not found at {}; set MCP_SPEC_DIR to the folder \
         that holds schema/2026-07-28/schema.json",
        dir.display()
    );
    dir
}

/// The 2026-07-28 schema.
pub fn schema() -> Value {
    let path = spec_dir().join("schema/2026-07-28/schema.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// Fails the test unless `value`, encoded, is valid under `$defs/<def>`
/// (draft 2020-12, formats checked).
pub fn assert_valid(def: &str, value: &impl Serialize) {
    let value = serde_json::to_value(value).expect("encodes");
    let mut root = schema();
    root["$ref"] = Value::String(format!("#/$defs/{def}"));
    let validator = jsonschema::draft202012::options()
        .should_validate_formats(true)
        .build(&root)
        .expect("the schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(&value)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{value} is not a valid {def}: {errors:#?}"
    );
}
