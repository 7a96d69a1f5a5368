//! Replays the hostile-input corpus in `tests/corpus/bad-input/` against
//! one in-process server over stdio and one over Streamable HTTP. Each case
//! must get exactly the answer it states, and after each one the same
//! server must still answer a valid request correctly. The case format is
//! described in `tests/corpus/bad-input/README.md`.

mod fixture;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use base64::Engine as _;
use fixture::http1;
use mcp_server::state::{Binding, KeyRing};
use mcp_server::RequestState;
use serde::{Deserialize, Deserializer};
use serde_json::{json, Map, Value};

/// How long the stdio runner waits for a line it expects.
const WAIT: Duration = Duration::from_secs(5);

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    about: String,
    #[serde(default = "both")]
    transports: Vec<Transport>,
    send: Send,
    #[serde(default)]
    headers: Map<String, Value>,
    #[serde(default)]
    expect: Option<Expect>,
    #[serde(default)]
    expect_stdio: Option<Expect>,
    #[serde(default)]
    expect_http: Option<Expect>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Transport {
    Stdio,
    Http,
}

fn both() -> Vec<Transport> {
    vec![Transport::Stdio, Transport::Http]
}

/// What to send: one part or a list of parts, concatenated.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Send {
    One(Part),
    Many(Vec<Part>),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "lowercase")]
enum Part {
    /// UTF-8 text, sent as it is.
    Text(String),
    /// Raw bytes.
    Base64(String),
    /// A JSON value, sent in its compact form.
    Json(Value),
    /// `text` repeated `times` times.
    Repeat { text: String, times: usize },
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Expect {
    #[serde(default)]
    no_response: bool,
    #[serde(default)]
    code: Option<i64>,
    #[serde(default)]
    message_contains: Option<String>,
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    data: Option<Value>,
    #[serde(default)]
    http_status: Option<u16>,
    #[serde(default = "one")]
    count: usize,
    #[serde(default)]
    equals: BTreeMap<String, Value>,
    #[serde(default)]
    contains: BTreeMap<String, String>,
}

fn one() -> usize {
    1
}

/// Keeps an explicit `null` as `Some(Value::Null)`.
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

impl Case {
    fn expect(&self, transport: Transport) -> &Expect {
        let specific = match transport {
            Transport::Stdio => self.expect_stdio.as_ref(),
            Transport::Http => self.expect_http.as_ref(),
        };
        specific
            .or(self.expect.as_ref())
            .unwrap_or_else(|| panic!("{}: no expectation for {transport:?}", self.name))
    }

    /// Checks that the case says exactly what it expects.
    fn check_shape(&self, file: &Path) {
        let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        assert_eq!(
            self.name,
            stem,
            "{}: `name` is the file name",
            file.display()
        );
        assert!(!self.about.is_empty(), "{}: `about` is empty", self.name);
        for &transport in &self.transports {
            let expect = self.expect(transport);
            if expect.no_response {
                assert!(
                    expect.code.is_none() && expect.id.is_none() && expect.equals.is_empty(),
                    "{}: a case without a response states nothing about one",
                    self.name
                );
                continue;
            }
            assert!(
                expect.id.is_some(),
                "{}: state the `id` of the response (null for none)",
                self.name
            );
            if expect.code.is_some() {
                assert!(
                    expect.message_contains.is_some(),
                    "{}: state part of the error message",
                    self.name
                );
            }
            if transport == Transport::Stdio && self.expect_stdio.is_some() {
                assert!(
                    expect.http_status.is_none(),
                    "{}: `expect_stdio` has no HTTP status",
                    self.name
                );
            }
            if transport == Transport::Http {
                assert!(
                    expect.http_status.is_some(),
                    "{}: state the HTTP status",
                    self.name
                );
            }
        }
        if !self.transports.contains(&Transport::Http) {
            assert!(
                self.headers.is_empty(),
                "{}: headers are for HTTP",
                self.name
            );
        }
    }

    fn bytes(&self, tokens: &Tokens) -> Vec<u8> {
        let parts = match &self.send {
            Send::One(part) => std::slice::from_ref(part),
            Send::Many(parts) => parts.as_slice(),
        };
        let mut bytes = Vec::new();
        for part in parts {
            match part {
                Part::Text(text) => bytes.extend_from_slice(tokens.fill(text).as_bytes()),
                Part::Base64(data) => bytes.extend(
                    base64::engine::general_purpose::STANDARD
                        .decode(data)
                        .unwrap_or_else(|e| panic!("{}: bad base64: {e}", self.name)),
                ),
                Part::Json(value) => bytes.extend_from_slice(
                    tokens
                        .fill(&serde_json::to_string(value).expect("encodes"))
                        .as_bytes(),
                ),
                Part::Repeat { text, times } => {
                    bytes.extend_from_slice(text.repeat(*times).as_bytes());
                }
            }
        }
        bytes
    }

