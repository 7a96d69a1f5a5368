//! Tool calls from MCP Apps views: code a server wrote, asking the host
//! to call a tool. A view may call only its own server's tools, and only
//! those the server made visible to apps; each call is decided as the
//! model's are, by the flow policy and then the approval gate, as driven
//! by that server's untrusted output (the view's request is recorded as
//! the server's words before the policy reads the context). The result
//! goes back to the view alone: the model never reads it.

use mcp_host::client::ClientError;
use serde_json::{Map, Value};

use super::Agent;
use crate::flow::{Endorser, FlowDecision, Ledger, ProposedCall};

/// Why a view's tool call was not made, or failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ViewCallError {
    /// The view's server has no such tool (or it is quarantined).
    #[error("the view's server has no callable tool of that name")]
    UnknownTool,
    /// The tool is the model's alone (`_meta.ui.visibility` without
    /// `"app"`).
    #[error("the tool is not visible to apps")]
    NotForApps,
    /// The flow policy or the gate refused it, with why.
    #[error("refused: {0}")]
    Refused(String),
    /// The server answered with an error.
    #[error("the server's error {code}: {message}")]
    Server {
        /// The JSON-RPC error code.
        code: i64,
        /// The server's message.
        message: String,
    },
    /// The call could not be made (the arguments, the connection).
    #[error("the call failed: {0}")]
    Failed(String),
}

/// Whether a tool with this `_meta` may be called by its server's views:
/// `_meta.ui.visibility` holds `"app"`, or there is none (visible to
/// both, as the extension says). A `visibility` that is not a list of
/// strings fails closed.
///
/// ```
/// use mcp_agent::conversation::run::for_the_views;
/// use serde_json::json;
///
/// let meta = |v: serde_json::Value| v.as_object().cloned();
/// assert!(for_the_views(None));
/// assert!(for_the_views(meta(json!({"ui": {"visibility": ["app"]}})).as_ref()));
/// assert!(!for_the_views(meta(json!({"ui": {"visibility": ["model"]}})).as_ref()));
/// assert!(!for_the_views(meta(json!({"ui": {"visibility": "app"}})).as_ref()));
/// ```
pub fn for_the_views(meta: Option<&Map<String, Value>>) -> bool {
    super::visible_to(meta, "app")
}

impl Agent<'_> {
    /// Calls `tool` of `server` for one of that server's views (named by
    /// its `ui://` URI `view`), under the flow policy and the gate, with
    /// the context of `ledger` (the conversation's) plus the view's
    /// request as the server's output. `endorser` is asked when the
    /// policy needs a person. Returns the server's `CallToolResult`, as
    /// JSON, for the view.
    ///
    /// # Errors
    ///
    /// [`ViewCallError`] when the tool is not the view's to call, the
    /// call is refused, or it fails.
    pub async fn view_call(
        &mut self,
        ledger: &Ledger,
        server: &str,
        view: &str,
        tool: &str,
        arguments: Map<String, Value>,
        endorser: &mut dyn Endorser,
    ) -> Result<Value, ViewCallError> {
        let Some(found) = self
            .host
            .tools()
            .into_iter()
            .find(|t| t.server.as_str() == server && t.tool.accept_ref().name == tool)
        else {
            return Err(ViewCallError::UnknownTool);
        };
        if !for_the_views(found.tool.accept_ref().meta.as_ref()) {
            return Err(ViewCallError::NotForApps);
        }
        let arguments_value = Value::Object(arguments.clone());
        let prepared = self
            .host
            .prepare(&found.qualified, arguments)
            .await
            .map_err(|e| ViewCallError::Failed(e.to_string()))?;
        // The view is the server's code: what it asks is the server's
        // output in the context the policy reads.
        let mut ledger = ledger.clone();
        self.policy
            .record_output(&mut ledger, server, &arguments_value.to_string());
        let proposed = ProposedCall {
            server,
            tool,
            arguments: &arguments_value,
            read_only_closed_world: prepared.read_only_closed_world_by_trusted_server(),
        };
        let refuse = |agent: &Self, reason: &str| {
            agent.audit_ledger(&prepared, "refused", reason, &ledger, None, Some(view));
            ViewCallError::Refused(reason.to_owned())
        };
        let endorsement = match self.policy.check(&ledger, &proposed) {
            FlowDecision::Free { reason, .. } => {
                self.audit_ledger(&prepared, "free", &reason, &ledger, None, Some(view));
                None
            }
            FlowDecision::Endorsed(endorsement) => Some(endorsement),
            FlowDecision::NeedsEndorsement(question) => {
                let answer = endorser.answer(&question);
                match question.answer(answer) {
                    Ok(endorsement) if endorsement.covers(&proposed) => Some(endorsement),
                    Ok(_) => return Err(refuse(self, "the endorsement does not cover this call")),
                    Err(refusal) => return Err(refuse(self, refusal.reason())),
                }
            }
        };
        if let Some(endorsement) = &endorsement {
            let reason = endorsement.reason();
            self.audit_ledger(
                &prepared,
                "endorsed",
                reason,
                &ledger,
                Some(endorsement),
                Some(view),
            );
            if self.policy.hold(endorsement) && self.persist_holdings().is_err() {
                return Err(refuse(
                    self,
                    "what the server would hold could not be recorded",
                ));
            }
        }
        let approval = match self.host.authorize(&prepared).await {
            Ok(approval) => approval,
            Err(denied) => {
                return Err(refuse(
                    self,
                    &format!("denied at the host's gate: {denied}"),
                ))
            }
        };
        match self
            .host
            .call_tool(prepared, approval, &self.call_options)
            .await
        {
            Ok(result) => Ok(serde_json::to_value(result.accept()).unwrap_or_default()),
            Err(ClientError::Rpc(error)) => {
                let error = error.accept();
                Err(ViewCallError::Server {
                    code: error.code,
                    message: error.message,
                })
            }
            Err(error) => Err(ViewCallError::Failed(error.to_string())),
        }
    }
}
