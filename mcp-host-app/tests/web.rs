//! `mcp-host web` end to end over HTTP, as a browser would speak to it:
//! the launch secret exchanged once for the cookie, refusals of a request
//! without it, from another site or under a rebinding name, and a
//! conversation with the scripted model whose tool call waits for the
//! person's answer in a dialog. What the model server received is the
//! evidence: nothing reaches it from a refused request, and the tool's
//! result (or the denial) reaches it after the answer.

#![cfg(feature = "web")]

mod common;

use std::time::Duration;

use common::obedient::Obedient;
use common::web::App;
use common::workspace::example;
use serde_json::{json, Value};

/// Starts the app against the `notes` example (its output trusted, so
/// that every write asks at the gate) and the model at `base_url`.
fn start(base_url: &str) -> App {
    common::web::start(
        base_url,
        |_| {
            json!({"mcpServers": {
                "notes": {"command": example("notes"), "args": ["--stdio"], "trusted": true, "trustOutput": true}
            }})
        },
        &["notes"],
    )
}

/// One raw HTTP/1.1 request: the status line and headers, and the body.
async fn raw(port: u16, request: &str) -> (String, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    stream.write_all(request.as_bytes()).await.expect("send");
    let mut text = String::new();
    tokio::time::timeout(Duration::from_secs(20), stream.read_to_string(&mut text))
        .await
        .expect("an answer in time")
        .expect("read");
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    (head.to_owned(), body.to_owned())
}

fn status(head: &str) -> u16 {
    head.split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

/// `GET path` with `extra` header lines.
async fn get(app: &App, path: &str, extra: &str) -> (String, String) {
    raw(
        app.port,
        &format!(
            "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n{extra}\r\n",
            app.port
        ),
    )
    .await
}

/// `POST path` of JSON `body` with `extra` header lines.
async fn post(app: &App, path: &str, body: &Value, extra: &str) -> (String, String) {
    let body = body.to_string();
    raw(
        app.port,
        &format!(
            "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n{extra}\r\n{body}",
            app.port,
            body.len()
        ),
    )
    .await
}

/// Exchanges the launch secret: the cookie header line to send after.
async fn sign_in(app: &App) -> String {
    let (head, _) = get(app, &format!("/?key={}", app.key), "").await;
    assert_eq!(status(&head), 303, "{head}");
    let set_cookie = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .starts_with("set-cookie:")
                .then(|| l["set-cookie:".len()..].trim().to_owned())
        })
        .unwrap_or_else(|| panic!("no cookie: {head}"));
    assert!(set_cookie.contains("HttpOnly"), "{set_cookie}");
    assert!(set_cookie.contains("SameSite=Strict"), "{set_cookie}");
    let pair = set_cookie.split(';').next().expect("pair");
    format!("Cookie: {pair}\r\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_person_with_the_secret_gets_in_and_other_sites_are_refused() {
    let model = Obedient::start().await;
    let base = model.endpoint().base_url;
    let app = tokio::task::spawn_blocking(move || start(&base))
        .await
        .expect("started");
    // Without the secret, or with a wrong one: refused.
    assert_eq!(status(&get(&app, "/", "").await.0), 401);
    assert_eq!(status(&get(&app, "/?key=00", "").await.0), 401);
    let cookie = sign_in(&app).await;
    // The secret is spent.
    let again = format!("/?key={}", app.key);
    assert_eq!(status(&get(&app, &again, "").await.0), 401);
    let (head, body) = get(&app, "/", &cookie).await;
    assert_eq!(status(&head), 200, "{head}");
    let csp = head
        .lines()
        .find(|l| {
            l.to_ascii_lowercase()
                .starts_with("content-security-policy:")
        })
        .unwrap_or_else(|| panic!("no policy: {head}"));
    assert!(csp.contains("script-src 'self'"), "{csp}");
    assert!(!csp.contains("unsafe-inline"), "{csp}");
    assert_eq!(body.matches("<script").count(), 1, "{body}");
    // The page's weight, for BENCHMARKS.md: the page and every file it
    // loads.
    let script = get(&app, "/app.js", &cookie).await.1;
    let style = get(&app, "/app.css", &cookie).await.1;
    eprintln!(
        "page weight: HTML {} B, JavaScript {} B, CSS {} B, in all {} B",
        body.len(),
        script.len(),
        style.len(),
        body.len() + script.len() + style.len()
    );
    // A rebinding page: the browser sends the attacker's name.
    let rebound = format!(
        "GET / HTTP/1.1\r\nHost: attacker.example:{}\r\nConnection: close\r\n{cookie}\r\n",
        app.port
    );
    assert_eq!(status(&raw(app.port, &rebound).await.0), 403);
    // Another site's form or fetch carries its Origin; a change with no
    // Origin at all is refused too.
    let say = json!({"text": "CALL notes__create_note {\"title\": \"x\", \"body\": \"y\"}"});
    let foreign = format!("{cookie}Origin: http://attacker.example\r\n");
    assert_eq!(status(&post(&app, "/say", &say, &foreign).await.0), 403);
    assert_eq!(status(&post(&app, "/say", &say, &cookie).await.0), 403);
    // The control: the same message from the app's own page is taken.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        model.requests().is_empty(),
        "a refused request reached the model: {:?}",
        model.requests()
    );
    let own = format!("{cookie}Origin: http://127.0.0.1:{}\r\n", app.port);
    let hello = json!({"text": "hello"});
    assert_eq!(status(&post(&app, "/say", &hello, &own).await.0), 202);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while model.requests().is_empty() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the model heard nothing"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The events of `/events`, read as they come.
