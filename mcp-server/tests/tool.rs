//! Generated tools at run time: definitions, argument decoding, the two
//! error channels, structured output, elicitation across rounds, and
//! conformance of every generated value to the spec's schema.

use std::collections::BTreeMap;
use std::future::Future;
use std::path::PathBuf;
use std::pin::pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Poll, Waker};

use mcp_server::elicit::{Elicit, Elicitation};
use mcp_server::tool::{ToolError, ToolHandler, ToolOutput, ToolSet};
use mcp_server::{tool, tools, Context, ElicitForm, ErrorObject};
use mcp_types::v2026_07_28::{
    CallToolResult, ClientCapabilities, ClientCapabilitiesElicitation, ContentBlock, ElicitResult,
    ElicitResultAction, ElicitResultContentValue, InputRequest, InputRequiredResult, InputResponse,
    TextContent, Tool,
};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{json, Map, Value};

// ---------------------------------------------------------------- tools

/// Adds two integers.
#[tool(read_only, idempotent)]
fn add(
    /// The first term.
    a: i64,
    /// The second term; zero when left out.
    b: Option<i64>,
) -> i64 {
    a + b.unwrap_or(0)
}

/// A forecast.
#[derive(Serialize, JsonSchema)]
struct Forecast {
    city: String,
    days: u8,
    summary: String,
}

/// Looks up the weather.
#[tool(
    name = "weather.get",
    title = "Weather",
    icon = "https://example.com/weather.png",
    read_only,
    open_world = false
)]
async fn weather(
    /// The city to look up.
    #[header("City")]
    city: String,
    #[header("Days")] days: Option<u8>,
) -> Forecast {
    Forecast {
        summary: format!("sunny in {city}"),
        city,
        days: days.unwrap_or(1),
    }
}

/// Divides; fails on zero.
#[tool]
fn divide(a: f64, b: f64) -> Result<f64, String> {
    if b == 0.0 {
        Err("cannot divide by zero; pass a non-zero `b`".into())
    } else {
        Ok(a / b)
    }
}

/// Always refused at the protocol level.
#[tool(destructive = false)]
fn forbidden() -> Result<String, ToolError> {
    Err(ToolError::protocol(ErrorObject::invalid_params(
        "not for you",
    )))
}

/// Says who is asking.
#[tool]
fn whoami(cx: &Context, owned: Context) -> String {
    format!(
        "{} {} {}",
        cx.method(),
        cx.principal().unwrap_or("anonymous"),
        owned.method()
    )
}

/// Delete the project and everything in it?
#[derive(ElicitForm, Debug, PartialEq)]
struct Confirm {
    /// Type the project's name again.
    name: String,
    /// Also delete the backups.
    backups: Option<bool>,
}

/// Deletes a project once the user confirms.
#[tool(destructive)]
fn delete_project(
    project: String,
    #[elicit(message = "Really delete this project?")] confirm: Elicit<Confirm>,
) -> Result<String, String> {
    match confirm {
        Elicitation::Accept(form) if form.name == project => Ok(format!(
            "deleted {project}{}",
            if form.backups == Some(true) {
                " and its backups"
            } else {
                ""
            }
        )),
        Elicitation::Accept(form) => Err(format!("`{}` is not `{project}`", form.name)),
        Elicitation::Decline => Ok("declined".into()),
        Elicitation::Cancel => Ok("cancelled".into()),
    }
}

/// A counter with a few tools.
#[derive(Default)]
struct Counter {
    count: AtomicU64,
}

#[tools]
impl Counter {
    /// Adds `by` to the counter and returns the new value.
    #[tool]
    fn bump(&self, by: u64) -> u64 {
        self.count.fetch_add(by, Ordering::SeqCst) + by
    }

    /// Reads the counter.
    #[tool(read_only)]
    async fn read(&self) -> String {
        self.count.load(Ordering::SeqCst).to_string()
    }

    /// Two content blocks.
    #[tool]
    fn blocks() -> Vec<ContentBlock> {
        vec![text("one"), text("two")]
    }

    /// Does nothing, successfully.
    #[tool(name = "noop")]
    fn nothing(&self) {}

    /// Not a tool.
    #[allow(dead_code)]
    fn helper(&self) -> u64 {
        1
    }
}

mcp_server::tool_set! {
    /// The free-function tools of this test.
    struct Free { add, weather, divide, forbidden, whoami, delete_project }
}

// -------------------------------------------------------------- helpers

/// Runs a future that never waits on anything outside itself.
fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = std::task::Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
    }
}

