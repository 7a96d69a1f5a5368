//! The modern (2026-07-28) request pipeline: classify the message, validate
//! `_meta` and headers, dispatch by method, shape the result.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;

use mcp_types::jsonrpc::{ErrorObject, Message};
use mcp_types::meta::SERVER_INFO;
use mcp_types::v2026_07_28 as v;
use serde::de::DeserializeOwned;
use std::future::Future;

use futures_util::future::Either;
// The tasks dispatcher maps its futures.
#[cfg(feature = "tasks")]
use futures_util::FutureExt as _;
use serde_json::{json, Map, Value};
use tokio::sync::{mpsc, OwnedSemaphorePermit};
use tracing::Instrument as _;

use super::parse::{self, Incoming, Quick, QuickMeta, QuickRequest};
use super::validate::{self, RequestMeta};
use super::{capabilities, listen, pages, Grant, Server, MODERN_VERSIONS};
use crate::completion::{self, CompletionRequest};
use crate::context::Context;
use crate::notify::Notifier;
use crate::observe::{Era, RequestSpan};
use crate::prompt::PromptOutput;
use crate::resource::ResourceOutput;
use crate::tool::ToolOutput;

#[cfg(feature = "tasks")]
mod tasks;

/// The MCP headers of an HTTP request, as the transport read them. stdio
/// requests have none, and skip the header checks.
#[derive(Clone, Debug, Default)]
pub struct RequestHeaders {
    /// `MCP-Protocol-Version`.
    pub protocol_version: Option<String>,
    /// `Mcp-Method`.
    pub method: Option<String>,
    /// `Mcp-Name`.
    pub name: Option<String>,
    /// Every `Mcp-Param-<Name>` header as `(Name, value)`.
    pub params: Vec<(String, String)>,
}

/// Aborts a spawned handler when the stream it feeds is dropped, which is
/// how a client that disconnects cancels its request. It also holds the
/// stream's place under [`Limits::max_streams`](super::Limits::max_streams).
#[derive(Debug)]
pub struct AbortOnDrop {
    handle: tokio::task::AbortHandle,
    _permit: Option<StreamPlace>,
}

/// A stream's place under [`Limits::max_streams`](super::Limits::max_streams),
/// and under its client's share of them, given back when dropped.
#[derive(Debug)]
pub(crate) struct StreamPlace {
    _permit: OwnedSemaphorePermit,
    share: Option<ShareTaken>,
}

type ShareTaken = (
    Arc<std::sync::Mutex<crate::share::Counts>>,
    crate::share::Client,
);

/// A client's place taken for a stream not granted yet: given back if the
/// server then refuses the stream.
struct StreamPlaceShare(Option<ShareTaken>);

impl StreamPlaceShare {
    fn take(mut self) -> Option<ShareTaken> {
        self.0.take()
    }
}

impl Drop for StreamPlaceShare {
    fn drop(&mut self) {
        if let Some((counts, client)) = &self.0 {
            counts
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .remove(client);
        }
    }
}

impl Drop for StreamPlace {
    fn drop(&mut self) {
        if let Some((counts, client)) = &self.share {
            counts
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .remove(client);
        }
    }
}

impl AbortOnDrop {
    pub(crate) fn new(handle: tokio::task::AbortHandle) -> Self {
        AbortOnDrop {
            handle,
            _permit: None,
        }
    }

    /// Keeps `permit` until the stream is dropped.
    pub(crate) fn holding(mut self, permit: StreamPlace) -> Self {
        self._permit = Some(permit);
        self
    }
}

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.handle.abort();
    }
}

/// One JSON-RPC response, encoded as the transport sends it (compact
/// JSON, no trailing newline).
///
/// Results are encoded straight from the handler's typed value, without a
/// `serde_json::Value` in between; [`Reply::to_value`] decodes a copy for
/// code that wants to look inside.
#[derive(Clone, PartialEq, Eq)]
pub struct Reply {
    bytes: Vec<u8>,
    /// The code of an error response.
    code: Option<i64>,
}

impl Reply {
    /// Encodes `message`.
    pub fn from_value(message: &Value) -> Reply {
        Reply {
            // Encoding a `Value` cannot fail: its keys are strings.
            bytes: serde_json::to_vec(message).unwrap_or_default(),
            code: error_code(message),
        }
    }

    /// Encodes a success response carrying `result`, an object, and adds
    /// `member` (`"key":value`, encoded) to it when given.
    fn result<R: serde::Serialize>(
        id: &v::RequestId,
        result: &R,
        member: Option<&[u8]>,
    ) -> Result<Reply, ErrorObject> {
        #[derive(serde::Serialize)]
        struct Response<'a, R> {
            jsonrpc: &'static str,
            id: &'a v::RequestId,
            result: &'a R,
        }
        let response = Response {
            jsonrpc: "2.0",
            id,
            result,
        };
        let mut bytes = Vec::with_capacity(256);
        serde_json::to_writer(&mut bytes, &response)
            .map_err(|e| ErrorObject::internal_error(format!("cannot encode the result: {e}")))?;
        // The result is the last member of the response: the bytes end
        // with its closing brace, then the response's.
        if let (Some(member), true) = (member, bytes.ends_with(b"}}")) {
            bytes.truncate(bytes.len() - 2);
            if bytes.last() != Some(&b'{') {
                bytes.push(b',');
            }
            bytes.extend_from_slice(member);
            bytes.extend_from_slice(b"}}");
        }
        Ok(Reply { bytes, code: None })
    }

    /// The response to `id` whose result is `result`, an object encoded
    /// already, with `member` (an encoded `"key":value`) added to it.
    #[cfg(feature = "tasks")]
    fn encoded(id: &v::RequestId, result: &str, member: &[u8]) -> Result<Reply, ErrorObject> {
        let Some(members) = result.strip_suffix('}') else {
            return Err(ErrorObject::internal_error("a result must be an object"));
        };
        let mut bytes = Vec::with_capacity(result.len() + member.len() + 48);
        bytes.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
        serde_json::to_writer(&mut bytes, id)
            .map_err(|e| ErrorObject::internal_error(format!("cannot encode the id: {e}")))?;
        bytes.extend_from_slice(br#","result":"#);
        bytes.extend_from_slice(members.as_bytes());
        if !members.ends_with('{') {
            bytes.push(b',');
        }
        bytes.extend_from_slice(member);
        bytes.extend_from_slice(b"}}");
        Ok(Reply { bytes, code: None })
    }

    /// The encoded bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The encoded bytes, taken.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    /// The response decoded into a `Value`.
    pub fn to_value(&self) -> Value {
        // The bytes were encoded from a value: they decode.
        serde_json::from_slice(&self.bytes).unwrap_or(Value::Null)
    }

    /// The code of an error response; `None` for a result.
    pub(crate) fn error_code(&self) -> Option<i64> {
        self.code
    }
}

