//! The whole request pipeline of a server, as a transport drives it: any
//! bytes, with or without HTTP headers, get a well-formed answer (or none,
//! for notifications), with a code the protocol defines. A request with
//! an id gets exactly one answer, however long it takes (a stream is read
//! to its answer, a listen stream to its acknowledgement), and an answer
//! carries the id that was asked, or none when the id could not be read.
//!
//! Input: header lines (`Name: value`), an empty line, then the body. With
//! no empty line the input is all body, handled as on stdio.

#![no_main]

use std::sync::LazyLock;
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use mcp_server::types::v2026_07_28::TextResourceContents;
use mcp_server::{resource, resources, tool, tools, Limits, Outcome, RequestHeaders, Server};
use serde_json::{Map, Value};

struct Fixture;

#[tools]
impl Fixture {
    /// Adds two integers.
    #[tool]
    fn add(&self, a: i64, b: i64) -> i64 {
        a.wrapping_add(b)
    }

    /// Echoes a header-mirrored argument.
    #[tool]
    fn region(&self, #[header("Region")] region: String) -> String {
        region
    }
}

#[resources]
impl Fixture {
    /// One item per id.
    #[resource("fuzz://items/{id}", name = "item")]
    fn item(&self, id: String) -> TextResourceContents {
        TextResourceContents {
            meta: None,
            mime_type: None,
            text: id.clone(),
            uri: format!("fuzz://items/{id}"),
            extra: Map::new(),
        }
    }
}

static RUNTIME: LazyLock<tokio::runtime::Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime")
});

static SERVER: LazyLock<Server> = LazyLock::new(|| {
    Server::builder(Fixture)
        .tools()
        .resources()
        .limits(Limits {
            max_message_bytes: 64 * 1024,
            ..Limits::default()
        })
        .build()
        .expect("the server builds")
});

const CODES: &[i64] = &[
    -32700, -32600, -32601, -32602, -32603, -32020, -32021, -32022,
];

/// Splits the input at its first empty line into HTTP headers and a body;
/// without an empty line it is all body, handled as on stdio.
fn split(data: &[u8]) -> (Option<RequestHeaders>, &[u8]) {
    match data.windows(2).position(|w| w == b"\n\n") {
        Some(end) => (Some(headers(&data[..end])), &data[end + 2..]),
        None => (None, data),
    }
}

fn headers(block: &[u8]) -> RequestHeaders {
    let mut headers = RequestHeaders::default();
    for line in String::from_utf8_lossy(block).lines() {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim().to_owned();
        match name.trim().to_ascii_lowercase().as_str() {
            "mcp-protocol-version" => headers.protocol_version = Some(value),
            "mcp-method" => headers.method = Some(value),
            "mcp-name" => headers.name = Some(value),
            other => {
                if let Some(param) = other.strip_prefix("mcp-param-") {
                    headers.params.push((param.to_owned(), value));
                }
            }
        }
    }
    headers
}

/// The id of `body` if it is a JSON object with a string or integer `id`,
/// and whether it reads as a request (it also has a string `method`).
fn body_id(body: &[u8]) -> (Option<Value>, bool) {
    let Ok(message) = serde_json::from_slice::<Value>(body) else {
        return (None, false);
    };
    let id = message
        .get("id")
        .filter(|id| id.is_string() || id.is_i64() || id.is_u64())
        .cloned();
    let request = id.is_some() && message.get("method").is_some_and(Value::is_string);
    (id, request)
}

/// An answer's id is the request's, or null on an error about a request
/// whose id the server could not read.
fn check_id(message: &Value, asked: Option<&Value>) {
    let id = &message["id"];
    if id.is_null() {
        assert!(
            message.get("error").is_some(),
            "a result without an id: {message}"
        );
    } else {
        assert_eq!(Some(id), asked, "an answer to an id never asked: {message}");
    }
}

fn check(message: &Value) {
    assert_eq!(message["jsonrpc"], "2.0", "{message}");
    match (message.get("result"), message.get("error")) {
        (Some(result), None) => assert!(result.get("resultType").is_some(), "{message}"),
        (None, Some(error)) => {
            let code = error["code"].as_i64().expect("an integer code");
            assert!(CODES.contains(&code), "{message}");
            assert!(error["message"].is_string(), "{message}");
        }
        _ => panic!("neither a result nor an error: {message}"),
    }
}

fuzz_target!(|data: &[u8]| {
    let (headers, body) = split(data);
    let (asked, request) = body_id(body);
    let outcome = RUNTIME.block_on(SERVER.handle_bytes(body, headers.as_ref()));
    match outcome {
        Outcome::Reply { status, message } => {
            assert!([200, 400, 404, 413, 503].contains(&status), "{status}");
            let message = message.to_value();
            check(&message);
            check_id(&message, asked.as_ref());
        }
        Outcome::Stream {
            mut messages,
            guard,
        } => {
            // Only requests stream. A tool's stream ends with its answer;
            // a listen stream never ends, and opens with an
            // acknowledgement.
            assert!(request, "a stream for what was not a request");
            let answer = RUNTIME.block_on(async {
                loop {
                    let message = tokio::time::timeout(Duration::from_secs(60), messages.recv())
                        .await
                        .expect("the stream answers in time")
                        .expect("the stream ends with an answer");
                    let method = message.get("method").and_then(Value::as_str);
                    match method {
                        Some("notifications/subscriptions/acknowledged") => break None,
                        Some(_) => continue,
                        None => break Some(message),
                    }
                }
            });
            if let Some(answer) = answer {
                check(&answer);
                check_id(&answer, asked.as_ref());
                // Exactly one answer: the stream ends after it.
                let after = RUNTIME.block_on(async {
                    tokio::time::timeout(Duration::from_secs(60), messages.recv()).await
                });
                assert!(
                    matches!(after, Ok(None)),
                    "more after the answer: {after:?}"
                );
            }
            drop(guard);
        }
        // Only a protected server challenges, and this one is not.
        Outcome::Challenge { .. } => panic!("a challenge from an unprotected server"),
        // Accepted is for notifications and responses: a request with an
        // id is never dropped without an answer.
        Outcome::Accepted => assert!(!request, "request {asked:?} got no answer"),
    }
});
