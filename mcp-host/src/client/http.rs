//! The Streamable HTTP transport: each request is a POST whose answer is
//! one JSON object or an SSE stream ending with the response. Dropping the
//! answer stream closes the connection, which is how HTTP cancels.
//!
//! In the legacy era a stream whose events carry ids can be resumed: when
//! it ends or breaks before the response, the client waits for the delay
//! the server named (`retry`), then GETs the endpoint with the id of the
//! last event it received as `Last-Event-ID`, and reads on from the stream
//! that comes back. It gives up after [`MAX_RESUMES`] reconnections in a
//! row that bring no message. The modern era has no resumption: a broken
//! stream is a lost request, which the client reissues with a new id (see
//! [`ClientOptions::max_reissues`](super::ClientOptions::max_reissues)).

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Duration;

use mcp_types::jsonrpc::Message;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, ACCEPT, CONTENT_TYPE};
use serde_json::Value;

use super::redirect::Method;

use super::error::ClientError;
use crate::sse::SseReader;

const SESSION_HEADER: &str = "mcp-session-id";
const LAST_EVENT_ID: &str = "last-event-id";
const PROTOCOL_VERSION_HEADER: &str = "mcp-protocol-version";

/// Reconnections in a row, each bringing no message, after which a broken
/// stream is given up.
pub(crate) const MAX_RESUMES: usize = 5;

/// The wait before resuming when the server named none.
const DEFAULT_RETRY: Duration = Duration::from_secs(1);

/// The generation of the access token a request carried (nothing without
/// OAuth).
#[cfg(feature = "oauth")]
type TokenGeneration = u64;
#[cfg(not(feature = "oauth"))]
type TokenGeneration = ();

/// One MCP endpoint.
pub(crate) struct Http {
    client: reqwest::Client,
    /// The endpoint as configured: what pins, tokens and the era are kept
    /// under.
    configured: reqwest::Url,
    /// The endpoint requests go to: the configured one, or where a
    /// followed redirect moved it for the rest of the session.
    url: Mutex<reqwest::Url>,
    headers: HeaderMap,
    /// The legacy session, once `initialize` created one.
    session: Mutex<Option<String>>,
    /// Largest JSON body or SSE event accepted, in bytes.
    limit: usize,
    /// The server's OAuth client, when it has one.
    #[cfg(feature = "oauth")]
    oauth: Option<std::sync::Arc<crate::auth::OAuthClient>>,
}

/// What came back for one POST.
pub(crate) enum Answer {
    /// A single JSON message, not yet taken.
    Json(Option<Message>),
    /// An event stream.
    Sse(Box<EventStream>),
}

/// An event stream being read, and how to resume it if it breaks.
pub(crate) struct EventStream {
    response: reqwest::Response,
    reader: SseReader,
    queue: VecDeque<Message>,
    /// The current response has ended; what is queued is all it gave.
    ended: bool,
    /// Why it ended, when it broke rather than closed.
    error: Option<ClientError>,
    /// Nothing more will come.
    done: bool,
    resume: Option<Resume>,
    limit: usize,
}

/// What a GET that resumes a stream needs.
struct Resume {
    client: reqwest::Client,
    url: reqwest::Url,
    /// The configured headers, the protocol version and the session.
    headers: HeaderMap,
    last_event_id: Option<String>,
    retry: Duration,
    /// Reconnections since the last message.
    fruitless: usize,
    /// Where the GET's access token comes from.
    #[cfg(feature = "oauth")]
    oauth: Option<std::sync::Arc<crate::auth::OAuthClient>>,
}

impl Answer {
    /// Whether the answer is an event stream, which can break before the
    /// response; a JSON body is whole or refused.
    pub(crate) fn is_stream(&self) -> bool {
        matches!(self, Self::Sse(_))
    }

    pub(crate) async fn next(&mut self) -> Option<Result<Message, ClientError>> {
        match self {
            Self::Json(message) => message.take().map(Ok),
            Self::Sse(stream) => stream.next().await,
        }
    }
}

