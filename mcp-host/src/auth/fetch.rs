//! The flow's HTTP: every URL passes the [`UrlPolicy`] first, redirects
//! are never followed, bodies are bounded, and every exchange has a
//! timeout. Nothing here logs or keeps what it sends.

use std::time::Duration;

use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use reqwest::Url;
use serde::de::DeserializeOwned;

use super::discovery::UrlPolicy;
use super::error::{neutral, AuthError};
use super::flow::TokenRequest;

/// The largest document or response body read, in bytes.
pub const MAX_BODY: usize = 256 * 1024;

/// How long one exchange may take.
const TIMEOUT: Duration = Duration::from_secs(30);

/// What a GET of a document gave.
#[derive(Debug)]
pub(crate) enum Document<T> {
    /// The document.
    Found(T),
    /// Another status, so the next candidate URL may be tried.
    Missing(u16),
}

/// An HTTP client for the flow, under a [`UrlPolicy`].
#[derive(Debug, Clone)]
pub(crate) struct Fetcher {
    client: reqwest::Client,
    pub(crate) policy: UrlPolicy,
}

impl Fetcher {
    pub(crate) fn new(policy: UrlPolicy) -> Result<Self, AuthError> {
        let client = reqwest::Client::builder()
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
        let url = self.policy.check(what, url.as_str())?;
        let request = self.client.get(url).header(ACCEPT, "application/json");
        let (status, body) = self.exchange(what, request).await?;
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

    /// POSTs a token request to `url`.
    pub(crate) async fn token(
        &self,
        url: &str,
        request: &TokenRequest,
    ) -> Result<(u16, Vec<u8>), AuthError> {
        let what = "token endpoint";
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
        self.exchange(what, builder).await
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
        self.exchange(what, builder).await
    }

    async fn exchange(
        &self,
        what: &'static str,
        request: reqwest::RequestBuilder,
    ) -> Result<(u16, Vec<u8>), AuthError> {
        let fail = |reason: String| AuthError::Fetch { what, reason };
        // The error of a failed send names the URL, which holds nothing
        // secret (tokens travel in bodies and headers only).
        let mut response = request
            .send()
            .await
            .map_err(|e| fail(e.without_url().to_string()))?;
        let status = response.status().as_u16();
        if (300..400).contains(&status) {
            return Err(fail(format!(
                "answered with a redirect ({status}), which is not followed"
            )));
        }
        if response
            .content_length()
            .is_some_and(|n| n > MAX_BODY as u64)
        {
            return Err(fail(format!("the answer is larger than {MAX_BODY} bytes")));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| fail(e.without_url().to_string()))?
        {
            if body.len() + chunk.len() > MAX_BODY {
                return Err(fail(format!("the answer is larger than {MAX_BODY} bytes")));
            }
            body.extend_from_slice(&chunk);
        }
        Ok((status, body))
    }
}
