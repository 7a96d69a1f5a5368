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

/// [`start`]ed off the runtime's threads.
async fn started(model: &Obedient) -> App {
    let base = model.endpoint().base_url;
    tokio::task::spawn_blocking(move || start(&base))
        .await
        .expect("started")
}

/// Starts the app against the `notes` example, its output untrusted,
/// every definition of the servers in `reviewed` accepted.
async fn untrusted_notes(model: &Obedient, reviewed: &'static [&'static str]) -> App {
    let base = model.endpoint().base_url;
    tokio::task::spawn_blocking(move || {
        common::web::start(
            &base,
            |_| json!({"mcpServers": {"notes": {"command": example("notes"), "args": ["--stdio"]}}}),
            reviewed,
        )
    })
    .await
    .expect("started")
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
    let app = started(&model).await;
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
    let own = own_page(&app, &cookie);
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

/// The header lines of a request from the app's own page.
fn own_page(app: &App, cookie: &str) -> String {
    format!("{cookie}Origin: http://127.0.0.1:{}\r\n", app.port)
}

/// The cookie line of `own`, the header lines [`own_page`] made.
fn cookie_of(own: &str) -> String {
    own.split("Origin:").next().unwrap_or_default().to_owned()
}

/// Signs in: the header lines of a request from the app's own page, and
/// the page's events.
async fn session(app: &App) -> (String, Events) {
    let cookie = sign_in(app).await;
    (own_page(app, &cookie), Events::open(app, &cookie).await)
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
    let app = started(&model).await;
    let (own, mut events) = session(&app).await;
    for (allow, body) in [(true, "kept from the browser"), (false, "never kept")] {
        let say = json!({
            "text": format!("Keep this. CALL notes__create_note {{\"title\": \"t\", \"body\": \"{body}\"}}")
        });
        let answered = post(&app, "/say", &say, &own).await;
        assert_eq!(status(&answered.0), 202, "{answered:?}");
        let question = events
            .until(|e| e["type"] == "question" && e["kind"] == "approval")
            .await;
        let shown = question["arguments"].as_str().unwrap_or_default();
        assert!(
            shown.contains(body),
            "the dialog shows the arguments: {question}"
        );
        let before = model.requests().len();
        let choice = if allow { "allow" } else { "deny" };
        let reply = json!({"id": question["id"], "choice": choice});
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
    // The audit page, filtered: the host's log has both decisions, and
    // each filter shows its own rows only.
    let cookie = cookie_of(&own);
    let log = std::fs::read_to_string(app.dir.0.join("audit.jsonl")).expect("the audit log");
    assert!(
        log.contains("\"allowed\"") && log.contains("\"denied\""),
        "{log}"
    );
    let rows =
        |page: &str, decision: &str| page.matches(&format!("<tr class=\"{decision}\"")).count();
    let (_, all) = get(&app, "/audit", &cookie).await;
    assert!(
        rows(&all, "allowed") >= 1 && rows(&all, "denied") >= 1,
        "{all}"
    );
    let (_, denied) = get(&app, "/audit?decision=denied", &cookie).await;
    assert_eq!(rows(&denied, "allowed"), 0, "{denied}");
    assert!(rows(&denied, "denied") >= 1, "{denied}");
    let (_, other) = get(&app, "/audit?server=elsewhere", &cookie).await;
    assert!(other.contains("No decision recorded"), "{other}");
    let (_, notes) = get(&app, "/audit?server=notes&decision=allowed", &cookie).await;
    assert!(
        rows(&notes, "allowed") >= 1 && rows(&notes, "denied") == 0,
        "{notes}"
    );
    drop(app);
}

/// Says `text` from the app's own page and answers every approval
/// question with allow, until the turn ends; the events of the turn.
async fn turn(app: &App, events: &mut Events, own: &str, text: &str) -> Vec<Value> {
    let said = post(app, "/say", &json!({ "text": text }), own).await;
    assert_eq!(status(&said.0), 202, "{said:?}");
    follow(app, events, own).await
}

/// The events of the turn under way, every approval question answered
/// with allow, until it ends or another question waits.
async fn follow(app: &App, events: &mut Events, own: &str) -> Vec<Value> {
    let mut seen = Vec::new();
    loop {
        let event = events
            .until(|e| {
                matches!(
                    e["type"].as_str(),
                    Some("question" | "call" | "end" | "progress" | "view")
                )
            })
            .await;
        seen.push(event.clone());
        match event["type"].as_str() {
            Some("end") => return seen,
            Some("question") if event["kind"] == "approval" => {
                let reply = json!({"id": event["id"], "choice": "allow"});
                assert_eq!(status(&post(app, "/answer", &reply, own).await.0), 204);
            }
            Some("question") => return seen,
            _ => {}
        }
    }
}

/// The handle of the note a `create_note` call made, from its result.
fn handle(events: &[Value]) -> String {
    let result = events
        .iter()
        .rev()
        .find_map(|e| e["result"].as_str())
        .unwrap_or_default();
    let start = result.find("note_").unwrap_or_else(|| panic!("{result}"));
    result[start..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .collect()
}

/// An endorsement answered with "make this a flow rule": the rule is
/// shown in the question before anything is written, written to the
/// configuration once chosen, and the next such call goes ahead without
/// asking. The control: before the rule, the same call asks.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flow_rule_is_shown_first_then_written_and_then_applies() {
    let model = Obedient::start().await;
    let app = untrusted_notes(&model, &["notes"]).await;
    let (own, mut events) = session(&app).await;
    let config = app.dir.0.join("servers.json");
    // The model calls each instruction once: each turn writes its own body.
    let write = |n: u8| format!("CALL notes__create_note {{\"title\": \"t\", \"body\": \"b{n}\"}}");
    // The note's handle is the notes server's untrusted output.
    turn(&app, &mut events, &own, &write(1)).await;
    let asked = turn(&app, &mut events, &own, &write(2)).await;
    let question = asked.last().expect("a question");
    assert_eq!(question["kind"], "endorsement", "{asked:?}");
    assert_eq!(
        question["rules"],
        json!([{"from": "notes", "to": "notes/create_note"}]),
        "{question}"
    );
    assert!(
        question["choices"].to_string().contains("\"rule\""),
        "{question}"
    );
    let before = std::fs::read_to_string(&config).expect("config");
    assert!(!before.contains("flows"), "written before it was chosen");
    let reply = json!({"id": question["id"], "choice": "rule"});
    assert_eq!(status(&post(&app, "/answer", &reply, &own).await.0), 204);
    let rest = follow(&app, &mut events, &own).await;
    let call = rest.iter().find(|e| e["type"] == "call").expect("the call");
    assert_eq!(call["decision"], "sent", "{call}");
    let after: Value =
        serde_json::from_str(&std::fs::read_to_string(&config).expect("config")).expect("json");
    assert_eq!(
        after["flow"]["flows"],
        json!([{"from": "notes", "to": "notes/create_note"}])
    );
    assert_eq!(after["mcpServers"]["notes"]["args"], json!(["--stdio"]));
    // The rule applies from the next turn: no endorsement asked.
    let next = turn(&app, &mut events, &own, &write(3)).await;
    assert!(next.iter().all(|e| e["kind"] != "endorsement"), "{next:?}");
    let sent = next.iter().find(|e| e["type"] == "call").expect("a call");
    assert_eq!(sent["decision"], "sent", "{sent}");
    assert!(model.requests().len() >= 6);
}

/// A server's elicitation is a form in a dialog: the person's answer
/// reaches the server, whose result says what it did; a long call's
/// progress reaches the page.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_elicitation_is_a_form_and_progress_reaches_the_page() {
    let model = Obedient::start().await;
    let app = started(&model).await;
    let (own, mut events) = session(&app).await;
    let made = turn(
        &app,
        &mut events,
        &own,
        "CALL notes__create_note {\"title\": \"doomed\", \"body\": \"b\"}",
    )
    .await;
    let note = handle(&made);
    let export = format!("CALL notes__export_notes {{\"handles\": [\"{note}\"]}}");
    let exported = turn(&app, &mut events, &own, &export).await;
    let progress = exported
        .iter()
        .find(|e| e["type"] == "progress")
        .unwrap_or_else(|| panic!("no progress: {exported:?}"));
    assert_eq!(progress["total"], json!(1.0), "{progress}");
    assert_eq!(progress["message"], "doomed", "{progress}");
    let delete = format!("CALL notes__delete_note {{\"handle\": \"{note}\"}}");
    let asked = turn(&app, &mut events, &own, &delete).await;
    let form = asked.last().expect("a question");
    assert_eq!(form["kind"], "elicitation", "{asked:?}");
    assert_eq!(form["fields"][0]["name"], "delete", "{form}");
    assert_eq!(form["fields"][0]["kind"], "boolean", "{form}");
    // A choice the form does not take is refused; the question still
    // waits.
    let wrong = json!({"id": form["id"], "choice": "allow"});
    assert_eq!(status(&post(&app, "/answer", &wrong, &own).await.0), 400);
    let reply = json!({"id": form["id"], "choice": "accept", "content": {"delete": true}});
    assert_eq!(status(&post(&app, "/answer", &reply, &own).await.0), 204);
    let call = events.until(|e| e["type"] == "call").await;
    assert_eq!(call["decision"], "sent", "{call}");
    assert!(
        call["result"]
            .as_str()
            .unwrap_or_default()
            .contains("deleted \\\"doomed\\\"")
            || call["result"]
                .as_str()
                .unwrap_or_default()
                .contains("deleted"),
        "the server deleted the note: {call}"
    );
    events.until(|e| e["type"] == "end").await;
    // The server's own word, through the model: reading it again fails.
    let read = format!("CALL notes__read_note {{\"handle\": \"{note}\"}}");
    let again = turn(&app, &mut events, &own, &read).await;
    let call = again.iter().find(|e| e["type"] == "call").expect("call");
    assert_eq!(call["isError"], true, "{call}");
}

/// The servers page's review accepts only the definitions it showed, by
/// their digests; what it records is in the flow policy's file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_servers_page_accepts_only_the_definitions_it_showed() {
    let model = Obedient::start().await;
    let app = untrusted_notes(&model, &[]).await;
    let cookie = sign_in(&app).await;
    let own = own_page(&app, &cookie);
    let (_, page) = get(&app, "/servers", &cookie).await;
    assert!(page.contains("not reviewed"), "{page}");
    let digests: Vec<String> = page
        .split("name=\"digest\" value=\"")
        .skip(1)
        .map(|rest| rest.chars().take_while(|c| *c != '"').collect())
        .collect();
    assert_eq!(digests.len(), 4, "{page}");
    let form = |digests: &[String]| {
        let mut body = form_pairs(&[("server", "notes")]);
        for d in digests {
            body.push('&');
            body.push_str(&form_pairs(&[("digest", d)]));
        }
        body
    };
    let reviews = app.dir.0.join("state/mcp-host/reviews.json");
    // A digest the page never showed accepts nothing.
    let bogus = vec![String::from("0").repeat(64)];
    assert_eq!(
        status(&post_form(&app, "/review", &form(&bogus), &own).await.0),
        303
    );
    let recorded = std::fs::read_to_string(&reviews).unwrap_or_default();
    assert!(!recorded.contains(&digests[0]), "{recorded}");
    // The digests shown are accepted, and recorded.
    assert_eq!(
        status(&post_form(&app, "/review", &form(&digests), &own).await.0),
        303
    );
    let recorded = std::fs::read_to_string(&reviews).expect("reviews recorded");
    for d in &digests {
        assert!(recorded.contains(d.as_str()), "{d} in {recorded}");
    }
    let (_, page) = get(&app, "/servers", &cookie).await;
    assert!(!page.contains("not reviewed"), "{page}");
    assert!(page.contains("accepted"), "{page}");
    drop(model);
}

