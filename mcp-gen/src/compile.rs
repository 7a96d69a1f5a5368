//! The file-system front end for build scripts and the CLI.

use std::fs;
use std::path::{Path, PathBuf};

use crate::{ClientSettings, Error, Settings};

impl Settings {
    /// Reads the schema at `schema`, generates, and writes `out` only if its
    /// contents changed (so cargo does not rebuild for nothing). Inside a
    /// build script it also prints `cargo:rerun-if-changed` for the schema.
    /// Returns whether the file was written.
    ///
    /// # Errors
    /// When the schema cannot be read or parsed, generation fails, or the
    /// output cannot be written.
    pub fn compile(&self, schema: impl AsRef<Path>, out: impl AsRef<Path>) -> Result<bool, Error> {
        let schema = schema.as_ref();
        rerun_if_changed(schema);
        emit(out.as_ref(), &self.generate_file(schema)?)
    }

    /// Reads the schema file at `schema` and generates its Rust source; the
    /// header names the file (not its directory) unless
    /// [`Settings::source_name`] was set.
    ///
    /// # Errors
    /// When the schema cannot be read or parsed, or generation fails.
    pub fn generate_file(&self, schema: impl AsRef<Path>) -> Result<String, Error> {
        let schema = schema.as_ref();
        let value = read_json(schema)?;
        let mut settings = self.clone();
        if settings.source_name.is_none() {
            settings.source_name(file_name(schema));
        }
        settings.generate(&value)
    }
}

impl ClientSettings {
    /// Reads the tool list at `tools`, generates its typed client, and
    /// writes `out` only if its contents changed. Inside a build script it
    /// also prints `cargo:rerun-if-changed` for the tool list. Returns
    /// whether the file was written.
    ///
    /// # Errors
    /// When the file cannot be read, is not JSON or not a tool list, or the
    /// output cannot be written.
    pub fn compile(&self, tools: impl AsRef<Path>, out: impl AsRef<Path>) -> Result<bool, Error> {
        let tools = tools.as_ref();
        rerun_if_changed(tools);
        emit(out.as_ref(), &self.generate_file(tools)?)
    }

    /// Reads the tool list at `tools` and generates its typed client; the
    /// header names the file unless [`ClientSettings::source_name`] was set.
    ///
    /// # Errors
    /// When the file cannot be read, is not JSON or not a tool list.
    pub fn generate_file(&self, tools: impl AsRef<Path>) -> Result<String, Error> {
        let tools = tools.as_ref();
        let value = read_json(tools)?;
        let mut settings = self.clone();
        if settings.source_name.is_none() {
            settings.source_name(file_name(tools));
        }
        settings.generate(&value)
    }
}

/// Inside a build script, tells cargo to run it again when `input` changes.
fn rerun_if_changed(input: &Path) {
    if std::env::var_os("OUT_DIR").is_some() && std::env::var_os("CARGO_MANIFEST_DIR").is_some() {
        println!("cargo:rerun-if-changed={}", input.display());
    }
}

fn emit(out: &Path, code: &str) -> Result<bool, Error> {
    write_if_changed(out, code).map_err(|source| Error::Io {
        path: out.to_owned(),
        source,
    })
}

fn read_json(path: &Path) -> Result<serde_json::Value, Error> {
    let text = fs::read_to_string(path).map_err(|source| Error::Io {
        path: path.to_owned(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|source| Error::Json {
        path: path.to_owned(),
        source,
    })
}

/// How a header names an input file: its name in backticks, no directory.
fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|name| format!("`{}`", name.to_string_lossy()))
        .unwrap_or_default()
}

/// One call for build scripts: generates `schema` with default settings into
/// `$OUT_DIR/<schema file stem>.rs` and returns that path.
///
/// # Errors
/// As [`Settings::compile`], and when `OUT_DIR` is not set.
pub fn compile_schema(schema: impl AsRef<Path>) -> Result<PathBuf, Error> {
    let schema = schema.as_ref();
    let out_dir = std::env::var_os("OUT_DIR").ok_or_else(|| Error::Io {
        path: schema.to_owned(),
        source: std::io::Error::other(
            "OUT_DIR is not set; call compile_schema from a build script",
        ),
    })?;
    let stem = schema
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "schema".to_owned());
    let out = PathBuf::from(out_dir).join(format!("{stem}.rs"));
    Settings::new().compile(schema, &out)?;
    Ok(out)
}

/// Writes `contents` to `path` unless the file already holds exactly that.
/// Returns whether it wrote.
///
/// # Errors
/// When the file cannot be written.
pub fn write_if_changed(path: &Path, contents: &str) -> std::io::Result<bool> {
    if fs::read(path).is_ok_and(|old| old == contents.as_bytes()) {
        return Ok(false);
    }
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent)?;
    }
    fs::write(path, contents)?;
    Ok(true)
}
