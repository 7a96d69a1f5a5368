//! Every `$defs` name of each published schema is a public type (or alias)
//! of that name in its module: the lists below are checked against the
//! schema files, and naming each type here makes a missing one a compile
//! error.

use mcp_tests::spec;
use serde_json::Value;

macro_rules! all_defs {
    ($module:ident, $revision:literal, [$($name:ident),* $(,)?]) => {
        #[test]
        fn $module() {
            $(let _: ::core::option::Option<mcp_types::$module::$name> = None;)*
            let listed: Vec<&str> = vec![$(stringify!($name)),*];
            let schema = schema($revision);
            let defs: Vec<&str> = schema["$defs"]
                .as_object()
                .expect("$defs is an object")
                .keys()
                .map(String::as_str)
                .collect();
            assert_eq!(listed, defs, "the generated module and the schema disagree on the list of definitions");
        }
    };
}

all_defs!(v2026_07_28, "2026-07-28", [
    Annotations, AudioContent, BaseMetadata, BlobResourceContents, BooleanSchema, CacheableResult,
    CallToolRequest, CallToolRequestParams, CallToolResult, CallToolResultResponse, CancelledNotification, CancelledNotificationParams,
    ClientCapabilities, ClientNotification, ClientRequest, ClientResult, CompleteRequest, CompleteRequestParams,
    CompleteResult, CompleteResultResponse, ContentBlock, CreateMessageRequest, CreateMessageRequestParams, CreateMessageResult,
    Cursor, DiscoverRequest, DiscoverResult, DiscoverResultResponse, ElicitRequest, ElicitRequestFormParams,
    ElicitRequestParams, ElicitRequestURLParams, ElicitResult, EmbeddedResource, EmptyResult, EnumSchema,
    Error, GetPromptRequest, GetPromptRequestParams, GetPromptResult, GetPromptResultResponse, HeaderMismatchError,
    Icon, Icons, ImageContent, Implementation, InputRequest, InputRequests,
    InputRequiredResult, InputResponse, InputResponseRequestParams, InputResponses, InternalError, InvalidParamsError,
    InvalidRequestError, JSONArray, JSONObject, JSONRPCErrorResponse, JSONRPCMessage, JSONRPCNotification,
    JSONRPCRequest, JSONRPCResponse, JSONRPCResultResponse, JSONValue, LegacyTitledEnumSchema, ListPromptsRequest,
    ListPromptsResult, ListPromptsResultResponse, ListResourceTemplatesRequest, ListResourceTemplatesResult, ListResourceTemplatesResultResponse, ListResourcesRequest,
    ListResourcesResult, ListResourcesResultResponse, ListRootsRequest, ListRootsResult, ListToolsRequest, ListToolsResult,
    ListToolsResultResponse, LoggingLevel, LoggingMessageNotification, LoggingMessageNotificationParams, MetaObject, MethodNotFoundError,
    MissingRequiredClientCapabilityError, ModelHint, ModelPreferences, MultiSelectEnumSchema, Notification, NotificationMetaObject,
    NotificationParams, NumberSchema, PaginatedRequest, PaginatedRequestParams, PaginatedResult, ParseError,
    PrimitiveSchemaDefinition, ProgressNotification, ProgressNotificationParams, ProgressToken, Prompt, PromptArgument,
    PromptListChangedNotification, PromptMessage, PromptReference, ReadResourceRequest, ReadResourceRequestParams, ReadResourceResult,
    ReadResourceResultResponse, Request, RequestId, RequestMetaObject, RequestParams, Resource,
    ResourceContents, ResourceLink, ResourceListChangedNotification, ResourceRequestParams, ResourceTemplate, ResourceTemplateReference,
    ResourceUpdatedNotification, ResourceUpdatedNotificationParams, Result, ResultMetaObject, ResultType, Role,
    Root, SamplingMessage, SamplingMessageContentBlock, ServerCapabilities, ServerNotification, ServerResult,
    SingleSelectEnumSchema, StringSchema, SubscriptionFilter, SubscriptionsAcknowledgedNotification, SubscriptionsAcknowledgedNotificationParams, SubscriptionsListenRequest,
    SubscriptionsListenRequestParams, SubscriptionsListenResult, SubscriptionsListenResultMetaObject, SubscriptionsListenResultResponse, TextContent, TextResourceContents,
    TitledMultiSelectEnumSchema, TitledSingleSelectEnumSchema, Tool, ToolAnnotations, ToolChoice, ToolListChangedNotification,
    ToolResultContent, ToolUseContent, UnsupportedProtocolVersionError, UntitledMultiSelectEnumSchema, UntitledSingleSelectEnumSchema,
]);

