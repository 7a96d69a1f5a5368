//! MCP Apps views from official example servers (pinned from the npm
//! registry in `tests/apps/package.json`; their views use the official
//! view SDK, `@modelcontextprotocol/ext-apps`), run through `mcp-host
//! web` in a real headless Chromium: each view completes initialization,
//! gets the tool's input and result, reports its size, and its own tool
//! calls reach its server through the gate; `basic-vanillajs`'s message,
//! log and link buttons too (its message reaches the model labelled as
//! the server's output). This is interoperability with the reference
//! implementation of the view's side. Screenshots go under
//! `target/browser-artifacts/`.

#![cfg(feature = "web")]

mod common;

use std::path::PathBuf;
use std::time::Duration;

use common::obedient::Obedient;
use common::web::App;
use mcp_tests::browser::Browser;
use serde_json::json;

const WAIT: Duration = Duration::from_secs(30);

fn apps_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/apps")
}

/// The app with the official example server `package` as server `id`
/// (its definitions accepted, its output trusted, the gate answered yes
/// by `--yes`: the interop is under test here, the policy elsewhere).
async fn start(package: &'static str, id: &'static str) -> (Obedient, App, Browser) {
    let node = mcp_tests::npm::node(&apps_dir()).unwrap_or_else(|e| panic!("{e}"));
    let script = apps_dir().join(format!(
        "node_modules/@modelcontextprotocol/{package}/dist/index.js"
    ));
    let model = Obedient::start().await;
    let base = model.endpoint().base_url;
    let app = tokio::task::spawn_blocking(move || {
        common::web::start_with(
            &base,
            |_| {
                json!({"mcpServers": {id: {
                    "command": node,
                    "args": [script, "--stdio"],
                    "trustOutput": true
                }}})
            },
            &[id],
            &["--yes"],
        )
    })
    .await
    .expect("started");
    let browser = Browser::start().await.expect("the browser starts");
    browser.goto(&app.url).await.expect("goto");
    browser
        .wait_for("#transcript", WAIT)
        .await
        .expect("the app");
    (model, app, browser)
}

async fn say(browser: &Browser, text: &str) {
    browser.fill("#message", text).await.expect("fill");
    browser
        .click("#say button[type=submit]")
        .await
        .expect("send");
}

/// Waits until the view is initialized and has reported its size.
async fn view_shown(browser: &Browser) {
    browser
        .wait_for("section.view[data-state=initialized][data-height]", WAIT)
        .await
        .expect("the view initialized and sized");
    let src = browser
        .find("iframe.view-frame")
        .await
        .expect("frame")
        .attr("src")
        .await
        .expect("src")
        .unwrap_or_default();
    assert!(src.starts_with("http://127.0.0.2:"), "{src}");
}

async fn enter_view(browser: &Browser) {
    let proxy = browser.find("iframe.view-frame").await.expect("frame");
    proxy.enter_frame().await.expect("into the proxy");
    let inner = browser.wait_for("iframe", WAIT).await.expect("the view");
    inner.enter_frame().await.expect("into the view");
}

async fn leave_frames(browser: &Browser) {
    for _ in 0..2 {
        browser
            .client()
            .clone()
            .enter_parent_frame()
            .await
            .expect("back out");
    }
}

