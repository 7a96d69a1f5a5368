//! `mcp-host web --no-browser` started for a test, and the address it
//! printed.

use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};

use serde_json::Value;

use super::obedient::MODEL;
use super::workspace::Scratch;

/// The app, running until dropped, and the address it printed.
pub struct App {
    child: Child,
    /// Its port on 127.0.0.1.
    pub port: u16,
    /// The address with the launch secret.
    pub url: String,
    /// The launch secret.
    pub key: String,
    /// Its configuration, pins, audit log and state.
    pub dir: Scratch,
}

impl Drop for App {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts the app in a fresh scratch folder: `setup` writes what the
/// configuration needs there and returns the configuration; the servers
/// in `reviewed` have every definition accepted first; the model is the
/// scripted one at `base_url`.
pub fn start(base_url: &str, setup: impl FnOnce(&Scratch) -> Value, reviewed: &[&str]) -> App {
    start_with(base_url, setup, reviewed, &[])
}

/// As [`start`], with more of `web`'s options (`--yes`).
pub fn start_with(
    base_url: &str,
    setup: impl FnOnce(&Scratch) -> Value,
    reviewed: &[&str],
    options: &[&str],
) -> App {
    let dir = Scratch::new("mcp-host-web");
    let config = setup(&dir);
    std::fs::write(dir.0.join("servers.json"), config.to_string()).expect("config");
    for server in reviewed {
        let output = super::in_scratch(&dir, &["review", server, "--yes"])
            .output()
            .expect("review runs");
        assert!(output.status.success(), "{output:?}");
    }
    let mut args = vec![
        "web",
        "--no-browser",
        "--provider",
        "openai",
        "--model",
        MODEL,
        "--base-url",
        base_url,
    ];
    args.extend_from_slice(options);
    let mut child = super::in_scratch(&dir, &args)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("mcp-host web starts");
    let stdout = child.stdout.take().expect("stdout");
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("the address line");
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://127.0.0.1:"))
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_owned();
    let rest = &url["http://127.0.0.1:".len()..];
    let (port, key) = rest.split_once("/?key=").expect("the key");
    App {
        port: port.parse().expect("port"),
        key: key.to_owned(),
        url: url.clone(),
        child,
        dir,
    }
}

/// The app with the MCP Apps example server (`dice`, its output trusted,
/// its definitions accepted), from a blocking thread.
#[allow(dead_code)] // not every test binary shows a view
pub async fn start_dice(base_url: String) -> App {
    tokio::task::spawn_blocking(move || {
        start(
            &base_url,
            |_| {
                serde_json::json!({"mcpServers": {"dice": {
                    "command": super::workspace::example("apps"),
                    "trustOutput": true
                }}})
            },
            &["dice"],
        )
    })
    .await
    .expect("started")
}

/// A browser of the rig, on the app's page (its secret spent).
pub async fn browse(app: &App) -> mcp_tests::browser::Browser {
    let browser = mcp_tests::browser::Browser::start()
        .await
        .expect("the browser starts");
    browser.goto(&app.url).await.expect("goto");
    browser
        .wait_for("#transcript", std::time::Duration::from_secs(30))
        .await
        .expect("the app");
    browser
}

/// Enters the frame of the MCP Apps view shown `n`th (from 0): the
/// sandbox proxy's frame, then the view's inside it.
pub async fn enter_view(browser: &mcp_tests::browser::Browser, n: usize) {
    let frames = browser.find_all("iframe.view-frame").await.expect("frames");
    let proxy = frames.into_iter().nth(n).expect("the proxy's frame");
    proxy.enter_frame().await.expect("into the proxy");
    let inner = browser
        .wait_for("iframe", std::time::Duration::from_secs(30))
        .await
        .expect("the view's frame");
    inner.enter_frame().await.expect("into the view");
}

/// Back from a view's frame to the page: out of the view, then out of
/// the proxy.
pub async fn leave_view(browser: &mcp_tests::browser::Browser) {
    for _ in 0..2 {
        browser
            .client()
            .clone()
            .enter_parent_frame()
            .await
            .expect("back out");
    }
}

/// The attribute `name` of the first element `css` finds ("" without it).
pub async fn attribute(browser: &mcp_tests::browser::Browser, css: &str, name: &str) -> String {
    browser
        .find(css)
        .await
        .expect("the element")
        .attr(name)
        .await
        .expect("its attribute")
        .unwrap_or_default()
}
