//! The HTTP+SSE transport of protocol version 2024-11-05, deprecated since
//! 2025-03-26, for the servers that still speak only it (configured with
//! `"type": "sse"`, or found by the fallback of a `"type": "http"` server
//! that refuses POSTs to its URL; see the spec's
//! [backward compatibility](https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#backward-compatibility)).
//!
//! The client GETs the server's URL. The stream's first event,
//! `endpoint`, names the URL to POST messages to; it must be on the same
//! origin as the stream, since the configured headers go to it. Every
//! message of the server, responses included, comes on that one stream as
//! a `message` event and is routed like a stdio server's lines; the
//! client's messages are POSTed to the endpoint one at a time, in order.
//! A POST refused for a request fails that request with the status.
//!
//! When the stream ends or breaks, the requests in flight fail with
//! [`ClientError::Truncated`]: their answers were to come on the lost
//! stream, and this transport cannot resume one. The client connects
//! again after the delay the server asked for (`retry`), or one second,
//! doubled after each failure up to [`MAX_RECONNECT_DELAY`], at most
//! [`MAX_RECONNECTS`] times in a row. The server's session ended with its
//! stream, so on the new one the client repeats its `initialize` and
//! `notifications/initialized` before anything else is sent; requests
//! made meanwhile wait for that.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_types::jsonrpc::Message;
use mcp_types::v2026_07_28::RequestId;
use reqwest::header::{HeaderMap, ACCEPT, CONTENT_TYPE};
use reqwest::Url;
use serde_json::{json, Value};
use tokio::sync::{mpsc, watch};

use super::channel::{Channel, End, Outgoing, Routes};
use super::error::ClientError;
use super::http::{header_map, media_type, read_body, success};
use crate::sse::{Event, SseReader};

/// Reconnections in a row that may fail before the channel is closed.
pub const MAX_RECONNECTS: usize = 5;

/// The longest wait between two reconnections.
pub const MAX_RECONNECT_DELAY: Duration = Duration::from_secs(30);

/// The wait before reconnecting when the server named none.
const DEFAULT_RETRY: Duration = Duration::from_secs(1);

/// How long a repeated `initialize` may take on a new stream.
const REINITIALIZE_TIMEOUT: Duration = Duration::from_secs(30);

/// The server's stream URL and what goes with every request to it.
struct Link {
    url: Url,
    headers: HeaderMap,
    /// Largest event accepted, in bytes.
    limit: usize,
}

/// Where one stream's session takes messages, and the connections to it:
/// each stream has a pool of its own, so that no connection to a server
/// that has gone is used for its successor.
#[derive(Clone)]
struct Endpoint {
    url: Url,
    client: reqwest::Client,
}

/// The server's event stream.
struct Stream {
    response: reqwest::Response,
    reader: SseReader,
    queue: VecDeque<Event>,
}

/// What the stream gave.
enum Read {
    Event(Event),
    /// It ended or broke; another may be opened.
    Ended,
    /// An event passed the limit.
    TooLarge,
}

impl Stream {
    async fn next(&mut self) -> Read {
        loop {
            if let Some(event) = self.queue.pop_front() {
                return Read::Event(event);
            }
            match self.response.chunk().await {
                Ok(Some(chunk)) => match self.reader.push_events(&chunk) {
                    Ok(events) => self.queue.extend(events),
                    Err(_) => return Read::TooLarge,
                },
                Ok(None) | Err(_) => {
                    return match self.reader.finish() {
                        Some(data) => Read::Event(Event {
                            kind: String::from("message"),
                            data,
                        }),
                        None => Read::Ended,
                    }
                }
            }
        }
    }
}

impl Link {
    /// The endpoint an `endpoint` event names: resolved against the
    /// stream's URL, and only on the stream's origin.
    fn endpoint(&self, data: &str) -> Result<Url, ClientError> {
        let endpoint = self.url.join(data.trim()).map_err(|_| {
            ClientError::Protocol("the server's `endpoint` event names no URL".into())
        })?;
        if endpoint.origin() != self.url.origin() {
            return Err(ClientError::Protocol(
                "the server's `endpoint` event names another origin, which would be sent the \
                 configured headers"
                    .into(),
            ));
        }
        Ok(endpoint)
    }

