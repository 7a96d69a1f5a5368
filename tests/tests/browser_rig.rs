//! The browser rig (`mcp_tests::browser`) against a page of its own: a
//! tiny app served on loopback whose button changes a line of text through
//! a script file, driven through a real Chromium; and the positive control
//! of the rig's promise that nothing leaves the machine: a page that asks
//! for two other hosts, whose requests the stray listener records (and
//! refuses) while the normal page's record stays empty.

use std::time::{Duration, Instant};

use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;
use mcp_tests::browser::{Browser, Stray};

/// The app's page: no inline script, under a CSP that allows none, and a
/// session cookie such as the host's front end sets.
async fn page() -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (
                header::CONTENT_SECURITY_POLICY,
                "default-src 'none'; script-src 'self'; img-src 'self'",
            ),
            (
                header::SET_COOKIE,
                "session=s3cret; Path=/; HttpOnly; SameSite=Strict",
            ),
        ],
        r#"<!doctype html>
<html><head><title>rig</title><script type="module" src="/app.js"></script></head>
<body>
<h1 id="title">Browser rig</h1>
<input id="name" value="">
<button id="go">Go</button>
<p id="status">waiting</p>
</body></html>"#,
    )
}

async fn script() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/javascript")],
        r#"const status = document.getElementById("status");
document.getElementById("go").addEventListener("click", () => {
  status.textContent = "clicked by " + document.getElementById("name").value;
});
"#,
    )
}

/// The positive control's page: a fetch and an image from other hosts.
async fn stray_page() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        r#"<!doctype html>
<html><body>
<p id="here">here</p>
<img src="https://example.org/y" alt="">
<script src="/strays.js"></script>
</body></html>"#,
    )
}

async fn stray_script() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/javascript")],
        r#"fetch("http://example.com/x").catch(() => {});"#,
    )
}

/// The app on a free loopback port; its URL.
async fn serve() -> String {
    let app = Router::new()
        .route("/", get(page))
        .route("/app.js", get(script))
        .route("/strays", get(stray_page))
        .route("/strays.js", get(stray_script));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port for the app");
    let addr = listener.local_addr().expect("the app's address");
    tokio::spawn(async move {
        axum::serve(listener, app).await.expect("the app serves");
    });
    format!("http://{addr}")
}

async fn browser() -> Browser {
    let started = Instant::now();
    let browser = Browser::start().await.unwrap_or_else(|why| panic!("{why}"));
    eprintln!(
        "Chromium {} started in {:?}",
        browser.version(),
        started.elapsed()
    );
    browser
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_is_driven_and_nothing_leaves() {
    let app = serve().await;
    let browser = browser().await;

    browser.goto(&app).await.expect("the page loads");
    assert_eq!(
        browser.text_of("#title").await.expect("a title"),
        "Browser rig"
    );
    assert_eq!(
        browser.text_of("#status").await.expect("a status"),
        "waiting"
    );
    browser.fill("#name", "the rig").await.expect("typed");
    browser.click("#go").await.expect("clicked");
    let status = browser
        .wait_for_text("#status", "clicked by", Duration::from_secs(5))
        .await
        .expect("the script changes the text");
    assert_eq!(status, "clicked by the rig");
    browser
        .wait_for("#status", Duration::from_secs(1))
        .await
        .expect("still there");

    let png = browser
        .screenshot("browser-rig")
        .await
        .expect("a screenshot");
    let bytes = std::fs::read(&png).expect("the screenshot is on disk");
    assert!(
        bytes.starts_with(b"\x89PNG\r\n\x1a\n"),
        "{} is no PNG",
        png.display()
    );

    let cookies = browser.cookies().await.expect("the cookies");
    let session = cookies
        .iter()
        .find(|cookie| cookie.name == "session")
        .unwrap_or_else(|| panic!("no session cookie in {cookies:?}"));
    assert_eq!(session.value, "s3cret");
    assert!(session.http_only, "{session:?}");
    assert_eq!(session.same_site.as_deref(), Some("Strict"), "{session:?}");
    let from_script = browser
        .execute("return document.cookie;", vec![])
        .await
        .expect("the script runs");
    assert_eq!(from_script, "", "an HttpOnly cookie is hidden from scripts");

    // Give background work a moment to show itself before the verdict.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(browser.strays(), [], "requests tried to leave the machine");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_for_other_hosts_reach_only_the_stray_listener() {
    let app = serve().await;
    let browser = browser().await;

    browser
        .goto(&format!("{app}/strays"))
        .await
        .expect("the page loads");
    assert_eq!(browser.text_of("#here").await.expect("the page"), "here");

    // Chromium resolves no name when it goes through a proxy: both
    // requests reach the listener, which records them and forwards
    // nothing (the resolver's rule is the net behind it).
    let expected = [
        "GET http://example.com/x HTTP/1.1",
        "CONNECT example.org:443 HTTP/1.1",
    ];
    let deadline = Instant::now() + Duration::from_secs(10);
    let seen = loop {
        let seen: Vec<String> = browser
            .strays()
            .into_iter()
            .filter_map(|Stray { first_line }| first_line)
            .collect();
        if expected.iter().all(|line| seen.iter().any(|s| s == line)) {
            break seen;
        }
        assert!(
            Instant::now() < deadline,
            "the stray listener saw {seen:?}, not both of {expected:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(
        seen.iter()
            .all(|line| line.contains("example.com") || line.contains("example.org")),
        "only the page's two requests: {seen:?}"
    );
}
