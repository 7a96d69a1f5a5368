//! A client for the official conformance suite's client mode: it connects
//! to the URL the suite gives, lists what the server offers, and exercises
//! it through `mcp-host`'s client (tools called with the suite's arguments
//! when its context names them, otherwise with arguments made from each
//! tool's schema; prompts fetched; resources read). Every input request is
//! answered, so that multi-round flows complete.
//!
//! Servers that ask for authorization get the host's OAuth client. The
//! login seam here plays the person: it requests the authorization URL
//! and takes the redirect the suite's authorization server answers with,
//! without following it. Credentials the scenario hands over in its
//! context (`client_id`, `client_secret`, `private_key_pem`) are used as
//! pre-registered ones; the `auth/client-credentials-*` scenarios use the
//! client-credentials grant. A workload token (`valid_jwt`) selects the
//! JWT bearer grant of workload identity, and an identity provider with
//! the person's ID token (`idp_token_endpoint`, `idp_client_id`,
//! `idp_id_token`) enterprise-managed authorization. DPoP needs nothing:
//! the host binds its tokens when the server asks for it. A secret or key is bound to the issuer it
//! belongs to, which a user's configuration states with `issuer`; the
//! suite does not say it, so the harness reads it from the server's own
//! Protected Resource Metadata before it starts (the suite's server is the
//! one party here that knows it).
//!
//! ```text
//! conformance client --requirements 2026-07-28 \
//!     --command "target/debug/examples/conformance_client" --scenario tools_call
//! ```

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::sync::Arc;

use mcp_host::approval::{ApproveAll, Gate, Policy};
use mcp_host::auth::{
    AssertionKey, AuthError, EnterpriseSettings, Grant, Login, LoginPrompt, MemoryStore,
    OAuthClient, OAuthSettings, Redirect, Secret, TokenSource,
};
use mcp_host::client::{CallOptions, Client, ClientOptions, InputHandler, Target};
use mcp_host::untrusted::Untrusted;
use mcp_host::{BoxFuture, ServerId};
use mcp_types::v2026_07_28::{
    ClientCapabilities, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams,
    ElicitResult, ListRootsResult,
};
use mcp_types::version::{Era, ProtocolVersion};
use serde_json::{json, Map, Value};

/// Answers everything: accepts forms with made-up values, samples a fixed
/// text, lists one root.
struct Agreeable;

impl InputHandler for Agreeable {
    fn capabilities(&self) -> ClientCapabilities {
        serde_json::from_value(
            json!({"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}}),
        )
        .unwrap_or_default()
    }

    fn elicit<'a>(
        &'a self,
        request: Untrusted<ElicitRequestParams>,
    ) -> BoxFuture<'a, ElicitResult> {
        let content = match request.accept() {
            ElicitRequestParams::Form(form) => {
                let schema = serde_json::to_value(&form.requested_schema).unwrap_or_default();
                // Form answers hold integers, not fractions (the schema of
                // `ElicitResult` says so): round what a default made.
                let mut content = arguments_for(&schema, true);
                for value in content.values_mut() {
                    if let Some(n) = value.as_f64().filter(|_| !value.is_i64()) {
                        *value = json!(n.round() as i64);
                    }
                }
                Some(content)
            }
            ElicitRequestParams::URL(_) => None,
        };
        let answer = json!({"action": "accept", "content": content});
        Box::pin(async move {
            serde_json::from_value(answer).unwrap_or_else(|_| mcp_host::client::input::declined())
        })
    }

    fn sample<'a>(
        &'a self,
        _: Untrusted<CreateMessageRequestParams>,
    ) -> BoxFuture<'a, Result<CreateMessageResult, String>> {
        Box::pin(async {
            serde_json::from_value(json!({"role": "assistant", "model": "conformance",
                "content": {"type": "text", "text": "Paris"}}))
            .map_err(|e| e.to_string())
        })
    }

    fn roots<'a>(&'a self, _: &'a ServerId) -> BoxFuture<'a, ListRootsResult> {
        Box::pin(async {
            serde_json::from_value(json!({"roots": [{"uri": "file:///tmp", "name": "tmp"}]}))
                .unwrap_or(ListRootsResult {
                    roots: Vec::new(),
                    extra: Map::new(),
                })
        })
    }
}

/// A value for a property schema.
fn value_for(schema: &Value) -> Value {
    if let Some(first) = schema
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return first.clone();
    }
    if let Some(value) = schema.get("const").or_else(|| schema.get("default")) {
        return value.clone();
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("integer") => json!(1),
        Some("number") => json!(1.5),
        Some("boolean") => json!(true),
        Some("array") => json!([]),
        Some("object") => Value::Object(arguments_for(schema, false)),
        _ => json!("test"),
    }
}

