//! Goldens: every real server's tool list compiled for every target, the
//! output, the strict flag and the loss report checked in under
//! `tests/schema_goldens/`, so any change to what a provider receives shows
//! in review. Regenerate with `MCP_UPDATE_GENERATED=1`.

use std::path::Path;

mod tool_lists;

use mcp_agent::schema::{compile, Target};
use serde_json::{json, Map, Value};

fn golden(list: &str, target: Target) -> String {
    let mut out = Map::new();
    for (name, schema) in tool_lists::tools(list) {
        let compiled = compile(&schema, target).unwrap_or_else(|e| panic!("{list}/{name}: {e}"));
        let loss: Vec<String> = compiled
            .loss
            .entries
            .iter()
            .map(ToString::to_string)
            .collect();
        out.insert(
            name,
            json!({"strict": compiled.strict, "parameters": compiled.parameters, "loss": loss}),
        );
    }
    let mut text = serde_json::to_string_pretty(&Value::Object(out)).expect("JSON prints");
    text.push('\n');
    text
}

#[test]
fn real_tool_lists_compile_as_checked_in() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/schema_goldens");
    let mut stale = Vec::new();
    for list in tool_lists::REAL_SERVERS {
        for target in Target::ALL {
            let file = dir.join(format!(
                "{list}.{}.json",
                format!("{target:?}").to_lowercase()
            ));
            let fresh = golden(list, target);
            if std::env::var_os("MCP_UPDATE_GENERATED").is_some() {
                if std::fs::read_to_string(&file).ok().as_deref() != Some(fresh.as_str()) {
                    std::fs::write(&file, &fresh).expect("the golden is written");
                }
                continue;
            }
            if std::fs::read_to_string(&file).unwrap_or_default() != fresh {
                stale.push(file.display().to_string());
            }
        }
    }
    assert!(
        stale.is_empty(),
        "stale goldens (run this test with MCP_UPDATE_GENERATED=1 and review the diff): {stale:#?}"
    );
}
