//! The decision for one proposed call: its [`ToolClass`], then
//! [`FlowPolicy::check`] against the conversation's [`Ledger`].
//!
//! ```
//! use mcp_agent::flow::{FlowConfig, FlowDecision, FlowPolicy, Ledger, ProposedCall, ToolClass};
//! use serde_json::json;
//!
//! let config = FlowConfig::from_host_json(&json!({"flow": {"egress": ["web/*"]}}))?;
//! let policy = FlowPolicy::new(config);
//! let mut ledger = Ledger::new();
//! policy.record_output(&mut ledger, "docs", "Read me.");
//!
//! let arguments = json!({"q": "flow policy"});
//! let search = ProposedCall {
//!     server: "docs",
//!     tool: "search",
//!     arguments: &arguments,
//!     read_only_closed_world: true,
//! };
//! assert!(matches!(policy.check(&ledger, &search), FlowDecision::Free { class: ToolClass::ReadOnly, .. }));
//! // Egress stays consequential whatever the annotations say.
//! let fetch = ProposedCall { server: "web", tool: "fetch", ..search };
//! assert!(matches!(policy.check(&ledger, &fetch), FlowDecision::NeedsEndorsement(_)));
//! # Ok::<(), mcp_agent::flow::ConfigError>(())
//! ```

use std::collections::BTreeSet;

use serde::Serialize;
use serde_json::Value;

use super::config::FlowConfig;
use super::endorse::{
    plain_name, sources_text, Endorsement, EndorsementKind, Question, SourceCount,
};
use super::highlight::Highlights;
use super::holdings::Holdings;
use super::label::{Integrity, Label, Origin};
use super::ledger::{ItemId, Ledger};
use super::review::Reviews;
use super::text::{ServerText, Source};

/// A tool call the model proposes, as the host knows it.
#[derive(Debug, Clone, Copy)]
pub struct ProposedCall<'a> {
    /// The host's id of the server.
    pub server: &'a str,
    /// The tool's name on that server.
    pub tool: &'a str,
    /// The arguments the model wrote.
    pub arguments: &'a Value,
    /// Whether the tool is marked `readOnlyHint: true` and
    /// `openWorldHint: false` by a server whose annotations the host
    /// trusts (`mcp-host`'s `read_only_closed_world_by_trusted_server`).
    /// A read-only tool that may reach the outside world (the spec's
    /// default) can carry data out in its arguments, so it is not free.
    pub read_only_closed_world: bool,
}

/// What a call can do, as far as flows go.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum ToolClass {
    /// Marked read-only and closed-world by a server whose annotations
    /// are trusted, and no egress pattern matches.
    ReadOnly,
    /// Anything else that is not egress.
    Consequential,
    /// Matches an egress pattern: it can send data out, whatever its
    /// annotations say. Always consequential.
    #[serde(rename_all = "camelCase")]
    Egress {
        /// The index of the first matching pattern.
        pattern: usize,
        /// The pattern as written.
        glob: String,
    },
}

impl ToolClass {
    /// The class in words, for reasons and questions.
    pub(super) fn describe(&self) -> String {
        match self {
            Self::ReadOnly => {
                "a read-only tool (readOnlyHint and no openWorldHint from a server whose \
                 annotations are trusted)"
                    .into()
            }
            Self::Consequential => {
                "a consequential tool (not read-only and closed-world by a server whose \
                 annotations are trusted)"
                    .into()
            }
            Self::Egress { pattern, glob } => {
                format!("an egress tool (egress pattern {pattern} `{glob}`)")
            }
        }
    }
}

/// What the policy decided for a call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "decision")]
pub enum FlowDecision {
    /// No endorsement is needed.
    #[serde(rename_all = "camelCase")]
    Free {
        /// The call's class.
        class: ToolClass,
        /// Why, for the audit log.
        reason: String,
        /// For a read-only call after untrusted output: argument values
        /// that also occur in it, which the call would hand to its server.
        highlights: Highlights,
    },
    /// A flow rule or the flag endorses it.
    Endorsed(Endorsement),
    /// A person must answer the question first.
    NeedsEndorsement(Question),
}

impl FlowDecision {
    /// Why, for the audit log.
    pub fn reason(&self) -> &str {
        match self {
            Self::Free { reason, .. } => reason,
            Self::Endorsed(e) => e.reason(),
            Self::NeedsEndorsement(q) => q.reason(),
        }
    }
}

