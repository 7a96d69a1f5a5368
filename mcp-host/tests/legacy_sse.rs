//! The deprecated HTTP+SSE transport of 2024-11-05, against the servers
//! of the official SDKs that still serve it: the Python SDK's
//! `SseServerTransport` (`tests/pypi/sse_server.py`) and the TypeScript
//! SDK v1's (`tests/interop/sse_server_v1.mjs`), both pinned and installed
//! by the tests. Configured as `"type": "sse"`, found by the fallback of an
//! HTTP entry, opened again when its server restarts, and refused with a
//! clear error when the URL serves something else.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::routing::get;
use common::{call_text, host_config, options, Answers};
use mcp_host::approval::ApproveAll;
use mcp_host::client::{CallOptions, Client, ClientError, Target};
use mcp_host::{Host, ServerId};
use mcp_types::version::Era;
use serde_json::{json, Value};

fn sse(url: &str) -> Target {
    Target::Sse {
        url: url.to_owned(),
        headers: Vec::new(),
    }
}

async fn connect(target: Target, answers: Arc<Answers>) -> Result<Client, ClientError> {
    Client::connect(
        ServerId::new("old").expect("id"),
        target,
        answers,
        options(false),
        None,
    )
    .await
}

/// Calls `count` with a progress callback; its text and how many reports
/// came.
async fn count(client: &Client, steps: u32) -> (String, usize) {
    let reports = Arc::new(AtomicUsize::new(0));
    let heard = reports.clone();
    let options = CallOptions {
        progress: Some(Arc::new(move |_| {
            heard.fetch_add(1, Ordering::SeqCst);
        })),
        ..CallOptions::default()
    };
    let text = call_text(client, "count", json!({"steps": steps}), &options)
        .await
        .expect("count");
    (text, reports.load(Ordering::SeqCst))
}

#[tokio::test]
async fn the_python_sdk_serves_tools_progress_and_elicitation_over_sse() {
    let (_server, url) = common::pypi::sse_server(0);
    let answers = Answers::new();
    let client = connect(sse(&url), answers.clone()).await.expect("connects");
    let session = client.session().expect("a session");
    assert_eq!(session.era, Era::Legacy);
    let info = session.server_info.expect("server info").accept();
    assert_eq!(info.name, "python-sse");
    let tools = client.list_tools().await.expect("tools");
    let mut names: Vec<&str> = tools
        .tools
        .iter()
        .map(|t| t.accept_ref().name.as_str())
        .collect();
    names.sort_unstable();
    assert_eq!(names, ["count", "echo", "greet"]);
    let options = CallOptions::default();
    assert_eq!(
        call_text(&client, "echo", json!({"text": "over sse"}), &options)
            .await
            .expect("echo"),
        "over sse"
    );
    assert_eq!(count(&client, 3).await, ("counted 3".to_owned(), 3));
    // The server's own request comes on the stream; the answer is POSTed.
    assert_eq!(
        call_text(&client, "greet", json!({}), &options)
            .await
            .expect("greet"),
        "hello Ada"
    );
    assert_eq!(answers.asked(), 1);
    // Requests at once share the one stream, each answer routed by its id.
    let calls = (0..8).map(|n| {
        let (client, options) = (&client, &options);
        async move {
            call_text(client, "echo", json!({"text": format!("n{n}")}), options)
                .await
                .expect("echo")
        }
    });
    let texts = futures_util::future::join_all(calls).await;
    let expected: Vec<String> = (0..8).map(|n| format!("n{n}")).collect();
    assert_eq!(texts, expected);
    assert_eq!(client.shutdown().await, None);
    assert!(client.is_closed());
}

#[tokio::test]
async fn an_http_entry_that_is_an_sse_server_falls_back_to_it() {
    let (_server, url) = common::pypi::sse_server(0);
    let target = Target::Http {
        url: url.clone(),
        headers: Vec::new(),
    };
    let client = connect(target, Answers::new()).await.expect("connects");
    assert_eq!(client.session().expect("a session").era, Era::Legacy);
    assert_eq!(
        call_text(
            &client,
            "echo",
            json!({"text": "found"}),
            &CallOptions::default()
        )
        .await
        .expect("echo"),
        "found"
    );
}

