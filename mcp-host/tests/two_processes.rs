//! Two host processes changing the pin file and the credential file at
//! once: each keeps every change of the other. The test binary runs
//! itself twice as the writers.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use mcp_host::auth::{CredentialStore, FileStore, Secret, Tokens};
use mcp_host::trust::{Definition, Kind, PinFile, PinGuard};
use mcp_host::ServerId;
use serde_json::json;

/// Set in a writer's environment: what it writes (`pins` or
/// `credentials`), where, and the tag that keeps its keys apart.
const ROLE: &str = "MCP_HOST_TEST_WRITER";
const FILE: &str = "MCP_HOST_TEST_WRITER_FILE";
const TAG: &str = "MCP_HOST_TEST_WRITER_TAG";
const EACH: usize = 40;

/// The writer: does nothing unless started by [`write_at_once`].
#[test]
fn writer() {
    let (Ok(role), Some(file), Ok(tag)) = (
        std::env::var(ROLE),
        std::env::var_os(FILE).map(PathBuf::from),
        std::env::var(TAG),
    ) else {
        return;
    };
    match role.as_str() {
        "pins" => {
            // As a host does: one book, a definition pinned at a time.
            let guard = PinGuard::file(PinFile::new(&file));
            let server = ServerId::new(tag.clone()).expect("id");
            for i in 0..EACH {
                let definition = Definition::new(
                    Kind::Tool,
                    format!("t{i}"),
                    json!({"name": format!("t{i}")}),
                );
                let held = guard.judge(&server, "stdio:[\"s\"]", &definition, true);
                assert!(held.is_none(), "{held:?}");
            }
        }
        "credentials" => {
            let store = FileStore::new(&file);
            for i in 0..EACH {
                let tokens = Tokens {
                    issuer: "https://as.example".into(),
                    access_token: Secret::new(format!("at-{tag}-{i}")),
                    refresh_token: Some(Secret::new(format!("rt-{tag}-{i}"))),
                    expires_at: None,
                    issued_at: None,
                    requested: Vec::new(),
                    granted: Vec::new(),
                    dpop_key: None,
                };
                let resource = format!("https://{tag}{i}.example/mcp");
                store.set_tokens(&resource, Some(&tokens)).expect("stored");
            }
        }
        other => panic!("no role {other}"),
    }
}

/// Runs two writers of `role` on `file` at once, tagged `a` and `b`.
fn write_at_once(role: &str, file: &Path) {
    let children: Vec<_> = ["a", "b"]
        .into_iter()
        .map(|tag| {
            Command::new(std::env::current_exe().expect("the test binary"))
                .args(["--exact", "writer", "--nocapture", "--test-threads", "1"])
                .env(ROLE, role)
                .env(FILE, file)
                .env(TAG, tag)
                .stdout(Stdio::null())
                .spawn()
                .expect("a writer starts")
        })
        .collect();
    for mut child in children {
        assert!(child.wait().expect("a writer ends").success());
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcp-host-two-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a directory");
    dir
}

#[test]
fn two_processes_pinning_at_once_keep_every_pin() {
    let dir = scratch("pins");
    let file = dir.join("pins.json");
    write_at_once("pins", &file);
    let pins = PinFile::new(&file).load().expect("a pin file");
    for tag in ["a", "b"] {
        let server = ServerId::new(tag).expect("id");
        let kept = (0..EACH)
            .filter(|i| {
                pins.get(&server, "stdio:[\"s\"]", Kind::Tool, &format!("t{i}"))
                    .is_some()
            })
            .count();
        assert_eq!(kept, EACH, "pins of {tag} lost");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn two_processes_storing_tokens_at_once_keep_every_token() {
    let dir = scratch("credentials");
    let file = dir.join("credentials.json");
    write_at_once("credentials", &file);
    let store = FileStore::new(&file);
    for tag in ["a", "b"] {
        for i in 0..EACH {
            let resource = format!("https://{tag}{i}.example/mcp");
            let tokens = store.tokens(&resource).expect("readable");
            let refresh = tokens.and_then(|t| t.refresh_token);
            assert_eq!(
                refresh.map(|r| r.expose().to_owned()),
                Some(format!("rt-{tag}-{i}")),
                "the tokens of {resource} were lost"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
