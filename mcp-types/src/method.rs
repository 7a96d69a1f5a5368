//! The typed method table of both eras.
//!
//! Every request, notification and embedded input request of the two
//! schemas implements one of the traits below on its generated struct, so
//! that generic code can go from a message type to its method name, its
//! parameter type and its answer type:
//!
//! ```
//! use mcp_types::method::Request;
//! use mcp_types::v2026_07_28::{CallToolRequest, ListToolsRequest};
//!
//! fn method_of<R: Request>() -> &'static str {
//!     R::METHOD
//! }
//! assert_eq!(method_of::<CallToolRequest>(), "tools/call");
//! assert_eq!(method_of::<ListToolsRequest>(), "tools/list");
//! ```
//!
//! In 2026-07-28 only `tools/call`, `prompts/get` and `resources/read` may
//! answer with an [`InputRequiredResult`](crate::v2026_07_28::InputRequiredResult).
//! Those three, and no others, implement [`InputRequiredCapable`], and their
//! [`Request::Result`] is [`MaybeInputRequired`] of their own result; every
//! other method's result is the plain result type.
//!
//! The same facts are also available as data, in [`V2026_07_28`] and
//! [`V2025_11_25`], for code that routes on method names at run time; with
//! the feature `apps`, `APPS` lists the MCP Apps extension's view ⇄ host
//! methods the same way.
//!
//! Two legacy details the types do not capture: a 2025-11-25 request
//! augmented with `task` is answered by `CreateTaskResult` instead of its
//! usual result, and `tasks/result` answers with the result of the original
//! request.

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::result::MaybeInputRequired;
#[cfg(feature = "v2025-11-25")]
use crate::v2025_11_25;
use crate::v2026_07_28;

/// A JSON-RPC request, answered by a response.
pub trait Request: Serialize + DeserializeOwned {
    /// The `method` string.
    const METHOD: &'static str;
    /// The type of `params`.
    type Params: Serialize + DeserializeOwned;
    /// The type of the `result` of a successful response.
    type Result: Serialize + DeserializeOwned;
}

/// A 2026-07-28 request that may answer with an `InputRequiredResult`:
/// `tools/call`, `prompts/get` and `resources/read`.
pub trait InputRequiredCapable:
    Request<Result = MaybeInputRequired<<Self as InputRequiredCapable>::Complete>>
{
    /// The result of the method once no more input is needed.
    type Complete: Serialize + DeserializeOwned;
}

/// A JSON-RPC notification, never answered.
pub trait Notification: Serialize + DeserializeOwned {
    /// The `method` string.
    const METHOD: &'static str;
    /// The type of `params`.
    type Params: Serialize + DeserializeOwned;
}

/// A 2026-07-28 input request: not a JSON-RPC message (it has neither
/// `jsonrpc` nor `id`) but a value inside `InputRequiredResult.inputRequests`,
/// answered by a value inside the retry's `inputResponses`.
pub trait InputRequest: Serialize + DeserializeOwned {
    /// The `method` string.
    const METHOD: &'static str;
    /// The type of `params`.
    type Params: Serialize + DeserializeOwned;
    /// The type of the answer the client puts in `inputResponses`.
    type Response: Serialize + DeserializeOwned;
}

/// What kind of message a method names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MethodKind {
    /// A JSON-RPC request.
    Request,
    /// A JSON-RPC notification.
    Notification,
    /// An input request embedded in an `InputRequiredResult` (2026-07-28).
    InputRequest,
}

/// Who sends a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Sent by the client to the server.
    ClientToServer,
    /// Sent by the server to the client. In 2026-07-28 this covers the
    /// embedded input requests, which the server asks for inside a result.
    ServerToClient,
    /// Sent by either side.
    Both,
}

impl Direction {
    /// Whether a client may send this message.
    pub fn client_sends(self) -> bool {
        matches!(self, Self::ClientToServer | Self::Both)
    }

    /// Whether a server may send this message.
    pub fn server_sends(self) -> bool {
        matches!(self, Self::ServerToClient | Self::Both)
    }
}

/// One row of a method table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MethodEntry {
    /// The `method` string.
    pub method: &'static str,
    /// The kind of message.
    pub kind: MethodKind,
    /// Who sends it.
    pub direction: Direction,
    /// The name of the message type in the era's module.
    pub type_name: &'static str,
    /// The name of the params type in the era's module.
    pub params: &'static str,
    /// The name of the answer type (for input-capable requests, the
    /// complete result); `None` for notifications.
    pub result: Option<&'static str>,
    /// Whether the method may answer with an `InputRequiredResult`.
    pub input_required: bool,
}

/// The entry for `method` of the given kind in `table`, which is one of
/// [`V2026_07_28`] and [`V2025_11_25`].
pub fn find(
    table: &'static [MethodEntry],
    kind: MethodKind,
    method: &str,
) -> Option<&'static MethodEntry> {
    table.iter().find(|e| e.kind == kind && e.method == method)
}