impl std::fmt::Debug for Reply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

impl std::fmt::Display for Reply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&String::from_utf8_lossy(&self.bytes))
    }
}

/// What the transport should send back for one incoming message.
#[derive(Debug)]
pub enum Outcome {
    /// One JSON-RPC response (or error), with the HTTP status it calls for.
    Reply {
        /// HTTP status: 200, or 400/404 for the errors the spec maps.
        status: u16,
        /// The response, encoded.
        message: Reply,
    },
    /// Notifications followed by the response (or, for
    /// `subscriptions/listen`, notifications until the client leaves).
    /// Dropping it cancels the handler.
    Stream {
        /// The messages, in order.
        messages: mpsc::Receiver<Value>,
        /// Cancels the handler when dropped.
        guard: AbortOnDrop,
    },
    /// A notification or a response from the client: nothing to answer.
    Accepted,
    /// A refusal that carries an HTTP authentication challenge: on a
    /// protected server, a `tools/call` whose access token lacks a scope
    /// the tool needs (HTTP 403, `insufficient_scope`). Only the HTTP
    /// transport of a server built with the `auth` feature sees one.
    Challenge {
        /// The HTTP status.
        status: u16,
        /// The value of the `WWW-Authenticate` header.
        www_authenticate: String,
        /// The JSON-RPC error response, encoded.
        message: Reply,
    },
}

impl Outcome {
    /// The code of an error answer; `None` for a result, a stream, or no
    /// answer.
    pub(crate) fn error_code(&self) -> Option<i64> {
        match self {
            Outcome::Reply { message, .. } | Outcome::Challenge { message, .. } => {
                message.error_code()
            }
            Outcome::Stream { .. } | Outcome::Accepted => None,
        }
    }
}

/// The HTTP status an error code calls for.
pub(crate) fn status_for(code: i64) -> u16 {
    match code {
        -32022..=-32020 => 400,
        -32601 => 404,
        _ => 200,
    }
}

/// The code of an error response; `None` for anything else.
pub(crate) fn error_code(message: &Value) -> Option<i64> {
    message.pointer("/error/code").and_then(Value::as_i64)
}

pub(crate) fn error_message(id: Option<&v::RequestId>, error: &ErrorObject) -> Value {
    let mut message = json!({ "jsonrpc": "2.0", "error": error });
    if let Some(id) = id {
        message["id"] = json!(id);
    }
    message
}

/// The error for a request refused because the limit `name` (whose value
/// is `max`) is reached: -32603, with the limit in `data` so that a client
/// can tell it from a failure and retry later.
pub(crate) fn busy(what: &str, name: &str, max: usize) -> ErrorObject {
    tracing::warn!(target: "mcp_server::limits", limit = name, max, "refused a request: {what}");
    crate::observe::limit_refused(name);
    ErrorObject::internal_error(format!(
        "the server is busy: {what} (limit {max}); retry later"
    ))
    .with_data(json!({ "limit": name, "max": max }))
}

fn error_reply(id: Option<&v::RequestId>, status: u16, error: ErrorObject) -> Outcome {
    Outcome::Reply {
        status,
        message: Reply::from_value(&error_message(id, &error)),
    }
}

/// Decodes the params of a method; the error names the member that is
/// wrong (`arguments.city`), when there is one.
fn decode<T: DeserializeOwned>(params: Map<String, Value>) -> Result<T, ErrorObject> {
    let params = Value::Object(params);
    // Most params are valid: decode them without tracking the path, and
    // track it only to explain a failure.
    if let Ok(decoded) = T::deserialize(&params) {
        return Ok(decoded);
    }
    serde_path_to_error::deserialize(params).map_err(|e| {
        let path = e.path().to_string();
        let error = e.into_inner();
        ErrorObject::invalid_params(match path.as_str() {
            "." => format!("invalid params: {error}"),
            path => format!("invalid params: `{path}`: {error}"),
        })
    })
}

/// What the dispatcher reads of the params of `tools/call` besides the
/// arguments (taken out first). `_meta` was read and checked by
/// [`validate::request_meta`] before dispatch, in both eras, so it is not
/// decoded a second time; other members are left to the schema's open
/// object, as `CallToolRequestParams` would keep them.
#[derive(serde::Deserialize)]
struct CallParams {
    name: String,
    #[serde(rename = "inputResponses", default)]
    input_responses: Option<v::InputResponses>,
    #[serde(rename = "requestState", default)]
    request_state: Option<String>,
}

/// The params of a request, as the reader left them.
pub(crate) enum Params {
    /// Any request's params, as JSON (empty when the request had none).
    Json(Map<String, Value>),
    /// A `tools/call` read by [`parse::quick`]: what the general path
    /// would find in its params, taken apart.
    Call {
        name: String,
        arguments: Map<String, Value>,
        meta: QuickMeta,
    },
    /// A `tasks/get` read by [`parse::quick`], taken apart likewise.
    Task { task_id: String, meta: QuickMeta },
}

impl Params {
    /// What `_meta` says, checked, the capabilities shared through `last`.
    fn meta(&self, last: &validate::LastCapabilities) -> Result<RequestMeta, ErrorObject> {
        match self {
            Params::Json(params) => validate::request_meta(Some(params), Some(last)),
            Params::Call { meta, .. } | Params::Task { meta, .. } => validate::meta_parts(
                Some(&meta.version),
                meta.capabilities.as_ref(),
                &meta.others,
                Some(last),
            ),
        }
    }

    /// The member `key` of the params, if it is a string.
    fn string(&self, key: &str) -> Option<&str> {
        match self {
            Params::Json(params) => params.get(key).and_then(Value::as_str),
            Params::Call { name, .. } => (key == "name").then_some(name.as_str()),
            Params::Task { task_id, .. } => (key == "taskId").then_some(task_id.as_str()),
        }
    }

    /// The arguments of a call, if they are an object.
    fn arguments(&self) -> Option<&Map<String, Value>> {
        match self {
            Params::Json(params) => params.get("arguments").and_then(Value::as_object),
            Params::Call { arguments, .. } => Some(arguments),
            Params::Task { .. } => None,
        }
    }

    /// The params as JSON.
    fn into_json(self) -> Map<String, Value> {
        match self {
            Params::Json(params) => params,
            Params::Call {
                name,
                arguments,
                meta,
            } => Map::from_iter([
                ("name".to_owned(), Value::String(name)),
                ("arguments".to_owned(), Value::Object(arguments)),
                ("_meta".to_owned(), Value::Object(meta.into_json())),
            ]),
            Params::Task { task_id, meta } => Map::from_iter([
                ("taskId".to_owned(), Value::String(task_id)),
                ("_meta".to_owned(), Value::Object(meta.into_json())),
            ]),
        }
    }
}

