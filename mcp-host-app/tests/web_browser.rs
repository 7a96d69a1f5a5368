//! `mcp-host web` in a real headless Chromium (`mcp_tests::browser`):
//! opened with its secret and refused without it or from another origin;
//! a tool call approved in the dialog and an endorsement refused in it,
//! with what the scripted model received as the evidence; and the text of
//! a hostile server (markup, script, a bidirectional override) shown
//! inert. Each test saves screenshots under `target/browser-artifacts/`,
//! and checks that the browser sent nothing off this machine.

#![cfg(feature = "web")]

mod common;

use std::time::Duration;

use common::obedient::Obedient;
use common::web::App;
use common::workspace::example;
use mcp_tests::browser::{Browser, REBINDING_NAME};
use serde_json::{json, Value};

const WAIT: Duration = Duration::from_secs(30);

/// What a hostile server writes: markup that would run a script, and a
/// right-to-left override that would disguise a file name.
const HOSTILE: &str =
    "<img src=x onerror=\"document.title='pwned'\"><script>document.title='pwned'</script> \u{202e}gpj.exe";

/// Starts the app with the `notes` example (its output untrusted) and a
/// hostile scripted server, every definition reviewed, talking to the
/// model at `base_url`.
fn start(base_url: &str) -> App {
    common::web::start(
        base_url,
        |dir| {
            let script = json!({
                "record": dir.0.join("mallory.jsonl"),
                "tools": [{
                    "definition": {
                        "name": "show",
                        "description": HOSTILE,
                        "inputSchema": {"type": "object", "properties": {}},
                        "annotations": {"readOnlyHint": true, "openWorldHint": false}
                    },
                    "does": {"kind": "text", "text": HOSTILE}
                }]
            });
            std::fs::write(dir.0.join("mallory.json"), script.to_string()).expect("script");
            json!({"mcpServers": {
                "notes": {"command": example("notes"), "args": ["--stdio"], "trusted": true},
                "mallory": {
                    "command": mcp_tests::build::example("recorder"),
                    "args": [dir.0.join("mallory.json")],
                    "trusted": true
                }
            }})
        },
        &["notes", "mallory"],
    )
}

async fn launch() -> (Obedient, App, Browser) {
    let model = Obedient::start().await;
    let base = model.endpoint().base_url;
    let app = tokio::task::spawn_blocking(move || start(&base))
        .await
        .expect("started");
    let browser = Browser::start().await.expect("the browser starts");
    (model, app, browser)
}

/// Opens the app with its secret and waits for the conversation.
async fn open(browser: &Browser, app: &App) {
    browser.goto(&app.url).await.expect("goto");
    browser
        .wait_for("#transcript", WAIT)
        .await
        .expect("the app");
}

/// Types `text` in the message box and sends it.
async fn say(browser: &Browser, text: &str) {
    browser.fill("#message", text).await.expect("fill");
    browser
        .click("#say button[type=submit]")
        .await
        .expect("send");
}