/// Arguments for an object schema: its required properties, or all of them.
fn arguments_for(schema: &Value, all: bool) -> Map<String, Value> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut arguments = Map::new();
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        for (name, property) in properties {
            if all || required.contains(&name.as_str()) {
                arguments.insert(name.clone(), value_for(property));
            }
        }
    }
    arguments
}

/// The client metadata document URL the suite expects of clients that
/// use one.
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// Plays the person at the suite's authorization server, which redirects
/// at once.
#[derive(Debug)]
struct Headless;

struct HeadlessRedirect;

impl Login for Headless {
    fn prepare<'a>(
        &'a self,
        _registered: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Box<dyn Redirect>, AuthError>> {
        Box::pin(async { Ok(Box::new(HeadlessRedirect) as Box<dyn Redirect>) })
    }
}

impl Redirect for HeadlessRedirect {
    fn uri(&self) -> &str {
        "http://localhost:3000/callback"
    }

    fn wait(
        self: Box<Self>,
        prompt: LoginPrompt,
    ) -> BoxFuture<'static, Result<reqwest::Url, AuthError>> {
        Box::pin(async move {
            let failed = |e: String| AuthError::Login(e);
            let client = reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .map_err(|e| failed(e.to_string()))?;
            let response = client
                .get(prompt.url.clone())
                .send()
                .await
                .map_err(|e| failed(e.to_string()))?;
            let location = response
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|l| l.to_str().ok())
                .ok_or_else(|| failed(format!("no redirect ({})", response.status())))?;
            prompt.url.join(location).map_err(|e| failed(e.to_string()))
        })
    }
}

