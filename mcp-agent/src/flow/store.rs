//! The flow policy's files in the host's state directory: the reviewed
//! definitions (`reviews.json`) and what servers hold
//! (`flow-holdings.json`), each mode `0600`, replaced whole and
//! atomically, and changed under a lock, read again and merged there, so
//! that no host process's change is lost to another's.
//!
//! A file that cannot be read or parsed is an error, never an empty book:
//! an empty holdings file would let a server that holds untrusted data
//! pass for trusted.

use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::Serialize;

use super::holdings::Holdings;
use super::review::Reviews;

/// Why a flow file could not be used.
#[derive(Debug, thiserror::Error)]
#[error("the flow policy's file {}: {reason}", path.display())]
pub struct StoreError {
    path: PathBuf,
    reason: String,
}

/// The flow policy's files in one directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlowStore {
    dir: PathBuf,
}

impl FlowStore {
    /// The files in `dir`.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// The files in the host's state directory
    /// ([`mcp_host::state::state_dir`]), if there is one.
    pub fn in_state_dir() -> Option<Self> {
        mcp_host::state::state_dir().map(Self::new)
    }

    /// Where the reviewed definitions are kept.
    pub fn reviews_path(&self) -> PathBuf {
        self.dir.join("reviews.json")
    }

    /// Where what servers hold is kept.
    pub fn holdings_path(&self) -> PathBuf {
        self.dir.join("flow-holdings.json")
    }

    /// The reviewed definitions; none when the file does not exist.
    ///
    /// # Errors
    ///
    /// When the file exists but cannot be read or parsed.
    pub fn reviews(&self) -> Result<Reviews, StoreError> {
        read(&self.reviews_path())
    }

    /// What servers hold; nothing when the file does not exist.
    ///
    /// # Errors
    ///
    /// When the file exists but cannot be read or parsed.
    pub fn holdings(&self) -> Result<Holdings, StoreError> {
        read(&self.holdings_path())
    }

    /// Changes the reviewed definitions under the file's lock, read
    /// afresh; returns what `change` returns and the book as written.
    ///
    /// # Errors
    ///
    /// When the file cannot be read, parsed or written.
    pub fn update_reviews<T>(
        &self,
        change: impl FnOnce(&mut Reviews) -> T,
    ) -> Result<(T, Reviews), StoreError> {
        update(&self.reviews_path(), change)
    }

    /// Changes what servers hold under the file's lock, read afresh;
    /// returns what `change` returns and the book as written.
    ///
    /// # Errors
    ///
    /// When the file cannot be read, parsed or written.
    pub fn update_holdings<T>(
        &self,
        change: impl FnOnce(&mut Holdings) -> T,
    ) -> Result<(T, Holdings), StoreError> {
        update(&self.holdings_path(), change)
    }
}

fn error(path: &Path, reason: impl ToString) -> StoreError {
    StoreError {
        path: path.to_owned(),
        reason: reason.to_string(),
    }
}

fn read<T: DeserializeOwned + Default>(path: &Path) -> Result<T, StoreError> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| error(path, e)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(T::default()),
        Err(e) => Err(error(path, e)),
    }
}

fn update<B, T>(path: &Path, change: impl FnOnce(&mut B) -> T) -> Result<(T, B), StoreError>
where
    B: Serialize + DeserializeOwned + Default,
{
    let mut failure = None;
    let outcome = mcp_host::state::locked(path, || {
        let mut book: B = match read(path) {
            Ok(book) => book,
            Err(e) => {
                failure = Some(e);
                return Ok(None);
            }
        };
        let out = change(&mut book);
        let text = serde_json::to_vec_pretty(&book).map_err(std::io::Error::other)?;
        mcp_host::state::replace(path, &text)?;
        Ok(Some((out, book)))
    });
    match (outcome, failure) {
        (_, Some(e)) => Err(e),
        (Ok(Some(done)), None) => Ok(done),
        (Ok(None), None) => Err(error(path, "not written")),
        (Err(e), None) => Err(error(path, e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn books_round_trip_private_and_a_broken_file_is_an_error() {
        let dir = std::env::temp_dir().join(format!(
            "mcp-agent-flow-store-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let store = FlowStore::new(&dir);
        assert_eq!(store.holdings().expect("none yet"), Holdings::default());
        let (changed, book) = store
            .update_holdings(|h| h.hold("notes", ["web".to_owned()]))
            .expect("written");
        assert!(changed);
        assert_eq!(store.holdings().expect("read"), book);
        store
            .update_reviews(|r| r.accept("notes", "create_note", "abc"))
            .expect("written");
        assert!(store
            .reviews()
            .expect("read")
            .accepted("notes", "create_note", "abc"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(store.holdings_path())
                .expect("exists")
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        std::fs::write(store.holdings_path(), b"{not json").expect("written");
        assert!(store.holdings().is_err());
        assert!(store.update_holdings(|h| h.clear("notes")).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
