//! Typed clients: the runtime of the code `mcp-gen client` generates from a
//! server's tool list.
//!
//! A generated module holds, per tool, an `Arguments` type (with a
//! constructor that takes the required fields), an `Output` type (from the
//! tool's output schema, or its [`Content`] when it has none) and a marker
//! implementing [`Tool`], whose [`Definition`] carries the digests of the
//! tool as generated. Its client type wraps a [`TypedClient`], which does
//! the work:
//!
//! 1. [`TypedClient::prepare`] compares the tool's digests with the
//!    server's live definition (listed on first use, and once more before
//!    reporting drift). A tool gone or with another shape is a [`Drift`]
//!    error and nothing is sent; a change of descriptions only is one too,
//!    unless the client [accepts those](TypedClient::accept_description_changes).
//!    Then it encodes the arguments and prepares an ordinary [`ToolCall`].
//! 2. The host's gate authorizes that call, as any other: a typed call
//!    needs an [`Approval`] like an untyped one.
//! 3. [`TypedClient::call`] sends it and decodes the result: `isError` is
//!    [`TypedError::Tool`], `structuredContent` is validated against the
//!    output schema and decoded, and anything that does not fit is
//!    [`TypedError::Output`]. The output stays [`Untrusted`]: well-formed
//!    is not the same as trustworthy.
//!
//! ```no_run
//! use std::sync::Arc;
//!
//! use mcp_host::approval::{ApproveAll, Gate, Policy};
//! use mcp_host::client::CallOptions;
//! use mcp_host::typed::{Definition, Tool, TypedClient};
//!
//! // What `mcp-gen client` writes for each tool, in short.
//! struct Add;
//! #[derive(serde::Serialize)]
//! struct AddArguments { a: i64, b: i64 }
//! impl Tool for Add {
//!     type Arguments = AddArguments;
//!     type Output = serde_json::Value;
//!     const DEFINITION: Definition = Definition {
//!         name: "add",
//!         digest: "…",
//!         shape_digest: "…",
//!         output_schema: Some(r#"{"type": "object"}"#),
//!     };
//! }
//!
//! # async fn run(client: Arc<mcp_host::Client>) -> Result<(), Box<dyn std::error::Error>> {
//! let typed = TypedClient::new(client).accept_description_changes(true);
//! let prepared = typed.prepare::<Add>(AddArguments { a: 1, b: 2 }).await?;
//! let gate = Gate::new(Policy::default(), Arc::new(ApproveAll));
//! let approval = gate.authorize(prepared.call()).await?;
//! let sum = typed.call(prepared, approval, &CallOptions::default()).await?;
//! println!("{}", sum.render());
//! # Ok(())
//! # }
//! ```

mod error;
mod output;

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex};

use mcp_types::v2026_07_28::Tool as ToolDefinition;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

pub use error::{Drift, TypedError};
pub use mcp_types::v2026_07_28::ContentBlock;

use crate::approval::{Approval, ToolCall};
use crate::client::{CallOptions, Client, ClientError, ToolList};
use crate::digest::ToolDigests;
use crate::names::ServerId;
use crate::untrusted::Untrusted;
use crate::Host;

/// The output of a tool that declares no output schema: its content blocks.
pub type Content = Vec<ContentBlock>;

/// A tool as it was generated: its name, its digests
/// ([`crate::digest::tool`]) and its output schema as JSON text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Definition {
    /// The tool's name on its server.
    pub name: &'static str,
    /// The digest of the whole definition.
    pub digest: &'static str,
    /// The digest of the definition without its titles and descriptions.
    pub shape_digest: &'static str,
    /// The output schema, when the tool has one.
    pub output_schema: Option<&'static str>,
}

/// A tool a typed client can call; `mcp-gen client` implements it for each
/// tool of a list.
pub trait Tool: 'static {
    /// The arguments, encoded as the call's `arguments` object.
    type Arguments: Serialize;
    /// The decoded result.
    type Output: DeserializeOwned;
    /// The tool as generated.
    const DEFINITION: Definition;
}

/// A typed call ready for the gate: authorize [`Prepared::call`], then send
/// it with [`TypedClient::call`]. Only [`TypedClient::prepare`] makes one.
pub struct Prepared<T> {
    call: ToolCall,
    tool: PhantomData<fn() -> T>,
}

impl<T> Prepared<T> {
    /// The call, for the gate to decide on.
    pub fn call(&self) -> &ToolCall {
        &self.call
    }
}

