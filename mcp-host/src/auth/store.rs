//! Where credentials live between runs: the client registered at each
//! authorization server (keyed by its issuer) and the tokens for each MCP
//! server (keyed by its resource URI, and remembering their issuer).
//!
//! [`FileStore`] is the default: one JSON file under the user's state
//! directory, readable by its owner only, replaced atomically on every
//! change. [`MemoryStore`] keeps nothing past the process.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::error::AuthError;
use super::secret::Secret;

/// A client registered with an authorization server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegisteredClient {
    /// The client id.
    pub client_id: String,
    /// The secret of a confidential client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<Secret>,
    /// When the secret expires, in seconds since the epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_expires_at: Option<u64>,
    /// The token endpoint authentication method.
    pub auth_method: String,
    /// The redirect URIs registered.
    #[serde(default)]
    pub redirect_uris: Vec<String>,
}

/// The tokens for one MCP server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    /// The issuer of the authorization server that issued them.
    pub issuer: String,
    /// The access token.
    pub access_token: Secret,
    /// The refresh token, if one was issued.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<Secret>,
    /// When the access token expires, in seconds since the epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    /// When it was issued, in seconds since the epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issued_at: Option<u64>,
    /// The scopes asked for.
    #[serde(default)]
    pub requested: Vec<String>,
    /// The scopes granted.
    #[serde(default)]
    pub granted: Vec<String>,
    /// For a DPoP-bound access token (RFC 9449), the key it is bound to
    /// (base64 PKCS#8, see [`DpopKey`](super::dpop::DpopKey)); the token
    /// is presented with a proof made with it, and is useless without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dpop_key: Option<Secret>,
}

/// Keeps registrations and tokens. Implementations must keep secrets
/// confidential: never log them, and store them readable by the user
/// alone.
pub trait CredentialStore: Send + Sync + std::fmt::Debug {
    /// The client registered with `issuer`.
    ///
    /// # Errors
    ///
    /// [`AuthError::Store`] when the store cannot be read.
    fn client(&self, issuer: &str) -> Result<Option<RegisteredClient>, AuthError>;

    /// Records (or, with `None`, forgets) the client registered with
    /// `issuer`.
    ///
    /// # Errors
    ///
    /// [`AuthError::Store`] when the store cannot be written.
    fn set_client(&self, issuer: &str, client: Option<&RegisteredClient>) -> Result<(), AuthError>;

    /// The tokens for the MCP server `resource`.
    ///
    /// # Errors
    ///
    /// [`AuthError::Store`] when the store cannot be read.
    fn tokens(&self, resource: &str) -> Result<Option<Tokens>, AuthError>;

    /// Records (or, with `None`, forgets) the tokens for `resource`.
    ///
    /// # Errors
    ///
    /// [`AuthError::Store`] when the store cannot be written.
    fn set_tokens(&self, resource: &str, tokens: Option<&Tokens>) -> Result<(), AuthError>;
}

/// What a store holds.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Contents {
    #[serde(default)]
    clients: BTreeMap<String, RegisteredClient>,
    #[serde(default)]
    tokens: BTreeMap<String, Tokens>,
}

impl Contents {
    fn set<T>(map: &mut BTreeMap<String, T>, key: &str, value: Option<&T>)
    where
        T: Clone,
    {
        match value {
            Some(value) => map.insert(key.to_owned(), value.clone()),
            None => map.remove(key),
        };
    }
}

/// A store in memory, for tests and for hosts that keep nothing.
#[derive(Debug, Default)]
pub struct MemoryStore(Mutex<Contents>);

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn with<T>(&self, f: impl FnOnce(&mut Contents) -> T) -> Result<T, AuthError> {
        let mut contents = self
            .0
            .lock()
            .map_err(|_| AuthError::Store(String::from("poisoned")))?;
        Ok(f(&mut contents))
    }
}

impl CredentialStore for MemoryStore {
    fn client(&self, issuer: &str) -> Result<Option<RegisteredClient>, AuthError> {
        self.with(|c| c.clients.get(issuer).cloned())
    }

