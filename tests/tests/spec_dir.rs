//! The spec directory resolves and holds the whole 2026-07-28 example corpus.

use mcp_tests::spec;
use serde_json::Value;

#[test]
fn spec_dir_holds_all_2026_examples_as_schema_types() {
    let dir = spec::spec_dir();
    let schema_text = std::fs::read_to_string(dir.join(spec::SCHEMA_2026)).unwrap();
    let schema: Value = serde_json::from_str(&schema_text).unwrap();
    let defs = schema["$defs"].as_object().expect("schema has $defs");

    let examples = spec::examples_2026();
    assert_eq!(
        examples.len(),
        129,
        "example files under {}",
        spec::EXAMPLES_2026
    );

    for (type_name, path) in &examples {
        assert!(
            defs.contains_key(type_name),
            "{type_name} is not a $defs entry"
        );
        let text = std::fs::read_to_string(path).unwrap();
        let parsed: Result<Value, _> = serde_json::from_str(&text);
        assert!(parsed.is_ok(), "{} is not JSON", path.display());
    }
}
