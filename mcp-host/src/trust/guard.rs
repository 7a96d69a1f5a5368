//! The pins every client judges its tools against: one book, shared by a
//! [`Host`](crate::Host) and each of its clients, or a book of a
//! standalone client's own.

use std::sync::{Arc, Mutex, MutexGuard};

use super::pins::{Definition, Pins, Verdict};
use super::{PinFile, Quarantine};
use crate::names::ServerId;

/// How a [`Client`](crate::Client) holds the definitions it lists to
/// their pins, on the one path every call takes
/// ([`Client::prepare_call`](crate::Client::prepare_call), and
/// [`Client::call_tool`](crate::Client::call_tool) again before sending):
/// a tool whose definition differs from its pin is refused with
/// [`ClientError::Quarantined`](crate::ClientError::Quarantined).
#[derive(Clone, Debug, Default)]
pub enum Pinning {
    /// The client pins each definition in memory the first time it lists
    /// it, for as long as the client lives, and refuses one that changes
    /// after. The default for a client made by itself.
    #[default]
    Own,
    /// Judged against pins kept by their owner (a [`Host`](crate::Host)
    /// hands its book to every client it connects). The owner pins new
    /// definitions; the client only refuses changed ones.
    Shared(PinGuard),
    /// No pins: a definition that changed is called as it now is. Only
    /// for callers that check definitions themselves.
    Unchecked,
}

/// A book of pins behind a lock, cheap to clone and share.
#[derive(Clone, Debug)]
pub struct PinGuard(Arc<Mutex<PinBook>>);

/// The pins, and where they are kept.
#[derive(Debug)]
pub(crate) struct PinBook {
    pub(crate) pins: Pins,
    pub(crate) file: Option<PinFile>,
    /// Why the pin file cannot be used, when it cannot.
    pub(crate) broken: Option<String>,
    /// What this process pinned since the file was last written.
    pending: Vec<(ServerId, String, Definition)>,
}

impl PinBook {
    /// The pins of the file (none yet when it does not exist), and the
    /// error that makes it unusable, if one does.
    fn open(file: Option<PinFile>) -> Self {
        match file.as_ref().map(PinFile::load).transpose() {
            Ok(pins) => Self {
                pins: pins.unwrap_or_default(),
                file,
                broken: None,
                pending: Vec::new(),
            },
            Err(e) => Self {
                pins: Pins::default(),
                file,
                broken: Some(e.to_string()),
                pending: Vec::new(),
            },
        }
    }

    /// Pins `definition` of `server` (at `identity`), to be written by
    /// the next [`PinBook::save`].
    pub(crate) fn pin(&mut self, server: &ServerId, identity: &str, definition: &Definition) {
        self.pins.pin(server, identity, definition);
        self.pending
            .push((server.clone(), identity.to_owned(), definition.clone()));
    }

    /// Writes what was pinned since the last save into the file, when
    /// there is one, merged with what other processes pinned meanwhile,
    /// which this book then holds too.
    pub(crate) fn save(&mut self) -> Result<(), super::PinFileError> {
        let Some(file) = &self.file else {
            self.pending.clear();
            return Ok(());
        };
        if self.pending.is_empty() {
            return Ok(());
        }
        let pending = std::mem::take(&mut self.pending);
        let merged = file.update(|pins| {
            for (server, identity, definition) in &pending {
                pins.pin(server, identity, definition);
            }
        });
        match merged {
            Ok(pins) => {
                self.pins = pins;
                Ok(())
            }
            Err(e) => {
                self.pending = pending;
                Err(e)
            }
        }
    }
}

impl PinGuard {
    /// Pins kept in memory only.
    pub fn memory() -> Self {
        Self::open(None)
    }

    /// The pins of `file`, saved there whenever some are added. A file
    /// that cannot be used quarantines every definition (see
    /// [`Quarantine::Unpinned`]).
    pub fn file(file: PinFile) -> Self {
        Self::open(Some(file))
    }

    fn open(file: Option<PinFile>) -> Self {
        Self(Arc::new(Mutex::new(PinBook::open(file))))
    }

    /// The book, even when another thread panicked holding it: the pins
    /// themselves are never left half changed.
    pub(crate) fn lock(&self) -> MutexGuard<'_, PinBook> {
        match self.0.lock() {
            Ok(book) => book,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// Why `definition` of `server` (at `identity`, see
    /// [`identity`](super::identity)) may not be called, if it may not;
    /// with `pin_new`, a definition seen for the first time is pinned,
    /// and the file (if there is one) updated, keeping what other
    /// processes pinned meanwhile.
    pub fn judge(
        &self,
        server: &ServerId,
        identity: &str,
        definition: &Definition,
        pin_new: bool,
    ) -> Option<Quarantine> {
        let mut book = self.lock();
        if let Some(reason) = &book.broken {
            return Some(Quarantine::Unpinned(reason.clone()));
        }
        match book.pins.check(server, identity, definition) {
            Verdict::Same => None,
            Verdict::Changed(change) => Some(Quarantine::Changed(Box::new(change))),
            Verdict::New if pin_new => {
                book.pin(server, identity, definition);
                book.save()
                    .err()
                    .map(|e| Quarantine::Unpinned(e.to_string()))
            }
            Verdict::New => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trust::pins::Kind;
    use serde_json::json;

    #[test]
    fn own_pins_refuse_what_changed_after_first_sight() {
        let guard = PinGuard::memory();
        let server = ServerId::new("s").unwrap();
        let first = Definition::new(Kind::Tool, "t", json!({"name": "t"}));
        let changed = Definition::new(Kind::Tool, "t", json!({"name": "t", "description": "x"}));
        // Checking alone pins nothing.
        assert!(guard.judge(&server, "id", &first, false).is_none());
        assert!(guard.judge(&server, "id", &changed, false).is_none());
        // Pinned at first sight, then the change is refused.
        assert!(guard.judge(&server, "id", &first, true).is_none());
        assert!(guard.judge(&server, "id", &first, false).is_none());
        assert!(matches!(
            guard.judge(&server, "id", &changed, false),
            Some(Quarantine::Changed(_))
        ));
        // Another identity of the same id is another server.
        assert!(guard.judge(&server, "other", &changed, true).is_none());
    }
}