impl EventStream {
    fn new(response: reqwest::Response, limit: usize) -> Self {
        Self {
            response,
            reader: SseReader::with_limit(limit),
            queue: VecDeque::new(),
            ended: false,
            error: None,
            done: false,
            resume: None,
            limit,
        }
    }

    /// Whether the stream can be resumed from where it is.
    fn resumable(&self) -> bool {
        self.resume
            .as_ref()
            .is_some_and(|r| r.last_event_id.is_some() && r.fruitless < MAX_RESUMES)
    }

    async fn next(&mut self) -> Option<Result<Message, ClientError>> {
        loop {
            if let Some(message) = self.queue.pop_front() {
                return Some(Ok(message));
            }
            if self.done {
                return self.error.take().map(Err);
            }
            if self.ended {
                self.ended = false;
                if self.reconnect().await {
                    self.error = None;
                } else {
                    self.done = true;
                }
                continue;
            }
            match self.response.chunk().await {
                Ok(Some(chunk)) => match self.reader.push(&chunk) {
                    Ok(events) => self.take(events),
                    Err(e) => {
                        self.done = true;
                        return Some(Err(e.into()));
                    }
                },
                Ok(None) => {
                    // An event cut off by the end is lost; a resumed stream
                    // sends it again, so it is only read when there is no
                    // resuming.
                    if !self.resumable() {
                        let rest = self.reader.finish();
                        self.take(rest.into_iter().collect());
                    }
                    self.ended = true;
                }
                Err(e) => {
                    self.error = Some(ClientError::Http(e.to_string()));
                    self.ended = true;
                }
            }
        }
    }

    /// Queues the messages among `events` (others, such as keep-alives,
    /// are skipped) and notes where the stream is.
    fn take(&mut self, events: Vec<String>) {
        let before = self.queue.len();
        self.queue.extend(
            events
                .iter()
                .filter_map(|e| Message::from_slice(e.as_bytes()).ok()),
        );
        if let Some(resume) = &mut self.resume {
            if let Some(id) = self.reader.last_event_id() {
                resume.last_event_id = Some(id.to_owned());
            }
            if let Some(retry) = self.reader.retry() {
                resume.retry = retry;
            }
            if self.queue.len() > before {
                resume.fruitless = 0;
            }
        }
    }

    /// Resumes the stream with a GET naming the last event received.
    /// `false` when it cannot or may not be resumed, or the server refuses.
    async fn reconnect(&mut self) -> bool {
        while self.resumable() {
            let Some(resume) = &mut self.resume else {
                return false;
            };
            let Some(last) = resume.last_event_id.clone() else {
                return false;
            };
            resume.fruitless += 1;
            tokio::time::sleep(resume.retry).await;
            let request = resume
                .client
                .get(resume.url.clone())
                .headers(resume.headers.clone())
                .header(ACCEPT, "text/event-stream")
                .header(LAST_EVENT_ID, last);
            #[cfg(feature = "oauth")]
            let request = with_bearer(request, resume.oauth.as_deref(), "GET", &resume.url)
                .await
                .0;
            let sent = request.send().await;
            match sent {
                Ok(response) if is_event_stream(&response) => {
                    self.response = response;
                    self.reader = SseReader::with_limit(self.limit);
                    return true;
                }
                // A refusal (the server keeps no events, or not that one)
                // is final.
                Ok(_) => return false,
                // The server may be coming back: try again, up to the bound.
                Err(e) => self.error = Some(ClientError::Http(e.to_string())),
            }
        }
        false
    }
}