    /// Opens the event stream and reads its `endpoint` event.
    async fn open(&self) -> Result<(Stream, Endpoint), ClientError> {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| ClientError::Http(e.to_string()))?;
        let mut response = client
            .get(self.url.clone())
            .headers(self.headers.clone())
            .header(ACCEPT, "text/event-stream")
            .send()
            .await
            .map_err(|e| ClientError::Http(e.to_string()))?;
        success(&mut response, self.limit).await?;
        let media = media_type(response.headers());
        if media.as_deref() != Some("text/event-stream") {
            return Err(ClientError::ContentType(media));
        }
        let mut stream = Stream {
            response,
            reader: SseReader::with_limit(self.limit),
            queue: VecDeque::new(),
        };
        match stream.next().await {
            Read::Event(event) if event.kind == "endpoint" => {
                let url = self.endpoint(&event.data)?;
                Ok((stream, Endpoint { url, client }))
            }
            Read::Event(_) => Err(ClientError::Protocol(
                "the stream's first event is not `endpoint`: not an HTTP+SSE server".into(),
            )),
            Read::Ended => Err(ClientError::Protocol(
                "the stream ended before its `endpoint` event".into(),
            )),
            Read::TooLarge => Err(ClientError::MessageTooLarge { limit: self.limit }),
        }
    }

    /// POSTs one message to `endpoint`.
    async fn post(&self, endpoint: &Endpoint, message: &Value) -> Result<(), ClientError> {
        let mut response = endpoint
            .client
            .post(endpoint.url.clone())
            .headers(self.headers.clone())
            .header(CONTENT_TYPE, "application/json")
            .body(message.to_string())
            .send()
            .await
            .map_err(|e| ClientError::Http(e.to_string()))?;
        // The answer comes on the stream; the body says at most `Accepted`,
        // and is read so that the connection can carry the next POST.
        success(&mut response, self.limit).await?;
        let _ = read_body(&mut response, self.limit).await;
        Ok(())
    }
}

/// Connects to the HTTP+SSE server at `url`, adding `headers` to every
/// request and accepting events of up to `limit` bytes; its `endpoint`
/// event must come within `timeout`.
///
/// # Errors
///
/// When the URL or a header is malformed, the server cannot be reached or
/// refuses the stream, or the stream does not begin with a valid
/// `endpoint` event in time.
pub(crate) async fn connect(
    url: &str,
    headers: &[(String, String)],
    limit: usize,
    timeout: Duration,
) -> Result<Channel, ClientError> {
    let url = Url::parse(url).map_err(|e| ClientError::Config(format!("url: {e}")))?;
    let link = Arc::new(Link {
        url,
        headers: header_map(headers)?,
        limit,
    });
    let (stream, endpoint) = tokio::time::timeout(timeout, link.open())
        .await
        .map_err(|_| ClientError::Timeout(timeout))??;
    let (channel, ends) = Channel::new();
    let (endpoint_tx, endpoint_rx) = watch::channel(Some(endpoint));
    let initialize = Arc::new(Mutex::new(None));
    let writer = tokio::spawn(write(
        link.clone(),
        ends.out,
        endpoint_rx,
        ends.routes.clone(),
        initialize.clone(),
    ));
    let reader = tokio::spawn(read(
        link,
        stream,
        endpoint_tx,
        ends.routes,
        ends.requests,
        initialize,
    ));
    Ok(channel.with_tasks(vec![writer.abort_handle(), reader.abort_handle()]))
}

/// POSTs the client's messages in order, each once there is an endpoint
/// (none while the stream is being opened again). A request whose POST
/// fails fails with it, and is not sent again: it may have run. Remembers
/// the params of `initialize`, which a new stream repeats.
async fn write(
    link: Arc<Link>,
    mut out: mpsc::UnboundedReceiver<Outgoing>,
    mut endpoint: watch::Receiver<Option<Endpoint>>,
    routes: Arc<Mutex<Routes>>,
    initialize: Arc<Mutex<Option<Value>>>,
) {
    while let Some(Outgoing::Message(message)) = out.recv().await {
        if message.get("method").and_then(Value::as_str) == Some("initialize") {
            if let Ok(mut slot) = initialize.lock() {
                *slot = message.get("params").cloned();
            }
        }
        let Ok(target) = endpoint.wait_for(Option::is_some).await.map(|e| e.clone()) else {
            // The reader is gone: so is the channel.
            return;
        };
        let Some(target) = target else { return };
        if let Err(error) = link.post(&target, &message).await {
            let request = message
                .get("method")
                .and(message.get("id"))
                .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
            if let Some(id) = request {
                Routes::fail(&routes, &id, error);
            }
        }
    }
}