    fn set_client(&self, issuer: &str, client: Option<&RegisteredClient>) -> Result<(), AuthError> {
        self.with(|c| Contents::set(&mut c.clients, issuer, client))
    }

    fn tokens(&self, resource: &str) -> Result<Option<Tokens>, AuthError> {
        self.with(|c| c.tokens.get(resource).cloned())
    }

    fn set_tokens(&self, resource: &str, tokens: Option<&Tokens>) -> Result<(), AuthError> {
        self.with(|c| Contents::set(&mut c.tokens, resource, tokens))
    }
}

/// A store in one JSON file, mode `0600` in a directory of mode `0700`.
///
/// Every change rewrites the file: into a new file beside it, created
/// with mode `0600`, flushed to disk, then renamed over the old one, so a
/// crash leaves the old file or the new, never half of one. A file that
/// cannot be parsed is an error, never silently replaced, and so is one
/// that others can read.
///
/// Every change reads the file again, applies itself and replaces the
/// file, under a lock that every host process takes (see
/// `.credentials.json.lock` beside it): two processes that change it at
/// once both keep their change, so a refresh token rotated by one is never
/// lost to the other's write.
#[derive(Debug)]
pub struct FileStore {
    path: PathBuf,
    lock: Mutex<()>,
}

pub use crate::state::state_dir;

impl FileStore {
    /// A store in the file at `path`, which need not exist yet.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self {
            path: path.into(),
            lock: Mutex::new(()),
        }
    }

    /// The store at `credentials.json` in the user's [`state_dir`].
    ///
    /// # Errors
    ///
    /// [`AuthError::Store`] when neither `XDG_STATE_HOME` nor `HOME` is
    /// set to an absolute path.
    pub fn in_state_dir() -> Result<Self, AuthError> {
        let dir = state_dir().ok_or_else(|| {
            AuthError::Store(String::from(
                "no state directory: set XDG_STATE_HOME or HOME",
            ))
        })?;
        Ok(Self::new(dir.join("credentials.json")))
    }

    /// Where the file is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn error(&self, what: impl std::fmt::Display) -> AuthError {
        AuthError::Store(format!("{}: {what}", self.path.display()))
    }

    fn read(&self) -> Result<Contents, AuthError> {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Contents::default()),
            Err(e) => return Err(self.error(e)),
        };
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&self.path)
                .map_err(|e| self.error(e))?
                .permissions()
                .mode();
            if mode & 0o077 != 0 {
                return Err(self.error(format_args!(
                    "readable by others (mode {:o}); run `chmod 600` on it",
                    mode & 0o777
                )));
            }
        }
        serde_json::from_str(&text).map_err(|e| {
            self.error(format_args!(
                "not a credential file ({e}); move it away to start afresh"
            ))
        })
    }

    fn write(&self, contents: &Contents) -> Result<(), AuthError> {
        let text = serde_json::to_vec_pretty(contents).map_err(|e| self.error(e))?;
        crate::state::replace(&self.path, &text).map_err(|e| self.error(e))
    }

    fn change(&self, f: impl FnOnce(&mut Contents)) -> Result<(), AuthError> {
        let _guard = self.lock.lock().map_err(|_| self.error("poisoned"))?;
        let mut outcome = Ok(());
        crate::state::locked(&self.path, || {
            outcome = (|| {
                let mut contents = self.read()?;
                let before = contents.clone();
                f(&mut contents);
                if contents == before {
                    return Ok(());
                }
                self.write(&contents)
            })();
            Ok(())
        })
        .map_err(|e| self.error(e))?;
        outcome
    }
}

impl CredentialStore for FileStore {
    fn client(&self, issuer: &str) -> Result<Option<RegisteredClient>, AuthError> {
        let _guard = self.lock.lock().map_err(|_| self.error("poisoned"))?;
        Ok(self.read()?.clients.get(issuer).cloned())
    }

    fn set_client(&self, issuer: &str, client: Option<&RegisteredClient>) -> Result<(), AuthError> {
        self.change(|c| Contents::set(&mut c.clients, issuer, client))
    }

