//! Saved conversations on disk: one file a conversation, named by its
//! [`ConversationId`], in a folder of mode `0700` (the `conversations`
//! folder of the host's state directory). A file is replaced whole and
//! atomically, mode `0600`, and holds the title, the time it was saved
//! and the [`Saved`] form.
//!
//! This is the only module here that touches the disk; what a file
//! means, and whether it may be reopened, [`Conversation::reopen`]
//! decides.

use std::fmt;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::flow::Origin;

use super::core::{Bounds, Conversation};
use super::saved::{ReopenError, Saved};

/// Most bytes of a conversation's file read; a larger file is refused.
pub const FILE_LIMIT: u64 = 64 << 20;

/// Most characters of a title kept.
pub const TITLE_LIMIT: usize = 200;

/// A saved conversation's id: 128 random bits, written as 32 lowercase
/// hex digits, which is also its file's name. Parsing takes exactly that
/// form, so an id never names a path outside its folder.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ConversationId([u8; 16]);

impl ConversationId {
    /// A new id from the system's random source.
    ///
    /// # Errors
    ///
    /// [`StoreError::Random`] when the source fails.
    pub fn random() -> Result<Self, StoreError> {
        crate::random::bytes()
            .map(Self)
            .map_err(|e| StoreError::Random(e.to_string()))
    }
}

impl fmt::Display for ConversationId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::random::write_hex(&self.0, f)
    }
}

impl fmt::Debug for ConversationId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ConversationId({self})")
    }
}

/// A string that is not 32 lowercase hex digits.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a conversation id is 32 lowercase hex digits")]
pub struct BadId;

impl FromStr for ConversationId {
    type Err = BadId;

    fn from_str(text: &str) -> Result<Self, BadId> {
        crate::random::parse_hex(text).map(Self).ok_or(BadId)
    }
}

/// Why the store could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The system's random source failed.
    #[error("no random bytes for a conversation id: {0}")]
    Random(String),
    /// No conversation of that id is saved.
    #[error("no saved conversation {0}")]
    NotFound(ConversationId),
    /// The file is larger than [`FILE_LIMIT`].
    #[error("saved conversation {0} is larger than {FILE_LIMIT} bytes")]
    TooLarge(ConversationId),
    /// The file or folder could not be read or written.
    #[error("saved conversations, {}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
    /// The file is not a saved conversation.
    #[error("saved conversation {id} does not parse: {reason}")]
    Parse {
        /// Its id.
        id: ConversationId,
        /// Why.
        reason: String,
    },
    /// The file parses but may not be reopened.
    #[error("saved conversation {id} may not be reopened: {source}")]
    Reopen {
        /// Its id.
        id: ConversationId,
        /// Why.
        source: ReopenError,
    },
}

/// What a list shows of a saved conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// Its id.
    pub id: ConversationId,
    /// Its title.
    pub title: String,
    /// When it was saved, in seconds since the Unix epoch.
    pub saved_at: u64,
    /// Whether untrusted text entered its context.
    pub tainted: bool,
    /// Each origin of untrusted items, with how many it wrote.
    pub untrusted: Vec<(Origin, usize)>,
    /// How many messages it holds.
    pub messages: usize,
}

/// The saved conversations, newest first, and how many files were
/// skipped because they could not be read, parsed or reopened.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Listing {
    /// The conversations, newest first.
    pub summaries: Vec<Summary>,
    /// Files named as conversations that could not be listed.
    pub skipped: usize,
}

/// One file.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct File {
    title: String,
    saved_at: u64,
    conversation: Saved,
}

/// The saved conversations in one folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conversations {
    dir: PathBuf,
}

