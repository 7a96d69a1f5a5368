//! The conformance fixture: every tool, prompt and resource the official
//! MCP conformance suite calls, with the behaviour it checks.
//!
//! ```text
//! cargo run -p mcp-toolkit-server --features sealed-state,validation --example everything -- --http 127.0.0.1:3000   # endpoint /mcp
//! cargo run -p mcp-toolkit-server --features sealed-state,validation --example everything -- --stdio
//! ```
//!
//! Sealed `requestState` is opened with the keys in `MCP_STATE_KEYS` when it
//! is set (see [`state_keys`]), so that replicas behind a load balancer can
//! each finish a flow another one started. Without it every process makes
//! up a key of its own.
//!
//! Built with the `redis` feature, `--redis redis://HOST:PORT/` after the
//! transport keeps the tasks in that Redis, so that any replica serves any
//! task (`MCP_TASK_LEASE_MS` sets the lease after which a dead replica's
//! tasks fail).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use mcp_server::completion::{CompletionRequest, Reference};
use mcp_server::elicit::Elicit;
use mcp_server::handle::{Handle, SharedHandleStore};
use mcp_server::notify::Change;
use mcp_server::prompt::PromptOutput;
use mcp_server::shared::{MemoryShared, SharedStore};
use mcp_server::state::{Binding, KeyRing, StateError, KEY_LEN};
use mcp_server::tasks::TaskSettings;
use mcp_server::tool::{ToolError, ToolOutput, ToolSet};
use mcp_server::transport::{http, stdio};
use mcp_server::types::v2026_07_28::{
    BlobResourceContents, ClientCapabilities, ContentBlock, InputRequiredResult, LoggingLevel,
    PromptMessage, TextResourceContents,
};
use mcp_server::{
    prompt, prompts, resource, resources, tool, tools, Context, ElicitForm, ErrorObject,
    RequestState, Server,
};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

/// The fixture server's state: none is needed, every request stands alone.
struct Everything;

/// The tools the handshake-era suite calls. They answer `input_required`
/// like any tool; for a legacy client the server turns that into real
/// requests to the client.
struct Legacy;

/// The state carried between the rounds of the multi-round tools, sealed so
/// the client can neither read nor change it.
#[derive(Serialize, Deserialize, RequestState)]
#[state(ttl_secs = 300)]
struct Round {
    /// The tool the state was made for; a state from another tool is refused.
    #[state(bind)]
    tool: String,
    step: u32,
}

/// The name form of the basic elicitation tool.
#[derive(ElicitForm)]
struct UserName {
    name: String,
}

fn block(value: Value) -> Result<ContentBlock, ToolError> {
    serde_json::from_value(value)
        .map_err(|e| ToolError::Protocol(ErrorObject::internal_error(e.to_string())))
}

fn elicitation(message: &str, property: &str, kind: &str) -> Value {
    json!({
        "method": "elicitation/create",
        "params": {
            "message": message,
            "requestedSchema": {"type": "object", "properties": {property: {"type": kind}}, "required": [property]},
        },
    })
}

fn sampling(text: &str, max_tokens: u32) -> Value {
    json!({
        "method": "sampling/createMessage",
        "params": {"messages": [{"role": "user", "content": {"type": "text", "text": text}}], "maxTokens": max_tokens},
    })
}

fn roots() -> Value {
    json!({"method": "roots/list", "params": {}})
}

/// An `input_required` answer asking for `requests`, with sealed state for
/// `step` of `tool` when given.
fn ask(cx: &Context, requests: Value, state: Option<(&str, u32)>) -> Result<ToolOutput, ToolError> {
    let mut result: InputRequiredResult =
        serde_json::from_value(json!({ "inputRequests": requests }))
            .map_err(|e| ToolError::Protocol(ErrorObject::internal_error(e.to_string())))?;
    if let Some((tool, step)) = state {
        result.request_state = Some(seal(cx, tool, step)?);
    }
    Ok(ToolOutput::input_required(result))
}

fn seal(cx: &Context, tool: &str, step: u32) -> Result<String, ToolError> {
    let keys = cx
        .keys()
        .ok_or_else(|| ToolError::Protocol(ErrorObject::internal_error("no state keys")))?;
    let binding = Binding::from_context(cx).bind("tool", tool);
    Round {
        tool: tool.to_owned(),
        step,
    }
    .seal(keys, &binding)
    .map_err(|e| ToolError::Protocol(ErrorObject::internal_error(e.to_string())))
}

