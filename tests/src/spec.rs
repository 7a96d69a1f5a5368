//! Locating the spec directory: the published schema files and their
//! examples, kept outside the repository in `shared/spec`.

use std::fs;
use std::path::{Path, PathBuf};

/// Environment variable that overrides where the spec directory is.
pub const SPEC_DIR_VAR: &str = "MCP_SPEC_DIR";

/// The 2026-07-28 schema, relative to [`spec_dir`].
pub const SCHEMA_2026: &str = "schema/2026-07-28/schema.json";

/// The 2026-07-28 examples, one folder per `$defs` type, relative to
/// [`spec_dir`].
pub const EXAMPLES_2026: &str = "schema/2026-07-28/examples";

/// The spec directory: `$MCP_SPEC_DIR` when set, otherwise `shared/spec`
/// beside the workspace checkout.
///
/// # Panics
///
/// Panics, naming both places and the variable, when the chosen directory has
/// no `schema/2026-07-28/schema.json`.
pub fn spec_dir() -> PathBuf {
    let default = default_spec_dir();
    let from_var = std::env::var_os(SPEC_DIR_VAR).filter(|value| !value.is_empty());
    let dir = from_var
        .clone()
        .map_or_else(|| default.clone(), PathBuf::from);
    if !dir.join(SCHEMA_2026).is_file() {
        let source = match from_var {
            Some(_) => format!("set by {SPEC_DIR_VAR}"),
            None => format!("the default, as {SPEC_DIR_VAR} is unset"),
        };
        panic!(
            "no {SCHEMA_2026} in the spec directory {} ({source}); either set \
             {SPEC_DIR_VAR} to the spec directory, or leave it unset and put the spec \
             at {}",
            dir.display(),
            default.display(),
        );
    }
    dir
}

/// `<workspace root>/../shared/spec`, from where this crate was compiled.
fn default_spec_dir() -> PathBuf {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let beside_workspace = manifest_dir
        .parent()
        .and_then(Path::parent)
        .unwrap_or(manifest_dir);
    beside_workspace.join("shared").join("spec")
}

/// Every 2026-07-28 example as `(type name, file)`, where the type name is
/// the folder the file sits in; sorted by type name, then file.
///
/// # Panics
///
/// Panics when [`spec_dir`] does, or when the examples folder cannot be read.
pub fn examples_2026() -> Vec<(String, PathBuf)> {
    let root = spec_dir().join(EXAMPLES_2026);
    let mut examples = Vec::new();
    for type_dir in read_dir_sorted(&root) {
        if !type_dir.is_dir() {
            continue;
        }
        let type_name = type_dir
            .file_name()
            .and_then(|name| name.to_str())
            .unwrap_or_else(|| panic!("non UTF-8 folder name {}", type_dir.display()))
            .to_owned();
        for file in read_dir_sorted(&type_dir) {
            if file.is_file() && file.extension().is_some_and(|ext| ext == "json") {
                examples.push((type_name.clone(), file));
            }
        }
    }
    examples
}

/// The entries of `dir`, sorted by path.
fn read_dir_sorted(dir: &Path) -> Vec<PathBuf> {
    let read = |dir: &Path| -> std::io::Result<Vec<PathBuf>> {
        fs::read_dir(dir)?
            .map(|entry| entry.map(|entry| entry.path()))
            .collect()
    };
    let mut paths = read(dir).unwrap_or_else(|err| panic!("cannot read {}: {err}", dir.display()));
    paths.sort();
    paths
}