/// Whether a 2026-07-28 request method may answer with an
/// `InputRequiredResult`.
pub fn may_require_input(method: &str) -> bool {
    find(V2026_07_28, MethodKind::Request, method).is_some_and(|e| e.input_required)
}

/// Decodes a value as `T` and encodes it again; the unit tests run it over
/// the corpus for every type the tables name.
#[cfg(test)]
fn round_trip<T: Serialize + DeserializeOwned>(
    value: serde_json::Value,
) -> Result<serde_json::Value, serde_json::Error> {
    serde_json::to_value(serde_json::from_value::<T>(value)?)
}

/// A type name and the round trip through that type.
#[cfg(test)]
type RoundTrip = (
    &'static str,
    fn(serde_json::Value) -> Result<serde_json::Value, serde_json::Error>,
);

/// Implements the traits for one era and lists its methods as data.
macro_rules! method_table {
    (
        $(#[$doc:meta])*
        $table:ident, checks $checks:ident in $era:ident {
            requests {
                $( $req:ident: $req_method:literal, $req_dir:ident => $req_params:ident, $req_result:ident; )*
            }
            input_required_requests {
                $( $mreq:ident: $mreq_method:literal, $mreq_dir:ident => $mreq_params:ident, $mreq_result:ident; )*
            }
            notifications {
                $( $note:ident: $note_method:literal, $note_dir:ident => $note_params:ident; )*
            }
            input_requests {
                $( $input:ident: $input_method:literal => $input_params:ident, $input_response:ident; )*
            }
        }
    ) => {
        $(
            impl Request for $era::$req {
                const METHOD: &'static str = $req_method;
                type Params = $era::$req_params;
                type Result = $era::$req_result;
            }
        )*
        $(
            impl Request for $era::$mreq {
                const METHOD: &'static str = $mreq_method;
                type Params = $era::$mreq_params;
                type Result = MaybeInputRequired<$era::$mreq_result>;
            }

            impl InputRequiredCapable for $era::$mreq {
                type Complete = $era::$mreq_result;
            }
        )*
        $(
            impl Notification for $era::$note {
                const METHOD: &'static str = $note_method;
                type Params = $era::$note_params;
            }
        )*
        $(
            impl InputRequest for $era::$input {
                const METHOD: &'static str = $input_method;
                type Params = $era::$input_params;
                type Response = $era::$input_response;
            }
        )*

        $(#[$doc])*
        pub const $table: &[MethodEntry] = &[
            $(
                MethodEntry {
                    method: $req_method,
                    kind: MethodKind::Request,
                    direction: Direction::$req_dir,
                    type_name: stringify!($req),
                    params: stringify!($req_params),
                    result: Some(stringify!($req_result)),
                    input_required: false,
                },
            )*
            $(
                MethodEntry {
                    method: $mreq_method,
                    kind: MethodKind::Request,
                    direction: Direction::$mreq_dir,
                    type_name: stringify!($mreq),
                    params: stringify!($mreq_params),
                    result: Some(stringify!($mreq_result)),
                    input_required: true,
                },
            )*
            $(
                MethodEntry {
                    method: $note_method,
                    kind: MethodKind::Notification,
                    direction: Direction::$note_dir,
                    type_name: stringify!($note),
                    params: stringify!($note_params),
                    result: None,
                    input_required: false,
                },
            )*
            $(
                MethodEntry {
                    method: $input_method,
                    kind: MethodKind::InputRequest,
                    direction: Direction::ServerToClient,
                    type_name: stringify!($input),
                    params: stringify!($input_params),
                    result: Some(stringify!($input_response)),
                    input_required: false,
                },
            )*
        ];

        /// Every type the table names, for the round-trip tests.
        #[cfg(test)]
        const $checks: &[RoundTrip] = &[
            $(
                (stringify!($req), round_trip::<$era::$req>),
                (stringify!($req_params), round_trip::<$era::$req_params>),
                (stringify!($req_result), round_trip::<$era::$req_result>),
            )*
            $(
                (stringify!($mreq), round_trip::<$era::$mreq>),
                (stringify!($mreq_params), round_trip::<$era::$mreq_params>),
                (stringify!($mreq_result), round_trip::<$era::$mreq_result>),
            )*
            $(
                (stringify!($note), round_trip::<$era::$note>),
                (stringify!($note_params), round_trip::<$era::$note_params>),
            )*
            $(
                (stringify!($input), round_trip::<$era::$input>),
                (stringify!($input_params), round_trip::<$era::$input_params>),
                (stringify!($input_response), round_trip::<$era::$input_response>),
            )*
        ];
    };
}

method_table! {
    /// Every method of 2026-07-28.
    V2026_07_28, checks CHECKS_2026_07_28 in v2026_07_28 {
        requests {
            DiscoverRequest: "server/discover", ClientToServer => RequestParams, DiscoverResult;
            ListToolsRequest: "tools/list", ClientToServer => PaginatedRequestParams, ListToolsResult;
            ListPromptsRequest: "prompts/list", ClientToServer => PaginatedRequestParams, ListPromptsResult;
            ListResourcesRequest: "resources/list", ClientToServer => PaginatedRequestParams, ListResourcesResult;
            ListResourceTemplatesRequest: "resources/templates/list", ClientToServer => PaginatedRequestParams, ListResourceTemplatesResult;
            SubscriptionsListenRequest: "subscriptions/listen", ClientToServer => SubscriptionsListenRequestParams, SubscriptionsListenResult;
            CompleteRequest: "completion/complete", ClientToServer => CompleteRequestParams, CompleteResult;
        }
        input_required_requests {
            CallToolRequest: "tools/call", ClientToServer => CallToolRequestParams, CallToolResult;
            GetPromptRequest: "prompts/get", ClientToServer => GetPromptRequestParams, GetPromptResult;
            ReadResourceRequest: "resources/read", ClientToServer => ReadResourceRequestParams, ReadResourceResult;
        }
        notifications {
            CancelledNotification: "notifications/cancelled", Both => CancelledNotificationParams;
            ProgressNotification: "notifications/progress", ServerToClient => ProgressNotificationParams;
            LoggingMessageNotification: "notifications/message", ServerToClient => LoggingMessageNotificationParams;
            SubscriptionsAcknowledgedNotification: "notifications/subscriptions/acknowledged", ServerToClient => SubscriptionsAcknowledgedNotificationParams;
            ToolListChangedNotification: "notifications/tools/list_changed", ServerToClient => NotificationParams;
            PromptListChangedNotification: "notifications/prompts/list_changed", ServerToClient => NotificationParams;
            ResourceListChangedNotification: "notifications/resources/list_changed", ServerToClient => NotificationParams;
            ResourceUpdatedNotification: "notifications/resources/updated", ServerToClient => ResourceUpdatedNotificationParams;
        }
        input_requests {
            ElicitRequest: "elicitation/create" => ElicitRequestParams, ElicitResult;
            CreateMessageRequest: "sampling/createMessage" => CreateMessageRequestParams, CreateMessageResult;
            ListRootsRequest: "roots/list" => ListRootsRequestParams, ListRootsResult;
        }
    }
}

/// The MCP Apps extension's types and the one answer type its schema does
/// not name, as one module for the table below.
#[cfg(feature = "apps")]
mod apps {
    pub use crate::ext::apps::*;
    pub use crate::ext::apps_rules::McpUiUpdateModelContextResult;
}

#[cfg(feature = "apps")]
method_table! {
    /// Every method of the MCP Apps extension (feature `apps`), between a
    /// view and its host over `postMessage`. The view acts as the client:
    /// [`Direction::ClientToServer`] is view to host (and sandbox proxy to
    /// host). The types are in [`ext::apps`](crate::ext::apps), but for
    /// [`McpUiUpdateModelContextResult`](crate::ext::apps_rules::McpUiUpdateModelContextResult).
    /// The schema's message types hold `method` and `params` only: decode
    /// the envelope with [`Message`](crate::Message) first.
    APPS, checks CHECKS_APPS in apps {
        requests {
            McpUiInitializeRequest: "ui/initialize", ClientToServer => McpUiInitializeRequestParams, McpUiInitializeResult;
            McpUiOpenLinkRequest: "ui/open-link", ClientToServer => McpUiOpenLinkRequestParams, McpUiOpenLinkResult;
            McpUiMessageRequest: "ui/message", ClientToServer => McpUiMessageRequestParams, McpUiMessageResult;
            McpUiUpdateModelContextRequest: "ui/update-model-context", ClientToServer => McpUiUpdateModelContextRequestParams, McpUiUpdateModelContextResult;
            McpUiRequestDisplayModeRequest: "ui/request-display-mode", ClientToServer => McpUiRequestDisplayModeRequestParams, McpUiRequestDisplayModeResult;
            McpUiDownloadFileRequest: "ui/download-file", ClientToServer => McpUiDownloadFileRequestParams, McpUiDownloadFileResult;
            McpUiResourceTeardownRequest: "ui/resource-teardown", ServerToClient => McpUiResourceTeardownRequestParams, McpUiResourceTeardownResult;
        }
        input_required_requests {}
        notifications {
            McpUiInitializedNotification: "ui/notifications/initialized", ClientToServer => McpUiInitializedNotificationParams;
            McpUiSizeChangedNotification: "ui/notifications/size-changed", ClientToServer => McpUiSizeChangedNotificationParams;
            McpUiRequestTeardownNotification: "ui/notifications/request-teardown", ClientToServer => McpUiRequestTeardownNotificationParams;
            McpUiSandboxProxyReadyNotification: "ui/notifications/sandbox-proxy-ready", ClientToServer => McpUiSandboxProxyReadyNotificationParams;
            McpUiSandboxResourceReadyNotification: "ui/notifications/sandbox-resource-ready", ServerToClient => McpUiSandboxResourceReadyNotificationParams;
            McpUiToolInputNotification: "ui/notifications/tool-input", ServerToClient => McpUiToolInputNotificationParams;
            McpUiToolInputPartialNotification: "ui/notifications/tool-input-partial", ServerToClient => McpUiToolInputPartialNotificationParams;
            McpUiToolResultNotification: "ui/notifications/tool-result", ServerToClient => McpUiToolResultNotificationParams;
            McpUiToolCancelledNotification: "ui/notifications/tool-cancelled", ServerToClient => McpUiToolCancelledNotificationParams;
            McpUiHostContextChangedNotification: "ui/notifications/host-context-changed", ServerToClient => McpUiHostContextChangedNotificationParams;
        }
        input_requests {}
    }
}

#[cfg(feature = "v2025-11-25")]
method_table! {
    /// Every method of 2025-11-25.
    V2025_11_25, checks CHECKS_2025_11_25 in v2025_11_25 {
        requests {
            InitializeRequest: "initialize", ClientToServer => InitializeRequestParams, InitializeResult;
            PingRequest: "ping", Both => RequestParams, EmptyResult;
            ListToolsRequest: "tools/list", ClientToServer => PaginatedRequestParams, ListToolsResult;
            CallToolRequest: "tools/call", ClientToServer => CallToolRequestParams, CallToolResult;
            ListPromptsRequest: "prompts/list", ClientToServer => PaginatedRequestParams, ListPromptsResult;
            GetPromptRequest: "prompts/get", ClientToServer => GetPromptRequestParams, GetPromptResult;
            ListResourcesRequest: "resources/list", ClientToServer => PaginatedRequestParams, ListResourcesResult;
            ListResourceTemplatesRequest: "resources/templates/list", ClientToServer => PaginatedRequestParams, ListResourceTemplatesResult;
            ReadResourceRequest: "resources/read", ClientToServer => ReadResourceRequestParams, ReadResourceResult;
            SubscribeRequest: "resources/subscribe", ClientToServer => SubscribeRequestParams, EmptyResult;
            UnsubscribeRequest: "resources/unsubscribe", ClientToServer => UnsubscribeRequestParams, EmptyResult;
            SetLevelRequest: "logging/setLevel", ClientToServer => SetLevelRequestParams, EmptyResult;
            CompleteRequest: "completion/complete", ClientToServer => CompleteRequestParams, CompleteResult;
            CreateMessageRequest: "sampling/createMessage", ServerToClient => CreateMessageRequestParams, CreateMessageResult;
            ElicitRequest: "elicitation/create", ServerToClient => ElicitRequestParams, ElicitResult;
            ListRootsRequest: "roots/list", ServerToClient => RequestParams, ListRootsResult;
            GetTaskRequest: "tasks/get", Both => GetTaskRequestParams, GetTaskResult;
            GetTaskPayloadRequest: "tasks/result", Both => GetTaskPayloadRequestParams, GetTaskPayloadResult;
            ListTasksRequest: "tasks/list", Both => PaginatedRequestParams, ListTasksResult;
            CancelTaskRequest: "tasks/cancel", Both => CancelTaskRequestParams, CancelTaskResult;
        }
        input_required_requests {}
        notifications {
            CancelledNotification: "notifications/cancelled", Both => CancelledNotificationParams;
            InitializedNotification: "notifications/initialized", ClientToServer => NotificationParams;
            ProgressNotification: "notifications/progress", Both => ProgressNotificationParams;
            TaskStatusNotification: "notifications/tasks/status", Both => TaskStatusNotificationParams;
            RootsListChangedNotification: "notifications/roots/list_changed", ClientToServer => NotificationParams;
            LoggingMessageNotification: "notifications/message", ServerToClient => LoggingMessageNotificationParams;
            ToolListChangedNotification: "notifications/tools/list_changed", ServerToClient => NotificationParams;
            PromptListChangedNotification: "notifications/prompts/list_changed", ServerToClient => NotificationParams;
            ResourceListChangedNotification: "notifications/resources/list_changed", ServerToClient => NotificationParams;
            ResourceUpdatedNotification: "notifications/resources/updated", ServerToClient => ResourceUpdatedNotificationParams;
            ElicitationCompleteNotification: "notifications/elicitation/complete", ServerToClient => ElicitationCompleteNotificationParams;
        }
        input_requests {}
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use serde_json::{json, Value};

    use super::*;
    use crate::test_support;

    #[cfg(feature = "v2025-11-25")]
    const ERAS: [(&str, &[MethodEntry]); 2] =
        [("2026-07-28", V2026_07_28), ("2025-11-25", V2025_11_25)];
    #[cfg(not(feature = "v2025-11-25"))]
    const ERAS: [(&str, &[MethodEntry]); 1] = [("2026-07-28", V2026_07_28)];

    /// Definitions that carry a `method` const but are not message types of
    /// their own: 2026-07-28 spells its one-member `ClientNotification`
    /// union out as a copy of `CancelledNotification`.
    const NOT_MESSAGES: [&str; 1] = ["ClientNotification"];

    type Row = (String, String, MethodKind);

    fn kind_of(properties: &Value) -> MethodKind {
        if properties.get("id").is_some() {
            MethodKind::Request
        } else if properties.get("jsonrpc").is_some() {
            MethodKind::Notification
        } else {
            MethodKind::InputRequest
        }
    }

    /// The message definitions of a schema: those whose `method` is a
    /// const, as (name, properties).
    fn messages(schema: &Value) -> impl Iterator<Item = (&str, &Value)> {
        test_support::defs(schema)
            .filter(|(name, _)| !NOT_MESSAGES.contains(name))
            .filter_map(|(name, def)| {
                let properties = def.get("properties")?;
                properties.get("method")?.get("const")?.as_str()?;
                Some((name, properties))
            })
    }

    /// (method, type name, kind) of every message definition.
    fn schema_rows(schema: &Value) -> BTreeSet<Row> {
        messages(schema)
            .map(|(name, properties)| {
                let method = properties["method"]["const"].as_str().unwrap_or_default();
                (method.to_owned(), name.to_owned(), kind_of(properties))
            })
            .collect()
    }

    fn table_rows(table: &[MethodEntry]) -> BTreeSet<Row> {
        table
            .iter()
            .map(|e| (e.method.into(), e.type_name.into(), e.kind))
            .collect()
    }

    /// A schema without its descriptions, for comparing shapes.
    fn shape(value: &Value) -> Value {
        match value {
            Value::Object(map) => map
                .iter()
                .filter(|(k, _)| *k != "description")
                .map(|(k, v)| (k.clone(), shape(v)))
                .collect(),
            Value::Array(items) => items.iter().map(shape).collect(),
            other => other.clone(),
        }
    }

    /// The names the params type of a message may have: the `$ref` target,
    /// or for an inline object `<Def>Params` of any message whose inline
    /// params have the same shape, since the generator emits one type for
    /// identical shapes.
    fn params_names(schema: &Value, properties: &Value) -> BTreeSet<String> {
        let params = &properties["params"];
        if let Some(target) = params.get("$ref").and_then(Value::as_str) {
            return target
                .rsplit('/')
                .next()
                .map(str::to_owned)
                .into_iter()
                .collect();
        }
        messages(schema)
            .filter(|(_, other)| other["params"].get("$ref").is_none())
            .filter(|(_, other)| shape(&other["params"]) == shape(params))
            .map(|(name, _)| format!("{name}Params"))
            .collect()
    }

    /// Every method const of each schema has an implementation under the
    /// definition's own name, and the tables list nothing the schema lacks.
    #[test]
    fn tables_match_the_schemas() {
        for (revision, table) in ERAS {
            let schema = test_support::schema(revision);
            let expected = schema_rows(&schema);
            let actual = table_rows(table);
            let missing: Vec<_> = expected.difference(&actual).collect();
            let extra: Vec<_> = actual.difference(&expected).collect();
            assert!(
                missing.is_empty() && extra.is_empty(),
                "{revision}: missing from the table {missing:#?}; not in the schema {extra:#?}"
            );
        }
    }

    /// Each table row names the params type the schema gives its message.
    #[test]
    fn params_types_match_the_schemas() {
        for (revision, table) in ERAS {
            let schema = test_support::schema(revision);
            for e in table {
                let properties = &schema["$defs"][e.type_name]["properties"];
                let names = params_names(&schema, properties);
                assert!(
                    names.contains(e.params),
                    "{revision}: {} has params {}, expected one of {names:?}",
                    e.type_name,
                    e.params
                );
            }
        }
    }

    /// The members of a union definition; a definition that is itself a
    /// message stands for the messages with the same method.
    fn members(schema: &Value, union: &str) -> BTreeSet<String> {
        let Some(def) = schema["$defs"].get(union) else {
            return BTreeSet::new();
        };
        if let Some(any_of) = def.get("anyOf").and_then(Value::as_array) {
            return any_of
                .iter()
                .filter_map(|m| m["$ref"].as_str()?.rsplit('/').next().map(str::to_owned))
                .collect();
        }
        let method = &def["properties"]["method"]["const"];
        test_support::defs(schema)
            .filter(|(name, d)| *name != union && d["properties"]["method"]["const"] == *method)
            .map(|(name, _)| name.to_owned())
            .collect()
    }

    /// Directions agree with the schema's client and server unions.
    #[test]
    fn directions_match_the_unions() {
        for (revision, table) in ERAS {
            let schema = test_support::schema(revision);
            let from = |unions: &[&str]| -> BTreeSet<String> {
                unions.iter().flat_map(|u| members(&schema, u)).collect()
            };
            let client = from(&["ClientRequest", "ClientNotification"]);
            let server = from(&["ServerRequest", "ServerNotification", "InputRequest"]);
            for e in table {
                let expected = match (client.contains(e.type_name), server.contains(e.type_name)) {
                    (true, true) => Direction::Both,
                    (true, false) => Direction::ClientToServer,
                    (false, true) => Direction::ServerToClient,
                    (false, false) => panic!("{revision}: {} is in no union", e.type_name),
                };
                assert_eq!(e.direction, expected, "{revision}: {}", e.method);
            }
        }
    }

    #[test]
    fn methods_are_unique_per_kind() {
        for (revision, table) in ERAS {
            let mut seen = BTreeSet::new();
            for e in table {
                assert!(
                    seen.insert((e.kind, e.method)),
                    "{revision}: {} twice",
                    e.method
                );
            }
        }
    }

    fn capable<T: InputRequiredCapable>() -> &'static str {
        T::METHOD
    }

    /// Exactly the three methods the protocol allows may answer with
    /// `InputRequiredResult`, and the types say so too.
    #[test]
    fn input_required_set() {
        let flagged: Vec<_> = V2026_07_28
            .iter()
            .filter(|e| e.input_required)
            .map(|e| e.method)
            .collect();
        assert_eq!(flagged, ["tools/call", "prompts/get", "resources/read"]);
        let typed = [
            capable::<v2026_07_28::CallToolRequest>(),
            capable::<v2026_07_28::GetPromptRequest>(),
            capable::<v2026_07_28::ReadResourceRequest>(),
        ];
        assert_eq!(typed, flagged.as_slice());
        #[cfg(feature = "v2025-11-25")]
        assert!(V2025_11_25.iter().all(|e| !e.input_required));
        assert!(may_require_input("tools/call"));
        assert!(!may_require_input("tools/list"));
        assert!(!may_require_input("nonsense"));
    }

    #[test]
    fn find_by_kind_and_method() {
        let e = find(V2026_07_28, MethodKind::InputRequest, "roots/list").expect("roots/list");
        assert_eq!(e.type_name, "ListRootsRequest");
        assert_eq!(e.result, Some("ListRootsResult"));
        assert!(find(V2026_07_28, MethodKind::Request, "roots/list").is_none());
        assert!(find(V2026_07_28, MethodKind::Request, "initialize").is_none());
        #[cfg(feature = "v2025-11-25")]
        {
            let e = find(V2025_11_25, MethodKind::Request, "initialize").expect("initialize");
            assert_eq!(e.direction, Direction::ClientToServer);
        }
        let e = find(V2026_07_28, MethodKind::Request, "tools/call").expect("tools/call");
        assert_eq!(e.direction, Direction::ClientToServer);
        assert!(e.direction.client_sends() && !e.direction.server_sends());
        assert!(Direction::Both.client_sends() && Direction::Both.server_sends());
    }

    #[test]
    fn trait_constants() {
        assert_eq!(
            <v2026_07_28::DiscoverRequest as Request>::METHOD,
            "server/discover"
        );
        assert_eq!(
            <v2026_07_28::ElicitRequest as InputRequest>::METHOD,
            "elicitation/create"
        );
        assert_eq!(
            <v2026_07_28::SubscriptionsAcknowledgedNotification as Notification>::METHOD,
            "notifications/subscriptions/acknowledged"
        );
        #[cfg(feature = "v2025-11-25")]
        {
            assert_eq!(<v2025_11_25::PingRequest as Request>::METHOD, "ping");
            assert_eq!(
                <v2025_11_25::CancelTaskRequest as Request>::METHOD,
                "tasks/cancel"
            );
        }
    }

    fn decode<T: DeserializeOwned>(value: Value) -> T {
        serde_json::from_value(value).unwrap_or_else(|e| panic!("decode: {e}"))
    }

    /// A request decodes through the trait, and its `Result` type branches
    /// on `resultType`.
    #[test]
    fn typed_round_through_the_traits() {
        type Call = v2026_07_28::CallToolRequest;
        let request: Call = decode(json!({
            "jsonrpc": "2.0", "id": 1, "method": Call::METHOD,
            "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                                 "io.modelcontextprotocol/clientCapabilities": {}},
                       "name": "echo"}
        }));
        let params: <Call as Request>::Params = request.params;
        assert_eq!(params.name, "echo");
        let answer: <Call as Request>::Result =
            decode(json!({"resultType": "input_required", "requestState": "s"}));
        assert!(!answer.is_complete());
        let answer: <Call as Request>::Result =
            decode(json!({"resultType": "complete", "content": []}));
        assert!(answer.complete().is_some_and(|r| r.content.is_empty()));
    }

    /// Every corpus example of every type the 2026-07-28 table names
    /// decodes into that type and encodes back to the same JSON.
    #[test]
    fn spec_examples_round_trip() {
        let checks: BTreeMap<_, _> = CHECKS_2026_07_28.iter().copied().collect();
        let mut checked = 0;
        let mut failures = Vec::new();
        for (name, round_trip) in checks {
            for (file, value) in test_support::examples(name) {
                checked += 1;
                match round_trip(value.clone()) {
                    Ok(back) if back == value => {}
                    Ok(back) => failures.push(format!("{name}/{file}: re-encoded as {back}")),
                    Err(e) => failures.push(format!("{name}/{file}: {e}")),
                }
            }
        }
        assert!(failures.is_empty(), "{failures:#?}");
        assert!(checked >= 40, "only {checked} examples checked");
    }

    /// The legacy types, which the corpus has no examples for, round-trip
    /// hand-written messages.
    #[cfg(feature = "v2025-11-25")]
    #[test]
    fn legacy_messages_round_trip() {
        let checks: BTreeMap<_, _> = CHECKS_2025_11_25.iter().copied().collect();
        let cases = [
            (
                "PingRequest",
                json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
            ),
            (
                "InitializeRequest",
                json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                    "protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "c", "version": "1"}}}),
            ),
            (
                "GetTaskRequest",
                json!({"jsonrpc": "2.0", "id": "t", "method": "tasks/get", "params": {"taskId": "x"}}),
            ),
            (
                "InitializedNotification",
                json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            ),
            (
                "ElicitationCompleteNotification",
                json!({"jsonrpc": "2.0", "method": "notifications/elicitation/complete",
                       "params": {"elicitationId": "e"}}),
            ),
            ("EmptyResult", json!({})),
        ];
        for (name, value) in cases {
            let round_trip = checks
                .get(name)
                .unwrap_or_else(|| panic!("{name} not in table"));
            let back = round_trip(value.clone()).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(back, value, "{name}");
        }
    }
}

/// The MCP Apps table against the apps schema, and messages built by hand
/// from its field names (the extension ships no examples).
#[cfg(all(test, feature = "apps"))]
mod apps_tests {
    use std::collections::BTreeSet;

    use serde_json::{json, Value};

    use super::*;
    use crate::test_support;

    /// One message of every method, and some answers, as (definition,
    /// value).
    fn samples() -> Vec<(&'static str, Value)> {
        let text = json!({"type": "text", "text": "hi"});
        vec![
            (
                "McpUiInitializeRequest",
                json!({"method": "ui/initialize", "params": {
                    "appInfo": {"name": "weather", "version": "1.0.0"},
                    "appCapabilities": {"availableDisplayModes": ["inline", "fullscreen"], "tools": {"listChanged": true}},
                    "protocolVersion": "2026-01-26"
                }}),
            ),
            (
                "McpUiOpenLinkRequest",
                json!({"method": "ui/open-link", "params": {"url": "https://example.com"}}),
            ),
            (
                "McpUiMessageRequest",
                json!({"method": "ui/message", "params": {"role": "user", "content": [text]}}),
            ),
            (
                "McpUiUpdateModelContextRequest",
                json!({"method": "ui/update-model-context", "params": {
                    "content": [text], "structuredContent": {"city": "Oslo"}
                }}),
            ),
            (
                "McpUiRequestDisplayModeRequest",
                json!({"method": "ui/request-display-mode", "params": {"mode": "pip"}}),
            ),
            (
                "McpUiDownloadFileRequest",
                json!({"method": "ui/download-file", "params": {"contents": [
                    {"type": "resource", "resource": {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "a"}}
                ]}}),
            ),
            (
                "McpUiResourceTeardownRequest",
                json!({"method": "ui/resource-teardown", "params": {}}),
            ),
            (
                "McpUiInitializedNotification",
                json!({"method": "ui/notifications/initialized"}),
            ),
            (
                "McpUiSizeChangedNotification",
                json!({"method": "ui/notifications/size-changed", "params": {"width": 320, "height": 240.5}}),
            ),
            (
                "McpUiRequestTeardownNotification",
                json!({"method": "ui/notifications/request-teardown", "params": {}}),
            ),
            (
                "McpUiSandboxProxyReadyNotification",
                json!({"method": "ui/notifications/sandbox-proxy-ready", "params": {}}),
            ),
            (
                "McpUiSandboxResourceReadyNotification",
                json!({"method": "ui/notifications/sandbox-resource-ready", "params": {
                    "html": "<p>hi</p>",
                    "csp": {"connectDomains": ["https://api.example.com"], "frameDomains": []},
                    "permissions": {"clipboardWrite": {}}
                }}),
            ),
            (
                "McpUiToolInputNotification",
                json!({"method": "ui/notifications/tool-input", "params": {"arguments": {"city": "Oslo"}}}),
            ),
            (
                "McpUiToolInputPartialNotification",
                json!({"method": "ui/notifications/tool-input-partial", "params": {"arguments": {"ci": 1}}}),
            ),
            (
                "McpUiToolResultNotification",
                json!({"method": "ui/notifications/tool-result", "params": {
                    "content": [text], "structuredContent": {"t": 21}, "isError": false
                }}),
            ),
            (
                "McpUiToolCancelledNotification",
                json!({"method": "ui/notifications/tool-cancelled", "params": {"reason": "user action"}}),
            ),
            (
                "McpUiHostContextChangedNotification",
                json!({"method": "ui/notifications/host-context-changed", "params": {
                    "theme": "dark", "displayMode": "inline", "locale": "nb-NO",
                    "toolInfo": {"id": 3, "tool": {"name": "get_weather", "inputSchema": {
                        "type": "object", "properties": {"city": {"type": "string", "enum": ["Oslo", null, 1, [true]]}}
                    }}}
                }}),
            ),
            (
                "McpUiInitializeResult",
                json!({
                    "protocolVersion": "2026-01-26",
                    "hostInfo": {"name": "host", "version": "0.1.0"},
                    "hostCapabilities": {"openLinks": {}, "serverTools": {"listChanged": false}},
                    "hostContext": {"theme": "light", "displayMode": "inline", "availableDisplayModes": ["inline"]}
                }),
            ),
            (
                "McpUiRequestDisplayModeResult",
                json!({"mode": "fullscreen"}),
            ),
            ("McpUiOpenLinkResult", json!({"isError": true})),
        ]
    }

    /// Decodes `value` as the type the table or the answers name.
    fn round_trip_as(def: &str, value: Value) -> Result<Value, serde_json::Error> {
        let (_, check) = CHECKS_APPS
            .iter()
            .find(|(name, _)| *name == def)
            .unwrap_or_else(|| panic!("{def} is not in the table"));
        check(value)
    }

    #[test]
    fn the_table_has_every_message_of_the_schema() {
        let schema = test_support::ext_schema("apps");
        let from_schema: BTreeSet<(String, String, MethodKind)> = test_support::defs(&schema)
            .filter_map(|(name, def)| {
                let method = def["properties"]["method"]["const"].as_str()?;
                let kind = if name.ends_with("Request") {
                    MethodKind::Request
                } else {
                    MethodKind::Notification
                };
                Some((method.to_owned(), name.to_owned(), kind))
            })
            .collect();
        let from_table: BTreeSet<(String, String, MethodKind)> = APPS
            .iter()
            .map(|e| (e.method.into(), e.type_name.into(), e.kind))
            .collect();
        assert_eq!(from_table, from_schema);
        for entry in APPS {
            assert_eq!(entry.params, format!("{}Params", entry.type_name));
        }
    }

    #[test]
    fn the_traits_name_the_method() {
        use crate::ext::apps::{McpUiInitializeRequest, McpUiToolInputNotification};
        assert_eq!(<McpUiInitializeRequest as Request>::METHOD, "ui/initialize");
        assert_eq!(
            <McpUiToolInputNotification as Notification>::METHOD,
            "ui/notifications/tool-input"
        );
        let entry = find(APPS, MethodKind::Request, "ui/resource-teardown").expect("listed");
        assert!(entry.direction.server_sends() && !entry.direction.client_sends());
    }

    /// Every sample is valid under the schema and comes back from its
    /// type unchanged; every method has one.
    #[test]
    fn hand_built_messages_round_trip() {
        let schema = test_support::ext_schema("apps");
        let samples = samples();
        for (def, value) in &samples {
            test_support::assert_valid_in(schema.clone(), "apps", def, value);
            let back = round_trip_as(def, value.clone()).unwrap_or_else(|e| panic!("{def}: {e}"));
            assert_eq!(&back, value, "{def}");
        }
        for entry in APPS {
            assert!(
                samples.iter().any(|(def, _)| *def == entry.type_name),
                "no sample of {}",
                entry.method
            );
        }
    }

    #[test]
    fn another_method_is_refused() {
        for (def, mut value) in samples() {
            let Some(method) = value.get_mut("method") else {
                continue;
            };
            *method = json!("ui/unknown");
            assert!(round_trip_as(def, value).is_err(), "{def}");
        }
    }

    /// Leaving out any member the schema requires, of the message or of its
    /// params, is refused.
    #[test]
    fn a_missing_required_member_is_refused() {
        let schema = test_support::ext_schema("apps");
        let required = |def: &Value| -> Vec<String> {
            def["required"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|k| k.as_str().map(str::to_owned))
                .collect()
        };
        let mut checked = 0;
        for (def, value) in samples() {
            let def_schema = &schema["$defs"][def];
            for key in required(def_schema) {
                let mut without = value.clone();
                without.as_object_mut().map(|o| o.remove(&key));
                assert!(round_trip_as(def, without).is_err(), "{def} without {key}");
                checked += 1;
            }
            for key in required(&def_schema["properties"]["params"]) {
                let mut without = value.clone();
                without["params"].as_object_mut().map(|o| o.remove(&key));
                assert!(
                    round_trip_as(def, without).is_err(),
                    "{def} without params.{key}"
                );
                checked += 1;
            }
        }
        assert!(checked > 20, "only {checked} members checked");
    }

    /// Two places where the schema as written refuses what the
    /// specification means, and the types take it: container dimensions
    /// with a width and a maximum height (the schema intersects two closed
    /// objects, which only `{}` satisfies), and some of the style variables
    /// (the schema requires every one).
    #[test]
    fn the_host_context_takes_what_the_specification_means() {
        use crate::ext::apps::McpUiHostContext;
        let context = json!({
            "containerDimensions": {"width": 400, "maxHeight": 600},
            "styles": {"variables": {"--color-background-primary": "#fff"}}
        });
        let decoded: McpUiHostContext =
            serde_json::from_value(context.clone()).expect("a host context");
        assert_eq!(serde_json::to_value(decoded).expect("encodes"), context);
    }

    /// A closed params object refuses a member the schema does not name.
    #[test]
    fn an_unknown_param_of_a_closed_object_is_refused() {
        let value = json!({"method": "ui/open-link", "params": {"url": "https://e.com", "target": "_blank"}});
        assert!(round_trip_as("McpUiOpenLinkRequest", value).is_err());
    }
}