struct Events {
    response: reqwest::Response,
    buffer: String,
}

impl Events {
    async fn open(app: &App, cookie: &str) -> Events {
        let cookie = cookie.trim_end().trim_start_matches("Cookie: ").to_owned();
        let response = reqwest::Client::new()
            .get(format!("http://127.0.0.1:{}/events", app.port))
            .header("Cookie", cookie)
            .send()
            .await
            .expect("events");
        assert_eq!(response.status(), 200);
        Events {
            response,
            buffer: String::new(),
        }
    }

    /// The next event that `wanted` accepts; earlier ones are skipped.
    async fn until(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
        loop {
            while let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                for line in block.lines() {
                    if let Some(data) = line.strip_prefix("data:") {
                        if let Ok(event) = serde_json::from_str::<Value>(data.trim()) {
                            if wanted(&event) {
                                return event;
                            }
                        }
                    }
                }
            }
            let chunk = tokio::time::timeout_at(deadline, self.response.chunk())
                .await
                .expect("the awaited event in time")
                .expect("read");
            let chunk = chunk.expect("the stream stays open");
            self.buffer.push_str(&String::from_utf8_lossy(&chunk));
        }
    }
}

/// A tool that may write waits for the person's answer in a dialog: once
/// allowed, it runs and its result reaches the model; denied, it does not
/// run and the model is told.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_waits_for_the_answer_in_a_dialog_and_runs_only_when_allowed() {
    let model = Obedient::start().await;
    let base = model.endpoint().base_url;
    let app = tokio::task::spawn_blocking(move || start(&base))
        .await
        .expect("started");
    let cookie = sign_in(&app).await;
    let mut events = Events::open(&app, &cookie).await;
    let own = format!("{cookie}Origin: http://127.0.0.1:{}\r\n", app.port);
    for (allow, body) in [(true, "kept from the browser"), (false, "never kept")] {
        let say = json!({
            "text": format!("Keep this. CALL notes__create_note {{\"title\": \"t\", \"body\": \"{body}\"}}")
        });
        let answered = post(&app, "/say", &say, &own).await;
        assert_eq!(status(&answered.0), 202, "{answered:?}");
        let question = events
            .until(|e| e["type"] == "question" && e["kind"] == "approval")
            .await;
        let text = question["text"].as_str().unwrap_or_default();
        assert!(
            text.contains(body),
            "the dialog shows the arguments: {text}"
        );
        let before = model.requests().len();
        let reply = json!({"id": question["id"], "allow": allow});
        let answer = post(&app, "/answer", &reply, &own).await;
        assert_eq!(status(&answer.0), 204, "{answer:?}");
        let call = events.until(|e| e["type"] == "call").await;
        assert_eq!(
            call["decision"],
            if allow { "sent" } else { "refused" },
            "{call}"
        );
        events.until(|e| e["type"] == "end").await;
        // What the model was sent after the answer: the note's handle, or
        // the denial.
        let after: Vec<String> = model.requests()[before..]
            .iter()
            .map(Value::to_string)
            .collect();
        let told = after.join("\n");
        if allow {
            assert!(
                told.contains("note_"),
                "the result reached the model: {told}"
            );
        } else {
            // The last tool message answers the denied call: the gate's
            // refusal, and no new handle.
            let last = model.requests().last().cloned().unwrap_or_default();
            let denied = last["messages"]
                .as_array()
                .into_iter()
                .flatten()
                .rfind(|m| m["role"] == "tool")
                .map(|m| m["content"].to_string())
                .unwrap_or_default();
            assert!(denied.contains("not approved"), "{denied}");
            assert!(!denied.contains("note_"), "{denied}");
        }
    }
    drop(app);
}
