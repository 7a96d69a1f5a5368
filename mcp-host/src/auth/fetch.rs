//! The flow's HTTP: every URL passes the [`UrlPolicy`] first, every name
//! is resolved once and the addresses it resolved to pass the policy too
//! before anything connects (so a name that resolves, or rebinds, to an
//! address inside the network is refused), bodies are bounded, and every
//! exchange has a timeout. A discovery document (a GET) follows a redirect
//! as the MCP client does ([`client::redirect`](crate::client::redirect)):
//! only on the same origin, at most five in a row, each new URL through
//! the policy again; every other redirect, and any redirect of a POST
//! (tokens, registration), is refused. Nothing here logs
//! or keeps what it sends.

use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use reqwest::Url;
use serde::de::DeserializeOwned;

use super::discovery::UrlPolicy;
use super::dpop;
use super::error::{neutral, AuthError};
use super::flow::TokenRequest;
use super::secret::Secret;

/// The largest document or response body read, in bytes.
pub const MAX_BODY: usize = 256 * 1024;

/// How long one exchange may take.
const TIMEOUT: Duration = Duration::from_secs(30);

/// What a request gave: an answer, or a redirect to judge.
enum Sent {
    /// The status and the body.
    Answer(u16, Vec<u8>),
    /// A `3xx`, with its `Location`.
    Redirect(u16, Option<String>),
}

/// What a GET of a document gave.
#[derive(Debug)]
pub(crate) enum Document<T> {
    /// The document.
    Found(T),
    /// Another status, so the next candidate URL may be tried.
    Missing(u16),
}

/// The addresses a host name resolves to: the seam between the flow and
/// the system's resolver, so that tests can give names any address
/// without sending traffic there.
pub trait Lookup: std::fmt::Debug + Send + Sync + 'static {
    /// The addresses of `host`.
    fn lookup(
        &self,
        host: String,
    ) -> Pin<Box<dyn Future<Output = std::io::Result<Vec<IpAddr>>> + Send>>;
}

/// The system's resolver (`getaddrinfo`, through tokio).
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemLookup;

impl Lookup for SystemLookup {
    fn lookup(
        &self,
        host: String,
    ) -> Pin<Box<dyn Future<Output = std::io::Result<Vec<IpAddr>>> + Send>> {
        Box::pin(async move {
            let addrs = tokio::net::lookup_host((host.as_str(), 0)).await?;
            Ok(addrs.map(|a| a.ip()).collect())
        })
    }
}

/// The flow's resolver: each name resolved once through the [`Lookup`],
/// and only the addresses the policy allows handed to the connector,
/// which connects to exactly those.
struct Guarded {
    policy: UrlPolicy,
    lookup: Arc<dyn Lookup>,
}

