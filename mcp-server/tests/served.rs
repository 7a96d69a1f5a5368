//! What a server serves, what it advertises, and the shape of what it
//! answers, in both eras, over several builder configurations:
//!
//! - every capability advertised (`server/discover`, `initialize`) answers
//!   its methods, and every method answered has its capability;
//! - every answer validates against the schema of the revision the
//!   request spoke, with objects closed: a legacy answer carries only the
//!   members 2025-11-25 defines (`_meta` stays open);
//! - the prompts and resources of the server's own type are served
//!   without a builder call for each.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use mcp_server::completion::CompletionRequest;
use mcp_server::server::Session;
use mcp_server::types::v2026_07_28::TextResourceContents;
use mcp_server::{prompt, prompts, resource, resources, tool, tools, Outcome, Server};
use serde_json::{json, Map, Value};

/// A server type with all three kinds of handler.
struct Shop;

#[tools]
impl Shop {
    /// Adds two numbers.
    #[tool]
    fn add(&self, a: i64, b: i64) -> i64 {
        a + b
    }
}

#[prompts]
impl Shop {
    /// Greets someone.
    #[prompt]
    fn greet(&self, name: String) -> String {
        format!("Say hello to {name}.")
    }
}

#[resources]
impl Shop {
    /// The opening hours.
    #[resource("shop://hours", mime_type = "text/plain")]
    fn hours(&self) -> TextResourceContents {
        text("shop://hours", "9 to 5")
    }

    /// One item of the catalogue.
    #[resource("shop://items/{id}", name = "item", mime_type = "text/plain")]
    fn item(&self, id: String) -> TextResourceContents {
        text(&format!("shop://items/{id}"), &format!("item {id}"))
    }
}

/// Tools and nothing else.
struct Calculator;

#[tools]
impl Calculator {
    /// Adds two numbers.
    #[tool]
    fn add(&self, a: i64, b: i64) -> i64 {
        a + b
    }
}

/// Prompts and nothing else.
struct Greeter;

#[prompts]
impl Greeter {
    /// Greets someone.
    #[prompt]
    fn greet(&self, name: String) -> String {
        format!("Say hello to {name}.")
    }
}

/// Resources and nothing else.
struct Files;

#[resources]
impl Files {
    /// The opening hours.
    #[resource("shop://hours", mime_type = "text/plain")]
    fn hours(&self) -> TextResourceContents {
        text("shop://hours", "9 to 5")
    }
}

fn text(uri: &str, text: &str) -> TextResourceContents {
    TextResourceContents {
        uri: uri.to_owned(),
        text: text.to_owned(),
        mime_type: Some("text/plain".to_owned()),
        meta: None,
        extra: Map::new(),
    }
}

fn names(_: &CompletionRequest) -> Vec<String> {
    vec!["Ada".to_owned(), "Alan".to_owned()]
}

/// The configurations under test, by name.
fn configurations() -> Vec<(&'static str, Server)> {
    let build = |builder: mcp_server::ServerBuilder<_>| builder.build().expect("builds");
    vec![
        ("tools", build(Server::builder(Calculator).tools())),
        (
            "tools and a completer",
            Server::builder(Calculator)
                .tools()
                .completion(names)
                .build()
                .expect("builds"),
        ),
        (
            "prompts",
            Server::builder(Greeter).prompts().build().expect("builds"),
        ),
        (
            "resources",
            Server::builder(Files).resources().build().expect("builds"),
        ),
        (
            "everything",
            Server::builder(Shop)
                .tools()
                .prompts()
                .resources()
                .completion(names)
                .build()
                .expect("builds"),
        ),
    ]
}

// ---------------------------------------------------------------------
// The schemas.

/// The specification folder: `MCP_SPEC_DIR`, else `../shared/spec` beside
/// the workspace.
fn spec_dir() -> PathBuf {
    let dir = match std::env::var_os("MCP_SPEC_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/spec"),
    };
    assert!(
        dir.join("schema").is_dir(),
        "the MCP specification folder was not found at {}; set MCP_SPEC_DIR to the folder \
         that holds schema/<revision>/schema.json",
        dir.display()
    );
    dir
}