/// Opens the state a retry brings back; `None` on the first round. A state
/// that fails its checks is a protocol error: the retry is not honoured.
fn opened(cx: &Context, tool: &str) -> Result<Option<Round>, ToolError> {
    let Some(token) = cx.request_state() else {
        return Ok(None);
    };
    let keys = cx
        .keys()
        .ok_or_else(|| ToolError::Protocol(ErrorObject::internal_error("no state keys")))?;
    let binding = Binding::from_context(cx).bind("tool", tool);
    Round::open(token, keys, &binding, SystemTime::now())
        .map(Some)
        .map_err(|e: StateError| {
            ToolError::Protocol(ErrorObject::invalid_params(format!(
                "requestState refused: {e}"
            )))
        })
}

/// The answer under `key`, as JSON, if the retry carries one.
fn answer(cx: &Context, key: &str) -> Option<Value> {
    cx.input_responses()?
        .get(key)
        .and_then(|a| serde_json::to_value(a).ok())
}

fn has(cx: &Context, capability: &str) -> bool {
    serde_json::to_value(cx.client_capabilities())
        .ok()
        .and_then(|c| c.get(capability).cloned())
        .is_some()
}

fn require(cx: &Context, capability: &str) -> Result<(), ToolError> {
    if has(cx, capability) {
        return Ok(());
    }
    let required: ClientCapabilities = serde_json::from_value(json!({ capability: {} }))
        .map_err(|e| ToolError::Protocol(ErrorObject::internal_error(e.to_string())))?;
    Err(ToolError::Protocol(
        ErrorObject::missing_required_client_capability(required),
    ))
}

