//! The modern (2026-07-28) request pipeline: classify the message, validate
//! `_meta` and headers, dispatch by method, shape the result.

use std::collections::BTreeMap;

use mcp_types::jsonrpc::{ErrorObject, Message};
use mcp_types::meta::SERVER_INFO;
use mcp_types::v2026_07_28 as v;
use serde::de::DeserializeOwned;
use serde_json::{json, Map, Value};
use tokio::sync::{mpsc, OwnedSemaphorePermit};

use super::validate::{self, RequestMeta};
use super::{listen, pages, parse, Server, MODERN_VERSIONS};
use crate::completion::{self, CompletionRequest};
use crate::context::Context;
use crate::notify::Notifier;
use crate::prompt::PromptOutput;
use crate::resource::ResourceOutput;
use crate::tool::ToolOutput;

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
    _permit: Option<OwnedSemaphorePermit>,
}

impl AbortOnDrop {
    pub(crate) fn new(handle: tokio::task::AbortHandle) -> Self {
        AbortOnDrop {
            handle,
            _permit: None,
        }
    }

    /// Keeps `permit` until the stream is dropped.
    pub(crate) fn holding(mut self, permit: OwnedSemaphorePermit) -> Self {
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
pub struct Reply(Vec<u8>);

impl Reply {
    /// Encodes `message`.
    pub fn from_value(message: &Value) -> Reply {
        // Encoding a `Value` cannot fail: its keys are strings.
        Reply(serde_json::to_vec(message).unwrap_or_default())
    }

    /// Encodes a success response carrying `result`.
    fn result<R: serde::Serialize>(id: &v::RequestId, result: &R) -> Result<Reply, ErrorObject> {
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
        serde_json::to_vec(&response)
            .map(Reply)
            .map_err(|e| ErrorObject::internal_error(format!("cannot encode the result: {e}")))
    }

    /// The encoded bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// The encoded bytes, taken.
    pub fn into_bytes(self) -> Vec<u8> {
        self.0
    }

    /// The response decoded into a `Value`.
    pub fn to_value(&self) -> Value {
        // The bytes were encoded from a value: they decode.
        serde_json::from_slice(&self.0).unwrap_or(Value::Null)
    }
}

impl std::fmt::Debug for Reply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

impl std::fmt::Display for Reply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&String::from_utf8_lossy(&self.0))
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
}

/// The HTTP status an error code calls for.
pub(crate) fn status_for(code: i64) -> u16 {
    match code {
        -32022..=-32020 => 400,
        -32601 => 404,
        _ => 200,
    }
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
        }
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

fn to_value(result: impl serde::Serialize) -> Result<Value, ErrorObject> {
    serde_json::to_value(result)
        .map_err(|e| ErrorObject::internal_error(format!("cannot encode the result: {e}")))
}

impl Server {
    /// Handles one message given as bytes (an HTTP body or a stdio line),
    /// refusing it first if it breaks the size or nesting limits or repeats
    /// an object key.
    pub async fn handle_bytes(&self, bytes: &[u8], headers: Option<&RequestHeaders>) -> Outcome {
        match parse::message(bytes, &self.inner.limits) {
            Ok(value) => self.handle(value, headers).await,
            Err(refusal) => error_reply(None, refusal.status, refusal.error),
        }
    }

    /// Handles one decoded message.
    pub async fn handle(&self, value: Value, headers: Option<&RequestHeaders>) -> Outcome {
        match Message::from_value(value) {
            Ok(Message::Request { id, method, params }) => {
                self.request(id, method, params, headers).await
            }
            Ok(_) => Outcome::Accepted,
            Err(e) => Outcome::Reply {
                status: 400,
                message: Reply::from_value(&e.to_response().to_value()),
            },
        }
    }