fn is_event_stream(response: &reqwest::Response) -> bool {
    response.status().is_success()
        && media_type(response.headers()).as_deref() == Some("text/event-stream")
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
        let map = header_map(headers)?;
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| ClientError::Http(e.to_string()))?;
        Ok(Self {
            client,
            configured: url.clone(),
            url: Mutex::new(url),
            headers: map,
            session: Mutex::new(None),
            limit,
            #[cfg(feature = "oauth")]
            oauth: None,
        })
    }

    /// Gives the transport the server's OAuth client; one is not used when
    /// the configured headers carry an `Authorization` of their own.
    #[cfg(feature = "oauth")]
    pub(crate) fn with_oauth(
        mut self,
        oauth: Option<std::sync::Arc<crate::auth::OAuthClient>>,
    ) -> Self {
        if !self.headers.contains_key(reqwest::header::AUTHORIZATION) {
            self.oauth = oauth;
        }
        self
    }

    /// The server's OAuth client, when it has one.
    #[cfg(feature = "oauth")]
    pub(crate) fn oauth(&self) -> Option<&std::sync::Arc<crate::auth::OAuthClient>> {
        self.oauth.as_ref()
    }

    /// The endpoint requests go to now.
    fn url(&self) -> reqwest::Url {
        self.url
            .lock()
            .map(|u| u.clone())
            .unwrap_or_else(|_| self.configured.clone())
    }

    /// Where a followed redirect moved the endpoint, if one did.
    pub(crate) fn redirected(&self) -> Option<reqwest::Url> {
        Some(self.url()).filter(|u| *u != self.configured)
    }

    /// Moves the endpoint to `to` for the rest of the session.
    fn moved(&self, to: &reqwest::Url) {
        if let Ok(mut url) = self.url.lock() {
            *url = to.clone();
        }
    }

    /// POSTs one message with the extra `headers`, following a redirect
    /// that stays on the endpoint's origin and keeps the method (see
    /// [`redirect`](super::redirect)).
    pub(crate) async fn post(
        &self,
        message: &Value,
        headers: &[(String, String)],
    ) -> Result<Answer, ClientError> {
        let body = message.to_string();
        let mut hops = 0;
        let (mut response, generation) = loop {
            let url = self.url();
            let (response, generation) = self.send_post(&url, &body, headers).await?;
            let location = response
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|v| v.to_str().ok());
            match super::redirect::next(&url, Method::Post, response.status().as_u16(), location)? {
                Some(next) if hops < super::redirect::MAX_REDIRECTS => {
                    hops += 1;
                    self.moved(&next);
                }
                Some(next) => {
                    return Err(ClientError::Redirect {
                        status: response.status().as_u16(),
                        location: next.as_str().chars().take(200).collect(),
                        why: "too many redirects in a row",
                    });
                }
                None => break (response, generation),
            }
        };
        #[cfg(not(feature = "oauth"))]
        let () = generation;
        #[cfg(feature = "oauth")]
        if let (Some(oauth), Some(nonce)) = (
            self.oauth.as_deref(),
            response
                .headers()
                .get(crate::auth::dpop::NONCE_HEADER)
                .and_then(|v| v.to_str().ok()),
        ) {
            oauth.note_server_nonce(nonce);
        }
        #[cfg(feature = "oauth")]
        if let Some(refusal) = refusal(&response, generation) {
            if self.oauth.is_some() || refusal.status == 401 {
                return Err(ClientError::Unauthorized(Box::new(refusal)));
            }
        }
        if let Some(session) = response
            .headers()
            .get(SESSION_HEADER)
            .and_then(|v| v.to_str().ok())
        {
            if let Ok(mut slot) = self.session.lock() {
                *slot = Some(session.to_owned());
            }
        }
        success(&mut response, self.limit).await?;
        let media = media_type(response.headers());
        if media.as_deref() == Some("text/event-stream") {
            return Ok(Answer::Sse(Box::new(EventStream::new(
                response, self.limit,
            ))));
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

    /// One POST of `body` to `url`, and the generation of the token it
    /// carried.
    async fn send_post(
        &self,
        url: &reqwest::Url,
        body: &str,
        headers: &[(String, String)],
    ) -> Result<(reqwest::Response, TokenGeneration), ClientError> {
        let mut request = self
            .client
            .post(url.clone())
            .headers(self.headers.clone())
            .header(ACCEPT, "application/json, text/event-stream")
            .header(CONTENT_TYPE, "application/json")
            .body(body.to_owned());
        for (name, value) in headers {
            request = request.header(name.as_str(), value.as_str());
        }
        if let Some(session) = self.session.lock().ok().and_then(|s| s.clone()) {
            request = request.header(SESSION_HEADER, session);
        }
        #[cfg(feature = "oauth")]
        let (request, generation) = with_bearer(request, self.oauth.as_deref(), "POST", url).await;
        #[cfg(not(feature = "oauth"))]
        let generation = ();
        let response = request
            .send()
            .await
            .map_err(|e| ClientError::Http(e.to_string()))?;
        Ok((response, generation))
    }

    /// Lets a legacy request's answer resume its stream if it breaks (see
    /// the module docs). Of `headers`, the request's, only the protocol
    /// version goes with the GET; the session does too.
    pub(crate) fn resume_on_break(&self, answer: &mut Answer, headers: &[(String, String)]) {
        let Answer::Sse(stream) = answer else {
            return;
        };
        let mut map = self.headers.clone();
        for (name, value) in headers {
            if name.eq_ignore_ascii_case(PROTOCOL_VERSION_HEADER) {
                if let Ok(value) = HeaderValue::from_str(value) {
                    map.insert(PROTOCOL_VERSION_HEADER, value);
                }
            }
        }
        if let Some(session) = self.session.lock().ok().and_then(|s| s.clone()) {
            if let Ok(value) = HeaderValue::from_str(&session) {
                map.insert(SESSION_HEADER, value);
            }
        }
        stream.resume = Some(Resume {
            client: self.client.clone(),
            url: self.url(),
            headers: map,
            last_event_id: None,
            retry: DEFAULT_RETRY,
            fruitless: 0,
            #[cfg(feature = "oauth")]
            oauth: self.oauth.clone(),
        });
    }

    /// Opens the legacy session's GET stream, on which a legacy server
    /// sends requests that belong to no request of the client. `None` when
    /// the server offers none (405, or any other refusal). It resumes like
    /// a request's stream when it breaks.
    pub(crate) async fn open_stream(&self, headers: &[(String, String)]) -> Option<Answer> {
        let mut url = self.url();
        let mut hops = 0;
        let response = loop {
            let mut request = self
                .client
                .get(url.clone())
                .headers(self.headers.clone())
                .header(ACCEPT, "text/event-stream");
            for (name, value) in headers {
                request = request.header(name.as_str(), value.as_str());
            }
            if let Some(session) = self.session.lock().ok().and_then(|s| s.clone()) {
                request = request.header(SESSION_HEADER, session);
            }
            #[cfg(feature = "oauth")]
            let request = with_bearer(request, self.oauth.as_deref(), "GET", &url)
                .await
                .0;
            let response = request.send().await.ok()?;
            let location = response
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|v| v.to_str().ok());
            // A redirect the client does not follow is a refusal, as any
            // other status is here.
            match super::redirect::next(&url, Method::Get, response.status().as_u16(), location) {
                Ok(Some(next)) if hops < super::redirect::MAX_REDIRECTS => {
                    hops += 1;
                    url = next;
                }
                Ok(None) => break response,
                Ok(Some(_)) | Err(_) => return None,
            }
        };
        if !is_event_stream(&response) {
            return None;
        }
        let mut answer = Answer::Sse(Box::new(EventStream::new(response, self.limit)));
        self.resume_on_break(&mut answer, headers);
        Some(answer)
    }

    /// Ends the legacy session, if there is one (best effort).
    pub(crate) async fn end_session(&self) {
        let Some(session) = self.session.lock().ok().and_then(|mut s| s.take()) else {
            return;
        };
        let url = self.url();
        let request = self
            .client
            .delete(url.clone())
            .headers(self.headers.clone())
            .header(SESSION_HEADER, session);
        #[cfg(feature = "oauth")]
        let request = with_bearer(request, self.oauth.as_deref(), "DELETE", &url)
            .await
            .0;
        let _ = request.send().await;
    }
}

