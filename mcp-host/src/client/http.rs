//! The Streamable HTTP transport: each request is a POST whose answer is
//! one JSON object or an SSE stream ending with the response. Dropping the
//! answer stream closes the connection, which is how HTTP cancels.

use std::collections::VecDeque;
use std::sync::Mutex;

use mcp_types::jsonrpc::Message;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, ACCEPT, CONTENT_TYPE};
use serde_json::Value;

use super::error::ClientError;
use crate::sse::SseReader;

const SESSION_HEADER: &str = "mcp-session-id";

/// One MCP endpoint.
pub(crate) struct Http {
    client: reqwest::Client,
    url: reqwest::Url,
    headers: HeaderMap,
    /// The legacy session, once `initialize` created one.
    session: Mutex<Option<String>>,
    /// Largest JSON body or SSE event accepted, in bytes.
    limit: usize,
}

/// What came back for one POST.
pub(crate) enum Answer {
    /// A single JSON message, not yet taken.
    Json(Option<Message>),
    /// An event stream.
    Sse {
        response: reqwest::Response,
        reader: SseReader,
        queue: VecDeque<Message>,
        done: bool,
    },
}

impl Answer {
    pub(crate) async fn next(&mut self) -> Option<Result<Message, ClientError>> {
        match self {
            Self::Json(message) => message.take().map(Ok),
            Self::Sse {
                response,
                reader,
                queue,
                done,
            } => loop {
                if let Some(message) = queue.pop_front() {
                    return Some(Ok(message));
                }
                if *done {
                    return None;
                }
                let events = match response.chunk().await {
                    Ok(Some(chunk)) => match reader.push(&chunk) {
                        Ok(events) => events,
                        Err(e) => {
                            *done = true;
                            return Some(Err(e.into()));
                        }
                    },
                    Ok(None) => {
                        *done = true;
                        reader.finish().into_iter().collect()
                    }
                    Err(e) => {
                        *done = true;
                        return Some(Err(ClientError::Http(e.to_string())));
                    }
                };
                // Events that are not messages (empty keep-alives and the
                // like) are skipped.
                queue.extend(
                    events
                        .iter()
                        .filter_map(|e| Message::from_slice(e.as_bytes()).ok()),
                );
            },
        }
    }
}

impl Http {
    /// A transport for `url`, adding `headers` (from the configuration) to
    /// every POST, and accepting bodies and events of up to `limit` bytes.
    pub(crate) fn new(
        url: &str,
        headers: &[(String, String)],
        limit: usize,
    ) -> Result<Self, ClientError> {
        let url = reqwest::Url::parse(url).map_err(|e| ClientError::Config(format!("url: {e}")))?;
        let mut map = HeaderMap::new();
        for (name, value) in headers {
            let name = HeaderName::from_bytes(name.as_bytes())
                .map_err(|e| ClientError::Config(format!("header `{name}`: {e}")))?;
            let value = HeaderValue::from_str(value)
                .map_err(|e| ClientError::Config(format!("header `{name}`: {e}")))?;
            map.insert(name, value);
        }
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| ClientError::Http(e.to_string()))?;
        Ok(Self {
            client,
            url,
            headers: map,
            session: Mutex::new(None),
            limit,
        })
    }

    /// POSTs one message with the extra `headers`.
    pub(crate) async fn post(
        &self,
        message: &Value,
        headers: &[(String, String)],
    ) -> Result<Answer, ClientError> {
        let mut request = self
            .client
            .post(self.url.clone())
            .headers(self.headers.clone())
            .header(ACCEPT, "application/json, text/event-stream")
            .header(CONTENT_TYPE, "application/json")
            .body(message.to_string());
        for (name, value) in headers {
            request = request.header(name.as_str(), value.as_str());
        }
        if let Some(session) = self.session.lock().ok().and_then(|s| s.clone()) {
            request = request.header(SESSION_HEADER, session);
        }
        let mut response = request
            .send()
            .await
            .map_err(|e| ClientError::Http(e.to_string()))?;
        if let Some(session) = response
            .headers()
            .get(SESSION_HEADER)
            .and_then(|v| v.to_str().ok())
        {
            if let Ok(mut slot) = self.session.lock() {
                *slot = Some(session.to_owned());
            }
        }
        let status = response.status();
        if !status.is_success() {
            let body = read_body(&mut response, self.limit)
                .await
                .unwrap_or_default();
            return Err(ClientError::HttpStatus {
                status: status.as_u16(),
                body,
            });
        }
        let media = media_type(response.headers());
        if media.as_deref() == Some("text/event-stream") {
            return Ok(Answer::Sse {
                response,
                reader: SseReader::with_limit(self.limit),
                queue: VecDeque::new(),
                done: false,
            });
        }
        let body = read_body(&mut response, self.limit).await?;
        // An accepted notification (or answer) has no body, whatever its
        // content type.
        if body.iter().all(u8::is_ascii_whitespace) {
            return Ok(Answer::Json(None));
        }
        if media.as_deref() != Some("application/json") {
            return Err(ClientError::ContentType(media));
        }
        let message = Message::from_slice(&body).map_err(|e| {
            ClientError::Protocol(format!("the response body is not a JSON-RPC message: {e}"))
        })?;
        Ok(Answer::Json(Some(message)))
    }

    /// Opens the legacy session's GET stream, on which a legacy server
    /// sends requests that belong to no request of the client. `None` when
    /// the server offers none (405, or any other refusal).
    pub(crate) async fn open_stream(&self, headers: &[(String, String)]) -> Option<Answer> {
        let mut request = self
            .client
            .get(self.url.clone())
            .headers(self.headers.clone())
            .header(ACCEPT, "text/event-stream");
        for (name, value) in headers {
            request = request.header(name.as_str(), value.as_str());
        }
        if let Some(session) = self.session.lock().ok().and_then(|s| s.clone()) {
            request = request.header(SESSION_HEADER, session);
        }
        let response = request.send().await.ok()?;
        let streams = media_type(response.headers()).as_deref() == Some("text/event-stream");
        (response.status().is_success() && streams).then(|| Answer::Sse {
            response,
            reader: SseReader::with_limit(self.limit),
            queue: VecDeque::new(),
            done: false,
        })
    }

    /// Ends the legacy session, if there is one (best effort).
    pub(crate) async fn end_session(&self) {
        let Some(session) = self.session.lock().ok().and_then(|mut s| s.take()) else {
            return;
        };
        let _ = self
            .client
            .delete(self.url.clone())
            .headers(self.headers.clone())
            .header(SESSION_HEADER, session)
            .send()
            .await;
    }
}

/// The media type of a reply, lowercase and without parameters; `None`
/// without a `Content-Type`. A value that is not a plain `type/subtype`
/// token is replaced, so that server text never reaches an error message.
fn media_type(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(CONTENT_TYPE)?.to_str().unwrap_or("");
    let media = value.split(';').next().unwrap_or("").trim();
    let plain = !media.is_empty()
        && media.len() <= 64
        && media.split('/').count() == 2
        && media
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$&^_.+-/".contains(&b));
    Some(if plain {
        media.to_ascii_lowercase()
    } else {
        String::from("<unreadable>")
    })
}

/// The body, up to `limit` bytes.
async fn read_body(response: &mut reqwest::Response, limit: usize) -> Result<Vec<u8>, ClientError> {
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| ClientError::Http(e.to_string()))?
    {
        if body.len() + chunk.len() > limit {
            return Err(ClientError::MessageTooLarge { limit });
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}
