//! The file-system front end for build scripts and the CLI.

use std::fs;
use std::path::{Path, PathBuf};

use crate::{Error, Settings};

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
        if std::env::var_os("OUT_DIR").is_some() && std::env::var_os("CARGO_MANIFEST_DIR").is_some()
        {
            println!("cargo:rerun-if-changed={}", schema.display());
        }
        let code = self.generate_file(schema)?;
        let out = out.as_ref();
        write_if_changed(out, &code).map_err(|source| Error::Io {
            path: out.to_owned(),
            source,
        })
    }

    /// Reads the schema file at `schema` and generates its Rust source; the
    /// header names the file (not its directory) unless
    /// [`Settings::source_name`] was set.
    ///
    /// # Errors
    /// When the schema cannot be read or parsed, or generation fails.
    pub fn generate_file(&self, schema: impl AsRef<Path>) -> Result<String, Error> {
        let schema = schema.as_ref();
        let text = fs::read_to_string(schema).map_err(|source| Error::Io {
            path: schema.to_owned(),
            source,
        })?;
        let value: serde_json::Value =
            serde_json::from_str(&text).map_err(|source| Error::Json {
                path: schema.to_owned(),
                source,
            })?;
        let mut settings = self.clone();
        if settings.source_name.is_none() {
            if let Some(name) = schema.file_name() {
                settings.source_name(format!("`{}`", name.to_string_lossy()));
            }
        }
        settings.generate(&value)
    }
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
