//! The host's answers to a server's input requests: elicitation, and the
//! deprecated sampling and roots. The same handler serves both eras: the
//! modern embedded input requests of an `InputRequiredResult` and the
//! legacy server-to-client JSON-RPC requests.
//!
//! Two handlers are ready made: [`NoInput`] declares nothing and declines
//! everything (the host's default), and [`ElicitWith`] answers elicitations
//! with a closure. [`accepted`], [`declined`] and [`cancelled`] build the
//! answers.
//!
//! ```
//! use std::sync::Arc;
//!
//! use mcp_host::client::input::{accepted, declined, ElicitWith};
//! use mcp_host::types::v2026_07_28::ElicitRequestParams;
//! use mcp_host::{Host, HostConfig};
//!
//! // Give every form that asks for `name` the same answer; decline the rest.
//! let input = ElicitWith::new(|request| async move {
//!     match request.accept() {
//!         ElicitRequestParams::Form(form)
//!             if serde_json::to_value(&form.requested_schema)
//!                 .is_ok_and(|s| s["properties"].get("name").is_some()) =>
//!         {
//!             let mut content = serde_json::Map::new();
//!             content.insert("name".into(), "Ada".into());
//!             accepted(content)
//!         }
//!         _ => declined(),
//!     }
//! });
//! let builder = Host::builder(HostConfig::default()).input(Arc::new(input));
//! # drop(builder);
//! ```

use mcp_types::jsonrpc::ErrorObject;
use std::future::Future;

use mcp_types::v2026_07_28::{
    ClientCapabilities, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams,
    ElicitResult, ElicitResultAction, ElicitResultContentValue, InputRequest, InputResponse,
    ListRootsResult,
};
use serde_json::{json, Map, Value};

use crate::names::ServerId;
use crate::untrusted::Untrusted;
use crate::BoxFuture;

/// Answers the input requests of servers. Every request arrives
/// [`Untrusted`], tagged with the server that sent it.
pub trait InputHandler: Send + Sync {
    /// The capabilities to declare on each request: only what this handler
    /// really answers. The default declares none.
    fn capabilities(&self) -> ClientCapabilities {
        ClientCapabilities::default()
    }

    /// Answers an elicitation. The default declines.
    fn elicit<'a>(
        &'a self,
        request: Untrusted<ElicitRequestParams>,
    ) -> BoxFuture<'a, ElicitResult> {
        let _ = request;
        Box::pin(async { declined() })
    }

    /// Answers a sampling request (deprecated). The default refuses.
    fn sample<'a>(
        &'a self,
        request: Untrusted<CreateMessageRequestParams>,
    ) -> BoxFuture<'a, Result<CreateMessageResult, String>> {
        let _ = request;
        Box::pin(async { Err(String::from("this host does not sample")) })
    }

    /// Lists the host's roots (deprecated). The default lists none.
    fn roots<'a>(&'a self, server: &'a ServerId) -> BoxFuture<'a, ListRootsResult> {
        let _ = server;
        Box::pin(async {
            ListRootsResult {
                roots: Vec::new(),
                extra: Map::new(),
            }
        })
    }
}

/// A handler that declines everything: it declares no input
/// capabilities, so servers that heed them do not ask, declines every
/// elicitation, refuses sampling and lists no roots. The host's default.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoInput;

impl InputHandler for NoInput {}

/// A handler that answers elicitations with a closure, and declines the
/// rest as [`NoInput`] does. It declares form elicitation, and URL
/// elicitation too after [`ElicitWith::with_url`]; a URL request that
/// arrives without it is declined unseen.
///
/// The closure gets the request as the server wrote it, untrusted: render
/// what it shows a person.
pub struct ElicitWith<F> {
    answer: F,
    url: bool,
}

impl<F> std::fmt::Debug for ElicitWith<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ElicitWith")
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}