fn text(text: &str) -> ContentBlock {
    ContentBlock::TextContent(TextContent {
        meta: None,
        annotations: None,
        text: text.into(),
        type_: Default::default(),
        extra: Map::new(),
    })
}

fn args(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("arguments must be an object, not {other}"),
    }
}

fn cx() -> Context {
    Context::new("tools/call", ClientCapabilities::default())
}

fn cx_with_forms() -> Context {
    let caps = ClientCapabilities {
        elicitation: Some(ClientCapabilitiesElicitation {
            form: Some(Map::new()),
            ..Default::default()
        }),
        ..Default::default()
    };
    Context::new("tools/call", caps)
}

fn call_free(cx: &Context, name: &str, arguments: Value) -> Result<ToolOutput, ErrorObject> {
    let future = Free
        .call_tool(name, cx, args(arguments))
        .unwrap_or_else(|| panic!("no tool `{name}`"));
    block_on(future)
}

fn complete(output: Result<ToolOutput, ErrorObject>) -> CallToolResult {
    match output {
        Ok(ToolOutput::Complete(result)) => result,
        other => panic!("expected a complete result, got {other:?}"),
    }
}

fn first_text(result: &CallToolResult) -> &str {
    match result.content.first() {
        Some(ContentBlock::TextContent(t)) => &t.text,
        other => panic!("expected a text block, got {other:?}"),
    }
}

fn definition<'a>(tools: &'a [Tool], name: &str) -> &'a Tool {
    tools
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no tool `{name}`"))
}

fn to_json<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or_else(|e| panic!("encoding failed: {e}"))
}

// ---------------------------------------------------------- definitions

#[test]
fn definitions_follow_the_functions() {
    let tools = Free::tools();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "add",
            "weather.get",
            "divide",
            "forbidden",
            "whoami",
            "delete_project"
        ]
    );
    assert_eq!(add::NAME, "add");
    assert_eq!(weather::NAME, "weather.get");

    let add = to_json(definition(&tools, "add"));
    assert_eq!(add["description"], "Adds two integers.");
    assert_eq!(
        add["annotations"],
        json!({"readOnlyHint": true, "idempotentHint": true})
    );
    let input = &add["inputSchema"];
    assert_eq!(input["type"], "object");
    assert_eq!(input["additionalProperties"], false);
    assert_eq!(input["required"], json!(["a"]));
    assert_eq!(input["properties"]["a"]["type"], "integer");
    assert_eq!(input["properties"]["a"]["description"], "The first term.");
    assert_eq!(
        input["properties"]["b"]["description"],
        "The second term; zero when left out."
    );

    let weather = to_json(definition(&tools, "weather.get"));
    assert_eq!(weather["title"], "Weather");
    assert_eq!(
        weather["icons"],
        json!([{"src": "https://example.com/weather.png"}])
    );
    assert_eq!(
        weather["annotations"],
        json!({"readOnlyHint": true, "openWorldHint": false})
    );
    let props = &weather["inputSchema"]["properties"];
    assert_eq!(props["city"]["x-mcp-header"], "City");
    assert_eq!(props["days"]["x-mcp-header"], "Days");
    assert_eq!(weather["outputSchema"]["type"], "object");
    assert_eq!(
        weather["outputSchema"]["required"],
        json!(["city", "days", "summary"])
    );

    let no_params = to_json(definition(&tools, "forbidden"));
    assert_eq!(
        no_params["inputSchema"],
        json!({"type": "object", "additionalProperties": false})
    );
    assert_eq!(no_params["annotations"], json!({"destructiveHint": false}));
    assert!(no_params.get("outputSchema").is_none(), "{no_params}");

    // Context and Elicit parameters are not arguments.
    let whoami = to_json(definition(&tools, "whoami"));
    assert_eq!(
        whoami["inputSchema"],
        json!({"type": "object", "additionalProperties": false})
    );
    let delete = to_json(definition(&tools, "delete_project"));
    assert_eq!(delete["inputSchema"]["required"], json!(["project"]));
    assert!(delete["inputSchema"]["properties"].get("confirm").is_none());
}

#[test]
fn method_sets_list_tools_in_source_order() {
    let tools = Counter::tools();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["bump", "read", "blocks", "noop"]);
    let bump = to_json(definition(&tools, "bump"));
    assert_eq!(
        bump["description"],
        "Adds `by` to the counter and returns the new value."
    );
    assert_eq!(
        bump["outputSchema"]["properties"]["result"]["type"],
        "integer"
    );
    // Text results promise no output schema.
    assert!(to_json(definition(&tools, "read"))
        .get("outputSchema")
        .is_none());
}

