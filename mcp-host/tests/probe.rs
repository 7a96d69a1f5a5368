//! The era probe against scripted servers: silence, an error before
//! `initialize`, and a modern refusal of the version asked for.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::scripted;
use mcp_host::client::{Client, ClientError, KnownEra, NoInput};
use mcp_host::probe::ProbeError;
use mcp_host::ServerId;
use mcp_types::version::{Era, ProtocolVersion};

/// Long enough that a loaded machine still answers in time; the silent
/// server costs exactly this.
const PROBE: Duration = Duration::from_secs(2);

fn options(legacy: bool) -> mcp_host::ClientOptions {
    mcp_host::ClientOptions {
        probe_timeout: PROBE,
        ..common::options(legacy)
    }
}

fn id() -> ServerId {
    ServerId::new("scripted").expect("id")
}

#[tokio::test]
async fn a_silent_server_is_legacy() {
    let started = Instant::now();
    let client = Client::connect(
        id(),
        scripted("silent", Vec::new()),
        Arc::new(NoInput),
        options(false),
        None,
    )
    .await
    .expect("falls back to initialize");
    let session = client.session().expect("session");
    assert_eq!(session.era, Era::Legacy);
    assert_eq!(session.version, ProtocolVersion::V2025_11_25);
    // It waited for the probe timeout, no longer.
    assert!(started.elapsed() >= PROBE);
    let tools = client.list_tools().await.expect("tools");
    assert_eq!(tools.tools.len(), 3);
    assert_eq!(client.known_era(), Some(KnownEra::Legacy));
    client.shutdown().await;
}

#[tokio::test]
async fn method_not_found_before_initialize_is_legacy() {
    let started = Instant::now();
    let client = Client::connect(
        id(),
        scripted("not-found", Vec::new()),
        Arc::new(NoInput),
        options(false),
        None,
    )
    .await
    .expect("falls back to initialize");
    assert_eq!(client.session().expect("session").era, Era::Legacy);
    // An answer, so no waiting for the timeout.
    assert!(started.elapsed() < PROBE);
    let info = client
        .session()
        .and_then(|s| s.server_info)
        .expect("server info");
    assert_eq!(info.accept().name, "scripted-not-found");
    client.shutdown().await;
}

#[tokio::test]
async fn a_refused_version_is_retried_never_legacy() {
    let mut opts = options(false);
    opts.versions = vec![
        ProtocolVersion::parse("2027-03-01"),
        ProtocolVersion::V2026_07_28,
    ];
    let client = Client::connect(
        id(),
        scripted("versions", Vec::new()),
        Arc::new(NoInput),
        opts,
        None,
    )
    .await
    .expect("retries with a shared version");
    let session = client.session().expect("session");
    assert_eq!(
        (session.era, session.version),
        (Era::Modern, ProtocolVersion::V2026_07_28)
    );
    client.shutdown().await;

    // Nothing in common: an error, not a fallback to `initialize`.
    let mut opts = options(false);
    opts.versions = vec![
        ProtocolVersion::parse("2027-03-01"),
        ProtocolVersion::V2025_11_25,
    ];
    let outcome = Client::connect(
        id(),
        scripted("versions", Vec::new()),
        Arc::new(NoInput),
        opts,
        None,
    )
    .await;
    assert!(
        matches!(
            outcome,
            Err(ClientError::Probe(ProbeError::NoCommonVersion { .. }))
        ),
        "{outcome:?}"
    );
}

#[tokio::test]
async fn a_remembered_legacy_era_skips_the_probe() {
    let started = Instant::now();
    let client = Client::connect(
        id(),
        scripted("silent", Vec::new()),
        Arc::new(NoInput),
        options(false),
        Some(KnownEra::Legacy),
    )
    .await
    .expect("initialize at once");
    assert_eq!(client.session().expect("session").era, Era::Legacy);
    assert!(started.elapsed() < PROBE);
    client.shutdown().await;
}

#[tokio::test]
async fn a_remembered_era_that_no_longer_holds_is_probed_again() {
    // Remembered as legacy, but the server is modern-only now: its refusal
    // of `initialize` sends the client back to the probe.
    let client = Client::connect(
        id(),
        scripted("versions", Vec::new()),
        Arc::new(NoInput),
        options(false),
        Some(KnownEra::Legacy),
    )
    .await
    .expect("re-probed");
    assert_eq!(client.session().expect("session").era, Era::Modern);
    assert_eq!(client.known_era(), Some(KnownEra::Modern));
    client.shutdown().await;
}