#[tools]
impl Everything {
    /// Returns a simple text response.
    #[tool]
    fn test_simple_text(&self) -> &'static str {
        "This is a simple text response for testing."
    }

    /// Returns an image.
    #[tool]
    fn test_image_content(&self) -> Result<ContentBlock, ToolError> {
        block(json!({"type": "image", "data": PNG, "mimeType": "image/png"}))
    }

    /// Returns audio.
    #[tool]
    fn test_audio_content(&self) -> Result<ContentBlock, ToolError> {
        block(json!({"type": "audio", "data": WAV, "mimeType": "audio/wav"}))
    }

    /// Returns an embedded resource.
    #[tool]
    fn test_embedded_resource(&self) -> Result<ContentBlock, ToolError> {
        block(json!({"type": "resource", "resource": {
            "uri": "test://embedded-resource", "mimeType": "text/plain", "text": "This is an embedded resource content."}}))
    }

    /// Returns text, an image and a resource together.
    #[tool]
    fn test_multiple_content_types(&self) -> Result<Vec<ContentBlock>, ToolError> {
        Ok(vec![
            block(json!({"type": "text", "text": "Multiple content types test:"}))?,
            block(json!({"type": "image", "data": PNG, "mimeType": "image/png"}))?,
            block(
                json!({"type": "resource", "resource": {"uri": "test://mixed-content-resource",
                "mimeType": "application/json", "text": "{\"test\":\"data\",\"value\":123}"}}),
            )?,
        ])
    }

    /// Always fails, as an execution error the model can see.
    #[tool]
    fn test_error_handling(&self) -> Result<String, ToolError> {
        Err(ToolError::execution(
            "This tool intentionally returns an error for testing",
        ))
    }

    /// Reports progress three times before answering.
    #[tool]
    async fn test_tool_with_progress(&self, cx: &Context) -> String {
        for (i, progress) in [0.0, 50.0, 100.0].into_iter().enumerate() {
            if i > 0 {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            cx.progress(progress, Some(100.0), None).await;
        }
        String::from("Progress complete")
    }

    /// Needs the sampling capability, which the caller may not have declared.
    #[tool]
    fn test_missing_capability(&self, cx: &Context) -> Result<String, ToolError> {
        require(cx, "sampling")?;
        Ok(String::from("sampling is available"))
    }

    /// Asks for input through the result, never through a request of its own.
    #[tool]
    fn test_streaming_elicitation(&self, cx: &Context) -> Result<ToolOutput, ToolError> {
        require(cx, "elicitation")?;
        if answer(cx, "confirm").is_some() {
            return Ok(ToolOutput::text("confirmed"));
        }
        ask(
            cx,
            json!({"confirm": elicitation("Please confirm", "ok", "boolean")}),
            None,
        )
    }

    /// Logs three messages, but only when the request asked for a log level.
    #[tool]
    async fn test_logging_tool(&self, cx: &Context) -> String {
        for message in [
            "Tool execution started",
            "Tool processing data",
            "Tool execution completed",
        ] {
            cx.log(LoggingLevel::Info, Some("everything"), json!(message))
                .await;
        }
        String::from("Tool with logging executed successfully")
    }

    /// Announces that the tool list changed.
    #[tool]
    fn test_trigger_tool_change(&self, cx: &Context) -> &'static str {
        cx.publish(Change::Tools);
        "tools/list_changed sent"
    }

    /// Announces that the prompt list changed.
    #[tool]
    fn test_trigger_prompt_change(&self, cx: &Context) -> &'static str {
        cx.publish(Change::Prompts);
        "prompts/list_changed sent"
    }

    /// Echoes a value that HTTP clients also send as a header.
    #[tool]
    fn test_custom_header_tool(
        &self,
        /// Where the caller is.
        #[header("Region")]
        region: String,
    ) -> String {
        format!("region: {region}")
    }

    /// Asks the user's name, then greets them.
    #[tool]
    fn test_input_required_result_elicitation(
        &self,
        #[elicit(message = "What is your name?")] user_name: Elicit<UserName>,
    ) -> String {
        match user_name.accepted() {
            Some(user) => format!("Hello, {}!", user.name),
            None => String::from("No name given."),
        }
    }

    /// Asks the client's model a question.
    #[tool]
    fn test_input_required_result_sampling(&self, cx: &Context) -> Result<ToolOutput, ToolError> {
        require(cx, "sampling")?;
        match answer(cx, "capital_question") {
            Some(reply) => Ok(ToolOutput::text(format!(
                "The model said: {}",
                reply["content"]["text"]
            ))),
            None => ask(
                cx,
                json!({"capital_question": sampling("What is the capital of France?", 100)}),
                None,
            ),
        }
    }

    /// Asks the client for its roots.
    #[tool]
    fn test_input_required_result_list_roots(&self, cx: &Context) -> Result<ToolOutput, ToolError> {
        require(cx, "roots")?;
        match answer(cx, "client_roots") {
            Some(reply) => Ok(ToolOutput::text(format!("Roots: {}", reply["roots"]))),
            None => ask(cx, json!({"client_roots": roots()}), None),
        }
    }

    /// Asks for confirmation and carries sealed state to the retry.
    #[tool]
    fn test_input_required_result_request_state(
        &self,
        cx: &Context,
    ) -> Result<ToolOutput, ToolError> {
        confirm_with_state(cx, "test_input_required_result_request_state")
    }

    /// Like the request-state tool; the suite tampers with the state.
    #[tool]
    fn test_input_required_result_tampered_state(
        &self,
        cx: &Context,
    ) -> Result<ToolOutput, ToolError> {
        confirm_with_state(cx, "test_input_required_result_tampered_state")
    }

    /// Asks for three kinds of input at once.
    #[tool]
    fn test_input_required_result_multiple_inputs(
        &self,
        cx: &Context,
    ) -> Result<ToolOutput, ToolError> {
        const TOOL: &str = "test_input_required_result_multiple_inputs";
        let state = opened(cx, TOOL)?;
        let answers = ["user_name", "greeting", "client_roots"].map(|k| answer(cx, k));
        if state.is_some() && answers.iter().all(Option::is_some) {
            return Ok(ToolOutput::text(
                "Received the name, the greeting and the roots.",
            ));
        }
        ask(
            cx,
            json!({
                "user_name": elicitation("What is your name?", "name", "string"),
                "greeting": sampling("Generate a greeting", 50),
                "client_roots": roots(),
            }),
            Some((TOOL, 1)),
        )
    }

    /// Asks two questions in two rounds.
    #[tool]
    fn test_input_required_result_multi_round(
        &self,
        cx: &Context,
    ) -> Result<ToolOutput, ToolError> {
        const TOOL: &str = "test_input_required_result_multi_round";
        match (
            opened(cx, TOOL)?.map(|r| r.step),
            answer(cx, "step1"),
            answer(cx, "step2"),
        ) {
            (Some(2), _, Some(color)) => Ok(ToolOutput::text(format!(
                "Favorite color: {}",
                color["content"]["color"]
            ))),
            (Some(1), Some(_), _) => ask(
                cx,
                json!({"step2": elicitation("Step 2: What is your favorite color?", "color", "string")}),
                Some((TOOL, 2)),
            ),
            _ => ask(
                cx,
                json!({"step1": elicitation("Step 1: What is your name?", "name", "string")}),
                Some((TOOL, 1)),
            ),
        }
    }

    /// Asks only for the kinds of input the caller declared.
    #[tool]
    fn test_input_required_result_capabilities(
        &self,
        cx: &Context,
    ) -> Result<ToolOutput, ToolError> {
        let mut requests = Map::new();
        if has(cx, "elicitation") {
            requests.insert(
                "confirm".into(),
                elicitation("Please confirm", "ok", "boolean"),
            );
        }
        if has(cx, "sampling") {
            requests.insert("summary".into(), sampling("Summarize the request", 50));
        }
        if has(cx, "roots") {
            requests.insert("client_roots".into(), roots());
        }
        if requests.is_empty() {
            require(cx, "elicitation")?;
        }
        if requests.keys().any(|k| answer(cx, k).is_some()) {
            return Ok(ToolOutput::text("input received"));
        }
        ask(cx, Value::Object(requests), None)
    }
}