    /// The HTTP headers: an honest client's for the body, then the case's
    /// own (a `null` value removes a header).
    fn http_headers(&self, body: &[u8]) -> Vec<(String, String)> {
        let message = serde_json::from_slice(body).unwrap_or(Value::Null);
        let mut headers = http1::headers_for(&message);
        for (name, value) in &self.headers {
            headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
            match value {
                Value::Null => {}
                Value::String(value) => headers.push((name.clone(), value.clone())),
                other => panic!("{}: header {name} is {other}", self.name),
            }
        }
        headers
    }
}

/// Sealed `requestState` tokens for the placeholders `{{state:...}}`, made
/// with the fixture's key (or, for `foreign-key`, another one).
struct Tokens(Vec<(String, String)>);

impl Tokens {
    fn new() -> Self {
        let keys = KeyRing::new(fixture::STATE_KEY_ID, fixture::STATE_KEY);
        let other_keys = KeyRing::new(99, [0x11; 32]);
        let state = |tool: &str| fixture::Pending {
            tool: tool.to_owned(),
            tag: None,
            step: 1,
        };
        let seal = |keys: &KeyRing, tool: &str, principal: Option<&str>, at: SystemTime| {
            let binding = Binding::new("tools/call")
                .with_principal(principal)
                .bind("tool", tool)
                .bind("tag", &None::<String>);
            state(tool)
                .seal_at(keys, &binding, at)
                .expect("the fixture state seals")
        };
        let now = SystemTime::now();
        let valid = seal(&keys, "confirm", None, now);
        // Change one character in the middle, to another base64url one.
        let mut tampered = valid.clone().into_bytes();
        let middle = tampered.len() / 2;
        tampered[middle] = if tampered[middle] == b'A' { b'B' } else { b'A' };
        let tampered = String::from_utf8(tampered).expect("ASCII");
        let day_ago = now - Duration::from_secs(86_400);
        Tokens(vec![
            ("{{state:valid}}".into(), valid),
            ("{{state:tampered}}".into(), tampered),
            (
                "{{state:expired}}".into(),
                seal(&keys, "confirm", None, day_ago),
            ),
            (
                "{{state:foreign-key}}".into(),
                seal(&other_keys, "confirm", None, now),
            ),
            (
                "{{state:other-tool}}".into(),
                seal(&keys, "other", None, now),
            ),
            (
                "{{state:other-principal}}".into(),
                seal(&keys, "confirm", Some("mallory"), now),
            ),
        ])
    }

    fn fill(&self, text: &str) -> String {
        self.0
            .iter()
            .fold(text.to_owned(), |text, (placeholder, token)| {
                text.replace(placeholder, token)
            })
    }
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/bad-input")
}

fn load() -> Vec<Case> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("the corpus directory exists")
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|file| {
            let text = std::fs::read_to_string(file).expect("readable");
            let case: Case =
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            case.check_shape(file);
            case
        })
        .collect()
}

/// Checks one response against `expect`; returns what differs.
fn check(expect: &Expect, message: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    if message["jsonrpc"] != "2.0" {
        problems.push("`jsonrpc` is not \"2.0\"".to_owned());
    }
    match &expect.id {
        Some(Value::Null) if message.get("id").is_some_and(|id| !id.is_null()) => {
            problems.push(format!("expected no id, got {}", message["id"]));
        }
        Some(id) if !id.is_null() && message.get("id") != Some(id) => {
            problems.push(format!("expected id {id}, got {}", message["id"]));
        }
        _ => {}
    }
    match expect.code {
        Some(code) => {
            let error = &message["error"];
            if error["code"] != code {
                problems.push(format!("expected code {code}, got {}", error["code"]));
            }
            let text = error["message"].as_str().unwrap_or_default();
            if let Some(part) = &expect.message_contains {
                if !text.contains(part.as_str()) {
                    problems.push(format!("message {text:?} lacks {part:?}"));
                }
            }
            if error.get("data") != expect.data.as_ref() {
                problems.push(format!(
                    "expected data {:?}, got {:?}",
                    expect.data,
                    error.get("data")
                ));
            }
            if message.get("result").is_some() {
                problems.push("an error response carries a result".to_owned());
            }
        }
        None if message.get("result").is_none() || message.get("error").is_some() => {
            problems.push("expected a result".to_owned());
        }
        None => {}
    }
    for (pointer, value) in &expect.equals {
        if message.pointer(pointer) != Some(value) {
            problems.push(format!(
                "{pointer}: expected {value}, got {:?}",
                message.pointer(pointer)
            ));
        }
    }
    for (pointer, part) in &expect.contains {
        let text = message
            .pointer(pointer)
            .and_then(Value::as_str)
            .unwrap_or_default();
        if !text.contains(part.as_str()) {
            problems.push(format!("{pointer}: {text:?} lacks {part:?}"));
        }
    }
    problems
}

fn probe(n: usize) -> Value {
    fixture::call(json!(format!("probe-{n}")), "add", json!({"a": n, "b": 1}))
}

/// Whether `message` is the correct answer to probe `n`.
fn probe_answered(n: usize, message: &Value) -> bool {
    message["id"] == format!("probe-{n}")
        && message.pointer("/result/structuredContent/result") == Some(&json!(n + 1))
}