/// The flow policy: which calls need an endorsement once untrusted output
/// is in the context. See the [module docs](super) for the rules.
#[derive(Debug, Clone, Default)]
pub struct FlowPolicy {
    config: FlowConfig,
    allow_flow: bool,
    reviews: Reviews,
    holdings: Holdings,
}

impl FlowPolicy {
    /// The policy of `config`.
    pub fn new(config: FlowConfig) -> Self {
        Self {
            config,
            allow_flow: false,
            reviews: Reviews::default(),
            holdings: Holdings::default(),
        }
    }

    /// The policy with the definitions a person reviewed and accepted:
    /// those are trusted text although their server's output is not.
    #[must_use]
    pub fn with_reviews(mut self, reviews: Reviews) -> Self {
        self.reviews = reviews;
        self
    }

    /// The policy with what servers hold: their output carries those
    /// sources' labels too.
    #[must_use]
    pub fn with_holdings(mut self, holdings: Holdings) -> Self {
        self.holdings = holdings;
        self
    }

    /// The reviewed definitions.
    pub fn reviews(&self) -> &Reviews {
        &self.reviews
    }

    /// Replaces the reviewed definitions (after a review during a
    /// conversation; definitions already in the context keep the label
    /// they entered with).
    pub fn set_reviews(&mut self, reviews: Reviews) {
        self.reviews = reviews;
    }

    /// What servers hold.
    pub fn holdings(&self) -> &Holdings {
        &self.holdings
    }

    /// Records that `endorsement`'s server was given data from the
    /// untrusted sources it names; whether anything new was recorded.
    /// The caller persists [`holdings`](Self::holdings) (see
    /// [`FlowStore`](super::FlowStore)) before it sends the call.
    pub fn hold(&mut self, endorsement: &Endorsement) -> bool {
        let sources = endorsement
            .sources()
            .iter()
            .filter_map(|s| s.origin.server().map(str::to_owned));
        self.holdings.hold(endorsement.server(), sources)
    }

    /// The labels of text from `sources`: each server's output as the
    /// configuration says, plus an untrusted label for every source it
    /// holds data from; each definition trusted when its server's output
    /// is or a person accepted that very definition, untrusted otherwise.
    pub fn labels(&self, sources: &[Source]) -> Vec<Label> {
        let mut labels: Vec<Label> = Vec::new();
        let mut push = |label: Label| {
            if !labels.contains(&label) {
                labels.push(label);
            }
        };
        for source in sources {
            match source {
                Source::Output(server) => {
                    push(self.config.label(server));
                    for held in self.holdings.held(server) {
                        push(Label::server(held, Integrity::Untrusted));
                    }
                }
                Source::Definition {
                    server,
                    tool,
                    digest,
                } => {
                    let own = self.config.label(server);
                    if own.integrity == Integrity::Trusted
                        || self.reviews.accepted(server, tool, digest)
                    {
                        push(Label::server(server.clone(), Integrity::Trusted));
                    } else {
                        push(Label::server(server.clone(), Integrity::Untrusted));
                    }
                }
            }
        }
        labels
    }

    /// Records `text` into `ledger` with the [`labels`](Self::labels) of
    /// its sources; its integrity: untrusted if any label is.
    pub fn record(&self, ledger: &mut Ledger, text: &ServerText) -> Integrity {
        let labels = self.labels(text.sources());
        ledger.record_labels(&labels, text.text());
        if labels.iter().all(|l| l.integrity == Integrity::Trusted) && !labels.is_empty() {
            Integrity::Trusted
        } else {
            Integrity::Untrusted
        }
    }

    /// Endorses every flow, as its own kind ([`EndorsementKind::Flag`]):
    /// for the `--allow-flow` command-line flag alone. An approve-all
    /// flag (`--yes`) is not this one.
    #[must_use]
    pub fn allow_flow_flag(mut self) -> Self {
        self.allow_flow = true;
        self
    }

    /// The configuration.
    pub fn config(&self) -> &FlowConfig {
        &self.config
    }

    /// Replaces the configuration (after the person wrote a flow rule
    /// into the file during a conversation). Text already in the context
    /// keeps the label it entered with.
    pub fn set_config(&mut self, config: FlowConfig) {
        self.config = config;
    }