impl<T> fmt::Debug for Prepared<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Prepared")
            .field("call", &self.call)
            .finish()
    }
}

/// Where calls go: one client, or one server of a host.
#[derive(Clone)]
enum Backend {
    Client(Arc<Client>),
    Host { host: Arc<Host>, server: ServerId },
}

#[derive(Default)]
struct State {
    /// The server's tools by name, as last listed.
    live: Mutex<Option<Arc<BTreeMap<String, ToolDigests>>>>,
    /// Compiled output schemas by tool name.
    validators: Mutex<HashMap<&'static str, Arc<jsonschema::Validator>>>,
}

/// Typed calls over a [`Client`] or one server of a [`Host`]; see the
/// module docs.
#[derive(Clone)]
pub struct TypedClient {
    backend: Backend,
    accept_descriptions: bool,
    state: Arc<State>,
}

impl fmt::Debug for TypedClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let target = match &self.backend {
            Backend::Client(client) => client.id(),
            Backend::Host { server, .. } => server,
        };
        f.debug_struct("TypedClient")
            .field("server", target)
            .field("accept_descriptions", &self.accept_descriptions)
            .finish_non_exhaustive()
    }
}

impl TypedClient {
    /// Typed calls over `client`.
    pub fn new(client: Arc<Client>) -> Self {
        Self::with(Backend::Client(client))
    }

    /// Typed calls of the server `server` of `host`, through the host (its
    /// restarts, its catalogue).
    pub fn on_host(host: Arc<Host>, server: ServerId) -> Self {
        Self::with(Backend::Host { host, server })
    }

    fn with(backend: Backend) -> Self {
        Self {
            backend,
            accept_descriptions: false,
            state: Arc::default(),
        }
    }

    /// Whether calls go ahead when only a tool's titles or descriptions
    /// changed since generation (default `false`: any drift stops a call).
    #[must_use]
    pub fn accept_description_changes(mut self, accept: bool) -> Self {
        self.accept_descriptions = accept;
        self
    }

    /// Lists the server's tools afresh and returns how each of
    /// `definitions` drifted, if it did.
    ///
    /// # Errors
    /// When the tools cannot be listed.
    pub async fn check(&self, definitions: &[Definition]) -> Result<Vec<Drift>, TypedError> {
        let live = self.live(true).await?;
        Ok(definitions.iter().filter_map(|d| drift(d, &live)).collect())
    }

    /// Checks `T` against the server's live definition and prepares a call
    /// of it with `arguments`.
    ///
    /// # Errors
    /// [`TypedError::Drift`] when the tool is gone or changed (see
    /// [`TypedClient::accept_description_changes`]),
    /// [`TypedError::Arguments`] when the arguments do not encode as an
    /// object, and the errors of listing the tools.
    pub async fn prepare<T: Tool>(
        &self,
        arguments: T::Arguments,
    ) -> Result<Prepared<T>, TypedError> {
        let definition = T::DEFINITION;
        let mut found = drift(&definition, &*self.live(false).await?);
        if found.is_some() {
            // The list may be older than the server: look again first.
            found = drift(&definition, &*self.live(true).await?);
        }
        match found {
            None => {}
            Some(Drift::DescriptionsChanged { .. }) if self.accept_descriptions => {}
            Some(drift) => return Err(drift.into()),
        }
        let arguments = match serde_json::to_value(&arguments) {
            Ok(Value::Object(map)) => map,
            Ok(other) => {
                return Err(TypedError::Arguments {
                    tool: definition.name.to_owned(),
                    reason: format!("they encode as {}", kind(&other)),
                })
            }
            Err(e) => {
                return Err(TypedError::Arguments {
                    tool: definition.name.to_owned(),
                    reason: e.to_string(),
                })
            }
        };
        let call = match &self.backend {
            Backend::Client(client) => client.prepare_call(definition.name, arguments).await?,
            Backend::Host { host, server } => {
                let qualified = host
                    .tools()
                    .into_iter()
                    .find(|t| &t.server == server && t.tool.accept_ref().name == definition.name)
                    .map(|t| t.qualified)
                    .ok_or_else(|| Drift::Gone {
                        tool: definition.name.to_owned(),
                    })?;
                host.prepare(&qualified, arguments).await?
            }
        };
        Ok(Prepared {
            call,
            tool: PhantomData,
        })
    }