/// The tools the tasks extension scenarios call (`io.modelcontextprotocol/tasks`).
/// A client that declared the extension gets a task from any of them that
/// has to wait; others get ordinary answers.
struct TaskTools;

/// How long a task tool "works" before it asks for input, so that the call
/// has become a task by then.
const LOOKUP: Duration = Duration::from_millis(50);

#[tools]
impl TaskTools {
    /// Greets `name`; never a task.
    #[tool]
    fn greet(&self, name: String) -> String {
        format!("Hello, {name}!")
    }

    /// Sleeps `seconds` seconds (at most ten minutes), then reports.
    #[tool(task = "optional")]
    async fn slow_compute(&self, seconds: u64, label: Option<String>) -> String {
        tokio::time::sleep(Duration::from_secs(seconds.min(600))).await;
        let label = label.unwrap_or_default();
        format!("computed `{label}` in {seconds} s")
    }

    /// Works for a second, then fails as a tool: a completed task whose
    /// result has `isError`.
    #[tool(task = "required")]
    async fn failing_job(&self) -> Result<String, ToolError> {
        tokio::time::sleep(Duration::from_secs(1)).await;
        Err(ToolError::execution("the job failed"))
    }

    /// Works briefly, then fails with a JSON-RPC error: a failed task.
    #[tool(task = "optional")]
    async fn protocol_error_job(&self) -> Result<String, ToolError> {
        tokio::time::sleep(LOOKUP).await;
        Err(ToolError::Protocol(ErrorObject::internal_error(
            "the job's backend is unreachable",
        )))
    }

    /// Looks up `filename`, then asks the user to confirm its deletion:
    /// inside a task the question becomes the task's `inputRequests`.
    #[tool(task = "optional", destructive)]
    async fn confirm_delete(
        &self,
        cx: &Context,
        filename: String,
    ) -> Result<ToolOutput, ToolError> {
        tokio::time::sleep(LOOKUP).await;
        let Some(reply) = answer(cx, "confirm") else {
            let question = elicitation(&format!("Delete {filename}?"), "confirm", "boolean");
            return ask(cx, json!({ "confirm": question }), None);
        };
        let confirmed = reply["action"] == "accept" && reply["content"]["confirm"] == true;
        Ok(ToolOutput::text(if confirmed {
            format!("deleted {filename}")
        } else {
            format!("kept {filename}")
        }))
    }

    /// Asks two questions at once; finishes when both are answered.
    #[tool(task = "optional")]
    async fn multi_input(&self, cx: &Context) -> Result<ToolOutput, ToolError> {
        tokio::time::sleep(LOOKUP).await;
        let (first, second) = (answer(cx, "first"), answer(cx, "second"));
        if let (Some(first), Some(second)) = (&first, &second) {
            return Ok(ToolOutput::text(format!(
                "first: {}, second: {}",
                first["action"], second["action"]
            )));
        }
        let mut requests = Map::new();
        if first.is_none() {
            requests.insert("first".into(), elicitation("Your name?", "name", "string"));
        }
        if second.is_none() {
            requests.insert(
                "second".into(),
                elicitation("Proceed?", "confirm", "boolean"),
            );
        }
        ask(cx, Value::Object(requests), None)
    }

    /// Asks for the user's name by multi-round-trip before any task
    /// exists (the question comes back at once), then works on the answer
    /// as a task.
    #[tool(task = "required")]
    async fn test_tool_with_task(&self, cx: &Context) -> Result<ToolOutput, ToolError> {
        let Some(reply) = answer(cx, "user_name") else {
            let question = elicitation("What is your name?", "name", "string");
            return ask(cx, json!({ "user_name": question }), None);
        };
        let name = reply["content"]["name"]
            .as_str()
            .unwrap_or("stranger")
            .to_owned();
        tokio::time::sleep(Duration::from_millis(300)).await;
        Ok(ToolOutput::text(format!(
            "Hello, {name}! Your task is done."
        )))
    }
}

/// What a memo handle names.
enum Memo {}
mcp_server::handle_kind!(Memo, prefix = "memo", ttl_secs = 3600);

/// Memos named by handles that every replica sharing the store resolves
/// (in memory, or in Redis with `--redis`).
struct Memos(SharedHandleStore<Memo, String>);

/// What `remember` returns.
#[derive(Serialize, schemars::JsonSchema)]
struct Remembered {
    /// Pass this to `recall`.
    handle: Handle<Memo>,
}

#[tools]
impl Memos {
    /// Keeps `text` for an hour under a new handle.
    #[tool]
    async fn remember(&self, cx: &Context, text: String) -> Result<Remembered, ToolError> {
        let handle = self
            .0
            .insert_for(cx, &text)
            .await
            .map_err(|e| ToolError::execution(e.to_string()))?;
        Ok(Remembered { handle })
    }

