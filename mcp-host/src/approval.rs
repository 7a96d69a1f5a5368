//! Approval by construction.
//!
//! Running a tool takes an [`Approval`], and only a [`Gate`] issues one: it
//! applies the host's [`Policy`] and, where the policy says to ask, the
//! host's [`Approver`]. An approval has private fields and no public
//! constructor, is bound by digest to the exact server, tool, arguments and
//! data provenance of one [`ToolCall`], and is used up by the call.
//!
//! An approval covers its call however many times the client must send
//! it: each round of input the tool asks for, the retry after a `-32020`
//! header mismatch, a reissue after a broken response stream (see
//! [`ClientOptions::max_reissues`](crate::client::ClientOptions::max_reissues))
//! and a restart of a crashed stdio server all send the approved call
//! again. Every send is built from the one [`ToolCall`], which the client
//! only borrows, so none can change the server, the tool or the arguments.
//!
//! The default policy lets a call through unasked only when the tool is
//! declared read-only *and* the server is [`Trust::Trusted`]. Annotations of
//! untrusted servers never relax anything, and a call that carries data
//! from another server is always put to the approver.
//!
//! ```compile_fail
//! # use mcp_host::approval::Approval;
//! let forged = Approval { digest: [0; 32], grant: mcp_host::approval::Grant::Approver };
//! ```

use std::collections::BTreeSet;
use std::fmt;
use std::sync::Arc;

use mcp_types::v2026_07_28::ToolAnnotations;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::names::ServerId;
use crate::untrusted::Untrusted;
use crate::BoxFuture;

/// Whether the host trusts what a server declares about its tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Trust {
    /// The server's annotations may relax the policy.
    Trusted,
    /// The server's annotations are ignored by the policy. The default.
    #[default]
    Untrusted,
}

/// One tool call as the host will send it: target, exact arguments, and
/// the servers whose data went into the arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    server: ServerId,
    tool: String,
    qualified: String,
    arguments: Map<String, Value>,
    provenance: BTreeSet<ServerId>,
    trust: Trust,
    annotations: Option<Untrusted<ToolAnnotations>>,
}

impl ToolCall {
    /// A call of `tool` on `server` with `arguments`. `qualified` is the
    /// name the host shows, `trust` the server's, `annotations` what the
    /// server declared about the tool.
    pub(crate) fn new(
        server: ServerId,
        tool: String,
        qualified: String,
        arguments: Map<String, Value>,
        trust: Trust,
        annotations: Option<Untrusted<ToolAnnotations>>,
    ) -> Self {
        Self {
            server,
            tool,
            qualified,
            arguments,
            provenance: BTreeSet::new(),
            trust,
            annotations,
        }
    }

    /// Sets argument `key` from a value another server (or this one) wrote.
    /// The call then carries that server in its provenance, and the policy
    /// puts it to the approver.
    pub fn with_argument_from(mut self, key: impl Into<String>, value: Untrusted<Value>) -> Self {
        self.provenance.insert(value.origin().clone());
        self.arguments.insert(key.into(), value.accept());
        self
    }

    /// The server the call goes to.
    pub fn server(&self) -> &ServerId {
        &self.server
    }

    /// The tool's own name on that server.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The tool's qualified name in the host.
    pub fn qualified(&self) -> &str {
        &self.qualified
    }

    /// The exact arguments that will be sent.
    pub fn arguments(&self) -> &Map<String, Value> {
        &self.arguments
    }

    /// The servers whose data is in the arguments.
    pub fn provenance(&self) -> &BTreeSet<ServerId> {
        &self.provenance
    }

    /// The trust placed in the server.
    pub fn trust(&self) -> Trust {
        self.trust
    }

    /// What the server declared about the tool, untrusted.
    pub fn annotations(&self) -> Option<&Untrusted<ToolAnnotations>> {
        self.annotations.as_ref()
    }

    /// Whether the tool is declared read-only by a trusted server; for an
    /// untrusted server always `false`.
    pub fn read_only_by_trusted_server(&self) -> bool {
        self.trust == Trust::Trusted
            && self
                .annotations
                .as_ref()
                .and_then(|a| a.accept_ref().read_only_hint)
                == Some(true)
    }

    /// SHA-256 over the server, tool, arguments and provenance: what an
    /// approval is bound to.
    pub fn digest(&self) -> [u8; 32] {
        let mut hasher = Sha256::new();
        let canonical = serde_json::json!({
            "server": self.server.as_str(),
            "tool": self.tool,
            "arguments": self.arguments,
            "provenance": self.provenance.iter().map(ServerId::as_str).collect::<Vec<_>>(),
        });
        hasher.update(canonical.to_string().as_bytes());
        hasher.finalize().into()
    }
}

