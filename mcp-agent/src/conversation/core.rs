//! The books of one conversation, sans-IO: the messages, the ledger of
//! labels the flow policy reads, the envelope every server's output is
//! given to the model in, the tokens spent, and the bounds that end a
//! turn.

use std::collections::BTreeSet;

use crate::flow::{
    Data, Envelope, FlowPolicy, HostText, Label, Ledger, Nonce, NonceError, ServerText, Source,
};
use crate::provider::{
    Message, Request, Response, ToolCall, ToolChoice, ToolContent, ToolResult, Usage,
};

use super::offer::Offer;

/// When a turn or the conversation ends, whatever the model does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// Model requests in one user turn.
    pub max_requests_per_turn: usize,
    /// Tool calls in one user turn.
    pub max_calls_per_turn: usize,
    /// Input and output tokens over the whole conversation.
    pub max_tokens: u64,
    /// Bytes of one tool result given to the model; the rest is cut with
    /// a note.
    pub max_result_bytes: usize,
    /// Output tokens of one model answer.
    pub max_output_tokens: u32,
}

impl Default for Bounds {
    fn default() -> Self {
        Self {
            max_requests_per_turn: 16,
            max_calls_per_turn: 64,
            max_tokens: 1_000_000,
            max_result_bytes: 32 * 1024,
            max_output_tokens: 4096,
        }
    }
}

/// Why a turn ended without an answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Stop {
    /// The model asked for more requests than a turn may have.
    #[error("the turn reached its bound of {0} model requests")]
    Requests(usize),
    /// The model made more tool calls than a turn may have.
    #[error("the turn reached its bound of {0} tool calls")]
    Calls(usize),
    /// The conversation spent its tokens.
    #[error("the conversation reached its bound of {0} tokens")]
    Tokens(u64),
}

/// What the model's answer asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// The turn is over: the model's answer.
    Answer(String),
    /// The model called tools; their results go back with
    /// [`Conversation::results`].
    Calls(Vec<ToolCall>),
}

/// One conversation with the model.
#[derive(Debug)]
pub struct Conversation {
    pub(super) system: Option<String>,
    pub(super) messages: Vec<Message>,
    pub(super) ledger: Ledger,
    pub(super) envelope: Envelope,
    pub(super) bounds: Bounds,
    pub(super) usage: Usage,
    pub(super) requests: usize,
    pub(super) calls: usize,
    /// The definitions already in the context, recorded in the ledger.
    pub(super) definitions: BTreeSet<Source>,
}

impl Conversation {
    /// A new conversation: a clean ledger and a fresh envelope nonce.
    ///
    /// # Errors
    ///
    /// When the system has no randomness for the nonce.
    pub fn new(system: Option<String>, bounds: Bounds) -> Result<Self, NonceError> {
        let envelope = Envelope::new(Nonce::random()?).with_cap(bounds.max_result_bytes);
        let mut ledger = Ledger::new();
        if let Some(system) = &system {
            ledger.record(Label::host(), system);
        }
        Ok(Self {
            system,
            messages: Vec::new(),
            ledger,
            envelope,
            bounds,
            usage: Usage::default(),
            requests: 0,
            calls: 0,
            definitions: BTreeSet::new(),
        })
    }

    /// The user's words start a turn.
    pub fn user(&mut self, text: &str) {
        self.ledger.record(Label::user(), text);
        self.messages.push(Message::User {
            text: text.to_owned(),
        });
        self.requests = 0;
        self.calls = 0;
    }

    /// The next request to the model, with the tools `offer` has now.
    ///
    /// The tool definitions the request carries are part of the context:
    /// each one not yet in it is recorded in the ledger first, with the
    /// label `policy` gives it (untrusted unless its server's output is
    /// trusted or a person accepted that very definition), so that the
    /// policy has seen every byte before the model does.
    ///
    /// # Errors
    ///
    /// [`Stop`] when the turn or the conversation reached a bound.
    pub fn request(
        &mut self,
        model: &str,
        offer: &Offer,
        policy: &FlowPolicy,
    ) -> Result<Request, Stop> {
        if self.requests >= self.bounds.max_requests_per_turn {
            return Err(Stop::Requests(self.bounds.max_requests_per_turn));
        }
        if self.spent() >= self.bounds.max_tokens {
            return Err(Stop::Tokens(self.bounds.max_tokens));
        }
        self.requests += 1;
        // Each definition's text is made once, when it first enters.
        for tool in offer.offered_tools() {
            let source = tool.source();
            if !self.definitions.contains(&source) {
                let text = offer.declaration_text(tool);
                let definition = ServerText::definitions(vec![source.clone()], &tool.server, text);
                policy.record(&mut self.ledger, &definition);
                self.definitions.insert(source);
            }
        }
        Ok(Request {
            model: model.to_owned(),
            system: self.system.clone(),
            messages: self.messages.clone(),
            tools: offer.declarations(),
            tool_choice: ToolChoice::Auto,
            max_output_tokens: Some(self.bounds.max_output_tokens),
            temperature: None,
        })
    }

