//! Where a JWT the host presents but does not make comes from: a
//! workload's platform-issued token (the JWT bearer grant of workload
//! identity federation) or a person's identity assertion from the
//! company's identity provider (enterprise-managed authorization).
//!
//! Such tokens are short-lived and replaced behind the host's back (a
//! platform rewrites the file, a command fetches a fresh one), so a
//! source is read again for every token request, never cached.

use std::path::PathBuf;
use std::time::Duration;

use super::error::AuthError;
use super::secret::Secret;

/// The largest token read, in bytes.
pub const MAX_TOKEN: usize = 64 * 1024;

/// How long a command may take.
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(30);

/// Where a token comes from. `Debug` never shows an inline token.
#[derive(Clone)]
pub enum TokenSource {
    /// A token given directly (by a program that fetched it itself).
    Inline(Secret),
    /// A file holding the token, such as a projected service account
    /// token; read again each time.
    File(PathBuf),
    /// A program and its arguments (no shell) that print the token on
    /// stdout; run again each time.
    Command(Vec<String>),
}

impl std::fmt::Debug for TokenSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Inline(_) => f.write_str("Inline(..)"),
            Self::File(path) => f.debug_tuple("File").field(path).finish(),
            Self::Command(argv) => f.debug_tuple("Command").field(argv).finish(),
        }
    }
}

impl TokenSource {
    /// The token now: the trimmed text of the file or of the command's
    /// output.
    ///
    /// # Errors
    ///
    /// [`AuthError::TokenSource`] when the file cannot be read, the
    /// command fails or takes too long, or the text is empty, too long
    /// or not one line of printable ASCII. The message never holds the
    /// token.
    pub async fn read(&self) -> Result<Secret, AuthError> {
        let fail = |reason: String| AuthError::TokenSource(reason);
        let bytes = match self {
            Self::Inline(secret) => return checked(secret.expose().as_bytes()).map_err(fail),
            Self::File(path) => {
                let bytes = tokio::fs::read(path)
                    .await
                    .map_err(|e| fail(format!("{}: {}", path.display(), e.kind())))?;
                zeroize::Zeroizing::new(bytes)
            }
            Self::Command(argv) => {
                let Some((program, args)) = argv.split_first() else {
                    return Err(fail(String::from("the command is empty")));
                };
                let mut command = tokio::process::Command::new(program);
                command
                    .args(args)
                    .stdin(std::process::Stdio::null())
                    .stderr(std::process::Stdio::null())
                    .kill_on_drop(true);
                let output = tokio::time::timeout(COMMAND_TIMEOUT, command.output())
                    .await
                    .map_err(|_| {
                        fail(format!(
                            "`{program}` took longer than {} s",
                            COMMAND_TIMEOUT.as_secs()
                        ))
                    })?
                    .map_err(|e| fail(format!("`{program}` could not run: {}", e.kind())))?;
                if !output.status.success() {
                    return Err(fail(format!("`{program}` failed ({})", output.status)));
                }
                zeroize::Zeroizing::new(output.stdout)
            }
        };
        checked(&bytes).map_err(|reason| match self {
            Self::File(path) => fail(format!("{}: {reason}", path.display())),
            _ => fail(reason),
        })
    }
}

/// The token in `bytes`, trimmed, if it is one line of printable ASCII
/// of a sane length.
fn checked(bytes: &[u8]) -> Result<Secret, String> {
    if bytes.len() > MAX_TOKEN {
        return Err(format!("longer than {MAX_TOKEN} bytes"));
    }
    let text = std::str::from_utf8(bytes).map_err(|_| String::from("not text"))?;
    let token = text.trim();
    if token.is_empty() {
        return Err(String::from("empty"));
    }
    if !token.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(String::from("not one token of printable ASCII"));
    }
    Ok(Secret::new(token))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("mcp-host-source-{}-{name}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        dir.join("token")
    }

    #[tokio::test]
    async fn a_file_is_read_again_each_time() {
        let path = scratch("file");
        std::fs::write(&path, "first.jwt.value\n").expect("write");
        let source = TokenSource::File(path.clone());
        assert_eq!(
            source.read().await.expect("read").expose(),
            "first.jwt.value"
        );
        std::fs::write(&path, "second.jwt.value").expect("write");
        assert_eq!(
            source.read().await.expect("read").expose(),
            "second.jwt.value"
        );
        std::fs::write(&path, "   \n").expect("write");
        assert!(matches!(
            source.read().await,
            Err(AuthError::TokenSource(_))
        ));
        std::fs::write(&path, "two words").expect("write");
        let error = source.read().await.expect_err("refused").to_string();
        assert!(!error.contains("words"), "{error}");
        let _ = std::fs::remove_file(&path);
        assert!(source.read().await.is_err());
    }

    #[tokio::test]
    async fn a_command_prints_the_token() {
        let source = TokenSource::Command(vec!["echo".into(), "from-a-command".into()]);
        assert_eq!(
            source.read().await.expect("read").expose(),
            "from-a-command"
        );
        assert!(TokenSource::Command(vec!["false".into()])
            .read()
            .await
            .is_err());
        assert!(TokenSource::Command(Vec::new()).read().await.is_err());
        assert!(TokenSource::Command(vec!["/no/such/program".into()])
            .read()
            .await
            .is_err());
    }

    #[test]
    fn debug_hides_an_inline_token() {
        let shown = format!("{:?}", TokenSource::Inline(Secret::new("s3cr3t")));
        assert!(!shown.contains("s3cr3t"));
    }
}