/// Adds `additionalProperties: false` to every object schema that lists
/// its properties and says nothing about others; schemas that say
/// something (`_meta`, `Result`, open maps) keep what they say, and so do
/// the JSON Schemas a tool or a form carries, which are open by nature.
fn close(schema: &mut Value) {
    const OPEN: &[&str] = &["inputSchema", "outputSchema", "requestedSchema"];
    match schema {
        Value::Object(map) => {
            if map.contains_key("properties") && !map.contains_key("additionalProperties") {
                map.insert("additionalProperties".to_owned(), Value::Bool(false));
            }
            map.iter_mut()
                .filter(|(key, _)| !OPEN.contains(&key.as_str()))
                .for_each(|(_, value)| close(value));
        }
        Value::Array(items) => items.iter_mut().for_each(close),
        _ => {}
    }
}

/// A revision's schema, closed.
struct Schema {
    revision: &'static str,
    root: Value,
}

impl Schema {
    fn load(revision: &'static str) -> Schema {
        let path = spec_dir().join(format!("schema/{revision}/schema.json"));
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let mut root: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()));
        close(&mut root);
        Schema { revision, root }
    }

    /// Fails unless `value` is a valid `def` of this revision.
    fn check(&self, def: &str, value: &Value, what: &str) {
        let mut root = self.root.clone();
        root["$ref"] = Value::String(format!("#/$defs/{def}"));
        let validator = jsonschema::draft202012::options()
            .build(&root)
            .expect("the schema compiles");
        let errors: Vec<String> = validator
            .iter_errors(value)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "{what}: not a valid {} {def}: {value}\n{errors:#?}",
            self.revision
        );
    }
}

/// The schema definition of the result of `method`.
fn result_def(method: &str) -> &'static str {
    match method {
        "server/discover" => "DiscoverResult",
        "initialize" => "InitializeResult",
        "tools/list" => "ListToolsResult",
        "tools/call" => "CallToolResult",
        "prompts/list" => "ListPromptsResult",
        "prompts/get" => "GetPromptResult",
        "resources/list" => "ListResourcesResult",
        "resources/templates/list" => "ListResourceTemplatesResult",
        "resources/read" => "ReadResourceResult",
        "completion/complete" => "CompleteResult",
        _ => "EmptyResult",
    }
}

// ---------------------------------------------------------------------
// Talking to a server.

/// The answer an outcome carries: a reply, or the response that ends a
/// stream. `None` for a stream that stays open (`subscriptions/listen`),
/// whose first message is returned instead.
async fn answer(outcome: Outcome, id: i64) -> Value {
    match outcome {
        Outcome::Reply { message, .. } => message.to_value(),
        Outcome::Stream { mut messages, .. } => {
            let mut first = None;
            let wait = std::time::Duration::from_millis(200);
            while let Ok(Some(message)) = tokio::time::timeout(wait, messages.recv()).await {
                if message.get("id") == Some(&json!(id)) {
                    return message;
                }
                first.get_or_insert(message);
            }
            first.expect("a stream sends something")
        }
        other => panic!("no answer: {other:?}"),
    }
}

/// The params of a probe of `method`, beside `_meta`.
fn params(method: &str) -> Value {
    match method {
        "tools/call" => json!({ "name": "add", "arguments": { "a": 1, "b": 2 } }),
        "prompts/get" => json!({ "name": "greet", "arguments": { "name": "Ada" } }),
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
            json!({ "uri": "shop://hours" })
        }
        "completion/complete" => json!({
            "ref": { "type": "ref/prompt", "name": "greet" },
            "argument": { "name": "name", "value": "A" }
        }),
        "subscriptions/listen" => json!({ "notifications": { "toolsListChanged": true } }),
        "logging/setLevel" => json!({ "level": "info" }),
        _ => json!({}),
    }
}

const MODERN_META: &str = r#"{
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {}
}"#;