/// Who let a call through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grant {
    /// The policy: a read-only tool of a trusted server.
    Policy,
    /// The host's approver.
    Approver,
}

/// Permission to run exactly one [`ToolCall`]. Only a [`Gate`] issues it.
pub struct Approval {
    digest: [u8; 32],
    grant: Grant,
}

impl Approval {
    fn issue(call: &ToolCall, grant: Grant) -> Self {
        Self {
            digest: call.digest(),
            grant,
        }
    }

    /// Who granted it.
    pub fn grant(&self) -> Grant {
        self.grant
    }

    /// Whether it was issued for exactly `call`.
    pub fn covers(&self, call: &ToolCall) -> bool {
        self.digest == call.digest()
    }
}

impl fmt::Debug for Approval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Approval")
            .field("grant", &self.grant)
            .finish_non_exhaustive()
    }
}

/// Why the policy asks the approver.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AskReason {
    /// The tool may change its environment: it is not declared read-only
    /// by a trusted server.
    MayWrite,
    /// The policy asks for every call.
    Always,
    /// The arguments carry data written by these other servers.
    CrossServer(Vec<ServerId>),
}

/// What the policy decides before anyone is asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Requirement {
    /// Let it through.
    Allow,
    /// Ask the approver.
    Ask(AskReason),
}

/// When to ask.
#[derive(Debug, Clone, Default)]
pub struct Policy {
    /// Ask even for read-only tools of trusted servers.
    pub always_ask: bool,
}

impl Policy {
    /// What `call` needs.
    pub fn requirement(&self, call: &ToolCall) -> Requirement {
        let others: Vec<ServerId> = call
            .provenance
            .iter()
            .filter(|s| **s != call.server)
            .cloned()
            .collect();
        if !others.is_empty() {
            return Requirement::Ask(AskReason::CrossServer(others));
        }
        if self.always_ask {
            return Requirement::Ask(AskReason::Always);
        }
        if call.read_only_by_trusted_server() {
            Requirement::Allow
        } else {
            Requirement::Ask(AskReason::MayWrite)
        }
    }
}

/// What the approver saw: the call and why it is asked.
#[derive(Debug, Clone)]
pub struct ApprovalRequest {
    /// The call, with its exact arguments.
    pub call: ToolCall,
    /// Why the policy asks.
    pub reason: AskReason,
}

/// The approver's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Run it.
    Approve,
    /// Do not run it.
    Deny(String),
}

/// The host's approver: a person at a terminal, a UI, or a script's
/// standing answer.
pub trait Approver: Send + Sync {
    /// Decides on one call.
    fn decide<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, Decision>;
}

/// An approver that approves everything, for scripts that pre-approve
/// (`--yes`).
#[derive(Debug, Clone, Copy, Default)]
pub struct ApproveAll;

impl Approver for ApproveAll {
    fn decide<'a>(&'a self, _: &'a ApprovalRequest) -> BoxFuture<'a, Decision> {
        Box::pin(async { Decision::Approve })
    }
}

/// An approver that denies everything: only the policy lets calls through.
#[derive(Debug, Clone, Copy, Default)]
pub struct DenyAll;

impl Approver for DenyAll {
    fn decide<'a>(&'a self, _: &'a ApprovalRequest) -> BoxFuture<'a, Decision> {
        Box::pin(async { Decision::Deny("no approver is configured".into()) })
    }
}

/// A call the gate did not let through.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the call of `{tool}` was denied: {reason}")]
pub struct Denied {
    /// The qualified tool name.
    pub tool: String,
    /// Why.
    pub reason: String,
}

/// The only issuer of [`Approval`]s: policy first, then the approver.
#[derive(Clone)]
pub struct Gate {
    policy: Policy,
    approver: Arc<dyn Approver>,
}

impl fmt::Debug for Gate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Gate")
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

impl Default for Gate {
    fn default() -> Self {
        Self::new(Policy::default(), Arc::new(DenyAll))
    }
}

impl Gate {
    /// A gate applying `policy` and asking `approver`.
    pub fn new(policy: Policy, approver: Arc<dyn Approver>) -> Self {
        Self { policy, approver }
    }

