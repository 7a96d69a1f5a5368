//! Requests: one exchange on the wire, the multi-round-trip loop over it,
//! and the typed API on top.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use mcp_types::jsonrpc::Message;
use mcp_types::method::{InputRequiredCapable, Request};
use mcp_types::v2026_07_28 as v;
use mcp_types::v2026_07_28::{
    CallToolResult, InputRequest, InputRequiredResult, InputResponse, ProgressNotificationParams,
    RequestId, Tool,
};
use mcp_types::{meta, ErrorCode, ResultType};
use serde::de::DeserializeOwned;
use serde_json::{json, Map, Value};
use tracing::Instrument;

use super::input::{answer, answer_legacy, InputHandler};
use super::{Client, ClientError, KnownTool, Stamp, Transport};
use crate::approval::{Approval, ToolCall};
use crate::headers::{self, HeaderRuleError};
use crate::mrtr::MrtrDriver;
use crate::names::ServerId;
use crate::untrusted::Untrusted;

/// Most pages a listing follows.
const MAX_PAGES: usize = 100;

/// A progress report of a request in flight.
#[derive(Debug, Clone)]
pub struct Progress {
    /// How far along; grows with every report of one send of the request.
    /// A request reissued after its stream broke (see
    /// [`ClientOptions::max_reissues`](super::ClientOptions::max_reissues))
    /// is new work on the server, whose reports may start over.
    pub progress: f64,
    /// The total, if the server knows it.
    pub total: Option<f64>,
    /// What the server says it is doing.
    pub message: Option<Untrusted<String>>,
    /// For a call the server runs as a task: what the last poll showed
    /// (then `progress` counts the polls and `message` is the task's
    /// status message).
    #[cfg(feature = "tasks")]
    pub task: Option<Untrusted<crate::tasks::TaskReport>>,
}

/// A callback for progress reports.
pub type ProgressFn = Arc<dyn Fn(Progress) + Send + Sync>;

/// Options of one request.
#[derive(Clone, Default)]
pub struct CallOptions {
    /// The timeout, instead of the client's default.
    pub timeout: Option<Duration>,
    /// Where progress reports go; setting it asks the server for them.
    /// Each send of the request uses its own id as the progress token, and
    /// the reports of every send, reissues included, come here. A tool
    /// call the server runs as a task reports each poll here too.
    pub progress: Option<ProgressFn>,
    /// For a tool call the server runs as a task, how long the whole task
    /// may take, instead of
    /// [`ClientOptions::task_timeout`](super::ClientOptions::task_timeout).
    pub task_timeout: Option<Duration>,
}

impl std::fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallOptions")
            .field("timeout", &self.timeout)
            .field("progress", &self.progress.is_some())
            .field("task_timeout", &self.task_timeout)
            .finish()
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A request any code may send: every modern client request except
/// `tools/call`, which needs an approval and goes through
/// [`Client::call_tool`], and `subscriptions/listen`, which is a stream and
/// goes through [`Client::listen`].
///
/// ```compile_fail
/// # async fn f(client: &mcp_host::client::Client, params: mcp_types::v2026_07_28::CallToolRequestParams) {
/// // A tool call without an approval does not compile.
/// client.call::<mcp_types::v2026_07_28::CallToolRequest>(params).await;
/// # }
/// ```
pub trait FreeRequest: Request + sealed::Sealed {}

macro_rules! free {
    ($($request:ident),* $(,)?) => {
        $(
            impl sealed::Sealed for v::$request {}
            impl FreeRequest for v::$request {}
        )*
    };
}

free!(
    DiscoverRequest,
    ListToolsRequest,
    ListPromptsRequest,
    GetPromptRequest,
    ListResourcesRequest,
    ListResourceTemplatesRequest,
    ReadResourceRequest,
    CompleteRequest,
);

/// The tools of a server.
#[derive(Debug, Clone, Default)]
pub struct ToolList {
    /// The usable tools.
    pub tools: Vec<Untrusted<Tool>>,
    /// The tools dropped for breaking the `x-mcp-header` rules (HTTP only).
    pub excluded: Vec<ExcludedTool>,
}

/// A tool dropped for breaking the `x-mcp-header` rules.
#[derive(Debug, Clone)]
pub struct ExcludedTool {
    /// Its name.
    pub name: Untrusted<String>,
    /// The rule it broke.
    pub error: HeaderRuleError,
}

