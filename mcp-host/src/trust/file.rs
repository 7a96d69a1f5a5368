//! The pin file: [`Pins`] kept between runs, replaced atomically.

use std::path::{Path, PathBuf};

use super::pins::Pins;

/// The pins in one JSON file (`pins.json` in the user's state directory
/// by default), mode `0600`, replaced atomically on every change. A file
/// that cannot be read or parsed is an error, never silently replaced:
/// the host then quarantines everything until it is moved away.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PinFile {
    path: PathBuf,
}

/// Why the pin file cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the pin file {path}: {reason}")]
pub struct PinFileError {
    /// Where the file is.
    pub path: String,
    /// What is wrong.
    pub reason: String,
}

impl PinFile {
    /// The pin file at `path`, which need not exist yet.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self { path: path.into() }
    }

    /// The pin file `pins.json` in the user's state directory.
    ///
    /// # Errors
    ///
    /// When neither `XDG_STATE_HOME` nor `HOME` is an absolute path.
    pub fn in_state_dir() -> Result<Self, PinFileError> {
        let dir = crate::state::state_dir().ok_or_else(|| PinFileError {
            path: String::from("pins.json"),
            reason: String::from("no state directory: set XDG_STATE_HOME or HOME"),
        })?;
        Ok(Self::new(dir.join("pins.json")))
    }

    /// Where the file is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn error(&self, reason: impl ToString) -> PinFileError {
        PinFileError {
            path: self.path.display().to_string(),
            reason: reason.to_string(),
        }
    }

    /// The pins in the file; none when there is no file.
    ///
    /// # Errors
    ///
    /// [`PinFileError`] when the file cannot be read or is not a pin file.
    pub fn load(&self) -> Result<Pins, PinFileError> {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Pins::default()),
            Err(e) => return Err(self.error(e)),
        };
        Pins::from_json(&text).map_err(|e| {
            self.error(format_args!(
                "not a pin file ({e}); every definition is quarantined until it is moved \
                 away, and then every definition is pinned afresh"
            ))
        })
    }

    /// Replaces the file with `pins`, whatever it holds now. A host
    /// changes its pins with [`PinFile::update`] instead, which keeps what
    /// other processes pinned meanwhile.
    ///
    /// # Errors
    ///
    /// [`PinFileError`] when it cannot be written.
    pub fn save(&self, pins: &Pins) -> Result<(), PinFileError> {
        crate::state::locked(&self.path, || {
            crate::state::replace(&self.path, pins.to_json().as_bytes())
        })
        .map_err(|e| self.error(e))
    }

    /// Applies `change` to the pins the file holds now, under the lock
    /// every host process takes to change it, and replaces the file with
    /// the result, which it returns: what another process pinned since
    /// this one read the file is kept.
    ///
    /// # Errors
    ///
    /// [`PinFileError`] when the file cannot be read, is not a pin file,
    /// or cannot be written.
    pub fn update(&self, change: impl FnOnce(&mut Pins)) -> Result<Pins, PinFileError> {
        let mut failure = None;
        let merged = crate::state::locked(&self.path, || {
            let mut pins = match self.load() {
                Ok(pins) => pins,
                Err(e) => {
                    failure = Some(e);
                    return Ok(None);
                }
            };
            change(&mut pins);
            crate::state::replace(&self.path, pins.to_json().as_bytes())?;
            Ok(Some(pins))
        })
        .map_err(|e| self.error(e))?;
        match (merged, failure) {
            (Some(pins), _) => Ok(pins),
            (None, Some(e)) => Err(e),
            (None, None) => Err(self.error("not written")),
        }
    }
}