    /// Records what the server `server` wrote into the context, labelled
    /// as the configuration says (untrusted unless its output is
    /// trusted), and with the sources it holds data from.
    pub fn record_output(&self, ledger: &mut Ledger, server: &str, text: &str) -> ItemId {
        let labels = self.labels(&[Source::Output(server.to_owned())]);
        ledger.record_labels(&labels, text)
    }

    /// The class of `call`.
    pub fn classify(&self, call: &ProposedCall<'_>) -> ToolClass {
        match self.config.egress(call.server, call.tool) {
            Some(pattern) => ToolClass::Egress {
                pattern,
                glob: self.config.egress_glob(pattern).to_owned(),
            },
            None if call.read_only_closed_world => ToolClass::ReadOnly,
            None => ToolClass::Consequential,
        }
    }

    /// Decides whether `call` may go ahead given what `ledger` holds.
    pub fn check(&self, ledger: &Ledger, call: &ProposedCall<'_>) -> FlowDecision {
        let class = self.classify(call);
        let name = format!("`{}/{}`", plain_name(call.server), plain_name(call.tool));
        if !ledger.tainted() {
            return FlowDecision::Free {
                reason: format!("{name}: no untrusted output in the context"),
                class,
                highlights: Highlights::default(),
            };
        }
        let mut sources: Vec<SourceCount> = ledger
            .untrusted_sources()
            .map(|(origin, items)| SourceCount {
                origin: origin.clone(),
                items,
                rule: None,
            })
            .collect();
        if class == ToolClass::ReadOnly {
            return self.read_only(ledger, call, name, &sources);
        }
        let rules = self.cover(call, &mut sources);
        let uncovered: Vec<SourceCount> = sources
            .iter()
            .filter(|s| s.rule.is_none())
            .cloned()
            .collect();
        let class_text = class.describe();
        if uncovered.is_empty() {
            let reason = format!(
                "{name}, {class_text}: flow rules allow every untrusted source: {}",
                sources_text(&sources),
            );
            return FlowDecision::Endorsed(Endorsement::new(
                EndorsementKind::Rule(rules),
                call,
                reason,
                sources,
            ));
        }
        let mut reason = format!(
            "{name}, {class_text}, after untrusted output from {}",
            sources_text(&uncovered),
        );
        if !rules.is_empty() {
            reason.push_str(", which no flow rule allows (rules allow the others)");
        }
        if self.allow_flow {
            return FlowDecision::Endorsed(Endorsement::new(
                EndorsementKind::Flag,
                call,
                format!("--allow-flow endorses {reason}"),
                sources,
            ));
        }
        FlowDecision::NeedsEndorsement(Question {
            server: call.server.to_owned(),
            tool: call.tool.to_owned(),
            arguments: mcp_digest::digest(call.arguments),
            shown: call.arguments.clone(),
            highlights: ledger.highlights(call.arguments),
            class,
            sources,
            reason: format!("{reason}: a person's endorsement is needed"),
        })
    }

    /// A read-only call after untrusted output: free, and flagged for the
    /// transcript when its arguments carry untrusted text to its server.
    fn read_only(
        &self,
        ledger: &Ledger,
        call: &ProposedCall<'_>,
        name: String,
        sources: &[SourceCount],
    ) -> FlowDecision {
        let highlights = ledger.highlights(call.arguments);
        let mut reason = format!(
            "{name}: read-only calls need no endorsement, although the context holds untrusted \
             output from {}",
            sources_text(sources)
        );
        if !highlights.found.is_empty() {
            reason.push_str(&format!(
                "; note: argument values that also occur in untrusted output: {}, sent to \
                 server `{}`",
                highlights.found.len(),
                plain_name(call.server),
            ));
        }
        FlowDecision::Free {
            class: ToolClass::ReadOnly,
            reason,
            highlights,
        }
    }

    /// Marks each source with the first flow rule that lets its data into
    /// `call`, and returns the rules used, in order.
    fn cover(&self, call: &ProposedCall<'_>, sources: &mut [SourceCount]) -> Vec<usize> {
        let mut used = BTreeSet::new();
        for source in sources {
            source.rule = match &source.origin {
                Origin::Server(id) => self.config.flows().iter().position(|rule| {
                    rule.to.matches(call.server, call.tool) && rule.from.matches(id)
                }),
                // Only servers are named by `from`.
                Origin::User | Origin::Host => None,
            };
            used.extend(source.rule);
        }
        used.into_iter().collect()
    }
}