fn report(transport: &str, failures: &[String], cases: usize) {
    assert!(
        failures.is_empty(),
        "{} of {cases} cases failed over {transport}:\n{}",
        failures.len(),
        failures.join("\n")
    );
    println!("bad-input corpus: {cases} cases passed over {transport}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_case_over_stdio() {
    let cases = load();
    let tokens = Tokens::new();
    let mut client = fixture::StdioClient::start(fixture::server(fixture::limits()));
    let mut failures = Vec::new();
    let mut ran = 0;
    for (n, case) in cases.iter().enumerate() {
        if !case.transports.contains(&Transport::Stdio) {
            continue;
        }
        ran += 1;
        let expect = case.expect(Transport::Stdio);
        let mut line = case.bytes(&tokens);
        line.push(b'\n');
        client.write(&line).await;
        client.send(&probe(n)).await;
        let want = if expect.no_response { 0 } else { expect.count };
        let mut answers = Vec::new();
        let mut probed = false;
        // Requests run concurrently, so the probe may overtake the case:
        // read until both the probe's answer and the expected count arrived.
        while !probed || answers.len() < want {
            let Some(message) = client.next(WAIT).await else {
                break;
            };
            if message["id"] == format!("probe-{n}") {
                if !probe_answered(n, &message) {
                    failures.push(format!("{}: wrong probe answer {message}", case.name));
                }
                probed = true;
            } else {
                answers.push(message);
            }
        }
        if !probed {
            failures.push(format!(
                "{}: the server stopped answering after this case",
                case.name
            ));
            break;
        }
        if answers.len() != want {
            failures.push(format!(
                "{}: expected {want} responses, got {}: {answers:?}",
                case.name,
                answers.len()
            ));
            continue;
        }
        for answer in &answers {
            let problems = check(expect, answer);
            if !problems.is_empty() {
                failures.push(format!(
                    "{}: {} in {answer}",
                    case.name,
                    problems.join("; ")
                ));
            }
        }
    }
    // Nothing may be left over: a late answer to a case would show here.
    let last = cases.len();
    client.send(&probe(last)).await;
    match client.next(WAIT).await {
        Some(message) if probe_answered(last, &message) => {}
        other => failures.push(format!("a stray line after the last case: {other:?}")),
    }
    client.close().await;
    report("stdio", &failures, ran);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_case_over_http() {
    let cases = load();
    let tokens = Tokens::new();
    let port = fixture::serve_http(fixture::server(fixture::limits())).await;
    let mut failures = Vec::new();
    let mut ran = 0;
    for (n, case) in cases.iter().enumerate() {
        if !case.transports.contains(&Transport::Http) {
            continue;
        }
        ran += 1;
        let expect = case.expect(Transport::Http);
        let body = case.bytes(&tokens);
        let headers = case.http_headers(&body);
        match http1::post(port, &headers, &body).await {
            Err(e) => failures.push(format!("{}: no response: {e}", case.name)),
            Ok(response) => {
                let status = expect.http_status.unwrap_or(202);
                if response.status != status {
                    failures.push(format!(
                        "{}: expected HTTP {status}, got {} ({})",
                        case.name,
                        response.status,
                        String::from_utf8_lossy(&response.body)
                    ));
                }
                let messages = response.messages();
                let answers: Vec<&Value> = messages
                    .iter()
                    .filter(|m| m.get("result").is_some() || m.get("error").is_some())
                    .collect();
                let want = usize::from(!expect.no_response);
                if answers.len() != want {
                    failures.push(format!(
                        "{}: expected {want} responses, got {messages:?}",
                        case.name
                    ));
                } else if let Some(answer) = answers.first() {
                    if response.header("content-type") != Some("application/json")
                        && messages.len() == 1
                    {
                        failures.push(format!("{}: a JSON answer without its type", case.name));
                    }
                    let problems = check(expect, answer);
                    if !problems.is_empty() {
                        failures.push(format!(
                            "{}: {} in {answer}",
                            case.name,
                            problems.join("; ")
                        ));
                    }
                }
            }
        }
        let probe = probe(n);
        let body = serde_json::to_vec(&probe).expect("encodes");
        let answered = match http1::post(port, &http1::headers_for(&probe), &body).await {
            Ok(response) => response.status == 200 && probe_answered(n, &response.messages()[0]),
            Err(_) => false,
        };
        if !answered {
            failures.push(format!(
                "{}: the server stopped answering after this case",
                case.name
            ));
            break;
        }
    }
    report("HTTP", &failures, ran);
}

#[test]
fn the_corpus_is_large_and_covers_both_transports() {
    let cases = load();
    let count = |t: Transport| cases.iter().filter(|c| c.transports.contains(&t)).count();
    assert!(cases.len() >= 60, "only {} cases", cases.len());
    assert!(count(Transport::Stdio) >= 50, "{}", count(Transport::Stdio));
    assert!(count(Transport::Http) >= 50, "{}", count(Transport::Http));
}