async fn modern(server: &Server, id: i64, method: &str) -> Value {
    let mut params = params(method);
    params["_meta"] = serde_json::from_str(MODERN_META).expect("JSON");
    let request = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
    answer(server.handle(request, None).await, id).await
}

/// A legacy session, opened with `initialize`, and its answer.
async fn initialize(server: &Server) -> (Arc<Session>, Value) {
    let request = json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": { "name": "test", "version": "1" }
    }});
    let (outcome, session) = server.handle_legacy(request, None).await;
    (session.expect("a session"), answer(outcome, 0).await)
}

async fn legacy(server: &Server, session: &Arc<Session>, id: i64, method: &str) -> Value {
    let request = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params(method) });
    let (outcome, _) = server.handle_legacy(request, Some(session.clone())).await;
    answer(outcome, id).await
}

// ---------------------------------------------------------------------
// The checks.

/// Whether `answer` says the method is not there.
fn not_found(answer: &Value) -> bool {
    answer["error"]["code"] == json!(-32601)
}

/// Whether `capabilities` has `path` (`resources.subscribe` is a flag,
/// the rest are objects).
fn has(capabilities: &Value, path: &str) -> bool {
    match path.split_once('.') {
        Some((capability, flag)) => capabilities[capability][flag] == json!(true),
        None => capabilities[path].is_object(),
    }
}

/// Checks both directions for one method: answered exactly when the
/// capability it needs is advertised.
fn check_link(config: &str, era: &str, capabilities: &Value, method: &str, answer: &Value) {
    let needs: &[&str] = match method {
        "tools/list" | "tools/call" => &["tools"],
        "prompts/list" | "prompts/get" => &["prompts"],
        "resources/list" | "resources/templates/list" | "resources/read" => &["resources"],
        "completion/complete" => &["completions"],
        "logging/setLevel" => &["logging"],
        "resources/subscribe" | "resources/unsubscribe" => &["resources.subscribe"],
        // A listen stream delivers list changes and resource updates.
        "subscriptions/listen" => &[
            "tools.listChanged",
            "prompts.listChanged",
            "resources.listChanged",
            "resources.subscribe",
        ],
        other => panic!("no capability known for `{other}`"),
    };
    let advertised = needs.iter().any(|path| has(capabilities, path));
    // Served means answered with a result: the probes' parameters are
    // valid for every configuration that serves the method, so any error
    // is a failure, and one that is not -32601 is not "not served" either.
    // A listen stream opens with its acknowledgement instead.
    let served = if method == "subscriptions/listen" {
        answer["method"] == json!("notifications/subscriptions/acknowledged")
    } else {
        answer.get("error").is_none() && answer.get("result").is_some()
    };
    assert!(
        served == advertised && (served || not_found(answer)),
        "{config}, {era}: `{method}` {} but its capability ({}) {} in {capabilities}; answer {answer}",
        if served { "is served" } else { "is not served" },
        needs.join(" or "),
        if advertised { "is advertised" } else { "is not advertised" },
    );
}

/// Checks the shape of one answer against the revision's schema.
fn check_shape(schema: &Schema, what: &str, method: &str, answer: &Value) {
    assert_eq!(answer["jsonrpc"], json!("2.0"), "{what}: {answer}");
    if answer.get("error").is_some() {
        // Only "not served" may be an error (see `check_link`).
        assert!(
            not_found(answer),
            "{what}: an error other than -32601: {answer}"
        );
        return schema.check("JSONRPCErrorResponse", answer, what);
    }
    let result = &answer["result"];
    if method == "subscriptions/listen" {
        // The stream opens with its acknowledgement.
        return schema.check("SubscriptionsAcknowledgedNotification", answer, what);
    }
    schema.check(result_def(method), result, what);
    if schema.revision == "2025-11-25" {
        // `Result` is open in the schema: its members are checked by name.
        if result_def(method) == "EmptyResult" {
            let keys: Vec<&String> = result.as_object().expect("an object").keys().collect();
            assert!(
                keys.iter().all(|k| *k == "_meta"),
                "{what}: an empty legacy result carries {keys:?}"
            );
        }
    }
}