/// Removes `arguments` from the params of `tools/call`: absent and `null`
/// are no arguments, anything but an object is -32602 worded as the
/// decoder words it.
fn take_arguments(params: &mut Map<String, Value>) -> Result<Map<String, Value>, ErrorObject> {
    match params.remove("arguments") {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(arguments)) => Ok(arguments),
        Some(other) => {
            let error = serde_json::from_value::<Map<String, Value>>(other)
                .err()
                .map_or_else(|| "expected a map".to_owned(), |e| e.to_string());
            Err(ErrorObject::invalid_params(format!(
                "invalid params: `arguments`: {error}"
            )))
        }
    }
}

/// What a handler answered, still typed, so that a reply can be encoded
/// from it directly.
pub(crate) enum Answer {
    Tool(ToolOutput),
    Prompt(PromptOutput),
    Resource(ResourceOutput),
    Json(Value),
    /// A result object encoded already, with its `resultType` and without
    /// `_meta` (a task, as the tasks runtime answers it).
    #[cfg(feature = "tasks")]
    Encoded(String),
}

impl Answer {
    /// The answer as JSON, for the paths that edit it further (streams,
    /// legacy sessions).
    pub(crate) fn into_value(self) -> Result<Value, ErrorObject> {
        match self {
            Answer::Tool(ToolOutput::Complete(result)) => to_value(result),
            Answer::Prompt(PromptOutput::Complete(result)) => to_value(result),
            Answer::Resource(ResourceOutput::Complete(result)) => to_value(result),
            Answer::Tool(ToolOutput::InputRequired(result))
            | Answer::Prompt(PromptOutput::InputRequired(result))
            | Answer::Resource(ResourceOutput::InputRequired(result)) => to_value(result),
            Answer::Json(value) => Ok(value),
            #[cfg(feature = "tasks")]
            Answer::Encoded(text) => serde_json::from_str(&text)
                .map_err(|e| ErrorObject::internal_error(format!("cannot read the result: {e}"))),
        }
    }
}

#[cfg(feature = "tasks")]
impl Answer {
    /// The result, encoded, as a task keeps it.
    pub(crate) fn into_encoded(self) -> Result<crate::tasks::record::Encoded, ErrorObject> {
        use crate::tasks::record::Encoded;
        let encoded = match self {
            Answer::Tool(ToolOutput::Complete(result)) => Encoded::new(&result),
            Answer::Prompt(PromptOutput::Complete(result)) => Encoded::new(&result),
            Answer::Resource(ResourceOutput::Complete(result)) => Encoded::new(&result),
            Answer::Tool(ToolOutput::InputRequired(result))
            | Answer::Prompt(PromptOutput::InputRequired(result))
            | Answer::Resource(ResourceOutput::InputRequired(result)) => Encoded::new(&result),
            Answer::Json(value) => Encoded::new(&value),
            Answer::Encoded(text) => Encoded::from_text(text),
        };
        encoded.map_err(|e| ErrorObject::internal_error(format!("cannot encode the result: {e}")))
    }
}

/// The members every result carries that the server fills in when the
/// handler left them out: see [`Server::response`].
trait Framed: serde::Serialize {
    fn result_type(&mut self) -> &mut Option<String>;
    fn meta(&mut self) -> &mut Option<v::ResultMetaObject>;
    /// `ttlMs` and `cacheScope`, on the results that can be cached.
    fn cache(&mut self) -> Option<(&mut Option<i64>, &mut Option<v::CacheScope>)> {
        None
    }
}

/// Implements [`Framed`] for a result type; `cached` for the results that
/// carry `ttlMs` and `cacheScope`.
macro_rules! framed {
    ($result:ty $(, $cached:ident)?) => {
        impl Framed for $result {
            fn result_type(&mut self) -> &mut Option<String> {
                &mut self.result_type
            }
            fn meta(&mut self) -> &mut Option<v::ResultMetaObject> {
                &mut self.meta
            }
            $(framed!(@$cached);)?
        }
    };
    (@cached) => {
        fn cache(&mut self) -> Option<(&mut Option<i64>, &mut Option<v::CacheScope>)> {
            Some((&mut self.ttl_ms, &mut self.cache_scope))
        }
    };
}

framed!(v::CallToolResult);
framed!(v::GetPromptResult);
framed!(v::InputRequiredResult);
framed!(v::ReadResourceResult, cached);

/// The methods that run a handler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Tool,
    Prompt,
    Resource,
    Completion,
    /// `tasks/get`, `tasks/update` or `tasks/cancel`; the context holds
    /// which.
    #[cfg(feature = "tasks")]
    Task,
}

impl Kind {
    /// The kind of handler `method` runs, if any.
    pub(crate) fn of(method: &str) -> Option<Kind> {
        match method {
            "tools/call" => Some(Kind::Tool),
            "prompts/get" => Some(Kind::Prompt),
            "resources/read" => Some(Kind::Resource),
            "completion/complete" => Some(Kind::Completion),
            _ => None,
        }
    }

    pub(crate) fn method(self) -> &'static str {
        match self {
            Kind::Tool => "tools/call",
            Kind::Prompt => "prompts/get",
            Kind::Resource => "resources/read",
            Kind::Completion => "completion/complete",
            #[cfg(feature = "tasks")]
            Kind::Task => "tasks/get",
        }
    }
}

/// Where a request stands once it is checked.
// A step is consumed where it is made: boxing the run would cost an
// allocation per call to save a move.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Step {
    /// Answered without a handler, or streaming from a task.
    Done(Outcome),
    /// A handler to run inline: see [`Server::finish`].
    Run(Run),
}

/// A handler call, checked and ready.
pub(crate) struct Run {
    id: v::RequestId,
    kind: Kind,
    params: Params,
    cx: Context,
    /// Where the handler's notifications go, when its answer follows them
    /// (boxed: most calls stream nothing).
    stream: Option<Box<Streamed>>,
    /// The request's span, once [`Server::request`] gave it.
    span: RequestSpan,
}

impl Run {
    fn new(id: v::RequestId, kind: Kind, params: Params, cx: Context) -> Run {
        Run {
            id,
            kind,
            params,
            cx,
            stream: None,
            span: RequestSpan::none(),
        }
    }
}

/// The stream of a handler whose answer follows its notifications: a place
/// under `max_streams`, the receiving end of the notifier in its context,
/// and a sender for the answer.
pub(crate) struct Streamed {
    permit: StreamPlace,
    messages: mpsc::Receiver<Value>,
    last: mpsc::Sender<Value>,
}

/// A handler call with its params decoded, or the answer that needs none.
enum Prepared {
    Done(Answer),
    Tool {
        cx: Context,
        name: String,
        arguments: Map<String, Value>,
    },
    Prompt {
        cx: Context,
        name: String,
        arguments: BTreeMap<String, String>,
    },
    Resource {
        cx: Context,
        uri: String,
    },
}

