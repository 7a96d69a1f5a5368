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

/// Long enough that a loaded machine still answers in time: no test that
/// expects an answer waits this long unless something is wrong.
const PROBE: Duration = Duration::from_secs(30);

/// The probe timeout of the tests of silence, which cost exactly this.
const SHORT_PROBE: Duration = Duration::from_secs(2);

fn options(legacy: bool) -> mcp_host::ClientOptions {
    mcp_host::ClientOptions {
        probe_timeout: PROBE,
        ..common::options(legacy)
    }
}

fn short_options() -> mcp_host::ClientOptions {
    mcp_host::ClientOptions {
        probe_timeout: SHORT_PROBE,
        ..common::options(false)
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
        short_options(),
        None,
    )
    .await
    .expect("falls back to initialize");
    let session = client.session().expect("session");
    assert_eq!(session.era, Era::Legacy);
    assert_eq!(session.version, ProtocolVersion::V2025_11_25);
    // It waited for the probe timeout.
    assert!(started.elapsed() >= SHORT_PROBE);
    let tools = client.list_tools().await.expect("tools");
    assert_eq!(tools.tools.len(), 3);
    assert_eq!(client.known_era(), Some(KnownEra::Legacy));
    client.shutdown().await;
}

#[tokio::test]
async fn a_slow_modern_server_is_not_taken_for_legacy() {
    // Its discovery answer comes after the probe timeout, and it then
    // refuses `initialize` as a modern server does: the client asks again,
    // patiently, and settles on the modern era.
    let delay = vec![("SLUGGISH_SECONDS".to_owned(), "4".to_owned())];
    let client = Client::connect(
        id(),
        scripted("sluggish", delay),
        Arc::new(NoInput),
        short_options(),
        None,
    )
    .await
    .expect("connects in the end");
    let session = client.session().expect("session");
    assert_eq!(
        (session.era, session.version),
        (Era::Modern, ProtocolVersion::V2026_07_28)
    );
    let tools = client.list_tools().await.expect("tools");
    assert!(tools.tools.iter().any(|t| t.accept_ref().name == "echo"));
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