const MODERN_METHODS: &[&str] = &[
    "tools/list",
    "tools/call",
    "prompts/list",
    "prompts/get",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "completion/complete",
    "subscriptions/listen",
];

const LEGACY_METHODS: &[&str] = &[
    "tools/list",
    "tools/call",
    "prompts/list",
    "prompts/get",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "completion/complete",
    "resources/subscribe",
    "resources/unsubscribe",
    "logging/setLevel",
];

#[test]
fn a_server_that_would_serve_nothing_is_not_built() {
    let error = Server::builder(()).build().expect_err("nothing to serve");
    assert!(matches!(error, mcp_server::BuildError::Nothing), "{error}");
    assert!(error.to_string().contains("would serve nothing"), "{error}");
}

#[tokio::test]
async fn modern_capabilities_are_what_is_served_and_answers_are_2026_07_28() {
    let schema = Schema::load("2026-07-28");
    for (config, server) in configurations() {
        let discover = modern(&server, 1, "server/discover").await;
        check_shape(&schema, config, "server/discover", &discover);
        let capabilities = &discover["result"]["capabilities"];
        for (id, method) in (2..).zip(MODERN_METHODS) {
            let answer = modern(&server, id, method).await;
            let what = format!("{config}, modern `{method}`");
            check_link(config, "modern", capabilities, method, &answer);
            check_shape(&schema, &what, method, &answer);
        }
    }
}

#[tokio::test]
async fn legacy_capabilities_are_what_is_served_and_answers_are_2025_11_25() {
    let schema = Schema::load("2025-11-25");
    for (config, server) in configurations() {
        let (session, init) = initialize(&server).await;
        check_shape(&schema, config, "initialize", &init);
        let capabilities = &init["result"]["capabilities"];
        for (id, method) in (1..).zip(LEGACY_METHODS) {
            let answer = legacy(&server, &session, id, method).await;
            let what = format!("{config}, legacy `{method}`");
            check_link(config, "legacy", capabilities, method, &answer);
            check_shape(&schema, &what, method, &answer);
        }
    }
}

#[tokio::test]
async fn a_server_without_a_completer_does_not_advertise_completions() {
    let server = Server::builder(Calculator).tools().build().expect("builds");
    let discover = modern(&server, 1, "server/discover").await;
    let capabilities = &discover["result"]["capabilities"];
    assert!(capabilities.get("completions").is_none(), "{capabilities}");
    assert!(capabilities["tools"].is_object(), "{capabilities}");
    let (_, init) = initialize(&server).await;
    assert!(init["result"]["capabilities"].get("completions").is_none());
}

#[tokio::test]
async fn legacy_answers_carry_no_modern_members() {
    let server = Server::builder(Shop)
        .tools()
        .prompts()
        .resources()
        .completion(names)
        .cache(60_000, mcp_server::types::v2026_07_28::CacheScope::Public)
        .build()
        .expect("builds");
    let (session, _) = initialize(&server).await;
    for (id, method) in (1..).zip(LEGACY_METHODS) {
        let answer = legacy(&server, &session, id, method).await;
        let result = answer["result"].as_object().expect("a result");
        for key in ["resultType", "ttlMs", "cacheScope"] {
            assert!(!result.contains_key(key), "legacy `{method}`: {answer}");
        }
    }
    // The same server tells modern clients how long to cache.
    let list = modern(&server, 99, "tools/list").await;
    assert_eq!(list["result"]["ttlMs"], json!(60_000), "{list}");
    assert_eq!(list["result"]["resultType"], json!("complete"), "{list}");
}