/// Where the client is when it sends a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Phase {
    /// Settling the era (`server/discover`, `initialize`). The server may
    /// be legacy and not yet initialised, so a dropped request is not
    /// announced to it, and a stream that breaks is an answer in itself:
    /// the probe takes it for a legacy server's silence.
    Establishing,
    /// In the session. A dropped request is cancelled, and a modern
    /// request whose response stream breaks is reissued.
    Session,
}

/// One request as the client sends it, before the era's stamp: the same
/// every time it is sent, whatever its id.
pub(super) struct Outgoing<'a> {
    pub(super) method: &'a str,
    pub(super) params: Map<String, Value>,
    pub(super) stamp: &'a Stamp,
    pub(super) options: &'a CallOptions,
    /// Headers beyond the era's, such as `Mcp-Param-*`.
    pub(super) headers: Vec<(String, String)>,
    pub(super) phase: Phase,
}

impl Outgoing<'_> {
    /// Whether a broken response stream loses the request, so that it is
    /// sent again: a modern request in the session. Legacy streams resume
    /// instead, and a request of the probe is not retried.
    fn reissuable(&self) -> bool {
        self.phase == Phase::Session && matches!(self.stamp, Stamp::Modern(_))
    }
}

/// How one send of a request ended without its response.
enum Failed {
    /// The response stream of a reissuable request ended, or its
    /// connection was cut, before the response: the request is lost.
    Broken,
    /// Anything else, which is final.
    Error(ClientError),
}

impl From<ClientError> for Failed {
    fn from(error: ClientError) -> Self {
        Self::Error(error)
    }
}

/// Disarmed once the answer is in; dropped armed, it tells a stdio server
/// to stop.
struct CancelOnDrop<'a> {
    transport: &'a Transport,
    id: RequestId,
    armed: bool,
}

impl Drop for CancelOnDrop<'_> {
    fn drop(&mut self) {
        if let (true, Transport::Stdio(channel) | Transport::Sse(channel)) =
            (self.armed, self.transport)
        {
            channel.cancel(&self.id, "cancelled by the client");
        }
    }
}

/// What comes back for one request, over either transport.
pub(super) enum Answer {
    Stdio(super::channel::Pending),
    Http(Box<super::http::Answer>),
}

impl Answer {
    /// The next message for the request, or why none will come.
    pub(super) async fn next(&mut self) -> Result<Message, ClientError> {
        match self {
            Self::Stdio(pending) => pending.next().await,
            Self::Http(answer) => answer
                .next()
                .await
                .unwrap_or(Err(ClientError::Truncated { attempts: 1 })),
        }
    }

    /// Whether it is an HTTP event stream, which can break.
    fn is_stream(&self) -> bool {
        matches!(self, Self::Http(answer) if answer.is_stream())
    }
}

fn object(value: Value) -> Result<Map<String, Value>, ClientError> {
    match value {
        Value::Object(map) => Ok(map),
        _ => Err(ClientError::protocol("params must encode as an object")),
    }
}

pub(super) fn decode<T: DeserializeOwned>(value: Value) -> Result<T, ClientError> {
    serde_json::from_value(value).map_err(ClientError::protocol)
}

fn progress_of(params: Option<Map<String, Value>>, origin: &ServerId) -> Option<Progress> {
    let params: ProgressNotificationParams = serde_json::from_value(Value::Object(params?)).ok()?;
    Some(Progress {
        progress: params.progress.as_f64()?,
        total: params.total.and_then(|t| t.as_f64()),
        message: params.message.map(|m| Untrusted::new(origin.clone(), m)),
        #[cfg(feature = "tasks")]
        task: None,
    })
}

/// An HTTP error status whose body is a JSON-RPC error (400 with -32020,
/// -32021 or -32022, 404 with -32601) is that error.
pub(super) fn rpc_from_status(origin: &ServerId, error: ClientError) -> ClientError {
    match error {
        ClientError::HttpStatus { status, body } => match Message::from_slice(&body) {
            Ok(Message::ErrorResponse { error, .. }) => {
                ClientError::Rpc(Untrusted::new(origin.clone(), error))
            }
            _ => ClientError::HttpStatus { status, body },
        },
        other => other,
    }
}