all_defs!(v2025_11_25, "2025-11-25", [
    Annotations, AudioContent, BaseMetadata, BlobResourceContents, BooleanSchema, CallToolRequest,
    CallToolRequestParams, CallToolResult, CancelTaskRequest, CancelTaskResult, CancelledNotification, CancelledNotificationParams,
    ClientCapabilities, ClientNotification, ClientRequest, ClientResult, CompleteRequest, CompleteRequestParams,
    CompleteResult, ContentBlock, CreateMessageRequest, CreateMessageRequestParams, CreateMessageResult, CreateTaskResult,
    Cursor, ElicitRequest, ElicitRequestFormParams, ElicitRequestParams, ElicitRequestURLParams, ElicitResult,
    ElicitationCompleteNotification, EmbeddedResource, EmptyResult, EnumSchema, Error, GetPromptRequest,
    GetPromptRequestParams, GetPromptResult, GetTaskPayloadRequest, GetTaskPayloadResult, GetTaskRequest, GetTaskResult,
    Icon, Icons, ImageContent, Implementation, InitializeRequest, InitializeRequestParams,
    InitializeResult, InitializedNotification, JSONRPCErrorResponse, JSONRPCMessage, JSONRPCNotification, JSONRPCRequest,
    JSONRPCResponse, JSONRPCResultResponse, LegacyTitledEnumSchema, ListPromptsRequest, ListPromptsResult, ListResourceTemplatesRequest,
    ListResourceTemplatesResult, ListResourcesRequest, ListResourcesResult, ListRootsRequest, ListRootsResult, ListTasksRequest,
    ListTasksResult, ListToolsRequest, ListToolsResult, LoggingLevel, LoggingMessageNotification, LoggingMessageNotificationParams,
    ModelHint, ModelPreferences, MultiSelectEnumSchema, Notification, NotificationParams, NumberSchema,
    PaginatedRequest, PaginatedRequestParams, PaginatedResult, PingRequest, PrimitiveSchemaDefinition, ProgressNotification,
    ProgressNotificationParams, ProgressToken, Prompt, PromptArgument, PromptListChangedNotification, PromptMessage,
    PromptReference, ReadResourceRequest, ReadResourceRequestParams, ReadResourceResult, RelatedTaskMetadata, Request,
    RequestId, RequestParams, Resource, ResourceContents, ResourceLink, ResourceListChangedNotification,
    ResourceRequestParams, ResourceTemplate, ResourceTemplateReference, ResourceUpdatedNotification, ResourceUpdatedNotificationParams, Result,
    Role, Root, RootsListChangedNotification, SamplingMessage, SamplingMessageContentBlock, ServerCapabilities,
    ServerNotification, ServerRequest, ServerResult, SetLevelRequest, SetLevelRequestParams, SingleSelectEnumSchema,
    StringSchema, SubscribeRequest, SubscribeRequestParams, Task, TaskAugmentedRequestParams, TaskMetadata,
    TaskStatus, TaskStatusNotification, TaskStatusNotificationParams, TextContent, TextResourceContents, TitledMultiSelectEnumSchema,
    TitledSingleSelectEnumSchema, Tool, ToolAnnotations, ToolChoice, ToolExecution, ToolListChangedNotification,
    ToolResultContent, ToolUseContent, URLElicitationRequiredError, UnsubscribeRequest, UnsubscribeRequestParams, UntitledMultiSelectEnumSchema,
    UntitledSingleSelectEnumSchema,
]);

fn schema(revision: &str) -> Value {
    let path = spec::spec_dir().join(format!("schema/{revision}/schema.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).expect("the schema is JSON")
}
