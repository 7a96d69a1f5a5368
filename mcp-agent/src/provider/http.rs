//! The one module of [`provider`](super) that does I/O: a reqwest client
//! (rustls) that sends a [`Request`] to one provider's base URL, retries
//! by [`RetryPolicy`], and decodes the answer, whole or streamed.
//!
//! - The key goes in the provider's header, marked sensitive, to the
//!   configured base URL alone: redirects are not followed.
//! - A total timeout bounds a whole attempt, a read timeout each wait for
//!   bytes, [`Limits::max_body_bytes`] a non-streaming body, and
//!   [`Limits::max_event_bytes`] each event of a stream.
//! - Dropping a request's future drops the connection. A streaming turn
//!   also takes a `cancel` future: when it completes the turn ends at
//!   once with [`Error::Cancelled`].
//! - Errors name the provider, the status and the provider's message
//!   (bounded, control characters escaped), never the key.
//!
//! ```no_run
//! use mcp_agent::provider::http::{Client, Endpoint};
//! use mcp_agent::provider::key::ApiKey;
//! use mcp_agent::provider::{Provider, StreamEvent};
//! # async fn turn(request: mcp_agent::provider::Request) -> Result<(), Box<dyn std::error::Error>> {
//! // A local OpenAI-compatible server needs no key; the official
//! // services take theirs from the environment.
//! let local = Client::new(Endpoint {
//!     provider: Provider::OpenAi,
//!     base_url: "http://127.0.0.1:11434/v1".into(),
//!     key: None,
//! })?;
//! let anthropic = Client::new(Endpoint::official(
//!     Provider::Anthropic,
//!     ApiKey::from_env(Provider::Anthropic)?,
//! ))?;
//!
//! let whole = local.complete(&request).await?;
//! println!("{}", whole.text);
//!
//! // Sending on `stop` (or dropping it) cancels the turn.
//! let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
//! let streamed = anthropic
//!     .stream(&request, async { let _ = stopped.await; }, |event| {
//!         if let StreamEvent::TextDelta(text) = event {
//!             print!("{text}");
//!         }
//!     })
//!     .await?;
//! drop(stop);
//! println!("\n{:?}", streamed.usage);
//! # Ok(())
//! # }
//! ```

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use futures_util::StreamExt;
use reqwest::header::{HeaderMap, HeaderValue, AUTHORIZATION, CONTENT_TYPE};
use zeroize::Zeroizing;

use super::key::ApiKey;
use super::retry::{self, Decision, Failure, Hints, RetryPolicy};
use super::{
    bounded, error_message, Auth, DecodeError, EncodeError, Limits, Provider, Request, Response,
    StreamEvent, WireRequest,
};

/// The most bytes of an error body read for its message.
const MAX_ERROR_BODY: usize = 64 << 10;

/// Where and how to reach one provider.
#[derive(Debug, Clone)]
pub struct Endpoint {
    /// The wire format.
    pub provider: Provider,
    /// The base URL, as the provider's SDK takes it (for OpenAI and the
    /// servers that speak its API, ending in `/v1`).
    pub base_url: String,
    /// The key; `None` for a local server that needs none.
    pub key: Option<ApiKey>,
}

impl Endpoint {
    /// The provider's own service with `key`.
    pub fn official(provider: Provider, key: ApiKey) -> Self {
        Self {
            provider,
            base_url: provider.default_base_url().to_owned(),
            key: Some(key),
        }
    }
}

/// Timeouts of one attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// To open the connection.
    pub connect: Duration,
    /// Between two reads of the response (a stalled stream).
    pub read: Duration,
    /// The whole attempt, streamed body included.
    pub total: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Self {
            connect: Duration::from_secs(10),
            read: Duration::from_secs(120),
            total: Duration::from_secs(600),
        }
    }
}