/// The JSON-RPC reply to a legacy server-to-client request.
pub(super) async fn reply_to(
    input: &dyn InputHandler,
    origin: &ServerId,
    id: RequestId,
    method: &str,
    params: Option<Map<String, Value>>,
) -> Value {
    match answer_legacy(input, origin, method, params).await {
        Ok(result) => json!({ "jsonrpc": "2.0", "id": id, "result": result }),
        Err(error) => json!({ "jsonrpc": "2.0", "id": id, "error": error }),
    }
}

impl Client {
    /// Stamps `params` for the era: the modern `_meta` keys, or none of
    /// them for legacy; the request id as progress token when wanted.
    pub(super) fn stamp_params(
        &self,
        stamp: &Stamp,
        mut params: Map<String, Value>,
        progress: Option<&RequestId>,
    ) -> Map<String, Value> {
        let mut meta_map = match params.remove("_meta") {
            Some(Value::Object(map)) => map,
            _ => Map::new(),
        };
        match stamp {
            Stamp::Modern(version) => {
                meta_map.insert(meta::PROTOCOL_VERSION.into(), json!(version));
                #[cfg_attr(not(feature = "tasks"), allow(unused_mut))]
                let mut capabilities = json!(self.input.capabilities());
                #[cfg(feature = "tasks")]
                crate::tasks::declare(&mut capabilities);
                meta_map.insert(meta::CLIENT_CAPABILITIES.into(), capabilities);
                meta_map.insert(meta::CLIENT_INFO.into(), json!(self.options.client_info));
            }
            Stamp::Legacy(_) | Stamp::Initialize => {
                for key in [
                    meta::PROTOCOL_VERSION,
                    meta::CLIENT_CAPABILITIES,
                    meta::CLIENT_INFO,
                    meta::LOG_LEVEL,
                ] {
                    meta_map.remove(key);
                }
            }
        }
        match progress {
            Some(id) => meta_map.insert(meta::PROGRESS_TOKEN.into(), json!(id)),
            None => meta_map.remove(meta::PROGRESS_TOKEN),
        };
        if !meta_map.is_empty() {
            params.insert("_meta".into(), Value::Object(meta_map));
        }
        params
    }

    /// Sends `request` with `id` and waits for its answer, handling the
    /// progress reports and legacy server requests that come before it.
    /// When a modern request's response stream breaks, sends it again with
    /// a fresh id, up to [`ClientOptions::max_reissues`] times, all within
    /// the one timeout.
    ///
    /// [`ClientOptions::max_reissues`]: super::ClientOptions::max_reissues
    // Without OAuth there is nothing to send again for.
    ///
    /// Runs in a `request` span with the method, the server id and the
    /// request id: never the arguments, nor anything secret.
    pub(super) async fn exchange(
        &self,
        id: RequestId,
        request: Outgoing<'_>,
    ) -> Result<Value, ClientError> {
        let span = tracing::debug_span!(
            "request",
            method = request.method,
            server = %self.id,
            id = %id
        );
        let outcome = self
            .exchange_untraced(id, request)
            .instrument(span.clone())
            .await;
        span.in_scope(|| match &outcome {
            Ok(_) => tracing::debug!("answered"),
            Err(error) => tracing::debug!(%error, "failed"),
        });
        outcome
    }

    #[cfg_attr(not(feature = "oauth"), allow(clippy::never_loop, unused_mut))]
    async fn exchange_untraced(
        &self,
        id: RequestId,
        request: Outgoing<'_>,
    ) -> Result<Value, ClientError> {
        let timeout = request
            .options
            .timeout
            .unwrap_or(self.options.request_timeout);
        let work = |id: RequestId| {
            let request = &request;
            async move {
                let mut id = id;
                let mut attempts = 1;
                loop {
                    match self.send_once(&id, request).await {
                        Ok(result) => return Ok(result),
                        Err(Failed::Error(error)) => return Err(error),
                        Err(Failed::Broken) if attempts <= self.options.max_reissues => {
                            attempts += 1;
                            id = self.next_id();
                        }
                        Err(Failed::Broken) => return Err(ClientError::Truncated { attempts }),
                    }
                }
            }
        };
        #[cfg(feature = "oauth")]
        let mut budget = crate::auth::Budget::default();
        let mut id = id;
        loop {
            let outcome = match tokio::time::timeout(timeout, work(id)).await {
                Ok(outcome) => outcome,
                Err(_) => Err(ClientError::Timeout(timeout)),
            };
            // A refused request had no effect: authorize (outside the
            // timeout, since a person may be logging in) and send it again
            // with a new id.
            #[cfg(feature = "oauth")]
            if let Err(ClientError::Unauthorized(refusal)) = &outcome {
                if let Some(oauth) = self.oauth() {
                    oauth.on_refusal(refusal, &mut budget).await?;
                    id = self.next_id();
                    continue;
                }
            }
            return outcome;
        }
    }