#[test]
fn a_handler_is_usable_on_its_own() {
    let tool = ToolHandler::<Counter>::definition(&add {});
    assert_eq!(tool.name, "add");
    let server = Counter::default();
    let output = block_on(add {}.call(&server, &cx(), args(json!({"a": 2}))));
    assert_eq!(
        complete(output).structured_content,
        Some(json!({"result": 2}))
    );
}

// ----------------------------------------------------------------- calls

#[test]
fn good_arguments_give_structured_output() {
    let result = complete(call_free(&cx(), "add", json!({"a": 2, "b": 3})));
    assert_eq!(result.is_error, None);
    assert_eq!(result.result_type.as_deref(), Some("complete"));
    assert_eq!(result.structured_content, Some(json!({"result": 5})));
    assert_eq!(first_text(&result), r#"{"result":5}"#);

    let result = complete(call_free(&cx(), "weather.get", json!({"city": "Oslo"})));
    assert_eq!(
        result.structured_content,
        Some(json!({"city": "Oslo", "days": 1, "summary": "sunny in Oslo"}))
    );
}

#[test]
fn bad_arguments_give_an_execution_error_naming_each() {
    let result = complete(call_free(
        &cx(),
        "add",
        json!({"a": "two", "b": 1.5, "c": true}),
    ));
    assert_eq!(result.is_error, Some(true));
    let message = first_text(&result);
    assert!(message.contains("invalid argument `a`"), "{message}");
    assert!(message.contains("invalid argument `b`"), "{message}");
    assert!(message.contains("unknown argument `c`"), "{message}");
    assert_eq!(result.structured_content, None);

    let result = complete(call_free(&cx(), "add", json!({})));
    assert_eq!(result.is_error, Some(true));
    assert!(first_text(&result).contains("missing required argument `a`"));

    let result = complete(call_free(
        &cx(),
        "weather.get",
        json!({"city": "Oslo", "days": 300}),
    ));
    assert_eq!(result.is_error, Some(true));
    assert!(first_text(&result).contains("`days`"));
}

#[test]
fn an_err_is_an_execution_error() {
    let result = complete(call_free(&cx(), "divide", json!({"a": 1.0, "b": 0.0})));
    assert_eq!(result.is_error, Some(true));
    assert_eq!(
        first_text(&result),
        "cannot divide by zero; pass a non-zero `b`"
    );

    let result = complete(call_free(&cx(), "divide", json!({"a": 1.0, "b": 4.0})));
    assert_eq!(result.structured_content, Some(json!({"result": 0.25})));
}

#[test]
fn a_protocol_error_is_a_json_rpc_error() {
    let error = call_free(&cx(), "forbidden", json!({})).expect_err("protocol error");
    assert_eq!(error.code, -32602);
    assert_eq!(error.message, "not for you");
}

#[test]
fn an_unknown_tool_is_none() {
    assert!(Free.call_tool("nope", &cx(), Map::new()).is_none());
    assert!(Counter::default()
        .call_tool("helper", &cx(), Map::new())
        .is_none());
}

#[test]
fn the_context_reaches_the_body() {
    let cx = cx().with_principal("ada");
    let result = complete(call_free(&cx, "whoami", json!({})));
    assert_eq!(first_text(&result), "tools/call ada tools/call");
}

#[test]
fn methods_share_the_server() {
    let counter = Counter::default();
    let cx = cx();
    let call = |name: &str, arguments: Value| {
        let future = counter
            .call_tool(name, &cx, args(arguments))
            .unwrap_or_else(|| panic!("no tool `{name}`"));
        complete(block_on(future))
    };
    assert_eq!(
        call("bump", json!({"by": 2})).structured_content,
        Some(json!({"result": 2}))
    );
    assert_eq!(
        call("bump", json!({"by": 3})).structured_content,
        Some(json!({"result": 5}))
    );
    assert_eq!(first_text(&call("read", json!({}))), "5");
    assert_eq!(call("blocks", json!({})).content.len(), 2);
    let noop = call("noop", json!({}));
    assert!(noop.content.is_empty() && noop.is_error.is_none());
}

// ------------------------------------------------------------ elicitation

fn accept(content: Value) -> InputResponse {
    let content: BTreeMap<String, ElicitResultContentValue> =
        serde_json::from_value(content).unwrap_or_else(|e| panic!("bad content: {e}"));
    InputResponse::Elicit(ElicitResult {
        action: ElicitResultAction::Accept,
        content: Some(content),
        extra: Map::new(),
    })
}

fn answer(action: ElicitResultAction) -> InputResponse {
    InputResponse::Elicit(ElicitResult {
        action,
        content: None,
        extra: Map::new(),
    })
}

fn retry(response: InputResponse) -> Context {
    let responses = BTreeMap::from([("confirm".to_owned(), response)]);
    cx_with_forms().with_retry(Some(responses), None)
}

#[test]
fn the_first_call_asks_for_the_form() {
    let output = call_free(
        &cx_with_forms(),
        "delete_project",
        json!({"project": "apollo"}),
    );
    let Ok(ToolOutput::InputRequired(result)) = output else {
        panic!("expected an input request, got {output:?}");
    };
    assert_eq!(result.result_type.as_deref(), Some("input_required"));
    assert_eq!(result.request_state, None);
    let requests = result.input_requests.as_ref().expect("input requests");
    let Some(InputRequest::Elicit(request)) = requests.get("confirm") else {
        panic!("expected an elicitation under `confirm`: {requests:?}");
    };
    let request = to_json(request);
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["message"], "Really delete this project?");
    let schema = &request["params"]["requestedSchema"];
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["required"], json!(["name"]));
    assert_eq!(
        schema["properties"]["name"],
        json!({"type": "string", "description": "Type the project's name again."})
    );
    assert_eq!(schema["properties"]["backups"]["type"], "boolean");
}