    /// The model's answer: the turn's end, or the tool calls to run.
    ///
    /// # Errors
    ///
    /// [`Stop::Calls`] when the calls would pass the turn's bound; the
    /// answer is kept, and the calls are not run.
    pub fn answer(&mut self, response: Response) -> Result<Step, Stop> {
        self.usage.input_tokens += response.usage.input_tokens;
        self.usage.output_tokens += response.usage.output_tokens;
        let calls = response.tool_calls.clone();
        self.messages.push(Message::Assistant {
            text: response.text.clone(),
            tool_calls: response.tool_calls,
        });
        if calls.is_empty() {
            return Ok(Step::Answer(response.text));
        }
        self.calls += calls.len();
        if self.calls > self.bounds.max_calls_per_turn {
            // Every call gets an answer, so that the conversation stays
            // well formed for the next turn.
            let stop = Stop::Calls(self.bounds.max_calls_per_turn);
            let text = HostText::new("the turn reached its bound of ")
                .number(self.bounds.max_calls_per_turn as u64)
                .then(" tool calls");
            let results = calls.iter().map(|c| error_result(c, &text)).collect();
            self.messages.push(Message::ToolResults(results));
            return Err(stop);
        }
        Ok(Step::Calls(calls))
    }

    /// The results of the calls of the last answer, in its order.
    pub fn results(&mut self, results: Vec<ToolResult>) {
        self.messages.push(Message::ToolResults(results));
    }

    /// What servers wrote, as the model gets it for `call`: the text in
    /// the envelope that names every server it came from, recorded in the
    /// ledger with the labels `policy` gives those sources; `images` (a
    /// tool result's) after it, as they are.
    pub fn server_output(
        &mut self,
        policy: &FlowPolicy,
        call: &ToolCall,
        output: &ServerText,
        images: Vec<ToolContent>,
        is_error: bool,
    ) -> ToolResult {
        let integrity = policy.record(&mut self.ledger, output);
        let mut servers: Vec<&str> = Vec::new();
        for server in output.sources().iter().map(Source::server) {
            if !servers.contains(&server) {
                servers.push(server);
            }
        }
        let wrapped = self.envelope.render(&Data {
            servers: &servers,
            kind: output.kind(),
            name: output.name(),
            integrity,
            content: output.text(),
        });
        let mut parts = vec![ToolContent::Text(wrapped)];
        parts.extend(
            images
                .into_iter()
                .filter(|c| matches!(c, ToolContent::Image { .. })),
        );
        ToolResult {
            call_id: call.id.clone(),
            name: call.name.clone(),
            content: parts,
            is_error,
        }
    }

    /// What one of a server's views said (MCP Apps' `ui/message`, or the
    /// context it keeps for the model), as a message of the user's turn:
    /// the role the view asked for, but the text enveloped and labelled
    /// as that server's output, like a tool result. A turn with it starts
    /// as [`user`](Self::user) starts one.
    pub fn view_message(&mut self, policy: &FlowPolicy, output: &ServerText) {
        let integrity = policy.record(&mut self.ledger, output);
        let servers: Vec<&str> = output.sources().iter().map(Source::server).collect();
        let text = self.envelope.render(&Data {
            servers: &servers,
            kind: output.kind(),
            name: output.name(),
            integrity,
            content: output.text(),
        });
        self.messages.push(Message::User { text });
        self.requests = 0;
        self.calls = 0;
    }

    /// The host's own words as a call's result (a refusal, a call that
    /// was not sent): trusted, and not enveloped. Only a [`HostText`] is
    /// taken, so nothing a server wrote can come this way.
    pub fn host_result(&mut self, call: &ToolCall, text: &HostText, is_error: bool) -> ToolResult {
        self.ledger.record(Label::host(), text.as_str());
        error_result_of(call, text, is_error)
    }

    /// The ledger the flow policy reads.
    pub fn ledger(&self) -> &Ledger {
        &self.ledger
    }

    /// The messages so far.
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// The tokens spent so far.
    pub fn usage(&self) -> Usage {
        self.usage
    }

    /// The bounds.
    pub fn bounds(&self) -> &Bounds {
        &self.bounds
    }

    fn spent(&self) -> u64 {
        self.usage.input_tokens + self.usage.output_tokens
    }
}

fn error_result(call: &ToolCall, text: &HostText) -> ToolResult {
    error_result_of(call, text, true)
}

fn error_result_of(call: &ToolCall, text: &HostText, is_error: bool) -> ToolResult {
    ToolResult {
        call_id: call.id.clone(),
        name: call.name.clone(),
        content: vec![ToolContent::Text(text.as_str().to_owned())],
        is_error,
    }
}
