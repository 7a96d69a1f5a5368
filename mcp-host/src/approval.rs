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
//! The gate checks the call's arguments against the tool's input schema
//! before anything else, so nobody is asked to approve a call the server
//! would refuse. Then the [`Policy`] decides: its [`rules`] allow, ask or
//! deny by server and tool, and for the calls no rule matches it lets a
//! call through unasked only when the tool is declared read-only *and* the
//! server is [`Trust::Trusted`]. Annotations of untrusted servers never
//! relax anything, and a call that carries data from another server is
//! always put to the approver, unless a rule denies it.
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
use crate::schema::{InputSchema, InvalidArguments};
use crate::trust::Finding;
use crate::untrusted::Untrusted;
use crate::BoxFuture;

pub mod rules;

pub use rules::{Action, Pattern, PatternError, Rule};

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
    schema: CallSchema,
    findings: Vec<Finding>,
}

/// The compiled input schema a call's arguments are checked against.
/// Two calls compare equal whatever their schemas: like the digest, the
/// comparison is about what is sent.
#[derive(Debug, Clone, Default)]
struct CallSchema(Option<Arc<InputSchema>>);

impl PartialEq for CallSchema {
    fn eq(&self, _: &Self) -> bool {
        true
    }
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
            schema: CallSchema::default(),
            findings: Vec::new(),
        }
    }

    /// The call, with what the poisoning checks found on its tool.
    pub(crate) fn with_findings(mut self, findings: Vec<Finding>) -> Self {
        self.findings = findings;
        self
    }

    /// What the poisoning checks found on the tool's definition, for the
    /// approver to show.
    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    /// The call, checked against `schema` from now on.
    pub(crate) fn with_schema(mut self, schema: Arc<InputSchema>) -> Self {
        self.schema = CallSchema(Some(schema));
        self
    }

    /// Checks the arguments against the tool's input schema. The gate
    /// checks again before it decides, so arguments added after
    /// [`Host::prepare`](crate::Host::prepare) are checked too.
    ///
    /// # Errors
    ///
    /// [`InvalidArguments`] naming each field that does not fit.
    pub fn check(&self) -> Result<(), InvalidArguments> {
        let Some(schema) = &self.schema.0 else {
            return Ok(());
        };
        schema
            .check(&self.arguments)
            .map_err(|problems| InvalidArguments {
                tool: self.qualified.clone(),
                problems,
            })
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

    /// Whether the tool is declared read-only *and* closed-world
    /// (`readOnlyHint: true`, `openWorldHint: false`) by a trusted
    /// server; for an untrusted server always `false`. The spec's default
    /// for `openWorldHint` is `true`: a read-only tool that reaches the
    /// outside world (a fetch, a search engine) can carry data out in its
    /// arguments, so only a tool that says it does not counts.
    pub fn read_only_closed_world_by_trusted_server(&self) -> bool {
        self.read_only_by_trusted_server()
            && self
                .annotations
                .as_ref()
                .and_then(|a| a.accept_ref().open_world_hint)
                == Some(false)
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
    /// The policy: a rule that allows it, or a read-only tool of a
    /// trusted server.
    Policy,
    /// The host's approver.
    Approver,
}

/// Permission to run exactly one [`ToolCall`]. Only a [`Gate`] issues it.
pub struct Approval {
    digest: [u8; 32],
    grant: Grant,
    by: &'static str,
}

impl Approval {
    fn issue(call: &ToolCall, grant: Grant, by: &'static str) -> Self {
        Self {
            digest: call.digest(),
            grant,
            by,
        }
    }

    /// Who granted it.
    pub fn grant(&self) -> Grant {
        self.grant
    }

    /// How it was granted, for the audit log: `policy`, or the
    /// approver's [`label`](Approver::label).
    pub fn by(&self) -> &'static str {
        self.by
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
            .field("by", &self.by)
            .finish_non_exhaustive()
    }
}

/// Why the policy asks the approver.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AskReason {
    /// The tool may change its environment: it is not declared read-only
    /// by a trusted server, and no rule allows it.
    MayWrite,
    /// The policy's rule of this pattern asks.
    Rule(String),
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
    /// Refuse it without asking: the policy's rule of this pattern denies.
    Deny(String),
}