/// A failed turn.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The request cannot be put on the provider's wire.
    #[error("{provider}: {source}")]
    Encode {
        /// The provider.
        provider: &'static str,
        /// Why.
        source: EncodeError,
    },
    /// The client or base URL cannot be set up.
    #[error("{provider}: {detail}")]
    Setup {
        /// The provider.
        provider: &'static str,
        /// What is wrong.
        detail: String,
    },
    /// The provider answered with an error status.
    #[error("{provider} answered {status} after {attempts} attempt(s): {message}")]
    Status {
        /// The provider.
        provider: &'static str,
        /// The HTTP status.
        status: u16,
        /// The provider's message (bounded, escaped), or the body's start.
        message: String,
        /// Attempts made.
        attempts: u32,
    },
    /// The connection failed or timed out.
    #[error("{provider}: the request failed after {attempts} attempt(s): {detail}")]
    Transport {
        /// The provider.
        provider: &'static str,
        /// What failed (bounded).
        detail: String,
        /// Attempts made.
        attempts: u32,
    },
    /// The answer could not be decoded, or was cut or too large.
    #[error("{provider}: {source}")]
    Decode {
        /// The provider.
        provider: &'static str,
        /// Why.
        source: DecodeError,
    },
    /// The caller cancelled the turn.
    #[error("{provider}: the turn was cancelled")]
    Cancelled {
        /// The provider.
        provider: &'static str,
    },
}

/// A client of one provider.
#[derive(Debug, Clone)]
pub struct Client {
    http: reqwest::Client,
    endpoint: Endpoint,
    limits: Limits,
    retry: RetryPolicy,
}

/// A failed attempt: how, what the provider hinted, and the error to
/// report if it is the last.
struct Attempt {
    failure: Failure,
    hints: Hints,
    error: Error,
}

impl Attempt {
    /// A connection that failed.
    fn transport(
        provider: &'static str,
        failure: Failure,
        error: &reqwest::Error,
        attempts: u32,
    ) -> Self {
        Self {
            failure,
            hints: Hints::default(),
            error: Error::Transport {
                provider,
                detail: bounded(&chain(error)),
                attempts,
            },
        }
    }

    /// An answer that cannot be decoded.
    fn decode(provider: &'static str, source: DecodeError) -> Self {
        Self {
            failure: Failure::Unusable,
            hints: Hints::default(),
            error: Error::Decode { provider, source },
        }
    }
}

impl Client {
    /// A client of `endpoint` with default limits, retries and timeouts.
    ///
    /// # Errors
    ///
    /// [`Error::Setup`] for a base URL that is not `http` or `https`.
    pub fn new(endpoint: Endpoint) -> Result<Self, Error> {
        Self::with(
            endpoint,
            Limits::default(),
            RetryPolicy::default(),
            Timeouts::default(),
        )
    }

