//! Compile-time checks of `#[derive(RequestState)]` and of handle kinds:
//! each file under `tests/ui/state/` and `tests/ui/handle/` is one mistake
//! with the error it must produce; `tests/ui/state/pass/` must compile.
//!
//! Regenerate the expected output with `TRYBUILD=overwrite`.

#![cfg(feature = "sealed-state")]

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/state/*.rs");
    t.compile_fail("tests/ui/handle/*.rs");
    t.pass("tests/ui/state/pass/*.rs");
}
