//! The HTTP side of a protected server: the metadata routes, the bearer
//! check of each request, and refusals written as responses. The rules
//! are the auth core's ([`crate::auth`]); this file only moves them in and
//! out of axum.

use std::sync::Arc;

use axum::extract::State;
use axum::http::request::Parts;
use axum::http::{header, HeaderName, HeaderValue};
use axum::response::Response;
use axum::routing::get;
use axum::Router;

use super::{json_response, App};
use crate::auth::{well_known_path, Grant, Refusal, ResourceServer, DPOP_NONCE, WELL_KNOWN};
use crate::server::error_message;

/// `router` with the Protected Resource Metadata routes of `auth` added:
/// the path-based well-known path of the resource URI, the one of the
/// endpoint's own `path` when it differs (a server behind a proxy that
/// rewrites paths), and the root one.
pub(super) fn routes(
    mut router: Router<Arc<App>>,
    path: &str,
    auth: &ResourceServer,
) -> Router<Arc<App>> {
    let mut paths: Vec<String> = Vec::new();
    for candidate in [
        auth.metadata_path().to_owned(),
        well_known_path(path),
        WELL_KNOWN.to_owned(),
    ] {
        if candidate != path && !paths.contains(&candidate) {
            paths.push(candidate);
        }
    }
    for path in paths {
        router = router.route(&path, get(metadata));
    }
    router
}

async fn metadata(State(app): State<Arc<App>>) -> Response {
    let document = app
        .server
        .authorization()
        .map(|auth| auth.metadata().to_vec())
        .unwrap_or_default();
    let mut response = super::encoded_response(200, document);
    // Public, and read by clients running in browsers.
    response.headers_mut().insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    response
}

/// The grant of a request to a protected server; `None` when the server
/// is not protected.
///
/// # Errors
///
/// The response refusing the request.
pub(super) async fn authorize(app: &App, parts: &Parts) -> Result<Option<Arc<Grant>>, Response> {
    let Some(auth) = app.server.authorization() else {
        return Ok(None);
    };
    match auth
        .authorize(parts.method.as_str(), &parts.headers, parts.uri.query())
        .await
    {
        Ok(grant) => Ok(Some(grant)),
        Err(refused) => {
            // Our own words only: never the token or the header.
            tracing::info!(
                target: "mcp_server::auth",
                status = refused.status(),
                reason = %refused.error().message,
                "refused a request's credentials"
            );
            crate::observe::auth_refused(refused.status());
            Err(refusal(&refused))
        }
    }
}

/// A refusal as a response: its status, its challenge, its nonce, when to
/// retry (a 429 or a 503) and a JSON-RPC error body without an id.
fn refusal(refusal: &Refusal) -> Response {
    let mut response = json_response(refusal.status(), &error_message(None, refusal.error()));
    if let Some(challenge) = refusal
        .challenge()
        .and_then(|c| HeaderValue::from_str(c).ok())
    {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, challenge);
    }
    if let Some(nonce) = refusal
        .dpop_nonce()
        .and_then(|n| HeaderValue::from_str(n).ok())
    {
        response
            .headers_mut()
            .insert(HeaderName::from_static(DPOP_NONCE), nonce);
    }
    if let Some(seconds) = refusal.retry_after() {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    }
    response
}