/// The configured `headers`, checked.
pub(super) fn header_map(headers: &[(String, String)]) -> Result<HeaderMap, ClientError> {
    let mut map = HeaderMap::new();
    for (name, value) in headers {
        let name = HeaderName::from_bytes(name.as_bytes())
            .map_err(|e| ClientError::Config(format!("header `{name}`: {e}")))?;
        let value = HeaderValue::from_str(value)
            .map_err(|e| ClientError::Config(format!("header `{name}`: {e}")))?;
        map.insert(name, value);
    }
    Ok(map)
}

/// `request` (a `method` to `url`) with the current access token of
/// `oauth`, if there is one, and its DPoP proof for a bound token; and
/// the generation of that token.
#[cfg(feature = "oauth")]
async fn with_bearer(
    request: reqwest::RequestBuilder,
    oauth: Option<&crate::auth::OAuthClient>,
    method: &str,
    url: &reqwest::Url,
) -> (reqwest::RequestBuilder, u64) {
    let Some(oauth) = oauth else {
        return (request, 0);
    };
    let (presented, generation) = oauth.credentials(method, url.as_str()).await;
    let Some(presented) = presented else {
        return (request, generation);
    };
    let sensitive = |value: &crate::auth::Secret| {
        let mut value = HeaderValue::from_str(value.expose()).ok()?;
        value.set_sensitive(true);
        Some(value)
    };
    let mut request = request;
    if let Some(value) = sensitive(&presented.authorization) {
        request = request.header(reqwest::header::AUTHORIZATION, value);
    }
    if let Some(value) = presented.proof.as_ref().and_then(sensitive) {
        request = request.header(crate::auth::dpop::PROOF_HEADER, value);
    }
    (request, generation)
}