    /// The server's OAuth client, over HTTP when it has one.
    #[cfg(feature = "oauth")]
    fn oauth(&self) -> Option<&std::sync::Arc<crate::auth::OAuthClient>> {
        match &*self.transport {
            Transport::Http(http) => http.oauth(),
            Transport::Stdio(_) | Transport::Sse(_) => None,
        }
    }

    /// Sends `request` once, with `id`, and reads its answer.
    async fn send_once(&self, id: &RequestId, request: &Outgoing<'_>) -> Result<Value, Failed> {
        let Outgoing {
            method,
            stamp,
            options,
            phase,
            ..
        } = *request;
        let params = self.stamp_params(
            stamp,
            request.params.clone(),
            options.progress.as_ref().map(|_| id),
        );
        let mut headers = self.era_headers(stamp, method, Some(&params));
        headers.extend(request.headers.iter().cloned());
        let body = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        let mut answer = match &*self.transport {
            Transport::Stdio(channel) | Transport::Sse(channel) => {
                Answer::Stdio(channel.send(id, &body)?)
            }
            Transport::Http(http) => {
                let mut answer = http.post(&body, &headers).await?;
                if matches!(stamp, Stamp::Legacy(_)) {
                    http.resume_on_break(&mut answer, &headers);
                }
                Answer::Http(Box::new(answer))
            }
        };
        let mut guard = CancelOnDrop {
            transport: &self.transport,
            id: id.clone(),
            armed: phase == Phase::Session,
        };
        loop {
            let message = match answer.next().await {
                Ok(message) => message,
                // The stream ended or its connection was cut (a transport
                // error while reading it): the request is lost.
                Err(ClientError::Truncated { .. } | ClientError::Http(_))
                    if request.reissuable() && answer.is_stream() =>
                {
                    return Err(Failed::Broken)
                }
                Err(error) => return Err(error.into()),
            };
            match message {
                Message::Response {
                    id: answered,
                    result,
                } if answered == *id => {
                    guard.armed = false;
                    return Ok(result);
                }
                Message::ErrorResponse {
                    id: answered,
                    error,
                } if answered.as_ref().is_none_or(|a| a == id) => {
                    guard.armed = false;
                    return Err(ClientError::Rpc(Untrusted::new(self.id.clone(), error)).into());
                }
                Message::Notification { method, params } => {
                    if method == "notifications/message" {
                        super::log::forward(params.as_ref());
                    }
                    if method == "notifications/progress" {
                        if let (Some(callback), Some(report)) =
                            (&options.progress, progress_of(params, &self.id))
                        {
                            callback(report);
                        }
                    }
                }
                Message::Request {
                    id: asked,
                    method,
                    params,
                } => self.answer_over_http(asked, &method, params, stamp).await,
                // Over stdio only this request's responses are routed
                // here; over HTTP the reply belongs to this request
                // alone, so another id means a confused server. Its
                // answer is nobody's: fail rather than guess.
                stray @ (Message::Response { .. } | Message::ErrorResponse { .. }) => {
                    let answered = stray.id().map_or("null".to_owned(), |a| a.to_string());
                    return Err(ClientError::Protocol(format!(
                        "the server answered request {id} with a response to {answered}"
                    ))
                    .into());
                }
            }
        }
    }

    /// Answers a server-to-client request that came on an HTTP response
    /// stream (legacy era) with a POST of the reply.
    async fn answer_over_http(
        &self,
        id: RequestId,
        method: &str,
        params: Option<Map<String, Value>>,
        stamp: &Stamp,
    ) {
        let Transport::Http(http) = &*self.transport else {
            return;
        };
        let reply = reply_to(&*self.input, &self.id, id, method, params).await;
        let headers = self.era_headers(stamp, method, None);
        let headers: Vec<_> = headers
            .into_iter()
            .filter(|(name, _)| name == "MCP-Protocol-Version")
            .collect();
        let _ = http.post(&reply, &headers).await;
    }