    /// The text a `remember` handle names.
    #[tool(read_only, open_world = false)]
    async fn recall(&self, cx: &Context, handle: Handle<Memo>) -> Result<String, ToolError> {
        self.0
            .get(&handle, cx.principal())
            .await
            .map_err(|e| ToolError::execution(e.to_string()))
    }
}

#[tools]
impl Legacy {
    /// Logs three messages at the level the session asked for.
    #[tool]
    async fn test_tool_with_logging(&self, cx: &Context) -> String {
        for (i, message) in [
            "Tool execution started",
            "Tool processing data",
            "Tool execution completed",
        ]
        .into_iter()
        .enumerate()
        {
            if i > 0 {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            cx.log(LoggingLevel::Info, Some("everything"), json!(message))
                .await;
        }
        String::from("Tool with logging executed successfully")
    }

    /// Asks the client's model to answer a prompt.
    #[tool]
    fn test_sampling(
        &self,
        cx: &Context,
        /// The prompt to send to the LLM
        prompt: String,
    ) -> Result<ToolOutput, ToolError> {
        require(cx, "sampling")?;
        match answer(cx, "sampling") {
            Some(reply) => Ok(ToolOutput::text(format!(
                "LLM response: {}",
                reply["content"]["text"].as_str().unwrap_or("")
            ))),
            None => ask(cx, json!({"sampling": sampling(&prompt, 100)}), None),
        }
    }

    /// Asks the user for their name and email.
    #[tool]
    fn test_elicitation(
        &self,
        cx: &Context,
        /// The message to show the user
        message: String,
    ) -> Result<ToolOutput, ToolError> {
        let schema = json!({"type": "object", "properties": {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"}}, "required": ["username", "email"]});
        elicit_once(cx, "info", &message, schema, "User response")
    }

    /// Asks for a form whose fields have defaults.
    #[tool]
    fn test_elicitation_sep1034_defaults(&self, cx: &Context) -> Result<ToolOutput, ToolError> {
        let schema = json!({"type": "object", "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "description": "User age", "default": 30},
            "score": {"type": "number", "description": "User score", "default": 95.5},
            "status": {"type": "string", "description": "User status", "enum": ["active", "inactive", "pending"], "default": "active"},
            "verified": {"type": "boolean", "description": "Verification status", "default": true}}, "required": []});
        elicit_once(
            cx,
            "defaults",
            "Please review your details",
            schema,
            "Elicitation completed",
        )
    }

    /// Asks for a form with every kind of choice field.
    #[tool]
    fn test_elicitation_sep1330_enums(&self, cx: &Context) -> Result<ToolOutput, ToolError> {
        let choices = |titles: [&str; 3]| -> Vec<Value> {
            titles
                .iter()
                .enumerate()
                .map(|(i, t)| json!({"const": format!("value{}", i + 1), "title": t}))
                .collect()
        };
        let schema = json!({"type": "object", "properties": {
            "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
            "titledSingle": {"type": "string", "oneOf": choices(["First Option", "Second Option", "Third Option"])},
            "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"], "enumNames": ["Option One", "Option Two", "Option Three"]},
            "untitledMulti": {"type": "array", "minItems": 1, "maxItems": 3, "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
            "titledMulti": {"type": "array", "minItems": 1, "maxItems": 3, "items": {"anyOf": choices(["First Choice", "Second Choice", "Third Choice"])}}
        }});
        elicit_once(
            cx,
            "choices",
            "Pick some options",
            schema,
            "Elicitation completed",
        )
    }
}

/// One elicitation round, then a summary of the answer.
fn elicit_once(
    cx: &Context,
    key: &str,
    message: &str,
    schema: Value,
    label: &str,
) -> Result<ToolOutput, ToolError> {
    require(cx, "elicitation")?;
    match answer(cx, key) {
        Some(reply) => Ok(ToolOutput::text(format!(
            "{label}: action={}, content={}",
            reply["action"], reply["content"]
        ))),
        None => ask(
            cx,
            json!({key: {"method": "elicitation/create", "params": {"message": message, "requestedSchema": schema}}}),
            None,
        ),
    }
}

/// One confirmation round with sealed state, then the answer.
fn confirm_with_state(cx: &Context, tool: &str) -> Result<ToolOutput, ToolError> {
    require(cx, "elicitation")?;
    match (opened(cx, tool)?, answer(cx, "confirm")) {
        (Some(_), Some(reply)) => Ok(ToolOutput::text(format!("state-ok: {}", reply["action"]))),
        _ => ask(
            cx,
            json!({"confirm": elicitation("Please confirm", "ok", "boolean")}),
            Some((tool, 1)),
        ),
    }
}

/// The one tool whose input schema is written by hand, to show that a
/// server may advertise any 2020-12 schema.
struct SchemaTool;

impl ToolSet for SchemaTool {
    fn tools() -> Vec<mcp_server::types::v2026_07_28::Tool> {
        let tool = json!({
            "name": "json_schema_2020_12_tool",
            "description": "Takes arguments described with JSON Schema 2020-12 keywords.",
            "inputSchema": {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "$defs": {"address": {"$anchor": "addressDef", "type": "object",
                    "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
                "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"},
                    "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                    "phone": {"type": "string"}, "email": {"type": "string"}},
                "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
                "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
                "then": {"required": ["phone"]},
                "else": {"required": ["email"]},
                "additionalProperties": false
            }
        });
        serde_json::from_value(tool).into_iter().collect()
    }

    fn call_tool<'a>(
        &'a self,
        name: &str,
        _cx: &'a Context,
        arguments: Map<String, Value>,
    ) -> Option<mcp_server::BoxFuture<'a, Result<ToolOutput, ErrorObject>>> {
        (name == "json_schema_2020_12_tool").then(|| {
            let reply = ToolOutput::text(format!("received {}", Value::Object(arguments)));
            Box::pin(async move { Ok(reply) }) as mcp_server::BoxFuture<'a, _>
        })
    }
}

#[prompts]
impl Everything {
    /// A prompt without arguments.
    #[prompt]
    fn test_simple_prompt(&self) -> &'static str {
        "This is a simple prompt for testing."
    }