#[test]
fn the_closed_schemas_refuse_members_their_revision_does_not_define() {
    let legacy = Schema::load("2025-11-25");
    let modern = Schema::load("2026-07-28");
    let list = json!({ "tools": [], "resultType": "complete", "ttlMs": 0 });
    let what = "a legacy list with modern members";
    let refused = std::panic::catch_unwind(|| legacy.check("ListToolsResult", &list, what));
    assert!(
        refused.is_err(),
        "the closed 2025-11-25 schema accepted {list}"
    );
    let mut list = list;
    list["cacheScope"] = json!("private");
    modern.check("ListToolsResult", &list, "a modern list");
    // `_meta` stays open in both.
    let list = json!({ "tools": [], "_meta": { "example.com/anything": 1 } });
    legacy.check("ListToolsResult", &list, "a legacy list with `_meta`");
}

// ---------------------------------------------------------------------
// Sets the builder was not told of.

/// What `method` lists, by name (or URI template).
async fn listed(server: &Server, method: &str, key: &str, name: &str) -> Vec<String> {
    let answer = modern(server, 7, method).await;
    let items = answer["result"][key]
        .as_array()
        .cloned()
        .unwrap_or_default();
    items
        .iter()
        .map(|item| item[name].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[tokio::test]
async fn every_set_of_the_server_type_is_served_from_any_one_call() {
    let built = [
        ("tools", Server::builder(Shop).tools().build()),
        ("prompts", Server::builder(Shop).prompts().build()),
        ("resources", Server::builder(Shop).resources().build()),
    ];
    for (call, server) in built {
        let server = server.expect("builds");
        let what = format!("built with `.{call}()` alone");
        assert_eq!(
            listed(&server, "tools/list", "tools", "name").await,
            ["add"],
            "{what}"
        );
        assert_eq!(
            listed(&server, "prompts/list", "prompts", "name").await,
            ["greet"],
            "{what}"
        );
        assert_eq!(
            listed(&server, "resources/list", "resources", "uri").await,
            ["shop://hours"],
            "{what}"
        );
        assert_eq!(
            listed(
                &server,
                "resources/templates/list",
                "resourceTemplates",
                "uriTemplate"
            )
            .await,
            ["shop://items/{id}"],
            "{what}"
        );
        let read = modern(&server, 8, "resources/read").await;
        assert_eq!(
            read["result"]["contents"][0]["text"],
            json!("9 to 5"),
            "{what}"
        );
    }
}

/// A prompt set of free functions, to stand in for the server's own.
struct Others;

#[prompts]
impl Others {
    /// Says goodbye.
    #[prompt]
    fn farewell(&self) -> String {
        String::from("Say goodbye.")
    }
}

#[tokio::test]
async fn a_set_given_explicitly_is_not_replaced_by_the_server_types_own() {
    // `prompt_set` serves `Others`' prompts; the builder does not put the
    // server type's own prompts back in their place, whatever the order.
    let before = Server::builder(Shop)
        .prompt_set(OthersFor)
        .tools()
        .build()
        .expect("builds");
    let after = Server::builder(Shop)
        .tools()
        .prompt_set(OthersFor)
        .build()
        .expect("builds");
    for server in [before, after] {
        assert_eq!(
            listed(&server, "prompts/list", "prompts", "name").await,
            ["farewell"]
        );
        assert_eq!(
            listed(&server, "tools/list", "tools", "name").await,
            ["add"]
        );
    }
}

/// `Others`' prompts, served for a `Shop`.
struct OthersFor;

impl mcp_server::prompt::PromptSet<Shop> for OthersFor {
    fn prompts(&self) -> Vec<mcp_server::types::v2026_07_28::Prompt> {
        <Others as mcp_server::prompt::PromptSet<Others>>::prompts(&Others)
    }

    fn get_prompt<'a>(
        &'a self,
        name: &str,
        _server: &'a Shop,
        cx: &'a mcp_server::Context,
        arguments: BTreeMap<String, String>,
    ) -> Option<
        mcp_server::BoxFuture<
            'a,
            Result<mcp_server::prompt::PromptOutput, mcp_server::ErrorObject>,
        >,
    > {
        <Others as mcp_server::prompt::PromptSet<Others>>::get_prompt(
            &Others, name, &Others, cx, arguments,
        )
    }
}