/// `cx` for a request that came with `grant`, if any, from the client
/// address the transport set (see [`share`](crate::share)).
pub(crate) fn with_grant(cx: Context, grant: Option<&Arc<Grant>>) -> Context {
    let cx = match crate::share::peer() {
        Some(peer) => cx.with_peer(peer),
        None => cx,
    };
    match grant {
        #[cfg(feature = "auth")]
        Some(grant) => cx.with_grant(grant.clone()),
        #[cfg(not(feature = "auth"))]
        Some(grant) => match **grant {},
        None => cx,
    }
}

/// The principal of `grant`, if any.
pub(crate) fn principal_of(grant: Option<&Arc<Grant>>) -> Option<Arc<str>> {
    match grant {
        #[cfg(feature = "auth")]
        Some(grant) => Some(grant.shared_principal()),
        #[cfg(not(feature = "auth"))]
        Some(grant) => match **grant {},
        None => None,
    }
}

pin_project_lite::pin_project! {
    /// The future of [`Server::call`]: the handler's answer, or -32603
    /// when it runs past its time limit (and is dropped, which cancels it)
    /// or panics.
    ///
    /// One future rather than a chain of combinators: each would move the
    /// answer once more, and every request's answer passes through it.
    pub(crate) struct Guarded<F> {
        #[pin]
        call: super::Within<F>,
        kind: Kind,
    }
}

impl<F: Future> Guarded<F> {
    fn new(kind: Kind, limit: std::time::Duration, call: F) -> Self {
        Guarded {
            call: super::within(limit, call),
            kind,
        }
    }
}

impl<F: Future<Output = Result<Answer, ErrorObject>>> Future for Guarded<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> Poll<F::Output> {
        let this = self.project();
        let mut call = this.call;
        // As in the task runtime: after a panic the future is not polled
        // again, and what it shares with the server sits behind atomics
        // and locks that stay usable.
        match std::panic::catch_unwind(AssertUnwindSafe(|| call.as_mut().poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(Some(answer))) => Poll::Ready(answer),
            Ok(Poll::Ready(None)) => {
                let limit = call.as_ref().get_ref().limit.as_millis();
                Poll::Ready(Err(ErrorObject::internal_error(format!(
                    "`{}` did not finish within {limit} ms and was cancelled",
                    this.kind.method(),
                ))
                .with_data(json!({ "limit": "request_timeout", "max": limit }))))
            }
            Err(_) => Poll::Ready(Err(panicked(*this.kind))),
        }
    }
}

pin_project_lite::pin_project! {
    /// The future of [`Server::finish`] for a handler's call: runs it
    /// inside the request's span, encodes its answer and ends the span.
    struct Answering<'a, F> {
        #[pin]
        call: F,
        server: &'a Server,
        id: v::RequestId,
        kind: Kind,
        span: RequestSpan,
    }
}

impl<F: Future<Output = Result<Answer, ErrorObject>>> Future for Answering<'_, F> {
    type Output = Outcome;

    fn poll(self: Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> Poll<Outcome> {
        let this = self.project();
        let entered = this.span.enter();
        let Poll::Ready(answer) = this.call.poll(cx) else {
            return Poll::Pending;
        };
        let (server, id, kind) = (*this.server, &*this.id, *this.kind);
        let outcome =
            match answer.and_then(|answer| server.encode(id, answer, kind == Kind::Resource)) {
                Ok(message) => Outcome::Reply {
                    status: 200,
                    message,
                },
                Err(e) => error_reply(Some(id), status_for(e.code), e),
            };
        drop(entered);
        if let Outcome::Reply { message, .. } = &outcome {
            this.span.record_result(message.as_bytes());
        }
        this.span.end(outcome.error_code());
        Poll::Ready(outcome)
    }
}

/// The error of a request whose handler panicked, told to the operator
/// without the panic's message, which may hold the arguments (the panic
/// hook has printed it already).
fn panicked(kind: Kind) -> ErrorObject {
    tracing::error!(
        target: "mcp_server::handlers",
        method = kind.method(),
        "a handler panicked; its request failed with -32603"
    );
    crate::observe::handler_panicked(kind.method());
    ErrorObject::internal_error("the handler failed")
}

fn to_value(result: impl serde::Serialize) -> Result<Value, ErrorObject> {
    serde_json::to_value(result)
        .map_err(|e| ErrorObject::internal_error(format!("cannot encode the result: {e}")))
}

impl Server {
    /// Handles one message given as bytes (an HTTP body or a stdio line),
    /// refusing it first if it breaks the size or nesting limits or repeats
    /// an object key.
    pub async fn handle_bytes(&self, bytes: &[u8], headers: Option<&RequestHeaders>) -> Outcome {
        self.handle_bytes_as(bytes, headers, None).await
    }

    /// [`Server::handle_bytes`] for a request that came with the verified
    /// access token `grant`.
    pub(crate) async fn handle_bytes_as(
        &self,
        bytes: &[u8],
        headers: Option<&RequestHeaders>,
        grant: Option<&Arc<Grant>>,
    ) -> Outcome {
        let step = match parse::incoming(bytes, &self.inner.limits) {
            Ok(Incoming::Quick(quick)) => self.step_quick(quick, headers, grant),
            Ok(Incoming::Json(value)) => self.step(value, headers, grant),
            Err(refusal) => return error_reply(None, refusal.status, refusal.error),
        };
        self.finish(step).await
    }

    /// Handles one decoded message.
    pub async fn handle(&self, value: Value, headers: Option<&RequestHeaders>) -> Outcome {
        self.finish(self.step(value, headers, None)).await
    }

    /// Checks a decoded message, up to the handler it calls for.
    pub(crate) fn step(
        &self,
        value: Value,
        headers: Option<&RequestHeaders>,
        grant: Option<&Arc<Grant>>,
    ) -> Step {
        match Message::from_value(value) {
            Ok(Message::Request { id, method, params }) => {
                let params = Params::Json(params.unwrap_or_default());
                self.request(id, Cow::Owned(method), params, headers, grant)
            }
            Ok(_) => Step::Done(Outcome::Accepted),
            Err(e) => Step::Done(Outcome::Reply {
                status: 400,
                message: Reply::from_value(&e.to_response().to_value()),
            }),
        }
    }

    /// [`Server::step`] for a request read by [`parse::quick`].
    pub(crate) fn step_quick(
        &self,
        quick: Quick,
        headers: Option<&RequestHeaders>,
        grant: Option<&Arc<Grant>>,
    ) -> Step {
        let Quick { id, request, meta } = quick;
        let (method, params) = match request {
            QuickRequest::Call { name, arguments } => (
                "tools/call",
                Params::Call {
                    name,
                    arguments,
                    meta,
                },
            ),
            QuickRequest::TaskGet { task_id } => ("tasks/get", Params::Task { task_id, meta }),
        };
        self.request(id, Cow::Borrowed(method), params, headers, grant)
    }

