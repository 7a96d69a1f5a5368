//! Fetching metadata and key sets from an authorization server: https (or
//! http to loopback) only, no redirects, a timeout, and a cap on the size
//! of the answer, read before it is parsed.

use std::time::Duration;

use reqwest::Url;
use serde_json::Value;

use super::discovery::check_url;
use crate::server::parse::strict_document;

/// The deepest nesting of a document read.
const MAX_DEPTH: usize = 32;

/// An HTTP client for one verifier.
#[derive(Clone, Debug)]
pub(crate) struct Fetcher {
    client: reqwest::Client,
    max_bytes: usize,
}

impl Fetcher {
    /// A client whose requests give up after `timeout` and read at most
    /// `max_bytes` of an answer.
    pub(crate) fn new(timeout: Duration, max_bytes: usize) -> Result<Self, String> {
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout)
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("mcp-server/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| format!("cannot build the HTTP client: {e}"))?;
        Ok(Fetcher { client, max_bytes })
    }

    /// The JSON document at `url`.
    pub(crate) async fn json(&self, url: &Url) -> Result<Value, String> {
        check_url(url).map_err(|why| format!("{url} cannot be fetched: {why}"))?;
        let mut response = self
            .client
            .get(url.clone())
            .header(reqwest::header::ACCEPT, "application/json")
            .send()
            .await
            .map_err(|e| format!("GET {url}: {}", without_url(&e)))?;
        if response.status() != reqwest::StatusCode::OK {
            return Err(format!("GET {url} answered {}", response.status()));
        }
        if response
            .content_length()
            .is_some_and(|len| len > self.max_bytes as u64)
        {
            return Err(format!(
                "GET {url}: the answer exceeds {} bytes",
                self.max_bytes
            ));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| format!("GET {url}: {}", without_url(&e)))?
        {
            if body.len() + chunk.len() > self.max_bytes {
                return Err(format!(
                    "GET {url}: the answer exceeds {} bytes",
                    self.max_bytes
                ));
            }
            body.extend_from_slice(&chunk);
        }
        strict_document(&body, MAX_DEPTH)
            .ok_or_else(|| format!("GET {url}: the answer is not a JSON document"))
    }
}

/// The error without the URL reqwest adds (the caller names it once).
fn without_url(error: &reqwest::Error) -> String {
    let kind = if error.is_timeout() {
        "timed out"
    } else if error.is_connect() {
        "cannot connect"
    } else if error.is_body() || error.is_decode() {
        "the answer broke off"
    } else {
        "the request failed"
    };
    kind.to_owned()
}