    /// A prompt with two required arguments.
    #[prompt]
    fn test_prompt_with_arguments(
        &self,
        /// First test argument
        arg1: String,
        /// Second test argument
        arg2: String,
    ) -> String {
        format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
    }

    /// A prompt that embeds a resource.
    #[prompt]
    fn test_prompt_with_embedded_resource(
        &self,
        /// URI of the resource to embed
        #[arg(name = "resourceUri")]
        resource_uri: String,
    ) -> Result<Vec<PromptMessage>, ErrorObject> {
        messages(json!([
            {"role": "user", "content": {"type": "resource", "resource": {
                "uri": resource_uri, "mimeType": "text/plain", "text": "Embedded resource content for testing."}}},
            {"role": "user", "content": {"type": "text", "text": "Please process the embedded resource above."}}
        ]))
    }

    /// A prompt with an image.
    #[prompt]
    fn test_prompt_with_image(&self) -> Result<Vec<PromptMessage>, ErrorObject> {
        messages(json!([
            {"role": "user", "content": {"type": "image", "data": PNG, "mimeType": "image/png"}},
            {"role": "user", "content": {"type": "text", "text": "Please analyze the image above."}}
        ]))
    }

    /// A prompt that first asks the user for context.
    #[prompt]
    fn test_input_required_result_prompt(&self, cx: &Context) -> Result<PromptOutput, ErrorObject> {
        if let Some(reply) = answer(cx, "user_context") {
            let context = reply["content"]["context"]
                .as_str()
                .unwrap_or("none")
                .to_owned();
            let messages = messages(
                json!([{"role": "user", "content": {"type": "text", "text": format!("Context: {context}")}}]),
            )?;
            let result =
                serde_json::from_value(json!({"messages": messages, "resultType": "complete"}))
                    .map_err(|e| ErrorObject::internal_error(e.to_string()))?;
            return Ok(PromptOutput::Complete(result));
        }
        if !has(cx, "elicitation") {
            return Err(ErrorObject::missing_required_client_capability(
                serde_json::from_value(json!({"elicitation": {}})).unwrap_or_default(),
            ));
        }
        let request = elicitation("What context should the prompt use?", "context", "string");
        let result = serde_json::from_value(
            json!({"resultType": "input_required", "inputRequests": {"user_context": request}}),
        )
        .map_err(|e| ErrorObject::internal_error(e.to_string()))?;
        Ok(PromptOutput::InputRequired(result))
    }
}

fn messages(value: Value) -> Result<Vec<PromptMessage>, ErrorObject> {
    serde_json::from_value(value).map_err(|e| ErrorObject::internal_error(e.to_string()))
}

#[resources]
impl Everything {
    /// A static text resource.
    #[resource("test://static-text", name = "static-text", mime_type = "text/plain")]
    fn static_text(&self) -> TextResourceContents {
        text(
            "test://static-text",
            "text/plain",
            "This is the content of the static text resource.",
        )
    }

    /// A static binary resource.
    #[resource(
        "test://static-binary",
        name = "static-binary",
        mime_type = "image/png"
    )]
    fn static_binary(&self) -> BlobResourceContents {
        BlobResourceContents {
            meta: None,
            blob: PNG.to_owned(),
            mime_type: Some("image/png".to_owned()),
            uri: "test://static-binary".to_owned(),
            extra: Map::new(),
        }
    }

    /// A resource clients may watch for changes.
    #[resource(
        "test://watched-resource",
        name = "watched-resource",
        mime_type = "text/plain"
    )]
    fn watched(&self) -> TextResourceContents {
        text(
            "test://watched-resource",
            "text/plain",
            "Watched resource content",
        )
    }

    /// A resource template with one variable.
    #[resource(
        "test://template/{id}/data",
        name = "template",
        mime_type = "application/json"
    )]
    fn template(&self, id: String) -> TextResourceContents {
        let body = json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")});
        text(
            &format!("test://template/{id}/data"),
            "application/json",
            &body.to_string(),
        )
    }
}