fn form_pairs(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("&")
}

/// `POST path` of the form `body` (already encoded) from the app's own
/// page.
async fn post_form(app: &App, path: &str, body: &str, own: &str) -> (String, String) {
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\
         Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n{own}\r\n{body}",
        app.port,
        body.len()
    );
    raw(app.port, &request).await
}

/// A conversation is saved when a turn ends and listed with its taint; a
/// reopened one is shown again, the model is sent its history, and it is
/// still tainted: the next write asks for an endorsement. The control: in
/// a new conversation the same write does not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reopened_conversation_keeps_its_history_and_its_taint() {
    let model = Obedient::start().await;
    let app = untrusted_notes(&model, &["notes"]).await;
    let (own, mut events) = session(&app).await;
    let cookie = cookie_of(&own);
    let write = |n: u8| format!("CALL notes__create_note {{\"title\": \"t\", \"body\": \"r{n}\"}}");
    turn(&app, &mut events, &own, &write(1)).await;
    let (_, listed) = get(&app, "/conversations", &cookie).await;
    let id: String = listed
        .split("name=\"id\" value=\"")
        .nth(1)
        .unwrap_or_else(|| panic!("nothing listed: {listed}"))
        .chars()
        .take_while(|c| *c != '"')
        .collect();
    assert!(listed.contains("data-tainted=\"true\""), "{listed}");
    assert!(listed.contains("server `notes`"), "{listed}");
    // A new conversation: clean, and a write there asks no endorsement.
    assert_eq!(status(&post_form(&app, "/new", "", &own).await.0), 303);
    let clean = events.until(|e| e["type"] == "taint").await;
    assert_eq!(clean["tainted"], false, "{clean}");
    let fresh = turn(&app, &mut events, &own, &write(2)).await;
    assert!(
        fresh.iter().all(|e| e["kind"] != "endorsement"),
        "{fresh:?}"
    );
    // Reopened: its messages shown again, and its taint with them.
    let open = format!("id={id}");
    assert_eq!(status(&post_form(&app, "/open", &open, &own).await.0), 303);
    events.until(|e| e["type"] == "reset").await;
    let shown = events.until(|e| e["type"] == "user").await;
    assert!(
        shown["text"].as_str().unwrap_or_default().contains("r1"),
        "{shown}"
    );
    let taint = events.until(|e| e["type"] == "taint").await;
    assert_eq!(taint["tainted"], true, "{taint}");
    let before = model.requests().len();
    let asked = turn(&app, &mut events, &own, &write(3)).await;
    let question = asked.last().expect("a question");
    assert_eq!(question["kind"], "endorsement", "{asked:?}");
    // The model was sent the reopened history, not the new conversation's.
    let sent = model.requests()[before..]
        .first()
        .cloned()
        .expect("a request");
    let history = sent["messages"].to_string();
    assert!(
        history.contains("r1") && !history.contains("r2"),
        "{history}"
    );
    let refuse = json!({"id": question["id"], "choice": "deny"});
    assert_eq!(status(&post(&app, "/answer", &refuse, &own).await.0), 204);
    // A bad id is refused, not looked up.
    assert_eq!(
        status(&post_form(&app, "/open", "id=../x", &own).await.0),
        400
    );
}