    /// One request in the current era, with a fresh id.
    pub(super) async fn request(
        &self,
        method: &str,
        params: Map<String, Value>,
        options: &CallOptions,
    ) -> Result<Value, ClientError> {
        let stamp = self.stamp()?;
        let request = Outgoing {
            method,
            params,
            stamp: &stamp,
            options,
            headers: Vec::new(),
            phase: Phase::Session,
        };
        self.exchange(self.next_id(), request)
            .await
            .map_err(|e| rpc_from_status(&self.id, e))
    }

    /// Answers every input request through the host's input handler, by
    /// the server's keys: the answers to an MRTR round or to a task's
    /// `inputRequests`.
    pub(super) async fn answer_all(
        &self,
        requests: impl IntoIterator<Item = (String, InputRequest)>,
    ) -> Result<BTreeMap<String, InputResponse>, ClientError> {
        let mut answers = BTreeMap::new();
        for (key, request) in requests {
            let response = answer(&*self.input, &self.id, request)
                .await
                .map_err(|(method, reason)| ClientError::Input { method, reason })?;
            answers.insert(key, response);
        }
        Ok(answers)
    }

    /// Runs a request that may ask for input until its result is complete:
    /// each `InputRequiredResult` is answered through the host's input
    /// handler and retried with a new id.
    async fn request_with_input(
        &self,
        method: &str,
        params: Map<String, Value>,
        options: &CallOptions,
        headers: Vec<(String, String)>,
    ) -> Result<Value, ClientError> {
        let stamp = self.stamp()?;
        let mut driver = MrtrDriver::new(method, params)?.with_max_rounds(self.options.max_rounds);
        let mut id = self.next_id();
        let mut params = driver.first(&id)?;
        loop {
            let request = Outgoing {
                method,
                params,
                stamp: &stamp,
                options,
                headers: headers.clone(),
                phase: Phase::Session,
            };
            let value = self
                .exchange(id, request)
                .await
                .map_err(|e| rpc_from_status(&self.id, e))?;
            match ResultType::of(&value) {
                Some(ResultType::InputRequired) => {}
                Some(ResultType::Complete) => return Ok(value),
                // The caller decides what a task means: only `tools/call`
                // may become one, and only where the extension is built.
                Some(ResultType::Task)
                    if cfg!(feature = "tasks") && method == v::CallToolRequest::METHOD =>
                {
                    return Ok(value)
                }
                Some(other) => {
                    return Err(ClientError::Protocol(format!(
                        "unrecognised resultType `{other}`"
                    )))
                }
                None => return Err(ClientError::protocol("resultType must be a string")),
            }
            let asked: InputRequiredResult = decode(value)?;
            let round = driver.on_input_required(asked)?;
            let answers = self.answer_all(round.requests).await?;
            id = self.next_id();
            params = driver.retry(answers, &id)?;
        }
    }

    /// The `_meta` of a request as the client stamps it, to build params
    /// with. The client stamps every request again when it sends it.
    ///
    /// # Errors
    ///
    /// [`ClientError::Closed`] before the era is settled.
    pub fn meta(&self) -> Result<v::RequestMetaObject, ClientError> {
        let stamp = match self.stamp()? {
            Stamp::Legacy(version) => Stamp::Modern(version),
            other => other,
        };
        let params = self.stamp_params(&stamp, Map::new(), None);
        decode(params.get("_meta").cloned().unwrap_or(Value::Null))
    }

    /// Builds the params of `R` from JSON, adding the `_meta` the type
    /// requires.
    ///
    /// # Errors
    ///
    /// When the JSON does not fit `R::Params`.
    pub fn params<R: Request>(&self, value: Value) -> Result<R::Params, ClientError> {
        let mut params = object(value)?;
        params.insert("_meta".into(), json!(self.meta()?));
        decode(Value::Object(params))
    }

    /// Sends `R` and returns its result, once. For `prompts/get` and
    /// `resources/read` the result may ask for input; see
    /// [`Client::call_with_input`].
    ///
    /// # Errors
    ///
    /// Transport failures, timeouts, JSON-RPC errors from the server, and
    /// results that do not fit `R::Result`.
    pub async fn call<R: FreeRequest>(
        &self,
        params: R::Params,
    ) -> Result<Untrusted<R::Result>, ClientError> {
        self.call_with::<R>(params, &CallOptions::default()).await
    }

