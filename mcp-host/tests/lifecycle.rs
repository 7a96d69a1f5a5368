//! The host's lifecycle and policy against scripted servers: a crashed
//! server is restarted and the call in flight retried, shutdown escalates,
//! and annotations count only from trusted servers.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::{host_config, options, scripted, scripted_entry};
use mcp_host::approval::{ApproveAll, Grant};
use mcp_host::client::{CallOptions, Client, NoInput, Shutdown};
use mcp_host::{Host, ServerId};
use serde_json::{json, Map};

#[tokio::test]
async fn a_crashed_server_is_restarted_and_the_call_retried() {
    let markers = std::env::temp_dir().join(format!("mcp-host-crash-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&markers);
    std::fs::create_dir_all(&markers).expect("marker dir");
    let entry = scripted_entry(
        "crash",
        json!({"env": {"MARKER_DIR": markers.display().to_string()}}),
    );
    let host = Host::builder(host_config(json!({ "svc": entry })))
        .approver(Arc::new(ApproveAll))
        .options(options(false))
        .start()
        .await;
    let id = ServerId::new("svc").expect("id");
    let before = host.client(&id).await.expect("connected");
    let call = host
        .prepare("svc__flaky", Map::new())
        .await
        .expect("prepared");
    let approval = host.authorize(&call).await.expect("approved");
    // The first attempt kills the process; the host restarts it and sends
    // the call again.
    let result = host
        .call_tool(call, approval, &CallOptions::default())
        .await
        .expect("retried after the restart");
    let text =
        serde_json::to_value(result.accept()).expect("encodes")["content"][0]["text"].clone();
    assert_eq!(text, json!("flaky done"));
    assert!(markers.join("crashed").exists(), "the server did crash");
    let after = host.client(&id).await.expect("reconnected");
    assert!(
        !Arc::ptr_eq(&before, &after),
        "a new client replaced the dead one"
    );
    host.shutdown().await;
    let _ = std::fs::remove_dir_all(&markers);
}

#[tokio::test]
async fn shutdown_escalates_to_sigkill() {
    let mut opts = options(false);
    opts.shutdown_grace = Duration::from_millis(200);
    let stubborn = ServerId::new("stubborn").expect("id");
    let client = Client::connect(
        stubborn,
        scripted("stubborn", Vec::new()),
        Arc::new(NoInput),
        opts.clone(),
        None,
    )
    .await
    .expect("connects");
    assert_eq!(client.shutdown().await, Some(Shutdown::Killed));
    assert_eq!(client.shutdown().await, Some(Shutdown::AlreadyGone));
    // A server that exits by itself is reported as such however long the
    // grace: a generous one keeps a busy machine from turning it into a
    // kill.
    opts.shutdown_grace = Duration::from_secs(30);
    let polite = ServerId::new("polite").expect("id");
    let client = Client::connect(
        polite,
        scripted("versions", Vec::new()),
        Arc::new(NoInput),
        opts,
        None,
    )
    .await
    .expect("connects");
    assert_eq!(client.shutdown().await, Some(Shutdown::Exited));
}

#[tokio::test]
async fn only_trusted_servers_relax_the_policy() {
    // No approver: only the policy can let a call through.
    let host = Host::builder(host_config(json!({
        "trusted": scripted_entry("versions", json!({"trusted": true})),
        "untrusted": scripted_entry("versions", json!({})),
    })))
    .options(options(false))
    .start()
    .await;
    let call = host
        .prepare("trusted__echo", Map::new())
        .await
        .expect("prepared");
    let approval = host
        .authorize(&call)
        .await
        .expect("read-only on a trusted server");
    assert_eq!(approval.grant(), Grant::Policy);
    host.call_tool(call, approval, &CallOptions::default())
        .await
        .expect("runs");
    // The same annotation from an untrusted server relaxes nothing.
    let call = host
        .prepare("untrusted__echo", Map::new())
        .await
        .expect("prepared");
    let denied = host.authorize(&call).await.expect_err("asked, and denied");
    assert_eq!(
        (denied.tool.as_str(), denied.reason.as_str(), denied.by),
        ("untrusted__echo", "no approver is configured", "deny-all")
    );
    // A tool that may write is asked about even on a trusted server.
    let call = host
        .prepare("trusted__flaky", Map::new())
        .await
        .expect("prepared");
    let denied = host.authorize(&call).await.expect_err("asked, and denied");
    assert_eq!(
        (denied.tool.as_str(), denied.reason.as_str(), denied.by),
        ("trusted__flaky", "no approver is configured", "deny-all")
    );
    host.shutdown().await;
}

#[tokio::test]
async fn a_timed_out_call_is_cancelled_on_stdio() {
    let markers = std::env::temp_dir().join(format!("mcp-host-cancel-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&markers);
    std::fs::create_dir_all(&markers).expect("marker dir");
    let env = vec![("MARKER_DIR".to_owned(), markers.display().to_string())];
    let id = ServerId::new("slow").expect("id");
    let client = Client::connect(
        id,
        scripted("versions", env),
        Arc::new(NoInput),
        options(false),
        None,
    )
    .await
    .expect("connects");
    let call = client
        .prepare_call("slow", Map::new())
        .await
        .expect("prepared");
    let approval = mcp_host::approval::Gate::new(Default::default(), Arc::new(ApproveAll))
        .authorize(&call)
        .await
        .expect("approved");
    let hurried = CallOptions {
        timeout: Some(Duration::from_millis(200)),
        progress: None,
        ..CallOptions::default()
    };
    let outcome = client.call_tool(call, approval, &hurried).await;
    assert!(
        matches!(outcome, Err(mcp_host::ClientError::Timeout(_))),
        "{outcome:?}"
    );
    // The server heard `notifications/cancelled` for the request id it got.
    let mut cancelled = Vec::new();
    for _ in 0..100 {
        cancelled = std::fs::read_dir(&markers)
            .map(|d| {
                d.filter_map(|e| e.ok()?.file_name().into_string().ok())
                    .collect()
            })
            .unwrap_or_default();
        if !cancelled.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(cancelled.len(), 1, "{cancelled:?}");
    assert!(cancelled[0].starts_with("cancelled-"));
    client.shutdown().await;
    let _ = std::fs::remove_dir_all(&markers);
}