    /// Sends an approved call and decodes its result.
    ///
    /// # Errors
    /// [`TypedError::Protocol`] when the call fails on the way (an approval
    /// for another call included), [`TypedError::Tool`] when the tool
    /// reports an error, and [`TypedError::Output`] when its result does not
    /// match the output schema or the output type.
    pub async fn call<T: Tool>(
        &self,
        prepared: Prepared<T>,
        approval: Approval,
        options: &CallOptions,
    ) -> Result<Untrusted<T::Output>, TypedError> {
        let validator = self.validator(&T::DEFINITION)?;
        let result = match &self.backend {
            Backend::Client(client) => client.call_tool(prepared.call, approval, options).await?,
            Backend::Host { host, server } => {
                if prepared.call.server() != server {
                    return Err(ClientError::ApprovalMismatch.into());
                }
                host.call_tool(prepared.call, approval, options).await?
            }
        };
        output::decode::<T>(result, validator.as_deref())
    }

    /// The server's tools by name: as last listed, or listed now.
    async fn live(&self, fresh: bool) -> Result<Arc<BTreeMap<String, ToolDigests>>, TypedError> {
        if !fresh {
            if let Some(live) = self.state.live.lock().ok().and_then(|l| l.clone()) {
                return Ok(live);
            }
        }
        let tools = match &self.backend {
            Backend::Client(client) => client.list_tools().await?.tools,
            Backend::Host { host, server } => {
                if fresh {
                    host.refresh().await;
                }
                host.tools()
                    .into_iter()
                    .filter(|t| &t.server == server)
                    .map(|t| t.tool)
                    .collect()
            }
        };
        let live: BTreeMap<String, ToolDigests> = tools
            .iter()
            .map(|tool| {
                let tool = tool.accept_ref();
                let value = serde_json::to_value(tool).unwrap_or(Value::Null);
                (tool.name.clone(), crate::digest::tool(&value))
            })
            .collect();
        let live = Arc::new(live);
        if let Ok(mut slot) = self.state.live.lock() {
            *slot = Some(live.clone());
        }
        Ok(live)
    }

    /// The compiled output schema of `definition`, compiled once.
    fn validator(
        &self,
        definition: &Definition,
    ) -> Result<Option<Arc<jsonschema::Validator>>, TypedError> {
        let Some(schema) = definition.output_schema else {
            return Ok(None);
        };
        if let Some(v) = self
            .state
            .validators
            .lock()
            .ok()
            .and_then(|v| v.get(definition.name).cloned())
        {
            return Ok(Some(v));
        }
        let unusable = |reason: String| TypedError::Output {
            tool: definition.name.to_owned(),
            reason: format!("its output schema cannot be used: {reason}"),
            value: Box::new(Untrusted::new(self.server().clone(), Value::Null)),
        };
        let schema: Value = serde_json::from_str(schema).map_err(|e| unusable(e.to_string()))?;
        let validator =
            Arc::new(jsonschema::validator_for(&schema).map_err(|e| unusable(e.to_string()))?);
        if let Ok(mut cache) = self.state.validators.lock() {
            cache.insert(definition.name, validator.clone());
        }
        Ok(Some(validator))
    }

    fn server(&self) -> &ServerId {
        match &self.backend {
            Backend::Client(client) => client.id(),
            Backend::Host { server, .. } => server,
        }
    }
}

/// How `definition` differs from the live tools, if it does.
fn drift(definition: &Definition, live: &BTreeMap<String, ToolDigests>) -> Option<Drift> {
    let tool = definition.name.to_owned();
    match live.get(definition.name) {
        None => Some(Drift::Gone { tool }),
        Some(found) if found.shape != definition.shape_digest => Some(Drift::SchemaChanged {
            tool,
            expected: definition.shape_digest.to_owned(),
            found: found.shape.clone(),
        }),
        Some(found) if found.definition != definition.digest => {
            Some(Drift::DescriptionsChanged { tool })
        }
        Some(_) => None,
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A tool list as `mcp-gen client --tools` reads it, `{"tools": [...]}`,
/// from what a client listed: the input of a typed client, taken from a
/// live server (`mcp-host snapshot`).
pub fn snapshot(list: &ToolList) -> Value {
    let tools: Vec<&ToolDefinition> = list.tools.iter().map(Untrusted::accept_ref).collect();
    json!({ "tools": tools })
}
