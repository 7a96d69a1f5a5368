//! Redirects, as the official clients follow them: one that stays on the
//! endpoint's origin and keeps the method (a `307` from the official
//! Python SDK mounted under a Starlette path) is followed and remembered
//! for the session (`mcp-host servers` says so: the application's tests); one to another origin
//! is refused with an error that names where it pointed, and the other
//! origin receives nothing, neither the request nor its configured
//! `Authorization` header.

mod common;

use std::sync::{Arc, Mutex};

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use common::host_config;
use mcp_host::approval::ApproveAll;
use mcp_host::client::CallOptions;
use mcp_host::Host;
use serde_json::{json, Map};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_same_origin_307_of_the_python_sdk_is_followed_and_remembered() {
    let (_server, url) = common::pypi::mounted_server();
    assert!(url.ends_with("/api/mcp"), "{url}");
    let pins = common::Scratch(
        std::env::temp_dir().join(format!("redirect-pins-{}.json", std::process::id())),
    );
    let host = Host::builder(host_config(json!({"mounted": {"url": url}})))
        .approver(Arc::new(ApproveAll))
        .pin_file(mcp_host::trust::PinFile::new(pins.0.clone()))
        .start()
        .await;
    let status = host.servers().await.remove(0);
    assert_eq!(status.error, None, "the server is reached");
    assert_eq!(status.redirected, Some(format!("{url}/")));
    let mut arguments = Map::new();
    arguments.insert("text".into(), "through the redirect".into());
    let result = host
        .call("mounted__echo", arguments, &CallOptions::default())
        .await
        .expect("the call goes through")
        .accept();
    assert_eq!(common::first_text(&result), "through the redirect");
    host.shutdown().await;
}

/// What a listener received: each request's method, path and
/// `Authorization` header.
type Seen = Arc<Mutex<Vec<(String, String, Option<String>)>>>;

async fn record(State(seen): State<Seen>, request: Request) -> Response {
    let authorization = request
        .headers()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    seen.lock().expect("lock").push((
        request.method().to_string(),
        request.uri().path().to_owned(),
        authorization,
    ));
    (StatusCode::OK, "recorded").into_response()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redirect_to_another_origin_is_refused_and_the_other_origin_receives_nothing() {
    // The other origin: another loopback host, recording what reaches it.
    let seen: Seen = Arc::default();
    let listener = tokio::net::TcpListener::bind("127.0.0.2:0")
        .await
        .expect("127.0.0.2 binds");
    let other = format!("http://{}/mcp", listener.local_addr().expect("address"));
    let app = axum::Router::new()
        .fallback(record)
        .with_state(Arc::clone(&seen));
    tokio::spawn(async move { axum::serve(listener, app).await });
    // The configured endpoint redirects every request there.
    let location = other.clone();
    let redirecting = axum::Router::new().fallback(move || {
        let location = location.clone();
        async move { (StatusCode::TEMPORARY_REDIRECT, [("location", location)]).into_response() }
    });
    let url = common::serve(redirecting).await;
    let config = json!({"redirecting": {
        "url": url,
        "headers": {"Authorization": "Bearer a-token-for-the-configured-origin-only"},
    }});
    let host = Host::builder(host_config(config))
        .approver(Arc::new(ApproveAll))
        .pin_file(mcp_host::trust::PinFile::new(
            common::state_home().join("redirect-cross-pins.json"),
        ))
        .start()
        .await;
    let status = host.servers().await.remove(0);
    let error = status.error.expect("not reached");
    assert!(
        error.contains(&other),
        "the error names the location: {error}"
    );
    assert!(error.contains("307"), "{error}");
    host.shutdown().await;
    assert!(
        seen.lock().expect("lock").is_empty(),
        "the other origin received {:?}",
        seen.lock().expect("lock")
    );
    // The control: the listener does record what reaches it, so its
    // silence above means nothing was sent there.
    let client = reqwest::Client::new();
    client.post(&other).send().await.expect("reachable");
    assert_eq!(seen.lock().expect("lock").len(), 1);
}

/// The same refusal for a redirect that would turn the POST into a GET.
#[tokio::test]
async fn a_302_of_a_post_is_refused() {
    let app = axum::Router::new()
        .fallback(|| async { (StatusCode::FOUND, [("location", "/elsewhere")]).into_response() });
    let url = common::serve(app).await;
    let host = Host::builder(host_config(json!({"moved": {"url": url}})))
        .pin_file(mcp_host::trust::PinFile::new(
            common::state_home().join("redirect-302-pins.json"),
        ))
        .start()
        .await;
    let error = host.servers().await.remove(0).error.expect("not reached");
    assert!(
        error.contains("302") && error.contains("/elsewhere"),
        "{error}"
    );
    host.shutdown().await;
}