impl Conversations {
    /// The conversations whose files are in `dir`.
    pub fn at(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// The conversations in the `conversations` folder of the host's
    /// state directory ([`mcp_host::state::state_dir`], as for
    /// [`FlowStore`](crate::flow::FlowStore)), if there is one.
    pub fn in_state_dir() -> Option<Self> {
        mcp_host::state::state_dir().map(|dir| Self::at(dir.join("conversations")))
    }

    /// The file of `id`.
    pub fn path(&self, id: &ConversationId) -> PathBuf {
        self.dir.join(format!("{id}.json"))
    }

    /// Saves `conversation` as `id` with `title` (cut to [`TITLE_LIMIT`]
    /// characters, control characters removed), replacing what `id` was.
    ///
    /// # Errors
    ///
    /// [`StoreError::Io`] when the file cannot be written.
    pub fn save(
        &self,
        id: &ConversationId,
        title: &str,
        conversation: &Conversation,
    ) -> Result<(), StoreError> {
        let now = SystemTime::now().duration_since(UNIX_EPOCH);
        self.write(id, title, conversation, now.map_or(0, |d| d.as_secs()))
    }

    fn write(
        &self,
        id: &ConversationId,
        title: &str,
        conversation: &Conversation,
        saved_at: u64,
    ) -> Result<(), StoreError> {
        let file = File {
            title: clean_title(title),
            saved_at,
            conversation: conversation.save(),
        };
        let path = self.path(id);
        let io = |source| StoreError::Io {
            path: path.clone(),
            source,
        };
        let text = serde_json::to_vec(&file).map_err(|e| io(e.into()))?;
        mcp_host::state::replace(&path, &text).map_err(io)
    }

    /// The saved conversations, newest first. A file named as a
    /// conversation that cannot be read, parsed or reopened is skipped
    /// and counted; other files are passed over. No folder: none.
    ///
    /// # Errors
    ///
    /// [`StoreError::Io`] when the folder cannot be read.
    pub fn list(&self) -> Result<Listing, StoreError> {
        let io = |source| StoreError::Io {
            path: self.dir.clone(),
            source,
        };
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Listing::default()),
            Err(e) => return Err(io(e)),
        };
        let mut listing = Listing::default();
        for entry in entries {
            let name = entry.map_err(io)?.file_name();
            let id = name.to_str().and_then(|n| n.strip_suffix(".json"));
            let Some(Ok(id)) = id.map(ConversationId::from_str) else {
                continue;
            };
            match self.open(&id, Bounds::default()) {
                Ok((summary, _)) => listing.summaries.push(summary),
                Err(_) => listing.skipped += 1,
            }
        }
        listing
            .summaries
            .sort_by_key(|s| std::cmp::Reverse((s.saved_at, s.id)));
        Ok(listing)
    }

    /// The conversation saved as `id`, reopened under `bounds`, and its
    /// summary.
    ///
    /// # Errors
    ///
    /// [`StoreError::NotFound`], [`StoreError::TooLarge`] past
    /// [`FILE_LIMIT`], [`StoreError::Io`], [`StoreError::Parse`] for a
    /// file that is not a saved conversation, and [`StoreError::Reopen`]
    /// for one that may not be reopened.
    pub fn open(
        &self,
        id: &ConversationId,
        bounds: Bounds,
    ) -> Result<(Summary, Conversation), StoreError> {
        let bytes = read_bounded(&self.path(id), id)?;
        let file: File = serde_json::from_slice(&bytes).map_err(|e| StoreError::Parse {
            id: *id,
            reason: e.to_string(),
        })?;
        let conversation = Conversation::reopen(file.conversation, bounds)
            .map_err(|source| StoreError::Reopen { id: *id, source })?;
        let ledger = conversation.ledger();
        let summary = Summary {
            id: *id,
            title: file.title,
            saved_at: file.saved_at,
            tainted: ledger.tainted(),
            untrusted: ledger
                .untrusted_sources()
                .map(|(origin, n)| (origin.clone(), n))
                .collect(),
            messages: conversation.messages().len(),
        };
        Ok((summary, conversation))
    }
}