    /// Decides on `call`, asking the approver when the policy says so.
    ///
    /// # Errors
    ///
    /// [`Denied`] when the approver says no.
    pub async fn authorize(&self, call: &ToolCall) -> Result<Approval, Denied> {
        match self.policy.requirement(call) {
            Requirement::Allow => Ok(Approval::issue(call, Grant::Policy)),
            Requirement::Ask(reason) => {
                let request = ApprovalRequest {
                    call: call.clone(),
                    reason,
                };
                match self.approver.decide(&request).await {
                    Decision::Approve => Ok(Approval::issue(call, Grant::Approver)),
                    Decision::Deny(reason) => Err(Denied {
                        tool: call.qualified.clone(),
                        reason,
                    }),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use serde_json::json;

    use super::*;

    fn id(s: &str) -> ServerId {
        ServerId::new(s).expect("id")
    }

    fn call(trust: Trust, annotations: Option<Value>, args: Value) -> ToolCall {
        let annotations = annotations
            .map(|a| Untrusted::new(id("srv"), serde_json::from_value(a).expect("annotations")));
        let Value::Object(args) = args else {
            panic!("arguments must be an object")
        };
        ToolCall::new(
            id("srv"),
            "t".into(),
            "srv__t".into(),
            args,
            trust,
            annotations,
        )
    }

    /// Counts the questions it is asked and answers with `answer`.
    struct Counting {
        asked: AtomicUsize,
        answer: Decision,
    }

    impl Approver for Counting {
        fn decide<'a>(&'a self, _: &'a ApprovalRequest) -> BoxFuture<'a, Decision> {
            self.asked.fetch_add(1, Ordering::SeqCst);
            let answer = self.answer.clone();
            Box::pin(async move { answer })
        }
    }

    fn gate(answer: Decision) -> (Gate, Arc<Counting>) {
        let approver = Arc::new(Counting {
            asked: AtomicUsize::new(0),
            answer,
        });
        (Gate::new(Policy::default(), approver.clone()), approver)
    }

    fn block_on<F: std::future::Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime")
            .block_on(f)
    }

    #[test]
    fn trusted_read_only_passes_without_asking() {
        let (gate, approver) = gate(Decision::Deny("no".into()));
        let c = call(
            Trust::Trusted,
            Some(json!({"readOnlyHint": true})),
            json!({}),
        );
        let approval = block_on(gate.authorize(&c)).expect("allowed");
        assert_eq!(approval.grant(), Grant::Policy);
        assert!(approval.covers(&c));
        assert_eq!(approver.asked.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn untrusted_annotations_never_relax() {
        let (gate, approver) = gate(Decision::Deny("no".into()));
        let c = call(
            Trust::Untrusted,
            Some(json!({"readOnlyHint": true, "destructiveHint": false})),
            json!({}),
        );
        assert!(block_on(gate.authorize(&c)).is_err());
        assert_eq!(approver.asked.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn writes_are_asked_by_default() {
        let (gate, approver) = gate(Decision::Approve);
        for annotations in [None, Some(json!({})), Some(json!({"readOnlyHint": false}))] {
            let c = call(Trust::Trusted, annotations, json!({"x": 1}));
            let approval = block_on(gate.authorize(&c)).expect("approved");
            assert_eq!(approval.grant(), Grant::Approver);
        }
        assert_eq!(approver.asked.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn approvals_are_bound_to_the_exact_call() {
        let (gate, _) = gate(Decision::Approve);
        let c = call(Trust::Untrusted, None, json!({"path": "/tmp/a"}));
        let approval = block_on(gate.authorize(&c)).expect("approved");
        assert!(approval.covers(&c));
        let other = call(Trust::Untrusted, None, json!({"path": "/etc/passwd"}));
        assert!(!approval.covers(&other));
    }

    #[test]
    fn cross_server_data_is_always_asked() {
        let (gate, approver) = gate(Decision::Deny("no".into()));
        let c = call(
            Trust::Trusted,
            Some(json!({"readOnlyHint": true})),
            json!({}),
        )
        .with_argument_from("q", Untrusted::new(id("other"), json!("data")));
        assert_eq!(
            Policy::default().requirement(&c),
            Requirement::Ask(AskReason::CrossServer(vec![id("other")]))
        );
        assert!(block_on(gate.authorize(&c)).is_err());
        assert_eq!(approver.asked.load(Ordering::SeqCst), 1);
        // Provenance is part of what an approval covers.
        let plain = call(
            Trust::Trusted,
            Some(json!({"readOnlyHint": true})),
            json!({"q": "data"}),
        );
        assert_ne!(plain.digest(), c.digest());
    }

    #[test]
    fn always_ask_asks_for_read_only_too() {
        let policy = Policy { always_ask: true };
        let c = call(
            Trust::Trusted,
            Some(json!({"readOnlyHint": true})),
            json!({}),
        );
        assert_eq!(policy.requirement(&c), Requirement::Ask(AskReason::Always));
    }
}