/// Why a name was not resolved to anything usable.
#[derive(Debug)]
struct Refused(String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

impl reqwest::dns::Resolve for Guarded {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let policy = self.policy.clone();
        let lookup = self.lookup.clone();
        Box::pin(async move {
            let host = name.as_str().to_owned();
            let addresses = lookup.lookup(host.clone()).await?;
            let mut refusals = Vec::new();
            let allowed: Vec<SocketAddr> = addresses
                .into_iter()
                .filter(|ip| match policy.refusal_for_host(&host, *ip) {
                    Some(reason) => {
                        refusals.push(format!("{ip}: {reason}"));
                        false
                    }
                    None => true,
                })
                .map(|ip| SocketAddr::new(ip, 0))
                .collect();
            if allowed.is_empty() {
                let why = if refusals.is_empty() {
                    String::from("no address")
                } else {
                    refusals.join("; ")
                };
                return Err(Box::new(Refused(format!(
                    "`{}` resolves to no address the flow may use ({why})",
                    neutral(&host)
                )))
                    as Box<dyn std::error::Error + Send + Sync>);
            }
            Ok(Box::new(allowed.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

/// The message of `error` with its causes, without the URL: the causes
/// say why a connection failed (a name the policy refused, a reset).
fn reason_of(error: reqwest::Error) -> String {
    let error = error.without_url();
    let mut text = error.to_string();
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    crate::untrusted::neutralise(&text)
}

/// An HTTP client for the flow, under a [`UrlPolicy`].
#[derive(Debug, Clone)]
pub(crate) struct Fetcher {
    client: reqwest::Client,
    pub(crate) policy: UrlPolicy,
}

impl Fetcher {
    pub(crate) fn new(policy: UrlPolicy, lookup: Arc<dyn Lookup>) -> Result<Self, AuthError> {
        let resolver = Guarded {
            policy: policy.clone(),
            lookup,
        };
        let client = reqwest::Client::builder()
            .dns_resolver(Arc::new(resolver))
            .redirect(reqwest::redirect::Policy::none())
            .timeout(TIMEOUT)
            .connect_timeout(Duration::from_secs(10))
            .build()
            .map_err(|e| AuthError::Fetch {
                what: "HTTP client",
                reason: e.to_string(),
            })?;
        Ok(Self { client, policy })
    }

    /// GETs the JSON document at `url`.
    pub(crate) async fn document<T: DeserializeOwned>(
        &self,
        what: &'static str,
        url: &Url,
    ) -> Result<Document<T>, AuthError> {
        use crate::client::redirect::{next, Method, MAX_REDIRECTS};
        let mut url = self.policy.check(what, url.as_str())?;
        let mut followed = 0;
        let (status, body) = loop {
            let request = self
                .client
                .get(url.clone())
                .header(ACCEPT, "application/json");
            let (status, location) = match self.send(what, request, None).await? {
                Sent::Answer(status, body) => break (status, body),
                Sent::Redirect(status, location) => (status, location),
            };
            let refused = |reason: String| AuthError::Fetch { what, reason };
            let to = next(&url, Method::Get, status, location.as_deref())
                .map_err(|e| refused(neutral(&e.to_string())))?
                .ok_or_else(|| refused(format!("answered {status} without a usable Location")))?;
            followed += 1;
            if followed > MAX_REDIRECTS {
                return Err(refused(format!(
                    "more than {MAX_REDIRECTS} redirects in a row"
                )));
            }
            url = self.policy.check(what, to.as_str())?;
        };
        if !(200..300).contains(&status) {
            return Ok(Document::Missing(status));
        }
        serde_json::from_slice(&body)
            .map(Document::Found)
            .map_err(|e| AuthError::Fetch {
                what,
                reason: format!("not a valid document: {}", neutral(&e.to_string())),
            })
    }

    /// POSTs a token request to `url`, with a DPoP `proof` when given;
    /// the answer's status, body, and DPoP nonce (RFC 9449 §8).
    pub(crate) async fn token(
        &self,
        what: &'static str,
        url: &str,
        request: &TokenRequest,
        proof: Option<&Secret>,
    ) -> Result<(u16, Vec<u8>, Option<String>), AuthError> {
        let url = self.policy.check(what, url)?;
        let mut builder = self
            .client
            .post(url)
            .header(ACCEPT, "application/json")
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(request.encoded().expose().to_owned());
        if let Some(basic) = &request.basic {
            builder = builder.header(AUTHORIZATION, basic.expose());
        }
        if let Some(proof) = proof {
            builder = builder.header(dpop::PROOF_HEADER, proof.expose());
        }
        let mut nonce = None;
        let (status, body) = self.exchange(what, builder, Some(&mut nonce)).await?;
        Ok((status, body, nonce))
    }

    /// POSTs a JSON body to `url`.
    pub(crate) async fn post_json(
        &self,
        what: &'static str,
        url: &str,
        body: &serde_json::Value,
    ) -> Result<(u16, Vec<u8>), AuthError> {
        let url = self.policy.check(what, url)?;
        let builder = self
            .client
            .post(url)
            .header(ACCEPT, "application/json")
            .header(CONTENT_TYPE, "application/json")
            .body(body.to_string());
        self.exchange(what, builder, None).await
    }

    /// Sends `request` and reads the answer, bounded; its DPoP nonce
    /// goes to `nonce` when asked for. A redirect is refused.
    async fn exchange(
        &self,
        what: &'static str,
        request: reqwest::RequestBuilder,
        nonce: Option<&mut Option<String>>,
    ) -> Result<(u16, Vec<u8>), AuthError> {
        match self.send(what, request, nonce).await? {
            Sent::Answer(status, body) => Ok((status, body)),
            Sent::Redirect(status, _) => Err(AuthError::Fetch {
                what,
                reason: format!("answered with a redirect ({status}), which is not followed"),
            }),
        }
    }

    /// Sends `request` and reads the answer, bounded, or the redirect it
    /// answered with; its DPoP nonce goes to `nonce` when asked for.
    async fn send(
        &self,
        what: &'static str,
        request: reqwest::RequestBuilder,
        nonce: Option<&mut Option<String>>,
    ) -> Result<Sent, AuthError> {
        let fail = |reason: String| AuthError::Fetch { what, reason };
        // The error of a failed send names the URL, which holds nothing
        // secret (tokens travel in bodies and headers only).
        let mut response = request.send().await.map_err(|e| fail(reason_of(e)))?;
        let status = response.status().as_u16();
        if let Some(nonce) = nonce {
            *nonce = response
                .headers()
                .get(dpop::NONCE_HEADER)
                .and_then(|v| v.to_str().ok())
                .and_then(dpop::nonce);
        }
        if (300..400).contains(&status) && status != 304 {
            let location = response
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            return Ok(Sent::Redirect(status, location));
        }
        if response
            .content_length()
            .is_some_and(|n| n > MAX_BODY as u64)
        {
            return Err(fail(format!("the answer is larger than {MAX_BODY} bytes")));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| fail(reason_of(e)))? {
            if body.len() + chunk.len() > MAX_BODY {
                return Err(fail(format!("the answer is larger than {MAX_BODY} bytes")));
            }
            body.extend_from_slice(&chunk);
        }
        Ok(Sent::Answer(status, body))
    }
}