/// The file's bytes, no more than [`FILE_LIMIT`].
fn read_bounded(path: &Path, id: &ConversationId) -> Result<Vec<u8>, StoreError> {
    let io = |source: std::io::Error| match source.kind() {
        std::io::ErrorKind::NotFound => StoreError::NotFound(*id),
        _ => StoreError::Io {
            path: path.to_owned(),
            source,
        },
    };
    let file = std::fs::File::open(path).map_err(io)?;
    if file.metadata().map_err(io)?.len() > FILE_LIMIT {
        return Err(StoreError::TooLarge(*id));
    }
    let mut bytes = Vec::new();
    // A file that grows after the check is still read no further.
    file.take(FILE_LIMIT + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > FILE_LIMIT {
        return Err(StoreError::TooLarge(*id));
    }
    Ok(bytes)
}

/// `title` without control characters, at most [`TITLE_LIMIT`]
/// characters, trimmed.
fn clean_title(title: &str) -> String {
    let kept: String = title
        .chars()
        .filter(|c| !c.is_control())
        .take(TITLE_LIMIT)
        .collect();
    kept.trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::saved::tests::tainted;

    /// An empty folder of this test's own.
    fn scratch(name: &str) -> Conversations {
        let dir = std::env::temp_dir()
            .join(format!("mcp-agent-conversations-{}", std::process::id()))
            .join(name);
        let _ = std::fs::remove_dir_all(&dir);
        Conversations::at(dir)
    }

    fn id() -> ConversationId {
        ConversationId::random().expect("random")
    }

    #[test]
    fn ids_are_32_lowercase_hex_digits_and_nothing_else() {
        let id = id();
        assert_eq!(id.to_string().parse(), Ok(id));
        let upper = id.to_string().to_uppercase();
        let wrong = ["../x", "", "abc", &upper, "../../../../etc/passwd"];
        for text in wrong {
            assert_eq!(text.parse::<ConversationId>(), Err(BadId), "{text}");
        }
        let spelled = "0123456789abcdef0123456789abcdef";
        assert_eq!(
            spelled
                .parse::<ConversationId>()
                .map(|i| i.to_string())
                .as_deref(),
            Ok(spelled)
        );
    }

    #[test]
    fn a_saved_conversation_is_private_and_reopens_tainted() {
        let store = scratch("private");
        let id = id();
        let conversation = tainted();
        let title = format!("Inbox\u{1b}[31m\n{}", "x".repeat(300));
        store.save(&id, &title, &conversation).expect("saved");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).expect("exists").permissions().mode();
            assert_eq!(mode(&store.path(&id)) & 0o777, 0o600);
            assert_eq!(mode(&store.dir) & 0o777, 0o700);
        }
        let (summary, reopened) = store.open(&id, Bounds::default()).expect("opens");
        assert!(summary.title.starts_with("Inbox[31mxxx"));
        assert_eq!(summary.title.chars().count(), TITLE_LIMIT);
        assert!(summary.tainted);
        assert_eq!(summary.untrusted, [(Origin::Server("mail".into()), 1)]);
        assert_eq!(summary.messages, 3);
        assert_eq!(reopened.messages(), conversation.messages());
        assert!(matches!(
            store.open(&self::id(), Bounds::default()),
            Err(StoreError::NotFound(_))
        ));
        let _ = std::fs::remove_dir_all(&store.dir);
    }

    #[test]
    fn a_file_that_lost_its_labels_or_passes_the_limit_does_not_open() {
        let store = scratch("stripped");
        let id = id();
        store.save(&id, "t", &tainted()).expect("saved");
        let mut file: serde_json::Value =
            serde_json::from_slice(&std::fs::read(store.path(&id)).expect("read")).expect("json");
        file["conversation"]["ledger"] =
            serde_json::json!({"entries": [], "kept": 0, "unsearched": 0});
        std::fs::write(store.path(&id), file.to_string()).expect("written");
        assert!(matches!(
            store.open(&id, Bounds::default()),
            Err(StoreError::Reopen {
                source: ReopenError::UnlabelledResult { .. },
                ..
            })
        ));
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(store.path(&id))
            .expect("opened");
        file.set_len(FILE_LIMIT + 1).expect("grown");
        assert!(matches!(
            store.open(&id, Bounds::default()),
            Err(StoreError::TooLarge(_))
        ));
        let _ = std::fs::remove_dir_all(&store.dir);
    }

    #[test]
    fn the_list_is_newest_first_and_skips_what_it_cannot_read() {
        let store = scratch("list");
        assert_eq!(store.list().expect("no folder"), Listing::default());
        let (old, new) = (id(), id());
        store.write(&old, "old", &tainted(), 100).expect("saved");
        store.write(&new, "new", &tainted(), 200).expect("saved");
        std::fs::write(store.path(&id()), b"{not json").expect("written");
        // Too large: refused before it is read.
        let large = std::fs::File::create(store.path(&id())).expect("created");
        large.set_len(FILE_LIMIT + 1).expect("grown");
        std::fs::write(store.dir.join("notes.txt"), b"not a conversation").expect("written");
        let listing = store.list().expect("listed");
        let titles: Vec<&str> = listing.summaries.iter().map(|s| s.title.as_str()).collect();
        assert_eq!(titles, ["new", "old"]);
        assert_eq!(listing.summaries[0].id, new);
        assert_eq!(listing.skipped, 2);
        let _ = std::fs::remove_dir_all(&store.dir);
    }
}