#[tokio::test]
async fn the_typescript_sdk_v1_serves_a_host_configured_with_type_sse() {
    let (_server, url) = common::interop::sdk_v1_sse();
    let config = host_config(json!({"old": {"type": "sse", "url": url}}));
    let host = Host::builder(config)
        .approver(Arc::new(ApproveAll))
        .input(Answers::new())
        .options(options(false))
        .start()
        .await;
    let servers = host.servers().await;
    assert!(servers.iter().all(|s| s.error.is_none()), "{servers:?}");
    assert_eq!(
        servers[0].session.as_ref().expect("connected").era,
        Era::Legacy
    );
    let Value::Object(args) = json!({"text": "from v1"}) else {
        unreachable!()
    };
    let call = host.prepare("old__echo", args).await.expect("prepared");
    let approval = host.authorize(&call).await.expect("approved");
    let result = host
        .call_tool(call, approval, &CallOptions::default())
        .await
        .expect("echo");
    assert_eq!(result.origin().as_str(), "old");
    let value = serde_json::to_value(result.accept()).expect("encodes");
    assert_eq!(value["content"][0]["text"], "from v1");
    let client = host
        .client(&ServerId::new("old").expect("id"))
        .await
        .expect("a client");
    assert_eq!(count(&client, 4).await, ("counted 4".to_owned(), 4));
}

#[tokio::test]
async fn a_restarted_server_is_connected_again_and_initialized_anew() {
    let (server, url) = common::pypi::sse_server(0);
    let port: u16 = url
        .trim_end_matches("/sse")
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .expect("a port in the URL");
    let client = connect(sse(&url), Answers::new()).await.expect("connects");
    let options = CallOptions::default();
    let echo = |text: &'static str| call_text(&client, "echo", json!({"text": text}), &options);
    assert_eq!(echo("before").await.expect("echo"), "before");
    drop(server);
    // The same port, a new process: none of the old session survives, so
    // the call below works only if the client initialized again.
    let _server = common::pypi::sse_server(port).0;
    let deadline = Instant::now() + Duration::from_secs(40);
    let after = loop {
        match echo("after").await {
            Ok(text) => break text,
            // A call that met the broken stream, or the server gone, is
            // lost, not resumed nor sent again.
            Err(ClientError::Truncated { .. } | ClientError::Http(_))
                if Instant::now() < deadline =>
            {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(other) => panic!("after the restart: {other}"),
        }
    };
    assert_eq!(after, "after");
    assert!(!client.is_closed());
}

#[tokio::test]
async fn a_url_that_serves_no_sse_stream_is_refused_with_what_it_served() {
    let router = axum::Router::new()
        .route("/json", get(|| async { axum::Json(json!({"hello": 1})) }))
        .route(
            "/no-endpoint",
            get(|| async {
                (
                    [("content-type", "text/event-stream")],
                    "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n\n",
                )
            }),
        );
    let base = common::serve(router).await;
    let base = base.trim_end_matches("/mcp");
    let refused = connect(sse(&format!("{base}/json")), Answers::new()).await;
    assert!(
        matches!(&refused, Err(ClientError::ContentType(Some(media))) if media == "application/json"),
        "{refused:?}"
    );
    let refused = connect(sse(&format!("{base}/no-endpoint")), Answers::new()).await;
    assert!(
        matches!(&refused, Err(ClientError::Protocol(text)) if text.contains("not `endpoint`")),
        "{refused:?}"
    );
    let refused = connect(sse(&format!("{base}/missing")), Answers::new()).await;
    assert!(
        matches!(&refused, Err(ClientError::HttpStatus { status: 404, .. })),
        "{refused:?}"
    );
}