    async fn request(
        &self,
        id: v::RequestId,
        method: String,
        params: Option<Map<String, Value>>,
        headers: Option<&RequestHeaders>,
    ) -> Outcome {
        let meta = match validate::request_meta(params.as_ref()) {
            Ok(meta) => meta,
            Err(e) => return error_reply(Some(&id), 400, e),
        };
        if let Some(headers) = headers {
            if let Err(e) = validate::headers(headers, &method, params.as_ref(), &meta.version) {
                return error_reply(Some(&id), 400, e);
            }
        }
        if !MODERN_VERSIONS.contains(&meta.version.as_str()) {
            let error = ErrorObject::unsupported_protocol_version(
                MODERN_VERSIONS.iter().copied(),
                meta.version.clone(),
            );
            return error_reply(Some(&id), 400, error);
        }
        let params = params.unwrap_or_default();
        let handlers = &self.inner.handlers;
        let listed = if method == "server/discover" {
            Some(Ok(self.discover()))
        } else {
            self.listing(&method, &params)
        };
        if let Some(result) = listed {
            return match result {
                Ok(result) => Outcome::Reply {
                    status: 200,
                    message: Reply::from_value(&self.response(&id, result, true)),
                },
                Err(e) => error_reply(Some(&id), status_for(e.code), e),
            };
        }
        match method.as_str() {
            "subscriptions/listen"
                if handlers.has_tools() || handlers.has_prompts() || handlers.has_resources() =>
            {
                let listen = match decode::<v::SubscriptionsListenRequestParams>(params) {
                    Ok(listen) => listen,
                    Err(e) => return error_reply(Some(&id), 200, e),
                };
                match self.stream_permit() {
                    Ok(permit) => listen::open(&self.inner, id, listen.notifications, permit),
                    Err(e) => error_reply(Some(&id), 503, e),
                }
            }
            "tools/call" if handlers.has_tools() => {
                self.run(id, method, params, meta, headers).await
            }
            "prompts/get" if handlers.has_prompts() => {
                self.run(id, method, params, meta, headers).await
            }
            "resources/read" if handlers.has_resources() => {
                self.run(id, method, params, meta, headers).await
            }
            "completion/complete" if self.inner.completer.is_some() => {
                self.run(id, method, params, meta, headers).await
            }
            _ => error_reply(Some(&id), 404, ErrorObject::method_not_found(&method)),
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
    async fn run(
        &self,
        id: v::RequestId,
        method: String,
        params: Map<String, Value>,
        meta: RequestMeta,
        headers: Option<&RequestHeaders>,
    ) -> Outcome {
        if let (Some(headers), "tools/call") = (headers, method.as_str()) {
            if let Err(e) = self.check_param_headers(headers, &params) {
                return error_reply(Some(&id), 400, e);
            }
        }
        let streaming = meta.progress_token.is_some() || meta.log_level.is_some();
        let mut cx = Context::new(method.clone(), meta.capabilities)
            .with_keys(self.inner.keys.clone())
            .with_bus(self.inner.bus.clone());
        if !streaming {
            let cacheable = method == "resources/read";
            let reply = match self.call(&method, params, &cx).await {
                Ok(answer) => self.encode(&id, answer, cacheable),
                Err(e) => Err(e),
            };
            return match reply {
                Ok(message) => Outcome::Reply {
                    status: 200,
                    message,
                },
                Err(e) => error_reply(Some(&id), status_for(e.code), e),
            };
        }
        let permit = match self.stream_permit() {
            Ok(permit) => permit,
            Err(e) => return error_reply(Some(&id), 503, e),
        };
        let (notifier, messages) = Notifier::channel(self.inner.limits.notification_buffer);
        let final_tx = notifier.sender();
        cx = cx.with_notifier(notifier, meta.progress_token, meta.log_level);
        let server = self.clone();
        let task = tokio::spawn(async move {
            let result = server.call(&method, params, &cx).await;
            let message = match result.and_then(Answer::into_value) {
                Ok(result) => server.response(&id, result, method == "resources/read"),
                Err(e) => error_message(Some(&id), &e),
            };
            drop(cx);
            let _ = final_tx.send(message).await;
        });
        Outcome::Stream {
            messages,
            guard: AbortOnDrop::new(task.abort_handle()).holding(permit),
        }
    }

    /// A place for one more stream, or the error that refuses it.
    pub(crate) fn stream_permit(&self) -> Result<OwnedSemaphorePermit, ErrorObject> {
        self.inner.streams.clone().try_acquire_owned().map_err(|_| {
            busy(
                "too many streams are open",
                "max_streams",
                self.inner.limits.max_streams,
            )
        })
    }

    fn check_param_headers(
        &self,
        headers: &RequestHeaders,
        params: &Map<String, Value>,
    ) -> Result<(), ErrorObject> {
        let Some(name) = params.get("name").and_then(Value::as_str) else {
            return Ok(());
        };
        let Some(tool) = self.inner.handlers.tools().iter().find(|t| t.name == name) else {
            return Ok(());
        };
        // `properties` is not a named field of the schema type: it is kept
        // among the other members, which is where the check looks.
        validate::param_headers(
            headers,
            &tool.input_schema.extra,
            params.get("arguments").and_then(Value::as_object),
        )
    }

    /// Calls the handler for `method`; the result is the JSON of the
    /// method's result, `InputRequiredResult` included. A handler that runs
    /// past [`Limits::request_timeout`](super::Limits::request_timeout) is
    /// dropped, which cancels it, and the request fails with -32603.
    pub(crate) async fn call(
        &self,
        method: &str,
        params: Map<String, Value>,
        cx: &Context,
    ) -> Result<Answer, ErrorObject> {
        let timeout = self.inner.limits.request_timeout;
        match super::within(timeout, self.call_handler(method, params, cx)).await {
            Some(result) => result,
            None => Err(ErrorObject::internal_error(format!(
                "`{method}` did not finish within {} ms and was cancelled",
                timeout.as_millis()
            ))
            .with_data(json!({ "limit": "request_timeout", "max": timeout.as_millis() }))),
        }
    }

    async fn call_handler(
        &self,
        method: &str,
        params: Map<String, Value>,
        cx: &Context,
    ) -> Result<Answer, ErrorObject> {
        let handlers = &self.inner.handlers;
        match method {
            "tools/call" => {
                // The arguments are taken out before the rest is decoded
                // (by reference, to keep the path of a bad member): they
                // are most of the params, and are passed on as they are.
                let mut params = params;
                let arguments = take_arguments(&mut params)?;
                let params: CallParams = decode(params)?;
                let cx = cx
                    .clone()
                    .with_retry(params.input_responses, params.request_state);
                let mut arguments = Value::Object(arguments);
                // `is_valid` stops at the first problem and builds no error:
                // the problems are gathered only for arguments that fail.
                let validator = self.inner.validators.get(&params.name);
                if let Some(validator) = validator.filter(|v| !v.is_valid(&arguments)) {
                    let problems: Vec<String> = validator
                        .iter_errors(&arguments)
                        .take(8)
                        .map(|e| match e.instance_path().to_string() {
                            path if path.is_empty() => e.to_string(),
                            path => format!("argument `{}`: {e}", path.trim_start_matches('/')),
                        })
                        .collect();
                    if !problems.is_empty() {
                        let message = format!(
                            "invalid arguments for `{}`: {}",
                            params.name,
                            problems.join("; ")
                        );
                        return to_value(ToolOutput::error(message).complete()).map(Answer::Json);
                    }
                }
                let arguments = match arguments.take() {
                    Value::Object(arguments) => arguments,
                    _ => Map::new(),
                };
                let Some(call) = handlers.call_tool(&params.name, &cx, arguments) else {
                    return Err(ErrorObject::invalid_params(format!(
                        "unknown tool `{}`",
                        params.name
                    )));
                };
                Ok(Answer::Tool(call.await?))
            }
            "prompts/get" => {
                let params: v::GetPromptRequestParams = decode(params)?;
                let cx = cx
                    .clone()
                    .with_retry(params.input_responses, params.request_state);
                let arguments: BTreeMap<String, String> =
                    params.arguments.unwrap_or_default().into_iter().collect();
                let Some(get) = handlers.get_prompt(&params.name, &cx, arguments) else {
                    return Err(ErrorObject::invalid_params(format!(
                        "unknown prompt `{}`",
                        params.name
                    )));
                };
                Ok(Answer::Prompt(get.await?))
            }
            "resources/read" => {
                let params: v::ReadResourceRequestParams = decode(params)?;
                let cx = cx
                    .clone()
                    .with_retry(params.input_responses, params.request_state);
                let Some(read) = handlers.read_resource(&params.uri, &cx) else {
                    return Err(ErrorObject::resource_not_found(&params.uri));
                };
                Ok(Answer::Resource(read.await?))
            }
            "completion/complete" => {
                let params: v::CompleteRequestParams = decode(params)?;
                let Some(completer) = &self.inner.completer else {
                    return Err(ErrorObject::method_not_found("completion/complete"));
                };
                Ok(Answer::Json(completion::result(
                    completer.complete(&CompletionRequest::from_params(params)),
                )))
            }
            other => Err(ErrorObject::method_not_found(other)),
        }
    }

    fn discover(&self) -> Value {
        let handlers = &self.inner.handlers;
        let mut capabilities = json!({ "completions": {}, "logging": {} });
        if handlers.has_tools() {
            capabilities["tools"] = json!({ "listChanged": true });
        }
        if handlers.has_prompts() {
            capabilities["prompts"] = json!({ "listChanged": true });
        }
        if handlers.has_resources() {
            capabilities["resources"] = json!({ "listChanged": true });
        }
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
        result
            .meta()
            .get_or_insert_with(|| v::ResultMetaObject {
                server_info: None,
                extra: Map::new(),
            })
            .server_info
            .get_or_insert_with(|| self.inner.info.clone());
        Reply::result(id, &result)
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