    /// [`Client::call`] with per-request options.
    ///
    /// # Errors
    ///
    /// As [`Client::call`].
    pub async fn call_with<R: FreeRequest>(
        &self,
        params: R::Params,
        options: &CallOptions,
    ) -> Result<Untrusted<R::Result>, ClientError> {
        if R::METHOD == v::DiscoverRequest::METHOD && self.stamp_is_legacy() {
            return Err(ClientError::WrongEra(v::DiscoverRequest::METHOD));
        }
        let params = object(serde_json::to_value(params).map_err(ClientError::protocol)?)?;
        let value = self.request(R::METHOD, params, options).await?;
        Ok(Untrusted::new(self.id.clone(), decode(value)?))
    }

    /// Sends `R`, answers every round of input it asks for, and returns the
    /// complete result.
    ///
    /// # Errors
    ///
    /// As [`Client::call`], plus the driver's: too many rounds, or input the
    /// host's handler could not give.
    pub async fn call_with_input<R: FreeRequest + InputRequiredCapable>(
        &self,
        params: R::Params,
        options: &CallOptions,
    ) -> Result<Untrusted<R::Complete>, ClientError> {
        let params = object(serde_json::to_value(params).map_err(ClientError::protocol)?)?;
        let value = self
            .request_with_input(R::METHOD, params, options, Vec::new())
            .await?;
        Ok(Untrusted::new(self.id.clone(), decode(value)?))
    }

    fn stamp_is_legacy(&self) -> bool {
        matches!(self.stamp(), Ok(Stamp::Legacy(_)))
    }

    fn is_http_modern(&self) -> bool {
        matches!(&*self.transport, Transport::Http(_))
            && matches!(self.stamp(), Ok(Stamp::Modern(_)))
    }