/// When to let a call through, ask, or refuse: rules by server and tool
/// (see [`rules`] for the patterns and which rule decides), over a default
/// for the calls no rule matches.
///
/// The default lets a call through unasked only when the tool is declared
/// read-only *and* its server is [`Trust::Trusted`]; everything else is
/// asked. Annotations of an untrusted server never relax anything. A rule
/// is the user's own decision, so `allow` lets a call through whatever the
/// server's trust, `ask` asks even for a trusted read-only tool, and
/// `deny` refuses without asking. Whatever the rules, a call that carries
/// data from another server is asked (unless denied).
///
/// ```
/// use mcp_host::approval::Policy;
///
/// let policy = Policy::new()
///     .allow("notes/read_*")?     // these run unasked
///     .deny("notes/delete_*")?    // these never run
///     .ask("search")?;            // every tool of `search` is asked
/// # Ok::<(), mcp_host::approval::PatternError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Policy {
    rules: Vec<Rule>,
}

impl Policy {
    /// The default policy, with no rules.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a rule: `action` for the calls `pattern` matches.
    ///
    /// # Errors
    ///
    /// [`PatternError`] for a pattern that cannot be used.
    pub fn rule(mut self, pattern: &str, action: Action) -> Result<Self, PatternError> {
        self.rules.push(Rule {
            pattern: Pattern::parse(pattern)?,
            action,
        });
        Ok(self)
    }

    /// Adds a rule that lets the calls `pattern` matches through unasked.
    ///
    /// # Errors
    ///
    /// As [`Policy::rule`].
    pub fn allow(self, pattern: &str) -> Result<Self, PatternError> {
        self.rule(pattern, Action::Allow)
    }

    /// Adds a rule that asks about the calls `pattern` matches.
    ///
    /// # Errors
    ///
    /// As [`Policy::rule`].
    pub fn ask(self, pattern: &str) -> Result<Self, PatternError> {
        self.rule(pattern, Action::Ask)
    }

    /// Adds a rule that refuses the calls `pattern` matches.
    ///
    /// # Errors
    ///
    /// As [`Policy::rule`].
    pub fn deny(self, pattern: &str) -> Result<Self, PatternError> {
        self.rule(pattern, Action::Deny)
    }

    /// The rules, in the order they were added (which does not matter).
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// The rule that decides for the tool `tool` of `server`, if any does.
    pub fn rule_for(&self, server: &ServerId, tool: &str) -> Option<&Rule> {
        rules::deciding(&self.rules, server, tool)
    }

    /// What `call` needs.
    pub fn requirement(&self, call: &ToolCall) -> Requirement {
        let rule = self.rule_for(&call.server, &call.tool);
        if let Some(Rule {
            pattern,
            action: Action::Deny,
        }) = rule
        {
            return Requirement::Deny(pattern.to_string());
        }
        let others: Vec<ServerId> = call
            .provenance
            .iter()
            .filter(|s| **s != call.server)
            .cloned()
            .collect();
        if !others.is_empty() {
            return Requirement::Ask(AskReason::CrossServer(others));
        }
        match rule {
            Some(Rule {
                pattern,
                action: Action::Ask,
            }) => Requirement::Ask(AskReason::Rule(pattern.to_string())),
            Some(_) => Requirement::Allow,
            None if call.read_only_by_trusted_server() => Requirement::Allow,
            None => Requirement::Ask(AskReason::MayWrite),
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

    /// How the audit log names this approver's decisions: `prompt` for a
    /// person asked, `yes` for a standing approval.
    fn label(&self) -> &'static str {
        "approver"
    }
}

/// An approver that approves everything, for scripts that pre-approve
/// (`--yes`).
#[derive(Debug, Clone, Copy, Default)]
pub struct ApproveAll;

impl Approver for ApproveAll {
    fn decide<'a>(&'a self, _: &'a ApprovalRequest) -> BoxFuture<'a, Decision> {
        Box::pin(async { Decision::Approve })
    }

    fn label(&self) -> &'static str {
        "yes"
    }
}

/// An approver that denies everything: only the policy lets calls through.
#[derive(Debug, Clone, Copy, Default)]
pub struct DenyAll;

impl Approver for DenyAll {
    fn decide<'a>(&'a self, _: &'a ApprovalRequest) -> BoxFuture<'a, Decision> {
        Box::pin(async { Decision::Deny("no approver is configured".into()) })
    }

    fn label(&self) -> &'static str {
        "deny-all"
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
    /// Who refused it, for the audit log: `schema` for arguments that do
    /// not fit, `policy` for a rule, or the approver's
    /// [`label`](Approver::label).
    pub by: &'static str,
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