/// The audit log's lines that contain every one of `parts`, once there
/// are at least `n` of them.
async fn audited(app: &App, parts: &[&str], n: usize) -> Vec<String> {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let log = std::fs::read_to_string(app.dir.0.join("audit.jsonl")).unwrap_or_default();
        let found: Vec<String> = log
            .lines()
            .filter(|l| parts.iter().all(|p| l.contains(p)))
            .map(str::to_owned)
            .collect();
        if found.len() >= n {
            return found;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "fewer than {n} audit lines with {parts:?}:\n{log}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_basic_view_initializes_calls_its_server_and_asks_the_host() {
    let (model, app, browser) = start("server-basic-vanillajs", "time").await;
    say(&browser, "CALL time__get-time {}").await;
    view_shown(&browser).await;
    browser.screenshot("apps-basic-shown").await.expect("shot");

    // The result the model's call got, shown by the view.
    enter_view(&browser).await;
    let deadline = tokio::time::Instant::now() + WAIT;
    let first = loop {
        let time = browser.text_of("#server-time").await.unwrap_or_default();
        if time.contains('T') && !time.contains("ERROR") {
            break time;
        }
        assert!(tokio::time::Instant::now() < deadline, "{time:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    // Its own tool, through the host's gate, to its server.
    tokio::time::sleep(Duration::from_millis(20)).await;
    browser.click("#get-time-btn").await.expect("get time");
    let calls = audited(&app, &["\"get-time\"", "\"requestedBy\""], 1).await;
    assert!(calls[0].contains("ui://get-time/mcp-app.html"), "{calls:?}");
    audited(&app, &["\"get-time\"", "\"outcome\":\"ok\""], 2).await;
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let time = browser.text_of("#server-time").await.unwrap_or_default();
        if time != first && time.contains('T') {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "{time:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    // A log message, into the audit log.
    browser
        .fill("#log-text", "a line from the view")
        .await
        .expect("fill");
    browser.click("#send-log-btn").await.expect("log");
    audited(&app, &["notifications/message", "a line from the view"], 1).await;

    // A link: the person is asked, says no, and nothing is opened.
    browser
        .fill("#link-url", "https://example.com/from-the-view")
        .await
        .expect("fill");
    browser.click("#open-link-btn").await.expect("link");
    leave_frames(&browser).await;
    browser
        .wait_for_text("#question-text", "example.com/from-the-view", WAIT)
        .await
        .expect("the person is asked");
    browser.screenshot("apps-basic-link").await.expect("shot");
    browser.click("#deny").await.expect("deny");
    audited(&app, &["ui/open-link", "\"denied\""], 1).await;

    // A message: it enters the conversation as the server's output, and
    // the model reads it enveloped, from server `time`.
    let before = model.requests().len();
    enter_view(&browser).await;
    browser
        .fill("#message-text", "hello from the view")
        .await
        .expect("fill");
    browser.click("#send-message-btn").await.expect("message");
    leave_frames(&browser).await;
    let deadline = tokio::time::Instant::now() + WAIT;
    let sent = loop {
        if let Some(sent) = model.requests().get(before).cloned() {
            break sent;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the model was not asked"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let last = sent["messages"]
        .as_array()
        .and_then(|m| m.last())
        .cloned()
        .unwrap_or_default();
    let text = last["content"].to_string();
    assert_eq!(last["role"], "user", "{last}");
    assert!(text.contains("hello from the view"), "{text}");
    assert!(text.contains("from server `time`"), "not labelled: {text}");
    assert!(
        text.contains("ui://get-time/mcp-app.html"),
        "not named: {text}"
    );
    browser
        .screenshot("apps-basic-message")
        .await
        .expect("shot");
    assert!(browser.strays().is_empty(), "{:?}", browser.strays());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_system_monitor_view_polls_its_app_only_tool() {
    let (model, app, browser) = start("server-system-monitor", "monitor").await;
    say(&browser, "CALL monitor__get-system-info {}").await;
    view_shown(&browser).await;
    // The view polls `poll-system-stats`, a tool for apps alone that the
    // model is never offered, through the host.
    let polls = audited(&app, &["\"poll-system-stats\"", "\"outcome\":\"ok\""], 2).await;
    assert!(!polls.is_empty());
    let offered = model.requests()[0]["tools"].to_string();
    assert!(!offered.contains("poll-system-stats"), "{offered}");
    browser
        .screenshot("apps-system-monitor")
        .await
        .expect("shot");
    assert!(browser.strays().is_empty(), "{:?}", browser.strays());
}
