//! Compile-time checks of `#[prompt]`, `#[prompts]`, `prompt_set!`,
//! `#[resource]`, `#[resources]` and `resource_set!`: each file under
//! `ui/prompt` and `ui/resource` makes one mistake (`kitchen_sink.rs` makes
//! many) and its `.stderr` holds the expected diagnostics; the files under
//! `pass/` must compile without warnings and run.
//!
//! Regenerate the `.stderr` files with `TRYBUILD=overwrite`, then read
//! each one.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/prompt/*.rs");
    cases.compile_fail("tests/ui/resource/*.rs");
    cases.pass("tests/ui/prompt/pass/*.rs");
    cases.pass("tests/ui/resource/pass/*.rs");
}
