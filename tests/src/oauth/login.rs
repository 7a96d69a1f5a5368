//! Playing the person at the authorization server's pages: open the
//! authorization URL, sign in, consent, and stop at the redirect back to
//! the client.

use std::time::Duration;

use reqwest::header::{COOKIE, LOCATION};
use reqwest::redirect::Policy;
use reqwest::{Client, Response, Url};

use super::cookies::Jar;
use super::form;

/// Most requests one sign-in may take: the provider needs about six.
const MAX_STEPS: usize = 20;

/// Longest any one request may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// Most of a page quoted in an error.
const QUOTE_LIMIT: usize = 1000;

/// Signs in as `login` and consents, as a person would in a browser, and
/// returns the URL the provider finally redirects to, the client's
/// `redirect_uri` with `code`, `state` and `iss` (or `error`) added,
/// without requesting it.
///
/// The callback is recognised by the `redirect_uri` parameter of
/// `authorization_url`: any redirect to that URL, whatever its query.
/// Redirects are followed, and forms submitted, only within the origin of
/// `authorization_url`.
///
/// # Errors
///
/// When `authorization_url` has no `redirect_uri` (use
/// [`drive_login_until`]), when the provider answers with an error page or
/// a page without a form, or redirects anywhere else.
pub async fn drive_login(authorization_url: &str, login: &str) -> Result<String, String> {
    let url = parse(authorization_url)?;
    let (_, redirect_uri) = url
        .query_pairs()
        .find(|(key, _)| key == "redirect_uri")
        .ok_or_else(|| {
            format!(
                "{authorization_url} has no redirect_uri parameter; \
                 use drive_login_until with the callback's prefix"
            )
        })?;
    let mut callback = parse(&redirect_uri)?;
    callback.set_query(None);
    callback.set_fragment(None);
    drive_login_until(authorization_url, login, callback.as_str()).await
}

/// As [`drive_login`], but returns at the first redirect to a URL that
/// starts with `prefix`.
///
/// # Errors
///
/// As [`drive_login`].
pub async fn drive_login_until(
    authorization_url: &str,
    login: &str,
    prefix: &str,
) -> Result<String, String> {
    let provider = parse(authorization_url)?;
    let http = Client::builder()
        .redirect(Policy::none())
        .no_proxy()
        .timeout(REQUEST_TIMEOUT)
        .build()
        .map_err(|e| format!("cannot build an HTTP client: {e}"))?;
    let mut jar = Jar::default();
    let mut url = provider.clone();
    let mut fields: Option<Vec<(String, String)>> = None;
    for _ in 0..MAX_STEPS {
        let mut request = match &fields {
            Some(fields) => http.post(url.clone()).form(fields),
            None => http.get(url.clone()),
        };
        if let Some(cookies) = jar.header(&url) {
            request = request.header(COOKIE, cookies);
        }
        let method = if fields.is_some() { "POST" } else { "GET" };
        let response = request
            .send()
            .await
            .map_err(|e| format!("{method} {url}: {e}"))?;
        jar.store(&url, response.headers());
        let status = response.status();
        if status.is_redirection() {
            let next = location(&url, &response)?;
            if next.as_str().starts_with(prefix) {
                return Ok(next.into());
            }
            url = same_origin(&provider, next, "redirected")?;
            fields = None;
        } else if status.is_success() {
            let page = response
                .text()
                .await
                .map_err(|e| format!("{method} {url}: {e}"))?;
            let form = form::first_form(&page)
                .filter(|form| form.method == "post")
                .ok_or_else(|| {
                    format!(
                        "{method} {url} gave a page without a form to post:\n{}",
                        quote(&page)
                    )
                })?;
            let action = url
                .join(&form.action)
                .map_err(|e| format!("the form at {url} posts to {:?}: {e}", form.action))?;
            url = same_origin(&provider, action, "posts a form")?;
            fields = Some(form.fill(login));
        } else {
            let page = response.text().await.unwrap_or_default();
            return Err(format!(
                "{method} {url} answered {status}:\n{}",
                quote(&page)
            ));
        }
    }
    Err(format!(
        "no redirect to {prefix} after {MAX_STEPS} requests; the last was to {url}"
    ))
}

fn parse(url: &str) -> Result<Url, String> {
    Url::parse(url).map_err(|e| format!("{url:?} is not a URL: {e}"))
}

/// The `Location` of a redirect from `url`, made absolute.
fn location(url: &Url, response: &Response) -> Result<Url, String> {
    let location = response
        .headers()
        .get(LOCATION)
        .and_then(|value| value.to_str().ok())
        .ok_or_else(|| format!("{url} answered {} without a Location", response.status()))?;
    url.join(location)
        .map_err(|e| format!("{url} redirected to {location:?}: {e}"))
}

/// `next` when it is on `provider`'s origin; a browser would go anywhere,
/// but a test should learn of it.
fn same_origin(provider: &Url, next: Url, what: &str) -> Result<Url, String> {
    if next.origin() == provider.origin() {
        Ok(next)
    } else {
        Err(format!(
            "the provider {what} to {next}, off its own origin {} and not to the callback",
            provider.origin().ascii_serialization()
        ))
    }
}

fn quote(page: &str) -> &str {
    let mut end = page.len().min(QUOTE_LIMIT);
    while !page.is_char_boundary(end) {
        end -= 1;
    }
    &page[..end]
}
