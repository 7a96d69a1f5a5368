//! The host's answers to a server's input requests: elicitation, and the
//! deprecated sampling and roots. The same handler serves both eras: the
//! modern embedded input requests of an `InputRequiredResult` and the
//! legacy server-to-client JSON-RPC requests.

use mcp_types::jsonrpc::ErrorObject;
use mcp_types::v2026_07_28::{
    ClientCapabilities, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams,
    ElicitResult, ElicitResultAction, InputRequest, InputResponse, ListRootsResult,
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

/// A handler that declares nothing and declines everything.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoInput;

impl InputHandler for NoInput {}

/// An elicitation answer that declines.
pub fn declined() -> ElicitResult {
    ElicitResult {
        action: ElicitResultAction::Decline,
        content: None,
        extra: Map::new(),
    }
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