/// MCP Apps: a tool the server marks for its views alone is never offered
/// to the model, though the host lists it; and when the model names it
/// anyway, the call does not run. The control: the same server's tool for
/// the model and the view is offered and runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_app_only_tool_is_never_offered_to_the_model() {
    let model = Obedient::start().await;
    let base = model.endpoint().base_url;
    let app = common::web::start_dice(base).await;
    let (own, mut events) = session(&app).await;
    let cookie = cookie_of(&own);
    let (_, servers) = get(&app, "/servers", &cookie).await;
    assert!(servers.contains("reroll"), "the host lists it: {servers}");
    let done = turn(
        &app,
        &mut events,
        &own,
        "CALL dice__roll {\"count\": 2, \"sides\": 6}\nCALL dice__reroll {\"count\": 2, \"sides\": 6}",
    )
    .await;
    let offered: Vec<String> = model.requests()[0]["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["function"]["name"].as_str().map(str::to_owned))
        .collect();
    assert!(offered.iter().any(|n| n == "dice__roll"), "{offered:?}");
    assert!(!offered.iter().any(|n| n.contains("reroll")), "{offered:?}");
    let calls: Vec<&Value> = done.iter().filter(|e| e["type"] == "call").collect();
    assert!(
        calls
            .iter()
            .any(|c| c["name"] == "dice__roll" && c["decision"] == "sent"),
        "{calls:?}"
    );
    assert!(
        calls.iter().all(
            |c| !(c["name"].as_str().unwrap_or_default().contains("reroll")
                && c["decision"] == "sent")
        ),
        "{calls:?}"
    );
}