impl<F, A> ElicitWith<F>
where
    F: Fn(Untrusted<ElicitRequestParams>) -> A + Send + Sync,
    A: Future<Output = ElicitResult> + Send + 'static,
{
    /// A handler that answers form elicitations with `answer`.
    pub fn new(answer: F) -> Self {
        Self { answer, url: false }
    }

    /// Answers URL elicitations with the closure as well, and declares so.
    pub fn with_url(mut self) -> Self {
        self.url = true;
        self
    }
}

impl<F, A> InputHandler for ElicitWith<F>
where
    F: Fn(Untrusted<ElicitRequestParams>) -> A + Send + Sync,
    A: Future<Output = ElicitResult> + Send + 'static,
{
    fn capabilities(&self) -> ClientCapabilities {
        let modes = if self.url {
            json!({ "form": {}, "url": {} })
        } else {
            json!({ "form": {} })
        };
        serde_json::from_value(json!({ "elicitation": modes })).unwrap_or_default()
    }

    fn elicit<'a>(
        &'a self,
        request: Untrusted<ElicitRequestParams>,
    ) -> BoxFuture<'a, ElicitResult> {
        if !self.url && matches!(request.accept_ref(), ElicitRequestParams::URL(_)) {
            return Box::pin(async { declined() });
        }
        Box::pin((self.answer)(request))
    }
}

fn answer_with(action: ElicitResultAction, content: Option<Map<String, Value>>) -> ElicitResult {
    let content = content.map(|c| {
        c.into_iter()
            .filter_map(|(k, v)| {
                Some((
                    k,
                    serde_json::from_value::<ElicitResultContentValue>(v).ok()?,
                ))
            })
            .collect()
    });
    ElicitResult {
        action,
        content,
        extra: Map::new(),
    }
}

/// An elicitation answer that accepts with `content`: one value per field
/// of the form, each a string, a number, a boolean or an array of strings
/// (other values are left out). Empty content, as a URL elicitation wants,
/// is left out too.
pub fn accepted(content: Map<String, Value>) -> ElicitResult {
    let content = (!content.is_empty()).then_some(content);
    answer_with(ElicitResultAction::Accept, content)
}

/// An elicitation answer that declines: the person said no.
pub fn declined() -> ElicitResult {
    answer_with(ElicitResultAction::Decline, None)
}

/// An elicitation answer that cancels: the person made no choice.
pub fn cancelled() -> ElicitResult {
    answer_with(ElicitResultAction::Cancel, None)
}

/// Answers one input request through `handler`.
pub(crate) async fn answer(
    handler: &dyn InputHandler,
    origin: &ServerId,
    request: InputRequest,
) -> Result<InputResponse, (String, String)> {
    Ok(match request {
        InputRequest::Elicit(r) => handler
            .elicit(Untrusted::new(origin.clone(), r.params))
            .await
            .into(),
        InputRequest::CreateMessage(r) => handler
            .sample(Untrusted::new(origin.clone(), r.params))
            .await
            .map_err(|e| ("sampling/createMessage".to_owned(), e))?
            .into(),
        InputRequest::ListRoots(_) => handler.roots(origin).await.into(),
    })
}

/// Answers a legacy server-to-client request: the `result` to send back,
/// or the error.
pub(crate) async fn answer_legacy(
    handler: &dyn InputHandler,
    origin: &ServerId,
    method: &str,
    params: Option<Map<String, Value>>,
) -> Result<Value, ErrorObject> {
    if method == "ping" {
        return Ok(json!({}));
    }
    let mut request = json!({ "method": method });
    if let Some(params) = params {
        request["params"] = Value::Object(params);
    }
    let request: InputRequest = match serde_json::from_value(request) {
        Ok(request) => request,
        Err(_)
            if !matches!(
                method,
                "elicitation/create" | "sampling/createMessage" | "roots/list"
            ) =>
        {
            return Err(ErrorObject::method_not_found(method))
        }
        Err(e) => return Err(ErrorObject::invalid_params(e.to_string())),
    };
    let response = answer(handler, origin, request)
        .await
        .map_err(|(_, reason)| ErrorObject::internal_error(reason))?;
    serde_json::to_value(response).map_err(|e| ErrorObject::internal_error(e.to_string()))
}