/// The content of the last tool message the model received.
fn last_tool_message(model: &Obedient) -> String {
    let last = model.requests().last().cloned().unwrap_or_default();
    last["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .rfind(|m| m["role"] == "tool")
        .map(|m| m["content"].to_string())
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_secret_opens_the_app_and_nothing_else_does() {
    let (model, app, browser) = launch().await;
    // Without the secret.
    let home = format!("http://127.0.0.1:{}/", app.port);
    browser.goto(&home).await.expect("goto");
    let refused = browser.text_of("body").await.expect("body");
    assert!(refused.contains("open the address"), "{refused}");
    browser
        .screenshot("web-without-secret")
        .await
        .expect("shot");
    // With it, under a rebinding name (an attacker's name that now
    // resolves to loopback): refused, and the secret not spent.
    let rebound = app.url.replacen("127.0.0.1", REBINDING_NAME, 1);
    browser.goto(&rebound).await.expect("goto");
    let refused = browser.text_of("body").await.expect("body");
    assert!(refused.contains("not the app's"), "{refused}");
    assert!(
        browser.find("#transcript").await.is_err(),
        "the app opened under another name"
    );
    browser.screenshot("web-rebinding").await.expect("shot");
    // With it: the app, and a cookie scripts cannot read.
    open(&browser, &app).await;
    assert_eq!(browser.current_url().await.expect("url"), home);
    let cookies = browser.cookies().await.expect("cookies");
    let session = cookies
        .iter()
        .find(|c| c.name == "mcp_host_session")
        .unwrap_or_else(|| panic!("no session cookie: {cookies:?}"));
    assert!(session.http_only, "{session:?}");
    assert_eq!(session.same_site.as_deref(), Some("Strict"), "{session:?}");
    let seen = browser
        .execute("return document.cookie;", vec![])
        .await
        .expect("script");
    assert_eq!(seen, json!(""), "a script read the cookie");
    browser.screenshot("web-opened").await.expect("shot");

    // Another origin (the same host, another port: the same site, so the
    // cookie goes along) posts a message to the app.
    let foreign = foreign_page(app.port).await;
    browser.goto(&foreign).await.expect("goto");
    browser.click("#send").await.expect("submit");
    browser
        .wait_for_text("body", "another site", WAIT)
        .await
        .expect("refused");
    browser
        .screenshot("web-foreign-origin")
        .await
        .expect("shot");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        model.requests().is_empty(),
        "a refused request reached the model: {:?}",
        model.requests()
    );
    // The control: from the app's own page, a message reaches the model.
    browser.goto(&home).await.expect("goto");
    say(&browser, "hello").await;
    browser
        .wait_for_text("#transcript", "DONE", WAIT)
        .await
        .expect("the model's answer shown");
    assert!(!model.requests().is_empty());
    assert!(browser.strays().is_empty(), "{:?}", browser.strays());
}

/// A page of another origin with a form that posts to the app.
async fn foreign_page(app: u16) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("address").port();
    let page = format!(
        "<!doctype html><html><body><form method=post action=\"http://127.0.0.1:{app}/say\">\
         <input name=text value=\"CALL notes__create_note {{}}\"><button id=send>Send</button>\
         </form></body></html>"
    );
    let router = axum::Router::new().route(
        "/",
        axum::routing::get(move || {
            let page = page.clone();
            async move { axum::response::Html(page) }
        }),
    );
    tokio::spawn(async move { axum::serve(listener, router).await });
    format!("http://127.0.0.1:{port}/")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_is_approved_in_a_dialog_and_an_endorsement_refused() {
    let (model, app, browser) = launch().await;
    open(&browser, &app).await;
    // A call that may write: the approval dialog shows its arguments.
    let first = "Keep this. CALL notes__create_note {\"title\": \"t\", \"body\": \"kept from the browser\"}";
    say(&browser, first).await;
    browser
        .wait_for("dialog#question[open]", WAIT)
        .await
        .expect("the dialog");
    let asked = browser.text_of("#question-extra").await.expect("question");
    assert!(asked.contains("kept from the browser"), "{asked}");
    browser.screenshot("web-approval").await.expect("shot");
    browser.click("#allow").await.expect("allow");
    browser
        .wait_for(".call.sent", WAIT)
        .await
        .expect("the call ran");
    browser
        .wait_for_text("#taint", "notes", WAIT)
        .await
        .expect("the taint shown");
    assert!(
        last_tool_message(&model).contains("note_"),
        "the result reached the model"
    );

    // The note's handle is untrusted output now: the next write waits
    // for an endorsement, which the person refuses.
    let second = "CALL notes__create_note {\"title\": \"t2\", \"body\": \"steered\"}";
    say(&browser, second).await;
    browser
        .wait_for_text("#question-title", "Endorse", WAIT)
        .await
        .expect("the endorsement dialog");
    let asked = browser.text_of("#question-text").await.expect("question");
    assert!(asked.contains("steered"), "{asked}");
    assert!(
        asked.contains("notes"),
        "the untrusted source is named: {asked}"
    );
    browser.screenshot("web-endorsement").await.expect("shot");
    // "Make this a flow rule" shows the rule before anything is written.
    browser.click("#rule").await.expect("rule");
    let rule = browser.text_of("#rule-text").await.expect("rule shown");
    assert!(
        rule.contains("\"from\":\"notes\"") && rule.contains("notes/create_note"),
        "{rule}"
    );
    browser.screenshot("web-flow-rule").await.expect("shot");
    let config = std::fs::read_to_string(app.dir.0.join("servers.json")).expect("config");
    assert!(!config.contains("flows"), "written before it was chosen");
    browser.click("#rule-back").await.expect("back");
    browser.click("#deny").await.expect("deny");
    browser
        .wait_for(".call.refused", WAIT)
        .await
        .expect("the call refused");
    // The model is told why, and the note was not made.
    let deadline = tokio::time::Instant::now() + WAIT;
    let told = loop {
        let told = last_tool_message(&model);
        if told.contains("steered") || told.contains("endorse") || told.contains("refused") {
            break told;
        }
        assert!(tokio::time::Instant::now() < deadline, "{told}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(!told.contains("note_"), "{told}");
    browser.screenshot("web-refused").await.expect("shot");

    // A new conversation empties the page; the saved one reopens with its
    // history and its taint.
    browser.click("form.new button").await.expect("new");
    browser
        .wait_for_text("#taint", "No untrusted output", WAIT)
        .await
        .expect("a clean conversation");
    let home = format!("http://127.0.0.1:{}/conversations", app.port);
    browser.goto(&home).await.expect("goto");
    browser
        .wait_for("#conversations li[data-tainted=true]", WAIT)
        .await
        .expect("the saved conversation, tainted");
    browser.screenshot("web-saved").await.expect("shot");
    browser
        .click("#conversations li form button")
        .await
        .expect("reopen");
    browser
        .wait_for_text("#transcript", "kept from the browser", WAIT)
        .await
        .expect("its history");
    browser
        .wait_for_text("#taint", "notes", WAIT)
        .await
        .expect("its taint");
    browser.screenshot("web-reopened").await.expect("shot");
    assert!(browser.strays().is_empty(), "{:?}", browser.strays());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hostile_servers_text_is_shown_inert() {
    let (model, app, browser) = launch().await;
    open(&browser, &app).await;
    // Its result, through the model's answer.
    say(&browser, "CALL mallory__show {}").await;
    browser
        .wait_for_text("#transcript", "DONE", WAIT)
        .await
        .expect("the answer");
    // The call's result, folded: opened, it shows the markup as text.
    browser
        .click(".call > summary")
        .await
        .expect("unfold the call");
    browser
        .click(".call .result summary")
        .await
        .expect("unfold the result");
    let result = browser.text_of(".call .result pre").await.expect("text");
    assert!(result.contains("<img src=x"), "{result}");
    assert!(result.contains("\\u{202e}"), "{result}");
    browser.screenshot("web-inert-result").await.expect("shot");
    // Its definition, on the servers page.
    let servers = format!("http://127.0.0.1:{}/servers", app.port);
    browser.goto(&servers).await.expect("goto");
    browser
        .click("[data-server=mallory] .definition summary")
        .await
        .expect("unfold the definition");
    let description = browser
        .text_of("[data-server=mallory] .definition pre")
        .await
        .expect("description");
    assert!(description.contains("<script>"), "{description}");
    assert!(description.contains("\\u{202e}"), "{description}");
    assert!(!description.contains('\u{202e}'), "{description}");
    browser.screenshot("web-inert-servers").await.expect("shot");
    let planted: Value = browser
        .execute(
            "return [document.title, document.querySelectorAll('main img, main script').length];",
            vec![],
        )
        .await
        .expect("script");
    assert_eq!(
        planted[1],
        json!(0),
        "markup from the server became elements"
    );
    assert!(
        !planted[0].as_str().unwrap_or_default().contains("pwned"),
        "{planted}"
    );
    assert!(!model.requests().is_empty());
    assert!(browser.strays().is_empty(), "{:?}", browser.strays());
}

/// The benchmark of BENCHMARKS.md's "first token to display": a model
/// whose answers stream their first token, then wait; the time from the
/// moment the model server wrote that token to the moment it shows in the
/// page (a `MutationObserver` in the browser), beside the anchor in the
/// same run: the same model's first token read by a plain HTTP client.
/// Run with `-- --ignored --nocapture`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a benchmark: prints figures, asserts only that they were taken"]
async fn first_token_to_display() {
    const RUNS: usize = 20;
    let model = SlowModel::start().await;
    let base = model.base_url.clone();
    let app = tokio::task::spawn_blocking(move || start(&base))
        .await
        .expect("started");
    let browser = Browser::start().await.expect("the browser starts");
    open(&browser, &app).await;
    browser
        .execute(
            "window.__seen = {};
             new MutationObserver(function () {
               document.querySelectorAll('.assistant').forEach(function (p) {
                 var m = p.textContent.match(/FIRST-(\\d+)/);
                 if (m && !(m[1] in window.__seen)) {
                   window.__seen[m[1]] = performance.timeOrigin + performance.now();
                 }
               });
             }).observe(document.getElementById('transcript'),
                        {subtree: true, childList: true, characterData: true});
             return true;",
            vec![],
        )
        .await
        .expect("observer");
    let mut shown = Vec::new();
    for run in 0..RUNS {
        say(&browser, &format!("run {run}")).await;
        browser
            .wait_for_text("#transcript", &format!("rest-{}", run + 1), WAIT)
            .await
            .expect("the answer");
        let seen = browser
            .execute(&format!("return window.__seen['{}'];", run + 1), vec![])
            .await
            .expect("script");
        let at = seen.as_f64().expect("the first token was seen");
        let sent = model.first_token_at(run + 1).expect("sent");
        shown.push(at - sent);
    }
    // The anchor: the same first token, read straight from the model.
    let mut direct = Vec::new();
    let client = reqwest::Client::new();
    for _ in 0..RUNS {
        let mut response = client
            .post(format!("{}/chat/completions", model.base_url))
            .header("Content-Type", "application/json")
            .body(json!({"model": "m", "stream": true, "messages": [{"role": "user", "content": "x"}]}).to_string())
            .send()
            .await
            .expect("direct");
        let n = model.count();
        let mut text = String::new();
        while !text.contains("FIRST-") {
            let chunk = response.chunk().await.expect("read").expect("chunk");
            text.push_str(&String::from_utf8_lossy(&chunk));
        }
        let at = epoch_ms();
        direct.push(at - model.first_token_at(n).expect("sent"));
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        (v[v.len() / 2], v[v.len() * 95 / 100])
    };
    let (shown_median, shown_p95) = median(&mut shown);
    let (direct_median, direct_p95) = median(&mut direct);
    eprintln!(
        "first token to display: median {shown_median:.1} ms, p95 {shown_p95:.1} ms; \
         read directly: median {direct_median:.1} ms, p95 {direct_p95:.1} ms; \
         added by the host and the page: {:.1} ms ({RUNS} runs each)",
        shown_median - direct_median
    );
    assert_eq!(shown.len(), RUNS);
}

fn epoch_ms() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_secs_f64()
        * 1000.0
}

/// An OpenAI-compatible model whose every streamed answer is `FIRST-n`,
/// then, 300 ms later, ` rest-n`: it records when it wrote each first
/// token, in milliseconds since the epoch.
struct SlowModel {
    base_url: String,
    sent: std::sync::Arc<std::sync::Mutex<Vec<f64>>>,
}

impl SlowModel {
    async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let port = listener.local_addr().expect("address").port();
        let sent = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let record = sent.clone();
        let router = axum::Router::new().route(
            "/v1/chat/completions",
            axum::routing::post(move || {
                let record = record.clone();
                async move {
                    let (tx, rx) = tokio::sync::mpsc::channel::<Result<String, std::convert::Infallible>>(4);
                    tokio::spawn(async move {
                        let chunk = |delta: Value, finish: Value| {
                            let chunk = json!({"id": "c", "object": "chat.completion.chunk", "created": 0,
                                "model": "m", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
                            Ok(format!("data: {chunk}\n\n"))
                        };
                        let n = {
                            let mut sent = record.lock().expect("lock");
                            sent.push(f64::NAN);
                            sent.len()
                        };
                        let first = chunk(json!({"role": "assistant", "content": format!("FIRST-{n}")}), Value::Null);
                        record.lock().expect("lock")[n - 1] = epoch_ms();
                        let _ = tx.send(first).await;
                        tokio::time::sleep(Duration::from_millis(300)).await;
                        let _ = tx.send(chunk(json!({"content": format!(" rest-{n}")}), json!("stop"))).await;
                        let _ = tx.send(Ok(String::from("data: [DONE]\n\n"))).await;
                    });
                    let body = axum::body::Body::from_stream(
                        tokio_stream_of(rx),
                    );
                    ([(axum::http::header::CONTENT_TYPE, "text/event-stream")], body)
                }
            }),
        );
        tokio::spawn(async move { axum::serve(listener, router).await });
        SlowModel {
            base_url: format!("http://127.0.0.1:{port}/v1"),
            sent,
        }
    }

    fn count(&self) -> usize {
        self.sent.lock().expect("lock").len()
    }

    fn first_token_at(&self, n: usize) -> Option<f64> {
        self.sent
            .lock()
            .expect("lock")
            .get(n.checked_sub(1)?)
            .copied()
    }
}

/// The receiver as a stream of body frames.
fn tokio_stream_of(
    rx: tokio::sync::mpsc::Receiver<Result<String, std::convert::Infallible>>,
) -> impl futures_util::Stream<Item = Result<String, std::convert::Infallible>> {
    futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|item| (item, rx))
    })
}

/// MCP Apps, our own example (`mcp-server/examples/apps.rs`, a dice
/// roller whose view speaks the protocol without an SDK): the model's
/// call shows the view, framed by the sandbox proxy on 127.0.0.2; the
/// view initializes, gets the arguments and the result, reports its
/// size, and its "Roll again" button calls the app-only tool of its own
/// server through the host, whose answer the view shows. What the view
/// ran under is in the audit log; the browser sent nothing elsewhere.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_example_view_runs_in_the_sandbox_and_calls_its_server() {
    let model = Obedient::start().await;
    let base = model.endpoint().base_url;
    let app = common::web::start_dice(base).await;
    let browser = common::web::browse(&app).await;
    // Every message that reaches the page from a view, recorded from the
    // start, to check against the extension's schema.
    browser
        .execute(
            "window.seenFromViews = []; window.addEventListener('message', \
             (e) => { if (e.origin.startsWith('http://127.0.0.2:')) window.seenFromViews.push(e.data); });",
            vec![],
        )
        .await
        .expect("script");
    say(&browser, "CALL dice__roll {\"count\": 3, \"sides\": 6}").await;
    if browser
        .wait_for("dialog#question[open] #allow", Duration::from_secs(3))
        .await
        .is_ok()
    {
        browser.click("#allow").await.expect("allow");
    }
    browser
        .wait_for("section.view[data-state=initialized]", WAIT)
        .await
        .expect("the view initialized");
    // Its size, as the view reported it, applied to its frame.
    let height = browser
        .wait_for("section.view[data-height]", WAIT)
        .await
        .expect("a size reported");
    let height: u32 = height
        .attr("data-height")
        .await
        .expect("attr")
        .unwrap_or_default()
        .parse()
        .expect("a number");
    assert!(height > 50, "{height}");
    let proxy = common::web::attribute(&browser, "iframe.view-frame", "src").await;
    assert!(proxy.starts_with("http://127.0.0.2:"), "{proxy}");
    browser.screenshot("apps-dice-shown").await.expect("shot");

    // Inside: the arguments and the server's result, shown by the view.
    common::web::enter_view(&browser, 0).await;
    browser
        .wait_for_text("#status", "3d6", WAIT)
        .await
        .expect("the result shown");
    let first = browser.text_of("#total").await.expect("total");
    assert!(first.starts_with("Total: "), "{first}");
    assert_eq!(browser.find_all(".die").await.expect("dice").len(), 3);
    // The view cannot reach the page that frames it.
    let reached = browser
        .execute(
            "try { return String(window.parent.parent.document.title); } \
             catch (e) { return 'blocked: ' + e.name; }",
            vec![],
        )
        .await
        .expect("script");
    assert!(
        reached.as_str().unwrap_or_default().starts_with("blocked"),
        "{reached}"
    );
    let storage = browser
        .execute(
            "try { return String(window.localStorage.length); } \
             catch (e) { return 'blocked: ' + e.name; }",
            vec![],
        )
        .await
        .expect("script");
    assert!(
        storage.as_str().unwrap_or_default().starts_with("blocked"),
        "{storage}"
    );
    // Its own app-only tool, through the host.
    let before = model.requests().len();
    browser.click("#again").await.expect("roll again");
    common::web::leave_view(&browser).await;
    if browser
        .wait_for("dialog#question[open] #allow", Duration::from_secs(3))
        .await
        .is_ok()
    {
        browser
            .screenshot("apps-dice-approval")
            .await
            .expect("shot");
        browser.click("#allow").await.expect("allow");
    }
    common::web::enter_view(&browser, 0).await;
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let status = browser.text_of("#status").await.unwrap_or_default();
        assert!(!status.contains("refused"), "{status}");
        let log = std::fs::read_to_string(app.dir.0.join("audit.jsonl")).unwrap_or_default();
        if log
            .lines()
            .any(|l| l.contains("\"reroll\"") && l.contains("\"ok\""))
        {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no reroll in the audit log:\n{log}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(browser.find_all(".die").await.expect("dice").len(), 3);
    common::web::leave_view(&browser).await;
    browser
        .screenshot("apps-dice-rerolled")
        .await
        .expect("shot");
    // The model was not asked anything by the view's call.
    assert_eq!(model.requests().len(), before);
    // What the view sent, and what the host sends it, against the
    // extension's schema.
    let seen = browser
        .execute("return window.seenFromViews;", vec![])
        .await
        .expect("script");
    let view = common::web::attribute(&browser, "section.view", "data-view").await;
    let opened = browser
        .client()
        .execute_async(
            "const done = arguments[arguments.length - 1]; \
             fetch('/view/open', {method: 'POST', headers: {'Content-Type': 'application/json'}, \
             body: JSON.stringify({view: arguments[0]})}).then((r) => r.json()).then(done);",
            vec![json!(view)],
        )
        .await
        .expect("the view's opening");
    validate_apps_messages(&seen, &opened);
    // Another conversation: the view is told it goes, and answers, before
    // it is removed.
    browser.click("form.new button").await.expect("new");
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let seen = browser
            .execute("return window.seenFromViews;", vec![])
            .await
            .expect("script");
        let answered = seen.as_array().into_iter().flatten().any(|m| {
            m["id"]
                .as_str()
                .is_some_and(|id| id.starts_with("teardown-"))
                && m["result"].is_object()
        });
        if answered {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no answer to the teardown: {seen}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let deadline = tokio::time::Instant::now() + WAIT;
    while !browser
        .find_all("section.view")
        .await
        .expect("views")
        .is_empty()
    {
        assert!(tokio::time::Instant::now() < deadline, "the view stayed");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let log = std::fs::read_to_string(app.dir.0.join("audit.jsonl")).unwrap_or_default();
    let shown = log
        .lines()
        .find(|l| l.contains("\"how\":\"view\"") && l.contains("\"shown\""))
        .unwrap_or_else(|| panic!("the view's policy is not in the audit log:\n{log}"));
    assert!(shown.contains("connect-src 'none'"), "{shown}");
    assert!(browser.strays().is_empty(), "{:?}", browser.strays());
}

/// Checks each message against its definition in the extension's schema
/// (`ext/apps/schema.json` of the spec): `seen`, what the view sent the
/// host, by method (the standard MCP `tools/call` aside); and `opened`,
/// what `/view/open` gave the page to send the view: the sandbox's
/// resource, the `ui/initialize` result, the tool's input and result.
fn validate_apps_messages(seen: &Value, opened: &Value) {
    let path = mcp_tests::spec::spec_dir().join("ext/apps/schema.json");
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("the apps schema"))
            .expect("JSON");
    let check = |definition: &str, message: &Value| {
        // Each definition is a schema of its own, with its own `$defs`.
        let validator =
            jsonschema::validator_for(&schema["$defs"][definition]).expect("the schema compiles");
        let errors: Vec<String> = validator
            .iter_errors(message)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{definition}: {message}: {errors:?}");
    };
    // A JSON-RPC message without its envelope, as the definitions have it.
    let bare = |message: &Value| {
        let mut message = message.clone();
        if let Some(map) = message.as_object_mut() {
            map.remove("jsonrpc");
            map.remove("id");
        }
        message
    };
    let mut methods = Vec::new();
    for message in seen.as_array().expect("an array") {
        let method = message["method"].as_str().unwrap_or_default();
        let definition = match method {
            "ui/initialize" => "McpUiInitializeRequest",
            "ui/notifications/initialized" => "McpUiInitializedNotification",
            "ui/notifications/size-changed" => "McpUiSizeChangedNotification",
            "ui/notifications/sandbox-proxy-ready" => "McpUiSandboxProxyReadyNotification",
            "tools/call" => continue,
            other => panic!("a message the example does not send: {other:?} {message}"),
        };
        check(definition, &bare(message));
        methods.push(method);
    }
    for method in [
        "ui/initialize",
        "ui/notifications/initialized",
        "ui/notifications/size-changed",
    ] {
        assert!(methods.contains(&method), "{method} not seen: {methods:?}");
    }
    check(
        "McpUiSandboxResourceReadyNotification",
        &json!({"method": "ui/notifications/sandbox-resource-ready",
                "params": {"html": opened["html"], "permissions": opened["permissions"]}}),
    );
    check("McpUiInitializeResult", &opened["initialize"]);
    check(
        "McpUiToolInputNotification",
        &json!({"method": "ui/notifications/tool-input", "params": {"arguments": opened["arguments"]}}),
    );
    check(
        "McpUiToolResultNotification",
        &json!({"method": "ui/notifications/tool-result", "params": opened["result"]}),
    );
}