/// Routes the server's messages; when the stream ends, fails what was in
/// flight and opens another (see the module docs).
async fn read(
    link: Arc<Link>,
    mut stream: Stream,
    endpoint: watch::Sender<Option<Endpoint>>,
    routes: Arc<Mutex<Routes>>,
    requests: mpsc::UnboundedSender<Message>,
    initialize: Arc<Mutex<Option<Value>>>,
) {
    let mut reconnects = 0_u64;
    loop {
        loop {
            match stream.next().await {
                Read::Event(event) => match event.kind.as_str() {
                    "message" => {
                        if let Ok(message) = Message::from_slice(event.data.as_bytes()) {
                            Routes::route(&routes, message, &requests);
                        }
                    }
                    // A server may move its endpoint; only within its origin.
                    "endpoint" => {
                        if let Ok(url) = link.endpoint(&event.data) {
                            endpoint.send_modify(|e| {
                                if let Some(e) = e {
                                    e.url = url;
                                }
                            });
                        }
                    }
                    _ => {}
                },
                Read::Ended => break,
                Read::TooLarge => {
                    endpoint.send_replace(None);
                    Routes::end(&routes, End::TooLarge(link.limit));
                    return;
                }
            }
        }
        endpoint.send_replace(None);
        Routes::fail_all(&routes, || ClientError::Truncated { attempts: 1 });
        let mut delay = stream.reader.retry().unwrap_or(DEFAULT_RETRY);
        let mut failures = 0;
        stream = loop {
            if failures == MAX_RECONNECTS {
                Routes::end(&routes, End::Closed);
                return;
            }
            tokio::time::sleep(delay).await;
            reconnects += 1;
            let params = initialize.lock().ok().and_then(|p| p.clone());
            match reopen(&link, params, reconnects, &routes, &requests).await {
                Ok((stream, target)) => {
                    endpoint.send_replace(Some(target));
                    break stream;
                }
                Err(_) => {
                    failures += 1;
                    delay = (delay * 2).min(MAX_RECONNECT_DELAY);
                }
            }
        };
    }
}

/// Opens a new stream and, when the client had initialized, initializes
/// the new session with the same params.
async fn reopen(
    link: &Link,
    initialize: Option<Value>,
    attempt: u64,
    routes: &Mutex<Routes>,
    requests: &mpsc::UnboundedSender<Message>,
) -> Result<(Stream, Endpoint), ClientError> {
    let (mut stream, target) = link.open().await?;
    let Some(params) = initialize else {
        return Ok((stream, target));
    };
    let id = RequestId::String(format!("reconnect-{attempt}"));
    let request = json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": params});
    link.post(&target, &request).await?;
    let answered = tokio::time::timeout(REINITIALIZE_TIMEOUT, async {
        loop {
            let Read::Event(event) = stream.next().await else {
                return Err(ClientError::Truncated { attempts: 1 });
            };
            if event.kind != "message" {
                continue;
            }
            let Ok(message) = Message::from_slice(event.data.as_bytes()) else {
                continue;
            };
            match message {
                Message::Response { id: answered, .. } if answered == id => return Ok(()),
                Message::ErrorResponse {
                    id: Some(answered), ..
                } if answered == id => {
                    return Err(ClientError::Protocol(
                        "the server refused the repeated `initialize`".into(),
                    ))
                }
                other => Routes::route(routes, other, requests),
            }
        }
    })
    .await
    .map_err(|_| ClientError::Timeout(REINITIALIZE_TIMEOUT))?;
    answered?;
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    link.post(&target, &initialized).await?;
    Ok((stream, target))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(url: &str) -> Link {
        Link {
            url: Url::parse(url).expect("a URL"),
            headers: HeaderMap::new(),
            limit: 1024,
        }
    }

    #[test]
    fn the_endpoint_stays_on_the_stream_origin() {
        let link = link("http://127.0.0.1:8000/sse");
        let relative = link.endpoint("/messages/?session_id=ab").expect("ok");
        assert_eq!(
            relative.as_str(),
            "http://127.0.0.1:8000/messages/?session_id=ab"
        );
        let absolute = link
            .endpoint(" http://127.0.0.1:8000/message?sessionId=1\n")
            .expect("ok");
        assert_eq!(absolute.path(), "/message");
        for elsewhere in [
            "http://127.0.0.1:8001/messages/",
            "https://127.0.0.1:8000/messages/",
            "http://evil.example/messages/",
            "//evil.example/messages/",
        ] {
            assert!(
                matches!(link.endpoint(elsewhere), Err(ClientError::Protocol(_))),
                "{elsewhere}"
            );
        }
    }
}