fn text(uri: &str, mime_type: &str, text: &str) -> TextResourceContents {
    TextResourceContents {
        meta: None,
        mime_type: Some(mime_type.to_owned()),
        text: text.to_owned(),
        uri: uri.to_owned(),
        extra: Map::new(),
    }
}

/// Suggestions for `test_prompt_with_arguments` and the template's `id`:
/// the known values that start with what the user typed.
fn complete(request: &CompletionRequest) -> Vec<String> {
    let known: &[&str] = match (&request.reference, request.argument.as_str()) {
        (Reference::Prompt(name), "arg1" | "arg2") if name == "test_prompt_with_arguments" => {
            &["test", "testValue1", "testValue2", "other"]
        }
        (Reference::Resource(uri), "id") if uri == "test://template/{id}/data" => {
            &["1", "2", "123"]
        }
        _ => &[],
    };
    known
        .iter()
        .filter(|v| v.starts_with(&request.value))
        .map(|v| (*v).to_owned())
        .collect()
}

/// The variable [`state_keys`] reads.
const STATE_KEYS_VAR: &str = "MCP_STATE_KEYS";

/// The sealing keys named by `MCP_STATE_KEYS`, or `None` when it is unset.
///
/// The value is a comma-separated list of `[ID:]HEX` entries: `HEX` is a
/// 32-byte key as 64 hex digits and `ID` its id (1 when left out). The first
/// entry seals new state; the others only open state sealed before a
/// rotation. Every replica must get the same value, for example
/// `MCP_STATE_KEYS=2:$(openssl rand -hex 32)`.
fn state_keys() -> Result<Option<KeyRing>, String> {
    let Some(value) = std::env::var_os(STATE_KEYS_VAR) else {
        return Ok(None);
    };
    let value = value
        .into_string()
        .map_err(|_| format!("{STATE_KEYS_VAR} is not UTF-8"))?;
    let mut keys = value.split(',').map(|entry| {
        let entry = entry.trim();
        let (id, hex) = entry.split_once(':').unwrap_or(("1", entry));
        let id: u32 = id
            .parse()
            .map_err(|_| format!("{STATE_KEYS_VAR}: `{id}` is not a key id"))?;
        let key = key_bytes(hex)
            .ok_or_else(|| format!("{STATE_KEYS_VAR}: key {id} is not 64 hex digits"))?;
        Ok::<_, String>((id, key))
    });
    let (id, key) = keys
        .next()
        .unwrap_or_else(|| Err(format!("{STATE_KEYS_VAR} names no key")))?;
    let mut ring = KeyRing::new(id, key);
    for entry in keys {
        let (id, key) = entry?;
        ring = ring
            .with_previous(id, key)
            .map_err(|e| format!("{STATE_KEYS_VAR}: {e}"))?;
    }
    Ok(Some(ring))
}

/// The bytes of a key written as hex digits.
fn key_bytes(hex: &str) -> Option<[u8; KEY_LEN]> {
    if hex.len() != 2 * KEY_LEN || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let mut key = [0; KEY_LEN];
    for (byte, pair) in key.iter_mut().zip(hex.as_bytes().chunks(2)) {
        *byte = u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok()?;
    }
    Some(key)
}

/// What the replicas of this server share: its tasks and its memos.
struct Sharing {
    tasks: TaskSettings,
    memos: Arc<dyn SharedStore>,
}

impl Default for Sharing {
    /// Both in this process's memory.
    fn default() -> Self {
        Sharing {
            tasks: TaskSettings::default(),
            memos: Arc::new(MemoryShared::default()),
        }
    }
}

/// The server, sealing state with `keys` or, without them, a random key,
/// and keeping its tasks and memos where `sharing` says.
fn server(keys: Option<KeyRing>, sharing: Sharing) -> Result<Server, mcp_server::BuildError> {
    let builder = match keys {
        Some(keys) => Server::builder(Everything).keys(keys),
        None => Server::builder(Everything),
    };
    builder
        .info("mcp-toolkit-everything", env!("CARGO_PKG_VERSION"))
        .instructions("A fixture server exercising every feature of the protocol.")
        .tools()
        .tool_set(Legacy)
        .tool_set(SchemaTool)
        .tool_set(TaskTools)
        .tool_set(Memos(SharedHandleStore::new(sharing.memos)))
        .prompts()
        .resources()
        .completion(complete)
        .tasks(sharing.tasks)
        .build()
}