/// MCP Apps: a view is pinned like a definition. Its first reading, once
/// the server's definitions were accepted, pins it; when the server
/// changes it, it is held back (for a view already on the page too), the
/// servers page shows it whole as changed, and accepting it there shows
/// it again. The audit log says why it was not shown.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_view_that_changes_is_held_back_until_accepted_again() {
    let model = Obedient::start().await;
    let base = model.endpoint().base_url;
    let app = tokio::task::spawn_blocking(move || {
        common::web::start(
            &base,
            |dir| {
                std::fs::write(dir.0.join("view.html"), "<p>first view</p>").expect("view");
                let script = json!({
                    "tools": [{"definition": {"name": "show",
                                              "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}},
                                              "_meta": {"ui": {"resourceUri": "ui://viewer/v.html"}}},
                               "does": {"kind": "text", "text": "shown"}}],
                    "resources": [{"uri": "ui://viewer/v.html", "mimeType": "text/html;profile=mcp-app",
                                   "textFile": dir.0.join("view.html")}]
                });
                std::fs::write(dir.0.join("viewer.json"), script.to_string()).expect("script");
                json!({"mcpServers": {"viewer": {
                    "command": mcp_tests::build::example("recorder"),
                    "args": [dir.0.join("viewer.json")],
                    "trustOutput": true
                }}})
            },
            &["viewer"],
        )
    })
    .await
    .expect("started");
    let (own, mut events) = session(&app).await;
    let cookie = cookie_of(&own);
    let view_of = |events: &[Value]| {
        events
            .iter()
            .find(|e| e["type"] == "view")
            .and_then(|e| e["id"].as_str())
            .map(str::to_owned)
            .unwrap_or_else(|| panic!("no view: {events:?}"))
    };
    let open = |id: String| {
        let app = &app;
        let own = own.clone();
        async move { post(app, "/view/open", &json!({ "view": id }), &own).await }
    };
    let first = view_of(&turn(&app, &mut events, &own, "CALL viewer__show {\"n\": 1}").await);
    let (head, body) = open(first.clone()).await;
    assert_eq!(status(&head), 200, "{body}");
    assert!(body.contains("first view"), "{body}");

    // The server changes its view.
    std::fs::write(app.dir.0.join("view.html"), "<p>second view</p>").expect("view");
    let second = view_of(&turn(&app, &mut events, &own, "CALL viewer__show {\"n\": 2}").await);
    for id in [second.clone(), first] {
        let (head, body) = open(id).await;
        assert_eq!(status(&head), 403, "{body}");
        assert!(body.contains("changed"), "{body}");
        assert!(!body.contains("second view"), "{body}");
    }
    let log = std::fs::read_to_string(app.dir.0.join("audit.jsonl")).expect("the audit log");
    assert!(
        log.lines().any(|l| l.contains("\"how\":\"view\"")
            && l.contains("\"refused\"")
            && l.contains("changed")),
        "{log}"
    );
    let (_, page) = get(&app, "/servers", &cookie).await;
    assert!(page.contains("data-status=\"changed\""), "{page}");
    assert!(page.contains("second view"), "shown whole: {page}");
    let digests: Vec<String> = page
        .split("name=\"digest\" value=\"")
        .skip(1)
        .map(|rest| rest.chars().take_while(|c| *c != '"').collect())
        .collect();
    assert_eq!(digests.len(), 1, "{page}");
    let form = format!("server=viewer&digest={}", digests[0]);
    assert_eq!(
        status(&post_form(&app, "/review", &form, &own).await.0),
        303
    );
    let (head, body) = open(second).await;
    assert_eq!(status(&head), 200, "{body}");
    assert!(body.contains("second view"), "{body}");
    drop(model);
}