#[test]
fn bad_arguments_are_reported_before_asking() {
    let result = complete(call_free(&cx_with_forms(), "delete_project", json!({})));
    assert_eq!(result.is_error, Some(true));
}

#[test]
fn the_retry_brings_each_answer_to_the_body() {
    let arguments = json!({"project": "apollo"});
    let accepted = retry(accept(json!({"name": "apollo", "backups": true})));
    let result = complete(call_free(&accepted, "delete_project", arguments.clone()));
    assert_eq!(first_text(&result), "deleted apollo and its backups");
    assert_eq!(result.structured_content, None);

    let wrong = retry(accept(json!({"name": "gemini"})));
    let result = complete(call_free(&wrong, "delete_project", arguments.clone()));
    assert_eq!(result.is_error, Some(true));

    let declined = retry(answer(ElicitResultAction::Decline));
    let result = complete(call_free(&declined, "delete_project", arguments.clone()));
    assert_eq!(first_text(&result), "declined");

    let cancelled = retry(answer(ElicitResultAction::Cancel));
    let result = complete(call_free(&cancelled, "delete_project", arguments));
    assert_eq!(first_text(&result), "cancelled");
}

#[test]
fn an_answer_that_does_not_fit_the_form_is_refused() {
    let bad = retry(accept(json!({"name": 7})));
    let error = call_free(&bad, "delete_project", json!({"project": "apollo"}))
        .expect_err("malformed answer");
    assert_eq!(error.code, -32602);
    assert!(error.message.contains("`confirm`"), "{}", error.message);
    assert!(error.message.contains("`name`"), "{}", error.message);
}

#[test]
fn without_the_capability_the_tool_refuses_to_ask() {
    let error = call_free(&cx(), "delete_project", json!({"project": "apollo"}))
        .expect_err("missing capability");
    assert_eq!(error.code, -32021);
    assert!(error.message.contains("elicitation"), "{}", error.message);
    let data = error.data.expect("data");
    assert_eq!(
        data["requiredCapabilities"],
        json!({"elicitation": {"form": {}}})
    );
}

#[test]
fn the_form_decodes_its_own_content() {
    let content: BTreeMap<String, ElicitResultContentValue> =
        serde_json::from_value(json!({"name": "x"})).expect("content");
    let form = Confirm::from_content(&content).expect("decodes");
    assert_eq!(
        form,
        Confirm {
            name: "x".into(),
            backups: None
        }
    );
    let error = Confirm::from_content(&BTreeMap::new()).expect_err("name is required");
    assert_eq!(error.to_string(), "field `name`: missing");
}

/// A parcel size.
#[derive(ElicitForm, Debug, PartialEq)]
#[form(rename_all = "lowercase")]
enum Size {
    /// Small (up to 2 kg)
    Small,
    Large,
}

/// An extra service.
#[derive(ElicitForm, Debug, PartialEq)]
enum Extra {
    Insurance,
    Express,
}

/// Where should we send it?
#[derive(ElicitForm, Debug, PartialEq)]
#[form(rename_all = "camelCase")]
struct Shipping {
    /// Your full name.
    #[form(title = "Name", min_length = 1, max_length = 40)]
    full_name: String,
    #[form(format = "email")]
    email: Option<String>,
    #[form(min = 1, max = 5, default = 1)]
    parcels: u8,
    #[form(default = 0.5)]
    weight: f64,
    #[form(default = true)]
    signature: bool,
    #[form(default = "small")]
    size: Size,
    extras: Vec<Extra>,
    #[form(choices("morning", "evening"))]
    slot: Option<String>,
    #[form(choices("mon", "tue", "wed"), min_length = 1)]
    days: Vec<String>,
}