/// The issuer that the scenario's server at `url` names: the first
/// authorization server of its Protected Resource Metadata, found from its
/// challenge or at the well-known URLs, else its origin (the 2025-03-26
/// fallback).
async fn scenario_issuer(url: &str) -> Option<String> {
    use mcp_host::auth::discovery;
    let server = reqwest::Url::parse(url).ok()?;
    let http = reqwest::Client::new();
    let challenge = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(r#"{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{}}"#)
        .send()
        .await
        .ok()
        .and_then(|r| {
            let values: Vec<String> = r
                .headers()
                .get_all("www-authenticate")
                .iter()
                .filter_map(|v| v.to_str().ok().map(str::to_owned))
                .collect();
            mcp_host::auth::BearerChallenge::from_headers(values.iter().map(String::as_str))
        })
        .and_then(|c| c.resource_metadata)
        .and_then(|u| reqwest::Url::parse(&u).ok());
    for candidate in discovery::resource_metadata_urls(&server, challenge) {
        let Ok(response) = http.get(candidate).send().await else {
            continue;
        };
        if !response.status().is_success() {
            continue;
        }
        let document: Value = serde_json::from_str(&response.text().await.ok()?).ok()?;
        return document["authorization_servers"][0]
            .as_str()
            .map(str::to_owned);
    }
    Some(discovery::fallback_issuer(&server))
}

/// The OAuth client for the scenario at `url`.
async fn oauth(url: &str, context: &Value) -> Result<OAuthClient, AuthError> {
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let text = |key: &str| context.get(key).and_then(Value::as_str).map(str::to_owned);
    let assertion_key = match (text("private_key_pem"), text("signing_algorithm")) {
        (Some(pem), algorithm) => Some(Arc::new(AssertionKey::from_pem(
            &pem,
            algorithm.as_deref().unwrap_or("ES256"),
        )?)),
        (None, _) => None,
    };
    let client_secret = text("client_secret");
    // The workload identity scenario hands over a workload token, the
    // enterprise one the person's ID token and the identity provider.
    let assertion = text("valid_jwt").map(|jwt| TokenSource::Inline(Secret::new(jwt)));
    let enterprise = match (
        text("idp_token_endpoint"),
        text("idp_client_id"),
        text("idp_id_token"),
    ) {
        (Some(token_endpoint), Some(client_id), Some(id_token)) => Some(EnterpriseSettings {
            token_endpoint,
            client_id,
            client_secret: None,
            id_token: TokenSource::Inline(Secret::new(id_token)),
        }),
        _ => None,
    };
    let issuer = if client_secret.is_some()
        || assertion_key.is_some()
        || assertion.is_some()
        || enterprise.is_some()
    {
        scenario_issuer(url).await
    } else {
        None
    };
    let settings = OAuthSettings {
        client_id: text("client_id"),
        issuer,
        client_secret: client_secret.map(Into::into),
        assertion_key,
        client_metadata_url: Some(CLIENT_METADATA_URL.to_owned()),
        grant: if scenario.starts_with("auth/client-credentials") {
            Grant::ClientCredentials
        } else if enterprise.is_some() {
            Grant::Enterprise
        } else if assertion.is_some() {
            Grant::JwtBearer
        } else {
            Grant::AuthorizationCode
        },
        assertion,
        enterprise,
        client_name: String::from("mcp-host conformance client"),
        // The 2025-03-26 scenarios test that revision's endpoint
        // fallback, which a person turns on per server.
        legacy_endpoint_fallback: scenario.contains("2025-03-26"),
        ..OAuthSettings::default()
    };
    OAuthClient::new(
        "conformance",
        url,
        settings,
        Arc::new(MemoryStore::new()),
        Some(Arc::new(Headless)),
    )
}

fn context() -> Value {
    std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or_default()
}

async fn call(client: &Client, name: &str, arguments: Map<String, Value>) {
    let gate = Gate::new(Policy::default(), Arc::new(ApproveAll));
    let outcome = async {
        let call = client.prepare_call(name, arguments).await?;
        let approval = gate.authorize(&call).await?;
        client
            .call_tool(call, approval, &CallOptions::default())
            .await
    }
    .await;
    match outcome {
        Ok(result) => println!("tool {name}: {}", result.render()),
        Err(e) => eprintln!("tool {name}: {e}"),
    }
}

async fn exercise(client: &Client) {
    let context = context();
    let tools = match client.list_tools().await {
        Ok(list) => {
            for excluded in &list.excluded {
                eprintln!(
                    "dropped tool {}: {}",
                    excluded.name.render(),
                    excluded.error
                );
            }
            list.tools
        }
        Err(e) => {
            eprintln!("tools/list: {e}");
            Vec::new()
        }
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    if scenario == "json-schema-2020-12-preservation" {
        // The focal tool's schema, as the host keeps it, echoed back
        // verbatim: every keyword must have survived.
        let focal = tools
            .iter()
            .map(|tool| tool.accept_ref())
            .find(|tool| tool.name == "json_schema_2020_12_tool");
        if let Some(focal) = focal {
            let schema = serde_json::to_value(&focal.input_schema).unwrap_or_default();
            let arguments = Map::from_iter([(String::from("schema"), schema)]);
            call(client, "json_schema_echo", arguments).await;
        }
        return;
    }
    if let Some(calls) = context.get("toolCalls").and_then(Value::as_array) {
        for planned in calls {
            let name = planned["name"].as_str().unwrap_or_default();
            // A `null` in the plan stands for an argument not given: the
            // host checks arguments against the tool's schema before it
            // asks for approval, and `null` is not a value of the typed
            // properties the suite marks this way.
            let arguments = planned["arguments"]
                .as_object()
                .map(|arguments| {
                    arguments
                        .iter()
                        .filter(|(_, value)| !value.is_null())
                        .map(|(key, value)| (key.clone(), value.clone()))
                        .collect()
                })
                .unwrap_or_default();
            call(client, name, arguments).await;
        }
    } else {
        for tool in &tools {
            let tool = tool.accept_ref();
            let schema = serde_json::to_value(&tool.input_schema).unwrap_or_default();
            call(client, &tool.name, arguments_for(&schema, false)).await;
        }
    }
    if let Ok(prompts) = client.list_prompts().await {
        for prompt in prompts {
            let prompt = prompt.accept();
            let arguments: BTreeMap<String, String> = prompt
                .arguments
                .unwrap_or_default()
                .into_iter()
                .map(|a| (a.name, String::from("test")))
                .collect();
            if let Err(e) = client.get_prompt(&prompt.name, arguments).await {
                eprintln!("prompt {}: {e}", prompt.name);
            }
        }
    }
    if let Ok(resources) = client.list_resources().await {
        for resource in resources {
            let uri = resource.accept().uri;
            if let Err(e) = client.read_resource(&uri).await {
                eprintln!("resource {uri}: {e}");
            }
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let Some(url) = std::env::args().nth(1) else {
        eprintln!("usage: conformance_client URL");
        return ExitCode::from(2);
    };
    let requested = std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION")
        .ok()
        .map(|v| ProtocolVersion::parse(&v));
    let oauth = match oauth(&url, &context()).await {
        Ok(oauth) => oauth,
        Err(e) => {
            eprintln!("oauth: {e}");
            return ExitCode::FAILURE;
        }
    };
    let options = ClientOptions {
        force_legacy: requested.as_ref().and_then(ProtocolVersion::era) == Some(Era::Legacy),
        oauth: Some(Arc::new(oauth)),
        ..ClientOptions::default()
    };
    let id = ServerId::new("conformance").unwrap_or_else(|_| unreachable!("a valid id"));
    let target = Target::Http {
        url,
        headers: Vec::new(),
    };
    let client = match Client::connect(id, target, Arc::new(Agreeable), options, None).await {
        Ok(client) => client,
        Err(e) => {
            eprintln!("connect: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(session) = client.session() {
        eprintln!("connected: {:?} {}", session.era, session.version);
    }
    exercise(&client).await;
    client.shutdown().await;
    ExitCode::SUCCESS
}
