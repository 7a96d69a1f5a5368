//! Compile-fail proofs: a tool cannot run without an approval, an approval
//! cannot be forged, and server data cannot be used without being accepted.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/approval/*.rs");
    cases.compile_fail("tests/ui/untrusted/*.rs");
}