/// Tasks and memos in the Redis at `url`, shared with every replica that
/// names it; `MCP_TASK_LEASE_MS` sets the tasks' lease.
#[cfg(feature = "redis")]
async fn redis(url: &str) -> Result<Sharing, Box<dyn std::error::Error>> {
    let mut store = mcp_server::tasks::RedisTaskStore::connect(url).await?;
    if let Ok(ms) = std::env::var("MCP_TASK_LEASE_MS") {
        store = store.with_lease(Duration::from_millis(ms.parse()?));
    }
    let memos = mcp_server::shared::RedisShared::connect(url, "everything:").await?;
    Ok(Sharing {
        tasks: TaskSettings::default().store(store),
        memos: Arc::new(memos),
    })
}

#[cfg(not(feature = "redis"))]
async fn redis(_url: &str) -> Result<Sharing, Box<dyn std::error::Error>> {
    Err("this build has no Redis: build the example with `--features redis`".into())
}

/// Ctrl-C, or SIGTERM (what a rolling deploy sends) on Unix.
async fn stopped() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

/// Serves the metrics for Prometheus at `http://addr/metrics`, to requests
/// whose `Host` passes the same check as the MCP endpoint's: binding
/// loopback alone does not stop a page the browser loaded from a
/// rebinding name from reading them.
#[cfg(feature = "metrics")]
async fn serve_metrics(addr: SocketAddr) -> Result<(), Box<dyn std::error::Error>> {
    use axum::response::IntoResponse;
    let handle = metrics_exporter_prometheus::PrometheusBuilder::new()
        .install_recorder()
        .map_err(|e| format!("cannot record metrics: {e}"))?;
    let config = http::HttpConfig::default();
    let metrics = axum::routing::get(move |request: axum::extract::Request| {
        let (parts, _) = request.into_parts();
        let answer = match config.refusal(&parts) {
            Some(reason) => (axum::http::StatusCode::FORBIDDEN, reason).into_response(),
            None => handle.render().into_response(),
        };
        std::future::ready(answer)
    });
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| format!("cannot serve metrics on {addr}: {e}"))?;
    eprintln!("metrics at http://{}/metrics", listener.local_addr()?);
    let app = axum::Router::new().route("/metrics", metrics);
    tokio::spawn(async move { axum::serve(listener, app).await });
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The server's events (refusals, limits, tasks, panics) as JSON lines
    // on stderr, at info and above, or at the level `MCP_LOG_LEVEL` names;
    // at `debug`, a line for each request as it ends (the
    // `mcp_server::request` span). Stdout stays the protocol's over stdio.
    let level = std::env::var("MCP_LOG_LEVEL")
        .ok()
        .and_then(|level| level.parse().ok())
        .unwrap_or(tracing::Level::INFO);
    tracing_subscriber::fmt()
        .json()
        .with_writer(std::io::stderr)
        .with_max_level(level)
        .with_current_span(true)
        .with_span_list(false)
        .with_span_events(tracing_subscriber::fmt::format::FmtSpan::CLOSE)
        .init();
    // With the `metrics` feature: the server's counters, for Prometheus,
    // at http://MCP_METRICS_ADDR/metrics.
    #[cfg(feature = "metrics")]
    if let Ok(addr) = std::env::var("MCP_METRICS_ADDR") {
        serve_metrics(addr.parse()?).await?;
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (transport, sharing) = match args.as_slice() {
        [transport @ .., "--redis", url] => (transport, redis(url).await?),
        transport => (transport, Sharing::default()),
    };
    let server = server(state_keys()?, sharing)?;
    match transport {
        ["--stdio"] => stdio::serve(server).await?,
        ["--http", addr] => {
            // Port 0 takes a free port: the line says which, once bound.
            let addr: SocketAddr = addr.parse()?;
            let listener = tokio::net::TcpListener::bind(addr)
                .await
                .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
            eprintln!("serving MCP at http://{}/mcp", listener.local_addr()?);
            let config = http::HttpConfig::default();
            http::serve_with(server.clone(), listener, config, stopped()).await?;
            // Tasks still running get a grace to finish before the process
            // ends; the rest fail saying the server shut down.
            let grace = match std::env::var("MCP_DRAIN_GRACE_MS") {
                Ok(ms) => Duration::from_millis(ms.parse()?),
                Err(_) => Duration::from_secs(30),
            };
            let failed = server.drain_tasks(grace).await;
            if failed > 0 {
                eprintln!("{failed} tasks did not finish within {grace:?} of shutdown");
            }
        }
        _ => {
            eprintln!("usage: everything (--stdio | --http ADDR:PORT) [--redis URL]");
            std::process::exit(2);
        }
    }
    Ok(())
}