    /// Runs the handler a [`Step`] calls for, if any, and encodes its
    /// answer.
    ///
    /// Not an `async fn`: the future of every request is moved as a whole
    /// (into a task, or onto the runtime), and an `async fn` would keep a
    /// copy of the step beside the handler's future.
    pub(crate) fn finish(&self, step: Step) -> impl Future<Output = Outcome> + Send + '_ {
        let mut run = match step {
            Step::Done(outcome) => return Either::Left(std::future::ready(outcome)),
            Step::Run(run) => run,
        };
        if let Some(streamed) = run.stream.take() {
            return Either::Left(std::future::ready(self.stream(run, *streamed)));
        }
        let Run {
            id,
            kind,
            params,
            cx,
            span,
            ..
        } = run;
        Either::Right(Answering {
            call: self.call(kind, params, cx),
            server: self,
            id,
            kind,
            span,
        })
    }

    /// Runs the handler of `run` on a task of its own, whose notifications
    /// stream ahead of its answer.
    fn stream(&self, run: Run, streamed: Streamed) -> Outcome {
        let Run {
            id,
            kind,
            params,
            cx,
            mut span,
            ..
        } = run;
        let Streamed {
            permit,
            messages,
            last,
        } = streamed;
        let server = self.clone();
        let task = tokio::spawn(async move {
            // The context, and with it the notifier, is gone once the
            // handler is: the response is the last message.
            let result = server.call(kind, params, cx).instrument(span.span()).await;
            let message = match result.and_then(Answer::into_value) {
                Ok(result) => server.response(&id, result, kind == Kind::Resource),
                Err(e) => error_message(Some(&id), &e),
            };
            span.end(error_code(&message));
            let _ = last.send(message).await;
        });
        Outcome::Stream {
            messages,
            guard: AbortOnDrop::new(task.abort_handle()).holding(permit),
        }
    }

    /// Opens the span of a request, checks the request and routes it inside
    /// the span, and hands the span on to the handler, if any.
    fn request(
        &self,
        id: v::RequestId,
        method: Cow<'static, str>,
        params: Params,
        headers: Option<&RequestHeaders>,
        grant: Option<&Arc<Grant>>,
    ) -> Step {
        let name = || validate::name_key(&method).and_then(|key| params.string(key));
        let mut span = RequestSpan::open(Era::Modern, &method, &id, name, grant);
        if method == "tools/call"
            && params
                .string("name")
                .is_some_and(|tool| self.inner.handlers.traces_io(tool))
        {
            span.record_arguments(params.arguments());
        }
        let entered = span.enter();
        let mut step = match self.check(&id, &method, &params, headers) {
            Ok(meta) => self.route(id, method, params, meta, headers, grant),
            Err(outcome) => Step::Done(outcome),
        };
        drop(entered);
        match &mut step {
            Step::Run(run) => run.span = span,
            // The span ends here, as it drops.
            Step::Done(outcome) => span.end(outcome.error_code()),
        }
        step
    }

    /// Checks `_meta`, the headers against the body, and the version.
    fn check(
        &self,
        id: &v::RequestId,
        method: &str,
        params: &Params,
        headers: Option<&RequestHeaders>,
    ) -> Result<RequestMeta, Outcome> {
        let meta = params
            .meta(&self.inner.capabilities)
            .map_err(|e| error_reply(Some(id), 400, e))?;
        if let Some(headers) = headers {
            let body = |key: &str| params.string(key);
            validate::headers(headers, method, body, &meta.version)
                .map_err(|e| error_reply(Some(id), 400, e))?;
        }
        if !MODERN_VERSIONS.contains(&meta.version.as_str()) {
            let error = ErrorObject::unsupported_protocol_version(
                MODERN_VERSIONS.iter().copied(),
                meta.version.clone(),
            );
            return Err(error_reply(Some(id), 400, error));
        }
        Ok(meta)
    }

    /// Answers a checked request, or says which handler to run.
    fn route(
        &self,
        id: v::RequestId,
        method: Cow<'static, str>,
        params: Params,
        meta: RequestMeta,
        headers: Option<&RequestHeaders>,
        grant: Option<&Arc<Grant>>,
    ) -> Step {
        let handlers = &self.inner.handlers;
        let listed = match &params {
            _ if method == "server/discover" => Some(Ok(self.discover())),
            Params::Json(params) => self.listing(&method, params),
            Params::Call { .. } | Params::Task { .. } => None,
        };
        if let Some(result) = listed {
            return Step::Done(match result {
                Ok(result) => Outcome::Reply {
                    status: 200,
                    message: Reply::from_value(&self.response(&id, result, true)),
                },
                Err(e) => error_reply(Some(&id), status_for(e.code), e),
            });
        }
        if method == "subscriptions/listen"
            && (handlers.has_tools() || handlers.has_prompts() || handlers.has_resources())
        {
            let listen = decode::<v::SubscriptionsListenRequestParams>(params.into_json());
            #[cfg(feature = "tasks")]
            let listen = listen.and_then(|listen| {
                let tasks = self.listen_tasks(&listen.notifications, &meta, grant)?;
                Ok((listen, tasks))
            });
            #[cfg(not(feature = "tasks"))]
            let listen = listen.map(|listen| (listen, None));
            return Step::Done(match listen {
                Ok((listen, tasks)) => match self.stream_permit(principal_of(grant)) {
                    Ok(permit) => {
                        listen::open(&self.inner, id, listen.notifications, tasks, permit)
                    }
                    Err((status, e)) => error_reply(Some(&id), status, e),
                },
                Err(e) => error_reply(Some(&id), 200, e),
            });
        }
        #[cfg(feature = "tasks")]
        if let Some(method) = self.task_method(&method) {
            return self.route_task_method(id, method, params, meta, grant);
        }
        match Kind::of(&method).filter(|&kind| self.serves(kind)) {
            Some(kind) => self.run(id, kind, params, meta, headers, grant),
            None => {
                let error = ErrorObject::method_not_found(&method);
                Step::Done(error_reply(Some(&id), 404, error))
            }
        }
    }

    /// Whether this server has handlers of `kind`.
    pub(crate) fn serves(&self, kind: Kind) -> bool {
        let handlers = &self.inner.handlers;
        match kind {
            Kind::Tool => handlers.has_tools(),
            Kind::Prompt => handlers.has_prompts(),
            Kind::Resource => handlers.has_resources(),
            Kind::Completion => self.inner.completer.is_some(),
            #[cfg(feature = "tasks")]
            Kind::Task => self.inner.tasks.is_some(),
        }
    }

    /// The result of one of the four list methods, or `None` when the
    /// method is not one of them or the server has nothing of that kind.
    pub(crate) fn listing(
        &self,
        method: &str,
        params: &Map<String, Value>,
    ) -> Option<Result<Value, ErrorObject>> {
        let handlers = &self.inner.handlers;
        match method {
            "tools/list" if handlers.has_tools() => {
                Some(self.list(params, "tools", handlers.tools()))
            }
            "prompts/list" if handlers.has_prompts() => {
                Some(self.list(params, "prompts", handlers.prompts()))
            }
            "resources/list" if handlers.has_resources() => {
                Some(self.list(params, "resources", handlers.resources()))
            }
            "resources/templates/list" if handlers.has_resources() => {
                Some(self.list(params, "resourceTemplates", handlers.templates()))
            }
            _ => None,
        }
    }

    /// Runs a handler: inline when nothing will be streamed, on a task
    /// feeding an SSE-style stream when the client asked for progress or
    /// logs.
    fn run(
        &self,
        id: v::RequestId,
        kind: Kind,
        params: Params,
        meta: RequestMeta,
        headers: Option<&RequestHeaders>,
        grant: Option<&Arc<Grant>>,
    ) -> Step {
        if let (Some(headers), Kind::Tool) = (headers, kind) {
            let checked =
                self.check_param_headers(headers, params.string("name"), params.arguments());
            if let Err(e) = checked {
                return Step::Done(error_reply(Some(&id), 400, e));
            }
        }
        if let Some(refused) = self.check_scopes(&id, kind, params.string("name"), grant) {
            return Step::Done(refused);
        }
        #[cfg(feature = "tasks")]
        let as_task = match self.task_mode(kind, params.string("name"), &meta) {
            Ok(as_task) => as_task,
            Err(e) => return Step::Done(error_reply(Some(&id), 200, e)),
        };
        let streaming = meta.progress_token.is_some() || meta.log_level.is_some();
        let cx = self.equip(Context::shared(
            Cow::Borrowed(kind.method()),
            meta.capabilities,
        ));
        let cx = with_grant(cx, grant);
        #[cfg(feature = "tasks")]
        let cx = if as_task { cx.allow_task() } else { cx };
        if !streaming {
            return Step::Run(Run::new(id, kind, params, cx));
        }
        let permit = match self.stream_permit(principal_of(grant)) {
            Ok(permit) => permit,
            Err((status, e)) => return Step::Done(error_reply(Some(&id), status, e)),
        };
        let (notifier, messages) = Notifier::channel(self.inner.limits.notification_buffer);
        let last = notifier.sender();
        let cx = cx.with_notifier(notifier, meta.progress_token, meta.log_level);
        Step::Run(Run {
            stream: Some(Box::new(Streamed {
                permit,
                messages,
                last,
            })),
            ..Run::new(id, kind, params, cx)
        })
    }

    /// The refusal of a `tools/call` whose grant lacks a scope of the tool
    /// `name` (or, through it, one the server requires), if it does.
    pub(crate) fn check_scopes(
        &self,
        id: &v::RequestId,
        kind: Kind,
        name: Option<&str>,
        grant: Option<&Arc<Grant>>,
    ) -> Option<Outcome> {
        #[cfg(feature = "auth")]
        {
            let (Kind::Tool, Some(name), Some(grant), Some(auth)) =
                (kind, name, grant, &self.inner.authorization)
            else {
                return None;
            };
            let scope = auth.scope_needed(grant, self.inner.handlers.tool_scopes(name))?;
            let refusal = auth.insufficient_scope(grant, &scope);
            tracing::info!(
                target: "mcp_server::auth",
                tool = name,
                needs = %scope,
                "refused a tool call: its token lacks scopes"
            );
            crate::observe::auth_refused(refusal.status());
            Some(Outcome::Challenge {
                status: refusal.status(),
                www_authenticate: refusal.challenge().unwrap_or_default().to_owned(),
                message: Reply::from_value(&error_message(Some(id), refusal.error())),
            })
        }
        #[cfg(not(feature = "auth"))]
        {
            let _ = (id, kind, name);
            grant.map(|grant| match **grant {})
        }
    }

    /// A place for one more stream of the client that is `principal`, or
    /// else at the address the transport set (see [`share`](crate::share)),
    /// or the HTTP status and error that refuse it: 429 when the client
    /// holds its share of `max_streams_per_client`, 503 when the server
    /// holds `max_streams`.
    pub(crate) fn stream_permit(
        &self,
        principal: Option<Arc<str>>,
    ) -> Result<StreamPlace, (u16, ErrorObject)> {
        let client = match principal {
            Some(principal) => Some(crate::share::Client::principal(principal)),
            None => crate::share::peer().map(crate::share::Client::address),
        };
        let share = match client {
            Some(client) => {
                let mut counts = self
                    .inner
                    .stream_shares
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                if counts.full(&client) {
                    return Err((
                        429,
                        busy(
                            "this client has its whole share of streams open",
                            "max_streams_per_client",
                            self.inner.limits.max_streams_per_client,
                        ),
                    ));
                }
                counts.add(&client);
                Some((self.inner.stream_shares.clone(), client))
            }
            None => None,
        };
        // Built first, so that a refusal below gives the share back.
        let share = StreamPlaceShare(share);
        let permit = self
            .inner
            .streams
            .clone()
            .try_acquire_owned()
            .map_err(|_| {
                (
                    503,
                    busy(
                        "too many streams are open",
                        "max_streams",
                        self.inner.limits.max_streams,
                    ),
                )
            })?;
        Ok(StreamPlace {
            _permit: permit,
            share: share.take(),
        })
    }

    fn check_param_headers(
        &self,
        headers: &RequestHeaders,
        name: Option<&str>,
        arguments: Option<&Map<String, Value>>,
    ) -> Result<(), ErrorObject> {
        let Some(name) = name else {
            return Ok(());
        };
        let Some(tool) = self.inner.handlers.tool(name) else {
            return Ok(());
        };
        // `properties` is not a named field of the schema type: it is kept
        // among the other members, which is where the check looks.
        validate::param_headers(headers, &tool.input_schema.extra, arguments)
    }

    /// Calls the handler of `kind`; the result is the JSON of the
    /// method's result, `InputRequiredResult` included. A handler that runs
    /// past [`Limits::request_timeout`](super::Limits::request_timeout) is
    /// dropped, which cancels it, and the request fails with -32603; so
    /// does one that panics, and the connection and the server go on.
    pub(crate) fn call(
        &self,
        kind: Kind,
        params: Params,
        cx: Context,
    ) -> impl Future<Output = Result<Answer, ErrorObject>> + Send + '_ {
        // A call that may become a task has no time limit, and is guarded
        // here until it becomes one; the task runtime guards it from then
        // on.
        #[cfg(feature = "tasks")]
        if kind == Kind::Task || cx.task_allowed() {
            let call = self.task_call(kind, params, cx);
            return Either::Left(Guarded::new(kind, std::time::Duration::MAX, call));
        }
        let limit = self.inner.limits.request_timeout;
        let call = Guarded::new(kind, limit, self.call_handler(kind, params, cx));
        Either::<Guarded<crate::BoxFuture<'_, Result<Answer, ErrorObject>>>, _>::Right(call)
    }

    pub(crate) fn call_handler(
        &self,
        kind: Kind,
        params: Params,
        cx: Context,
    ) -> impl Future<Output = Result<Answer, ErrorObject>> + Send + '_ {
        let handlers = &self.inner.handlers;
        let prepared = self.prepare(kind, params, cx);
        // What the handler borrows is borrowed from `prepared` in place:
        // this future is part of every request's, and is moved whole.
        async move {
            match prepared {
                Err(e) => Err(e),
                Ok(Prepared::Done(answer)) => Ok(answer),
                Ok(Prepared::Tool {
                    ref cx,
                    ref name,
                    arguments,
                }) => {
                    let Some(call) = handlers.call_tool(name, cx, arguments) else {
                        let error = ErrorObject::invalid_params(format!("unknown tool `{name}`"));
                        return Err(error);
                    };
                    Ok(Answer::Tool(call.await?))
                }
                Ok(Prepared::Prompt {
                    ref cx,
                    ref name,
                    arguments,
                }) => {
                    let Some(get) = handlers.get_prompt(name, cx, arguments) else {
                        let error = ErrorObject::invalid_params(format!("unknown prompt `{name}`"));
                        return Err(error);
                    };
                    Ok(Answer::Prompt(get.await?))
                }
                Ok(Prepared::Resource { ref cx, ref uri }) => {
                    let Some(read) = handlers.read_resource(uri, cx) else {
                        return Err(ErrorObject::resource_not_found(uri));
                    };
                    Ok(Answer::Resource(read.await?))
                }
            }
        }
    }

    /// Decodes the params of a handler call and checks the arguments of a
    /// tool; answers what needs no handler.
    fn prepare(&self, kind: Kind, params: Params, cx: Context) -> Result<Prepared, ErrorObject> {
        match kind {
            Kind::Tool => {
                let (arguments, params) = match params {
                    Params::Call {
                        name, arguments, ..
                    } => {
                        let params = CallParams {
                            name,
                            input_responses: None,
                            request_state: None,
                        };
                        (arguments, params)
                    }
                    other => {
                        let mut params = other.into_json();
                        // The arguments are taken out before the rest is
                        // decoded (by reference, to keep the path of a bad
                        // member): they are most of the params, and are
                        // passed on as they are.
                        let arguments = take_arguments(&mut params)?;
                        (arguments, decode(params)?)
                    }
                };
                let cx = cx.with_retry(params.input_responses, params.request_state);
                #[cfg(feature = "validation")]
                let arguments = match self.check_arguments(&params.name, arguments) {
                    Ok(arguments) => arguments,
                    Err(message) => {
                        let answer = to_value(ToolOutput::error(message).complete())?;
                        return Ok(Prepared::Done(Answer::Json(answer)));
                    }
                };
                Ok(Prepared::Tool {
                    cx,
                    name: params.name,
                    arguments,
                })
            }
            Kind::Prompt => {
                let params: v::GetPromptRequestParams = decode(params.into_json())?;
                Ok(Prepared::Prompt {
                    cx: cx.with_retry(params.input_responses, params.request_state),
                    name: params.name,
                    arguments: params.arguments.unwrap_or_default().into_iter().collect(),
                })
            }
            Kind::Resource => {
                let params: v::ReadResourceRequestParams = decode(params.into_json())?;
                Ok(Prepared::Resource {
                    cx: cx.with_retry(params.input_responses, params.request_state),
                    uri: params.uri,
                })
            }
            #[cfg(feature = "tasks")]
            Kind::Task => Err(ErrorObject::internal_error(
                "a tasks method reached a handler",
            )),
            Kind::Completion => {
                let params: v::CompleteRequestParams = decode(params.into_json())?;
                let Some(completer) = &self.inner.completer else {
                    return Err(ErrorObject::method_not_found(kind.method()));
                };
                let result = completer.complete(&CompletionRequest::from_params(params));
                Ok(Prepared::Done(Answer::Json(completion::result(result))))
            }
        }
    }

    fn discover(&self) -> Value {
        let capabilities = capabilities::advertised(&self.inner, capabilities::Era::Modern);
        let mut result =
            json!({ "supportedVersions": MODERN_VERSIONS, "capabilities": capabilities });
        if let Some(instructions) = &self.inner.instructions {
            result["instructions"] = json!(instructions);
        }
        result
    }

    fn list<T: Clone + serde::Serialize>(
        &self,
        params: &Map<String, Value>,
        key: &str,
        items: &[T],
    ) -> Result<Value, ErrorObject> {
        let cursor = match params.get("cursor") {
            None | Some(Value::Null) => None,
            Some(Value::String(cursor)) => Some(cursor.as_str()),
            Some(_) => return Err(ErrorObject::invalid_params("`cursor` must be a string")),
        };
        let (page, next) = pages::page(items, cursor, self.inner.limits.page_size)?;
        let mut result = json!({ key: to_value(page)? });
        if let Some(next) = next {
            result["nextCursor"] = json!(next);
        }
        Ok(result)
    }

    /// Encodes the response to `answer`, as [`Server::response`] would
    /// shape it, without building a `Value` first.
    fn encode(
        &self,
        id: &v::RequestId,
        answer: Answer,
        cacheable: bool,
    ) -> Result<Reply, ErrorObject> {
        match answer {
            Answer::Tool(ToolOutput::Complete(result)) => self.encode_result(id, result, cacheable),
            Answer::Prompt(PromptOutput::Complete(result)) => {
                self.encode_result(id, result, cacheable)
            }
            Answer::Resource(ResourceOutput::Complete(result)) => {
                self.encode_result(id, result, cacheable)
            }
            Answer::Tool(ToolOutput::InputRequired(result))
            | Answer::Prompt(PromptOutput::InputRequired(result))
            | Answer::Resource(ResourceOutput::InputRequired(result)) => {
                self.encode_result(id, result, cacheable)
            }
            Answer::Json(result) => Ok(Reply::from_value(&self.response(id, result, cacheable))),
            #[cfg(feature = "tasks")]
            Answer::Encoded(result) => Reply::encoded(id, &result, &self.inner.info_meta),
        }
    }

    fn encode_result<R: Framed>(
        &self,
        id: &v::RequestId,
        mut result: R,
        cacheable: bool,
    ) -> Result<Reply, ErrorObject> {
        let complete = result
            .result_type()
            .get_or_insert_with(|| "complete".to_owned())
            == "complete";
        if let (true, Some((ttl_ms, cache_scope))) = (cacheable && complete, result.cache()) {
            ttl_ms.get_or_insert(self.inner.ttl_ms);
            cache_scope.get_or_insert(self.inner.cache_scope);
        }
        match result.meta() {
            Some(meta) => {
                meta.server_info
                    .get_or_insert_with(|| self.inner.info.clone());
                Reply::result(id, &result, None)
            }
            // The usual case: `_meta` with `serverInfo` alone, encoded once.
            None => Reply::result(id, &result, Some(&self.inner.info_meta)),
        }
    }

    /// Wraps a result in a response: `resultType` defaults to `complete`,
    /// complete cacheable results get the cache hints, every result gets
    /// `serverInfo` in `_meta`.
    pub(crate) fn response(&self, id: &v::RequestId, mut result: Value, cacheable: bool) -> Value {
        if let Value::Object(map) = &mut result {
            let result_type = map.entry("resultType").or_insert_with(|| json!("complete"));
            let complete = result_type == "complete";
            if cacheable && complete {
                map.entry("ttlMs")
                    .or_insert_with(|| json!(self.inner.ttl_ms));
                map.entry("cacheScope")
                    .or_insert_with(|| json!(self.inner.cache_scope));
            }
            let meta = map.entry("_meta").or_insert_with(|| json!({}));
            if let Value::Object(meta) = meta {
                meta.entry(SERVER_INFO)
                    .or_insert_with(|| json!(self.inner.info));
            }
        }
        // Built by hand: `json!` would copy `result` through the serializer.
        let mut message = Map::new();
        message.insert("jsonrpc".to_owned(), json!("2.0"));
        message.insert("id".to_owned(), json!(id));
        message.insert("result".to_owned(), result);
        Value::Object(message)
    }
}
#[cfg(feature = "validation")]
impl Server {
    /// The arguments of a call to `name`, or the message of the `isError`
    /// result when they break the tool's input schema.
    fn check_arguments(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<Map<String, Value>, String> {
        let Some(validator) = self.inner.validators.get(name) else {
            return Ok(arguments);
        };
        let arguments = Value::Object(arguments);
        // `is_valid` stops at the first problem and builds no error: the
        // problems are gathered only for arguments that fail.
        if !validator.is_valid(&arguments) {
            let problems: Vec<String> = validator
                .iter_errors(&arguments)
                .take(8)
                .map(|e| match e.instance_path().to_string() {
                    path if path.is_empty() => e.to_string(),
                    path => format!("argument `{}`: {e}", path.trim_start_matches('/')),
                })
                .collect();
            if !problems.is_empty() {
                return Err(format!(
                    "invalid arguments for `{name}`: {}",
                    problems.join("; ")
                ));
            }
        }
        match arguments {
            Value::Object(arguments) => Ok(arguments),
            _ => Ok(Map::new()),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::Server;

    /// One tool, so that the server serves something.
    pub(super) struct One;
    impl crate::tool::ToolSet for One {
        fn tools() -> Vec<mcp_types::v2026_07_28::Tool> {
            serde_json::from_value(
                serde_json::json!([{"name": "one", "inputSchema": {"type": "object"}}]),
            )
            .unwrap_or_default()
        }
        fn call_tool<'a>(
            &'a self,
            _: &str,
            _: &'a crate::Context,
            _: serde_json::Map<String, serde_json::Value>,
        ) -> Option<crate::BoxFuture<'a, Result<crate::tool::ToolOutput, crate::ErrorObject>>>
        {
            None
        }
    }

    #[cfg(feature = "tasks")]
    #[test]
    fn an_encoded_result_gets_the_member_appended() {
        use super::Reply;
        use mcp_types::v2026_07_28::RequestId;
        let member = br#""_meta":{"k":1}"#;
        for (result, expected) in [
            (
                r#"{"a":[1,{}]}"#,
                r#"{"jsonrpc":"2.0","id":7,"result":{"a":[1,{}],"_meta":{"k":1}}}"#,
            ),
            (
                "{}",
                r#"{"jsonrpc":"2.0","id":7,"result":{"_meta":{"k":1}}}"#,
            ),
        ] {
            let reply = Reply::encoded(&RequestId::Integer(7), result, member).expect("object");
            assert_eq!(std::str::from_utf8(reply.as_bytes()), Ok(expected));
        }
        assert!(Reply::encoded(&RequestId::Integer(7), "[]", member).is_err());
    }

    /// Every request's future is moved whole (onto the runtime, into a
    /// task): it once weighed 7 KB, which cost more than the work of a
    /// simple call. Nested `async fn`s that take big arguments by value
    /// are how it grows back.
    #[test]
    fn the_future_of_a_request_stays_small() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime");
        let _entered = runtime.enter();
        let server = Server::builder(One).tools().build().expect("server");
        let bytes = server.handle_bytes(b"{}", None);
        let value = server.handle(serde_json::Value::Null, None);
        assert!(
            std::mem::size_of_val(&bytes) <= 1024,
            "{}",
            std::mem::size_of_val(&bytes)
        );
        assert!(
            std::mem::size_of_val(&value) <= 1024,
            "{}",
            std::mem::size_of_val(&value)
        );
    }

    /// A client declares the same capabilities on every request: each
    /// request's context shares one copy, which a task keeps for its life.
    #[test]
    fn requests_that_declare_the_same_capabilities_share_them() {
        use super::validate::{self, LastCapabilities};
        use std::sync::Arc;
        let last = LastCapabilities::default();
        let meta = |capabilities: serde_json::Value| {
            let meta = serde_json::json!({
                mcp_types::meta::PROTOCOL_VERSION: "2026-07-28",
                mcp_types::meta::CLIENT_CAPABILITIES: capabilities,
            });
            let meta = meta.as_object().expect("an object").clone();
            validate::meta(&meta, Some(&last))
                .expect("well formed")
                .capabilities
        };
        let tasks = serde_json::json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
        let first = meta(tasks.clone());
        let second = meta(tasks.clone());
        assert!(Arc::ptr_eq(&first, &second));
        // Other capabilities get their own, and become the shared ones.
        let other = meta(serde_json::json!({"roots": {}}));
        assert!(!Arc::ptr_eq(&first, &other));
        assert!(other.roots.is_some() && first.roots.is_none());
        let again = meta(tasks);
        assert!(!Arc::ptr_eq(&first, &again));
        assert_eq!(*again, *first);
        // Malformed capabilities are refused, shared or not.
        let e = validate::meta(
            serde_json::json!({
                mcp_types::meta::PROTOCOL_VERSION: "2026-07-28",
                mcp_types::meta::CLIENT_CAPABILITIES: {"roots": 5},
            })
            .as_object()
            .expect("an object"),
            Some(&last),
        )
        .expect_err("malformed");
        assert_eq!(e.code, -32602);
    }
}