    /// How the approver's decisions are named in the audit log.
    pub fn approver_label(&self) -> &'static str {
        self.approver.label()
    }

    /// Decides on `call`, asking the approver when the policy says so.
    ///
    /// # Errors
    ///
    /// [`Denied`] when the approver says no.
    pub async fn authorize(&self, call: &ToolCall) -> Result<Approval, Denied> {
        let denied = |reason, by| Denied {
            tool: call.qualified.clone(),
            reason,
            by,
        };
        // Nobody is asked to approve a call the server would refuse.
        call.check().map_err(|e| denied(e.to_string(), "schema"))?;
        match self.policy.requirement(call) {
            Requirement::Allow => Ok(Approval::issue(call, Grant::Policy, "policy")),
            Requirement::Deny(pattern) => Err(denied(
                format!("the policy's rule `{pattern}` denies it"),
                "policy",
            )),
            Requirement::Ask(reason) => {
                let request = ApprovalRequest {
                    call: call.clone(),
                    reason,
                };
                match self.approver.decide(&request).await {
                    Decision::Approve => Ok(Approval::issue(
                        call,
                        Grant::Approver,
                        self.approver.label(),
                    )),
                    Decision::Deny(reason) => Err(denied(reason, self.approver.label())),
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

    fn gate_with(policy: Policy, answer: Decision) -> (Gate, Arc<Counting>) {
        let approver = Arc::new(Counting {
            asked: AtomicUsize::new(0),
            answer,
        });
        (Gate::new(policy, approver.clone()), approver)
    }

    fn read_only(trust: Trust) -> ToolCall {
        call(trust, Some(json!({"readOnlyHint": true})), json!({}))
    }

    #[test]
    fn an_ask_rule_asks_for_read_only_tools_of_trusted_servers() {
        let policy = Policy::new().ask("srv/t").expect("pattern");
        assert_eq!(
            policy.requirement(&read_only(Trust::Trusted)),
            Requirement::Ask(AskReason::Rule("srv/t".into()))
        );
        let (gate, approver) = gate_with(policy, Decision::Approve);
        let approval = block_on(gate.authorize(&read_only(Trust::Trusted))).expect("approved");
        assert_eq!(approval.grant(), Grant::Approver);
        assert_eq!(approver.asked.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn an_allow_rule_is_the_users_decision_even_for_untrusted_servers() {
        let policy = Policy::new().allow("srv").expect("pattern");
        let (gate, approver) = gate_with(policy, Decision::Deny("no".into()));
        let write = call(Trust::Untrusted, None, json!({"x": 1}));
        let approval = block_on(gate.authorize(&write)).expect("allowed");
        assert_eq!(approval.grant(), Grant::Policy);
        assert_eq!(approver.asked.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn a_deny_rule_refuses_without_asking() {
        let policy = Policy::new()
            .allow("*")
            .and_then(|p| p.deny("srv/t"))
            .expect("patterns");
        let (gate, approver) = gate_with(policy, Decision::Approve);
        let denied = block_on(gate.authorize(&read_only(Trust::Trusted))).expect_err("denied");
        assert_eq!(denied.reason, "the policy's rule `srv/t` denies it");
        assert_eq!(approver.asked.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn rules_that_do_not_match_leave_the_default() {
        let policy = Policy::new()
            .allow("other")
            .and_then(|p| p.deny("srv/u*"))
            .expect("patterns");
        // Untrusted annotations still relax nothing ...
        assert_eq!(
            policy.requirement(&read_only(Trust::Untrusted)),
            Requirement::Ask(AskReason::MayWrite)
        );
        // ... and trusted ones still do.
        assert_eq!(
            policy.requirement(&read_only(Trust::Trusted)),
            Requirement::Allow
        );
    }

    #[test]
    fn an_allow_rule_does_not_let_another_servers_data_through() {
        let policy = Policy::new().allow("*").expect("pattern");
        let c = read_only(Trust::Trusted)
            .with_argument_from("q", Untrusted::new(id("other"), json!("data")));
        assert_eq!(
            policy.requirement(&c),
            Requirement::Ask(AskReason::CrossServer(vec![id("other")]))
        );
        let denied = Policy::new().deny("srv").expect("pattern");
        assert_eq!(denied.requirement(&c), Requirement::Deny("srv".into()));
    }

    #[test]
    fn arguments_that_do_not_fit_are_refused_before_anyone_is_asked() {
        let schema = crate::schema::InputSchema::compile(&Untrusted::new(
            id("srv"),
            json!({"type": "object", "required": ["path"]}),
        ))
        .expect("compiles");
        let (gate, approver) = gate(Decision::Approve);
        let c = call(Trust::Untrusted, None, json!({})).with_schema(Arc::new(schema));
        let denied = block_on(gate.authorize(&c)).expect_err("refused");
        assert!(denied.reason.contains("`path`"), "{}", denied.reason);
        assert_eq!(approver.asked.load(Ordering::SeqCst), 0);
        let fixed = c.with_argument_from("path", Untrusted::new(id("srv"), json!("/tmp")));
        assert!(block_on(gate.authorize(&fixed)).is_ok());
    }
}