#[test]
fn a_rich_form_has_the_spec_shapes_and_decodes() {
    let request = to_json(&mcp_server::elicit::form_request::<Shipping>("Ship?"));
    let schema = &request["params"]["requestedSchema"];
    let props = &schema["properties"];
    assert_eq!(
        props["fullName"],
        json!({"type": "string", "title": "Name", "description": "Your full name.", "minLength": 1, "maxLength": 40})
    );
    assert_eq!(props["email"], json!({"type": "string", "format": "email"}));
    assert_eq!(
        props["parcels"],
        json!({"type": "integer", "minimum": 1, "maximum": 5, "default": 1})
    );
    assert_eq!(
        props["size"]["oneOf"][0],
        json!({"const": "small", "title": "Small (up to 2 kg)"})
    );
    assert_eq!(
        props["size"]["oneOf"][1],
        json!({"const": "large", "title": "large"})
    );
    assert_eq!(
        props["extras"]["items"]["enum"],
        json!(["Insurance", "Express"])
    );
    assert_eq!(props["slot"]["enum"], json!(["morning", "evening"]));
    assert_eq!(props["days"]["minItems"], 1);
    assert_eq!(
        schema["required"],
        json!([
            "fullName",
            "parcels",
            "weight",
            "signature",
            "size",
            "extras",
            "days"
        ])
    );
    assert_conforms("ElicitRequest", &request);

    let content: BTreeMap<String, ElicitResultContentValue> = serde_json::from_value(json!({
        "fullName": "Ada", "parcels": 2, "weight": 3, "signature": false,
        "size": "large", "extras": ["Express"], "days": ["tue"]
    }))
    .expect("content");
    let form = Shipping::from_content(&content).expect("decodes");
    assert_eq!(form.size, Size::Large);
    assert_eq!(form.extras, [Extra::Express]);
    assert_eq!(form.weight, 3.0);
    assert_eq!(form.slot, None);

    let content: BTreeMap<String, ElicitResultContentValue> = serde_json::from_value(json!({
        "fullName": "", "parcels": 9, "weight": 1, "signature": "yes",
        "size": "huge", "extras": ["Gift"], "days": []
    }))
    .expect("content");
    let problems = Shipping::from_content(&content)
        .expect_err("invalid")
        .problems()
        .len();
    assert_eq!(problems, 6);
}

// ------------------------------------------------------ spec conformance

/// The folder of the MCP spec: `MCP_SPEC_DIR`, else `shared/spec` beside
/// the workspace.
fn spec_dir() -> PathBuf {
    let dir = std::env::var_os("MCP_SPEC_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/spec"));
    assert!(
        dir.join("schema").is_dir(),
        "the MCP specification folder was not found at {}; set MCP_SPEC_DIR to the folder that holds schema/<revision>/schema.json",
        dir.display()
    );
    dir
}

/// Checks `value` against `$defs/<def>` of the 2026-07-28 schema.
fn assert_conforms(def: &str, value: &Value) {
    let path = spec_dir().join("schema/2026-07-28/schema.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut root: Value = serde_json::from_str(&text).expect("the schema is JSON");
    root["$ref"] = Value::from(format!("#/$defs/{def}"));
    let validator = jsonschema::draft202012::new(&root).expect("the schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(value)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{value} is not a valid {def}: {errors:#?}"
    );
}

#[test]
fn every_generated_tool_is_a_valid_tool() {
    for tool in Free::tools().into_iter().chain(Counter::tools()) {
        assert_conforms("Tool", &to_json(&tool));
    }
}

#[test]
fn every_result_is_valid() {
    let results = [
        call_free(&cx(), "add", json!({"a": 1})),
        call_free(&cx(), "add", json!({"a": "x"})),
        call_free(&cx(), "weather.get", json!({"city": "Oslo"})),
        call_free(&cx(), "divide", json!({"a": 1.0, "b": 0.0})),
    ];
    for result in results {
        assert_conforms("CallToolResult", &to_json(&complete(result)));
    }
    let asking = call_free(&cx_with_forms(), "delete_project", json!({"project": "a"}));
    let Ok(ToolOutput::InputRequired(result)) = asking else {
        panic!("expected an input request");
    };
    assert_conforms(
        "InputRequiredResult",
        &to_json::<InputRequiredResult>(&result),
    );
}