/// The refusal a reply carries: a `401`, or a `403` whose challenge says
/// the token lacks scope.
#[cfg(feature = "oauth")]
fn refusal(response: &reqwest::Response, generation: u64) -> Option<crate::auth::Refusal> {
    let status = response.status().as_u16();
    if status != 401 && status != 403 {
        return None;
    }
    let values = response
        .headers()
        .get_all(reqwest::header::WWW_AUTHENTICATE)
        .iter()
        .filter_map(|v| v.to_str().ok());
    let challenge = crate::auth::BearerChallenge::from_headers(values).unwrap_or_default();
    if status == 403 && !challenge.is_insufficient_scope() {
        return None;
    }
    let nonce = response
        .headers()
        .get(crate::auth::dpop::NONCE_HEADER)
        .and_then(|v| v.to_str().ok())
        .and_then(crate::auth::dpop::nonce);
    Some(crate::auth::Refusal {
        status,
        challenge,
        generation,
        nonce,
    })
}

/// The media type of a reply, lowercase and without parameters; `None`
/// without a `Content-Type`. A value that is not a plain `type/subtype`
/// token is replaced, so that server text never reaches an error message.
pub(super) fn media_type(headers: &HeaderMap) -> Option<String> {
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

/// [`ClientError::HttpStatus`], with the body up to `limit` bytes, unless
/// the status is a success.
pub(super) async fn success(
    response: &mut reqwest::Response,
    limit: usize,
) -> Result<(), ClientError> {
    let status = response.status();
    if status.is_success() {
        return Ok(());
    }
    let body = read_body(response, limit).await.unwrap_or_default();
    Err(ClientError::HttpStatus {
        status: status.as_u16(),
        body,
    })
}

/// The body, up to `limit` bytes.
pub(super) async fn read_body(
    response: &mut reqwest::Response,
    limit: usize,
) -> Result<Vec<u8>, ClientError> {
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
