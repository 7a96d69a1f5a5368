//! Access to the specification folder for the unit tests.
//!
//! The folder is `MCP_SPEC_DIR` when set, else `../shared/spec` beside the
//! workspace root. It holds `schema/<revision>/schema.json` and, for
//! 2026-07-28, `schema/2026-07-28/examples/<Def>/*.json`.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

const ENV: &str = "MCP_SPEC_DIR";

/// The revision whose examples the corpus ships.
const EXAMPLES_REVISION: &str = "2026-07-28";

/// The specification folder; fails the test with directions when missing.
pub fn spec_dir() -> PathBuf {
    locate(std::env::var_os(ENV)).unwrap_or_else(|message| panic!("{message}"))
}

/// The folder named by the variable, else the default beside the
/// workspace; `Err` with directions when it holds no schemas.
fn locate(from_env: Option<std::ffi::OsString>) -> Result<PathBuf, String> {
    let dir = match from_env {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/spec"),
    };
    if dir.join("schema").is_dir() {
        Ok(dir)
    } else {
        Err(format!(
            "the MCP specification folder was not found at {}; \
             set {ENV} to the folder that holds schema/<revision>/schema.json",
            dir.display()
        ))
    }
}

fn read_json(path: &Path) -> Value {
    let text =
        fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// The schema of a revision, such as `"2026-07-28"`.
pub fn schema(revision: &str) -> Value {
    read_json(&spec_dir().join("schema").join(revision).join("schema.json"))
}

/// The `$defs` of a schema as (name, definition) pairs.
pub fn defs(schema: &Value) -> impl Iterator<Item = (&str, &Value)> {
    schema
        .get("$defs")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(name, def)| (name.as_str(), def))
}

fn examples_root() -> PathBuf {
    spec_dir()
        .join("schema")
        .join(EXAMPLES_REVISION)
        .join("examples")
}

fn sorted_entries(dir: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = fs::read_dir(dir)
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    paths.sort();
    paths
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The 2026-07-28 examples of one definition as (file name, value) pairs;
/// empty when the definition has none.
pub fn examples(def: &str) -> Vec<(String, Value)> {
    sorted_entries(&examples_root().join(def))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| (file_name(&p), read_json(&p)))
        .collect()
}

/// Every 2026-07-28 example as (definition, file name, value).
pub fn all_examples() -> Vec<(String, String, Value)> {
    let root = examples_root();
    assert!(root.is_dir(), "no examples folder at {}", root.display());
    sorted_entries(&root)
        .into_iter()
        .filter(|p| p.is_dir())
        .flat_map(|dir| {
            let def = file_name(&dir);
            examples(&def)
                .into_iter()
                .map(move |(name, value)| (def.clone(), name, value))
        })
        .collect()
}

/// The schema of an extension, such as `"apps"` (`ext/apps/schema.json`).
/// The `$defs` that a definition carries of its own join the root's, as
/// mcp-gen reads them: the apps schema refers to them as `#/$defs/Name`,
/// which a validator resolves at the root.
#[cfg(feature = "apps")]
pub fn ext_schema(name: &str) -> Value {
    let mut root = read_json(&spec_dir().join("ext").join(name).join("schema.json"));
    let nested: Vec<(String, Value)> = defs(&root)
        .filter_map(|(_, def)| def.get("$defs")?.as_object())
        .flatten()
        .map(|(key, helper)| (key.clone(), helper.clone()))
        .collect();
    if let Some(defs) = root.get_mut("$defs").and_then(Value::as_object_mut) {
        for (key, helper) in nested {
            defs.entry(key).or_insert(helper);
        }
    }
    root
}

/// Fails the test unless `value` is valid under `$defs/<def>` of the
/// revision's schema.
pub fn assert_valid(revision: &str, def: &str, value: &Value) {
    assert_valid_in(schema(revision), revision, def, value);
}

/// Fails the test unless `value` is valid under `$defs/<def>` of `root`,
/// the schema called `name` in messages.
pub fn assert_valid_in(mut root: Value, name: &str, def: &str, value: &Value) {
    if let Some(object) = root.as_object_mut() {
        object.insert("$ref".into(), Value::from(format!("#/$defs/{def}")));
    }
    let validator = jsonschema::validator_for(&root)
        .unwrap_or_else(|e| panic!("the {name} schema does not compile: {e}"));
    let errors: Vec<String> = validator
        .iter_errors(value)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{value} is not a valid {def}: {errors:#?}"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_folder_says_where_it_looked_and_what_to_set() {
        let message = locate(Some("/nonexistent/mcp-spec".into())).expect_err("missing");
        assert!(message.contains("/nonexistent/mcp-spec"), "{message}");
        assert!(message.contains(ENV), "{message}");
    }

    #[test]
    fn the_folder_is_found() {
        let dir = spec_dir();
        assert_eq!(locate(Some(dir.clone().into_os_string())), Ok(dir));
    }
}