    /// A client with every setting given.
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new), and when the TLS backend cannot start.
    pub fn with(
        endpoint: Endpoint,
        limits: Limits,
        retry: RetryPolicy,
        timeouts: Timeouts,
    ) -> Result<Self, Error> {
        let provider = endpoint.provider.name();
        let setup = |detail: String| Error::Setup { provider, detail };
        let url = reqwest::Url::parse(&endpoint.base_url)
            .map_err(|e| setup(format!("the base URL is not a URL: {e}")))?;
        if !matches!(url.scheme(), "http" | "https") || url.query().is_some() {
            return Err(setup(
                "the base URL must be http or https, without a query".into(),
            ));
        }
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(timeouts.connect)
            .read_timeout(timeouts.read)
            .timeout(timeouts.total)
            .build()
            .map_err(|e| setup(bounded(&chain(&e))))?;
        Ok(Self {
            http,
            endpoint,
            limits,
            retry,
        })
    }

    /// The provider this client speaks to.
    pub fn provider(&self) -> Provider {
        self.endpoint.provider
    }

    /// Sends `request` and decodes the whole answer, retrying as the
    /// policy allows.
    ///
    /// # Errors
    ///
    /// [`Error`]: the last attempt's status or transport failure, or an
    /// answer that cannot be decoded or is too large.
    pub async fn complete(&self, request: &Request) -> Result<Response, Error> {
        let wire = self.encode(request, false)?;
        self.retrying(std::future::pending(), |attempts| {
            self.complete_once(&wire, attempts)
        })
        .await
    }

    /// Sends `request` as a stream, hands each event to `on_event` as it
    /// arrives, and returns the assembled response. When `cancel`
    /// completes first, the connection is dropped and the turn ends with
    /// [`Error::Cancelled`]. Once an event reached `on_event`, nothing is
    /// retried.
    ///
    /// # Errors
    ///
    /// As [`complete`](Self::complete), plus a stream cut before the
    /// provider completed it, an error event, and [`Error::Cancelled`].
    pub async fn stream(
        &self,
        request: &Request,
        cancel: impl Future<Output = ()>,
        on_event: impl FnMut(StreamEvent),
    ) -> Result<Response, Error> {
        let wire = self.encode(request, true)?;
        // Shared by every attempt: whether an event reached the caller,
        // and the caller's callback.
        // (Atomic and locked, so that the turn's future is `Send`.)
        let delivered = AtomicBool::new(false);
        let on_event = Mutex::new(on_event);
        self.retrying(cancel, |attempts| {
            self.stream_once(&wire, attempts, &delivered, &on_event)
        })
        .await
    }

    fn encode(&self, request: &Request, stream: bool) -> Result<WireRequest, Error> {
        self.endpoint
            .provider
            .encode(request, stream)
            .map_err(|source| Error::Encode {
                provider: self.endpoint.provider.name(),
                source,
            })
    }

    fn decision(&self, attempts: u32, waited: Duration, failed: &Attempt) -> Decision {
        self.retry
            .decide(attempts, waited, failed.failure, &failed.hints, jitter())
    }

    async fn retrying<T, F>(
        &self,
        cancel: impl Future<Output = ()>,
        mut attempt: impl FnMut(u32) -> F,
    ) -> Result<T, Error>
    where
        F: Future<Output = Result<T, Attempt>>,
    {
        let provider = self.endpoint.provider.name();
        tokio::pin!(cancel);
        let mut attempts = 0;
        let mut waited = Duration::ZERO;
        loop {
            attempts += 1;
            let outcome = tokio::select! {
                biased;
                () = &mut cancel => return Err(Error::Cancelled { provider }),
                outcome = attempt(attempts) => outcome,
            };
            let failed = match outcome {
                Ok(value) => return Ok(value),
                Err(failed) => failed,
            };
            let delay = match self.decision(attempts, waited, &failed) {
                Decision::Retry(delay) => delay,
                Decision::GiveUp => return Err(failed.error),
            };
            tokio::select! {
                biased;
                () = &mut cancel => return Err(Error::Cancelled { provider }),
                () = tokio::time::sleep(delay) => waited += delay,
            }
        }
    }

    /// Sends the request; a response with a success status, or the
    /// failed attempt.
    async fn send(&self, wire: &WireRequest, attempts: u32) -> Result<reqwest::Response, Attempt> {
        let provider = self.endpoint.provider.name();
        let url = format!(
            "{}{}",
            self.endpoint.base_url.trim_end_matches('/'),
            wire.path
        );
        let mut headers = HeaderMap::new();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        for (name, value) in &wire.headers {
            headers.insert(*name, HeaderValue::from_static(value));
        }
        if let Some(key) = &self.endpoint.key {
            let (name, value) = match self.endpoint.provider.auth() {
                Auth::Bearer => (
                    AUTHORIZATION.as_str(),
                    Zeroizing::new(format!("Bearer {}", key.expose())),
                ),
                Auth::Header(name) => (name, Zeroizing::new(key.expose().to_owned())),
            };
            // `ApiKey` holds visible ASCII only, which a header takes.
            if let Ok(mut value) = HeaderValue::from_str(&value) {
                value.set_sensitive(true);
                headers.insert(name, value);
            }
        }
        let body = serde_json::to_vec(&wire.body).unwrap_or_default();
        let sent = self.http.post(url).headers(headers).body(body).send().await;
        let response =
            sent.map_err(|e| Attempt::transport(provider, Failure::Connection, &e, attempts))?;
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let mut hints = retry::hints(
            response
                .headers()
                .iter()
                .filter_map(|(name, value)| Some((name.as_str(), value.to_str().ok()?))),
            SystemTime::now(),
        );
        let body = read_capped(response, MAX_ERROR_BODY)
            .await
            .unwrap_or_default();
        // A provider that echoes the key does not get it into our errors:
        // it is cut from the body before, and from the message after, the
        // message is read (JSON escapes could hide it from the first).
        let body = self.redact(String::from_utf8_lossy(&body).into_owned());
        let value: Option<serde_json::Value> = serde_json::from_str(&body).ok();
        if hints.retry_after.is_none() && self.endpoint.provider == Provider::Gemini {
            hints.retry_after = value.as_ref().and_then(retry::gemini_retry_delay);
        }
        let message = value
            .as_ref()
            .and_then(error_message)
            .unwrap_or_else(|| bounded(&body));
        let message = self.redact(message);
        Err(Attempt {
            failure: Failure::Status(status.as_u16()),
            hints,
            error: Error::Status {
                provider,
                status: status.as_u16(),
                message,
                attempts,
            },
        })
    }

    fn redact(&self, text: String) -> String {
        match &self.endpoint.key {
            Some(key) if text.contains(key.expose()) => text.replace(key.expose(), "[redacted]"),
            _ => text,
        }
    }

    async fn complete_once(&self, wire: &WireRequest, attempts: u32) -> Result<Response, Attempt> {
        let provider = self.endpoint.provider.name();
        let response = self.send(wire, attempts).await?;
        let limit = self.limits.max_body_bytes;
        let body = read_capped(response, limit)
            .await
            .map_err(|read| match read {
                Read::TooLarge => Attempt::decode(
                    provider,
                    DecodeError::TooLarge {
                        what: "the response body",
                        limit,
                    },
                ),
                Read::Transport { error, any_bytes } => {
                    Attempt::transport(provider, retry_failure(any_bytes), &error, attempts)
                }
            })?;
        self.endpoint
            .provider
            .decode(&body, &self.limits)
            .map_err(|source| Attempt::decode(provider, source))
    }

    async fn stream_once(
        &self,
        wire: &WireRequest,
        attempts: u32,
        delivered: &AtomicBool,
        on_event: &Mutex<impl FnMut(StreamEvent)>,
    ) -> Result<Response, Attempt> {
        let provider = self.endpoint.provider.name();
        let response = self.send(wire, attempts).await?;
        let mut decoder = self.endpoint.provider.stream_decoder(self.limits);
        let mut body = response.bytes_stream();
        let mut any_bytes = false;
        while let Some(chunk) = body.next().await {
            let failure = retry_failure(any_bytes || delivered.load(Ordering::Relaxed));
            let chunk = chunk.map_err(|e| Attempt::transport(provider, failure, &e, attempts))?;
            any_bytes |= !chunk.is_empty();
            let events = decoder
                .push(&chunk)
                .map_err(|source| Attempt::decode(provider, source))?;
            if !events.is_empty() {
                delivered.store(true, Ordering::Relaxed);
                // Only this attempt holds the lock; a callback that
                // panicked poisoned it, and its turn is over anyway.
                let mut on_event = on_event.lock().unwrap_or_else(|e| e.into_inner());
                events.into_iter().for_each(&mut *on_event);
            }
        }
        decoder
            .finish()
            .map_err(|source| Attempt::decode(provider, source))
    }
}

/// How a broken connection counts: retryable only before any byte of the
/// body arrived.
fn retry_failure(any_bytes: bool) -> Failure {
    if any_bytes {
        Failure::AfterOutput
    } else {
        Failure::Connection
    }
}

enum Read {
    TooLarge,
    Transport {
        error: reqwest::Error,
        any_bytes: bool,
    },
}

/// The body, refused past `limit` bytes (by its `Content-Length` before
/// reading, and while reading).
async fn read_capped(response: reqwest::Response, limit: usize) -> Result<Vec<u8>, Read> {
    if response
        .content_length()
        .is_some_and(|len| len > limit as u64)
    {
        return Err(Read::TooLarge);
    }
    let mut body = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|error| Read::Transport {
            error,
            any_bytes: !body.is_empty(),
        })?;
        if body.len() + chunk.len() > limit {
            return Err(Read::TooLarge);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// An error and its sources, one line.
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// A number in `[0, 1)` for the backoff's jitter, from the standard
/// library's per-instance random hash keys.
fn jitter() -> f64 {
    use std::hash::{BuildHasher, Hasher};
    let bits = std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish();
    (bits >> 11) as f64 / (1u64 << 53) as f64
}
