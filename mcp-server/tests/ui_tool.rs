//! Compile-time checks of `#[tool]`, `#[tools]`, `tool_set!` and
//! `#[derive(ElicitForm)]`: each file under `ui/tool` and `ui/form` makes
//! one mistake (`kitchen_sink.rs` makes many) and its `.stderr` holds the
//! expected diagnostics; `ui/tool/pass` must compile.
//!
//! Regenerate the `.stderr` files with `TRYBUILD=overwrite`, then read
//! each one.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/tool/*.rs");
    cases.compile_fail("tests/ui/form/*.rs");
    cases.pass("tests/ui/tool/pass/*.rs");
}