    /// Every page of a list method, as raw results.
    async fn pages(&self, method: &str) -> Result<Vec<Value>, ClientError> {
        let mut pages = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let mut params = Map::new();
            if let Some(cursor) = &cursor {
                params.insert("cursor".into(), json!(cursor));
            }
            let page = self
                .request(method, params, &CallOptions::default())
                .await?;
            cursor = page
                .get("nextCursor")
                .and_then(Value::as_str)
                .map(str::to_owned);
            pages.push(page);
            if cursor.is_none() {
                return Ok(pages);
            }
        }
        Err(ClientError::Protocol(format!(
            "`{method}` did not end within {MAX_PAGES} pages"
        )))
    }

    /// Lists the server's tools, every page. Over HTTP, tools whose
    /// `x-mcp-header` annotations break the rules are dropped and reported
    /// in [`ToolList::excluded`].
    ///
    /// # Errors
    ///
    /// As [`Client::call`].
    pub async fn list_tools(&self) -> Result<ToolList, ClientError> {
        let mut list = ToolList::default();
        let mut known = BTreeMap::new();
        let http = matches!(&*self.transport, Transport::Http(_));
        for page in self.pages(v::ListToolsRequest::METHOD).await? {
            let page: v::ListToolsResult = decode(page)?;
            for tool in page.tools {
                let schema = serde_json::to_value(&tool.input_schema)
                    .ok()
                    .and_then(|s| object(s).ok())
                    .unwrap_or_default();
                let headers = match headers::header_params(&schema) {
                    Ok(headers) => headers,
                    Err(error) if http => {
                        list.excluded.push(ExcludedTool {
                            name: Untrusted::new(self.id.clone(), tool.name),
                            error,
                        });
                        continue;
                    }
                    // Over stdio there are no headers to send.
                    Err(_) => Vec::new(),
                };
                let quarantine = self.judge_tool(&tool);
                known.insert(
                    tool.name.clone(),
                    KnownTool::new(tool.clone(), headers, quarantine),
                );
                list.tools.push(Untrusted::new(self.id.clone(), tool));
            }
        }
        if let Ok(mut tools) = self.tools.lock() {
            *tools = known;
        }
        Ok(list)
    }

    /// Lists the server's prompts, every page.
    ///
    /// # Errors
    ///
    /// As [`Client::call`].
    pub async fn list_prompts(&self) -> Result<Vec<Untrusted<v::Prompt>>, ClientError> {
        self.list(
            v::ListPromptsRequest::METHOD,
            |page: v::ListPromptsResult| page.prompts,
        )
        .await
    }

    /// Lists the server's resources, every page.
    ///
    /// # Errors
    ///
    /// As [`Client::call`].
    pub async fn list_resources(&self) -> Result<Vec<Untrusted<v::Resource>>, ClientError> {
        self.list(
            v::ListResourcesRequest::METHOD,
            |page: v::ListResourcesResult| page.resources,
        )
        .await
    }

    /// Lists the server's resource templates, every page.
    ///
    /// # Errors
    ///
    /// As [`Client::call`].
    pub async fn list_resource_templates(
        &self,
    ) -> Result<Vec<Untrusted<v::ResourceTemplate>>, ClientError> {
        self.list(
            v::ListResourceTemplatesRequest::METHOD,
            |page: v::ListResourceTemplatesResult| page.resource_templates,
        )
        .await
    }

    /// Every item of every page of the list method `method`, each taken
    /// from its page by `items`.
    async fn list<P: DeserializeOwned, T>(
        &self,
        method: &str,
        items: impl Fn(P) -> Vec<T>,
    ) -> Result<Vec<Untrusted<T>>, ClientError> {
        let mut list = Vec::new();
        for page in self.pages(method).await? {
            list.extend(
                items(decode(page)?)
                    .into_iter()
                    .map(|item| Untrusted::new(self.id.clone(), item)),
            );
        }
        Ok(list)
    }

    /// Why `tool`, as just listed, may not be called: it differs from its
    /// pin, or the pin file cannot be used.
    fn judge_tool(&self, tool: &Tool) -> Option<crate::trust::Quarantine> {
        let (guard, pin_new) = self.pins.as_ref()?;
        let value = serde_json::to_value(tool).unwrap_or_default();
        let definition = crate::trust::Definition::new(crate::trust::Kind::Tool, &tool.name, value);
        guard.judge(&self.id, &self.identity, &definition, *pin_new)
    }

    /// [`ClientError::Quarantined`] when the tool `known`, called as
    /// `qualified`, may not be called.
    fn refuse_quarantined(&self, known: &KnownTool, qualified: &str) -> Result<(), ClientError> {
        match &known.quarantine {
            None => Ok(()),
            Some(reason) => Err(ClientError::Quarantined {
                kind: super::NameKind::Tool,
                server: self.id.clone(),
                name: qualified.to_owned(),
                reason: Box::new(reason.clone()),
            }),
        }
    }

    fn known_tool(&self, name: &str) -> Option<KnownTool> {
        self.tools.lock().ok()?.get(name).cloned()
    }

    /// The tool `name` as last listed, or the error that names the
    /// closest ones there are.
    fn listed_tool(&self, name: &str) -> Result<KnownTool, ClientError> {
        let tools = self.tools.lock().map_err(|_| ClientError::Closed)?;
        if let Some(known) = tools.get(name) {
            return Ok(known.clone());
        }
        let closest = crate::names::closest(name, tools.keys().map(String::as_str))
            .into_iter()
            .map(|n| Untrusted::new(self.id.clone(), n.to_owned()))
            .collect();
        Err(ClientError::Unknown {
            kind: super::NameKind::Tool,
            server: self.id.clone(),
            name: name.to_owned(),
            closest,
        })
    }

    /// Prepares a call of `tool` with `arguments`, for the gate to decide
    /// on, checking the arguments against the tool's input schema. Lists
    /// the tools first if the tool is not known yet.
    ///
    /// # Errors
    ///
    /// [`ClientError::Unknown`] when the server has no such tool (or it
    /// was dropped), [`ClientError::InvalidArguments`] for arguments the
    /// schema refuses, [`ClientError::Schema`] for a schema the host will
    /// not use (see [`schema`](crate::schema)), and listing errors.
    pub async fn prepare_call(
        &self,
        tool: &str,
        arguments: Map<String, Value>,
    ) -> Result<ToolCall, ClientError> {
        self.prepare_named(tool, tool.to_owned(), arguments).await
    }

    pub(crate) async fn prepare_named(
        &self,
        tool: &str,
        qualified: String,
        arguments: Map<String, Value>,
    ) -> Result<ToolCall, ClientError> {
        if self.known_tool(tool).is_none() {
            self.list_tools().await?;
        }
        let known = self.listed_tool(tool)?;
        self.refuse_quarantined(&known, &qualified)?;
        let schema = known
            .schema(&self.id)
            .map_err(|error| ClientError::Schema {
                tool: qualified.clone(),
                error,
            })?;
        let call = ToolCall::new(
            self.id.clone(),
            tool.to_owned(),
            qualified,
            arguments,
            self.options.trust,
            known
                .tool
                .annotations
                .map(|a| Untrusted::new(self.id.clone(), a)),
        )
        .with_schema(schema);
        call.check()?;
        Ok(call)
    }

    /// Runs an approved tool call, answering every round of input the tool
    /// asks for, and returns its result. Over HTTP, a `-32020` header
    /// mismatch refreshes the tool list and retries once.
    ///
    /// # Errors
    ///
    /// [`ClientError::ApprovalMismatch`] when `approval` was issued for a
    /// different call or the call is for another server; otherwise as
    /// [`Client::call_with_input`].
    pub async fn call_tool(
        &self,
        call: ToolCall,
        approval: Approval,
        options: &CallOptions,
    ) -> Result<Untrusted<CallToolResult>, ClientError> {
        if call.server() != &self.id || !approval.covers(&call) {
            return Err(ClientError::ApprovalMismatch);
        }
        // Listed again since the call was prepared, the tool may have
        // changed: it is held to its pin once more before it is sent.
        if let Some(known) = self.known_tool(call.tool()) {
            self.refuse_quarantined(&known, call.qualified())?;
        }
        self.run_tool(&call, options).await
    }

    /// Runs a tool call whose approval the caller has checked; a call the
    /// server runs as a task is followed to its end.
    pub(crate) async fn run_tool(
        &self,
        call: &ToolCall,
        options: &CallOptions,
    ) -> Result<Untrusted<CallToolResult>, ClientError> {
        let value = self.send_tool(call, options).await?;
        #[cfg(feature = "tasks")]
        if ResultType::of(&value) == Some(ResultType::Task) {
            return self.follow_task(value, options).await;
        }
        Ok(Untrusted::new(self.id.clone(), decode(value)?))
    }

    /// Sends a tool call, answering its rounds of input, and returns the
    /// result as it came: complete, or (with the tasks extension) a task.
    pub(super) async fn send_tool(
        &self,
        call: &ToolCall,
        options: &CallOptions,
    ) -> Result<Value, ClientError> {
        let mut params = Map::new();
        params.insert("name".into(), json!(call.tool()));
        params.insert("arguments".into(), Value::Object(call.arguments().clone()));
        let mut refreshed = false;
        loop {
            let headers = self.param_headers(call).await?;
            match self
                .request_with_input(v::CallToolRequest::METHOD, params.clone(), options, headers)
                .await
            {
                Err(ClientError::Rpc(e))
                    if e.accept_ref().error_code() == ErrorCode::HEADER_MISMATCH
                        && !refreshed
                        && self.is_http_modern() =>
                {
                    refreshed = true;
                    self.list_tools().await?;
                }
                outcome => return outcome,
            }
        }
    }

    async fn param_headers(&self, call: &ToolCall) -> Result<Vec<(String, String)>, ClientError> {
        if !self.is_http_modern() {
            return Ok(Vec::new());
        }
        if self.known_tool(call.tool()).is_none() {
            self.list_tools().await?;
        }
        let known = self.listed_tool(call.tool())?;
        Ok(headers::param_headers(
            &known.headers,
            Some(call.arguments()),
        )?)
    }

    /// Gets a prompt, answering any input it asks for.
    ///
    /// # Errors
    ///
    /// As [`Client::call_with_input`].
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: BTreeMap<String, String>,
    ) -> Result<Untrusted<v::GetPromptResult>, ClientError> {
        let params =
            self.params::<v::GetPromptRequest>(json!({ "name": name, "arguments": arguments }))?;
        self.call_with_input::<v::GetPromptRequest>(params, &CallOptions::default())
            .await
    }

    /// Reads a resource, answering any input it asks for.
    ///
    /// # Errors
    ///
    /// As [`Client::call_with_input`].
    pub async fn read_resource(
        &self,
        uri: &str,
    ) -> Result<Untrusted<v::ReadResourceResult>, ClientError> {
        let params = self.params::<v::ReadResourceRequest>(json!({ "uri": uri }))?;
        self.call_with_input::<v::ReadResourceRequest>(params, &CallOptions::default())
            .await
    }
}