    fn tokens(&self, resource: &str) -> Result<Option<Tokens>, AuthError> {
        let _guard = self.lock.lock().map_err(|_| self.error("poisoned"))?;
        Ok(self.read()?.tokens.get(resource).cloned())
    }

    fn set_tokens(&self, resource: &str, tokens: Option<&Tokens>) -> Result<(), AuthError> {
        self.change(|c| Contents::set(&mut c.tokens, resource, tokens))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens() -> Tokens {
        Tokens {
            issuer: "https://as.example".into(),
            access_token: Secret::new("at-secret"),
            refresh_token: Some(Secret::new("rt-secret")),
            expires_at: Some(10),
            issued_at: Some(5),
            requested: vec!["a".into()],
            granted: vec!["a".into()],
            dpop_key: None,
        }
    }

    fn client() -> RegisteredClient {
        RegisteredClient {
            client_id: "cid".into(),
            client_secret: Some(Secret::new("cs-secret")),
            secret_expires_at: None,
            auth_method: "client_secret_basic".into(),
            redirect_uris: vec!["http://127.0.0.1:1/callback".into()],
        }
    }

    fn exercise(store: &dyn CredentialStore) {
        assert_eq!(store.tokens("r").expect("read"), None);
        store.set_tokens("r", Some(&tokens())).expect("write");
        store
            .set_client("https://as.example", Some(&client()))
            .expect("write");
        assert_eq!(store.tokens("r").expect("read"), Some(tokens()));
        assert_eq!(
            store.client("https://as.example").expect("read"),
            Some(client())
        );
        store.set_tokens("r", None).expect("forget");
        assert_eq!(store.tokens("r").expect("read"), None);
        assert!(store.client("https://as.example").expect("read").is_some());
    }

    #[test]
    fn memory_store() {
        exercise(&MemoryStore::new());
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "mcp-host-store-{name}-{}",
            super::super::pkce::random_text(6).expect("random")
        ));
        dir.join("nested").join("credentials.json")
    }

    #[test]
    fn file_store_round_trips_privately() {
        let path = scratch("round");
        let store = FileStore::new(&path);
        exercise(&store);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).expect("file").permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
            let dir = std::fs::metadata(path.parent().expect("dir")).expect("dir");
            assert_eq!(dir.permissions().mode() & 0o777, 0o700);
        }
        // Nothing is left beside the file but the lock every writer takes
        // (no temporary file of a replacement).
        let mut entries: Vec<String> = std::fs::read_dir(path.parent().expect("dir"))
            .expect("dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        entries.sort();
        assert_eq!(entries, [".credentials.json.lock", "credentials.json"]);
        let _ = std::fs::remove_dir_all(path.parent().and_then(Path::parent).expect("dir"));
    }

    #[test]
    fn a_corrupt_file_fails_closed() {
        let path = scratch("corrupt");
        let store = FileStore::new(&path);
        store.set_tokens("r", Some(&tokens())).expect("write");
        std::fs::write(&path, "{ not json").expect("corrupt");
        let error = store.tokens("r").expect_err("corrupt").to_string();
        assert!(error.contains("not a credential file"), "{error}");
        assert!(store.set_tokens("r", None).is_err());
        // It is left as it was.
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "{ not json");
        let _ = std::fs::remove_dir_all(path.parent().and_then(Path::parent).expect("dir"));
    }

    #[cfg(unix)]
    #[test]
    fn a_file_others_can_read_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let path = scratch("mode");
        let store = FileStore::new(&path);
        store.set_tokens("r", Some(&tokens())).expect("write");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        let error = store.tokens("r").expect_err("open").to_string();
        assert!(error.contains("chmod 600"), "{error}");
        let _ = std::fs::remove_dir_all(path.parent().and_then(Path::parent).expect("dir"));
    }

    #[test]
    fn secrets_do_not_show_in_debug() {
        let debug = format!("{:?} {:?}", tokens(), client());
        assert!(!debug.contains("secret\""), "{debug}");
        for secret in ["at-secret", "rt-secret", "cs-secret"] {
            assert!(!debug.contains(secret), "{debug}");
        }
    }
}
