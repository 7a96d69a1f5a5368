//! The spec example corpus, decoded and re-encoded through the named type of
//! each example by both crates.

use std::path::Path;

use serde::de::DeserializeOwned;
use serde::Serialize;

/// One example: the type its folder names and its bytes.
pub struct Example {
    pub type_name: String,
    pub bytes: Vec<u8>,
}

/// Loads every example under `dir` (one folder per type).
pub fn load(dir: &Path) -> std::io::Result<Vec<Example>> {
    let mut out = Vec::new();
    let mut folders: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    folders.sort_by_key(|e| e.file_name());
    for folder in folders {
        let type_name = folder.file_name().to_string_lossy().into_owned();
        let mut files: Vec<_> = std::fs::read_dir(folder.path())?.collect::<Result<_, _>>()?;
        files.sort_by_key(|e| e.file_name());
        for file in files {
            out.push(Example {
                type_name: type_name.clone(),
                bytes: std::fs::read(file.path())?,
            });
        }
    }
    Ok(out)
}

fn round_trip<T: DeserializeOwned + Serialize>(bytes: &[u8], out: &mut Vec<u8>) -> bool {
    match serde_json::from_slice::<T>(bytes) {
        Ok(value) => {
            out.clear();
            serde_json::to_writer(&mut *out, &value).is_ok()
        }
        Err(_) => false,
    }
}

macro_rules! corpus_types {
    ($($ours:ident => $theirs:ident,)*) => {
        /// Decodes and re-encodes `bytes` as `type_name` with mcp-types;
        /// `None` when the type is not in the corpus.
        pub fn ours(type_name: &str, bytes: &[u8], out: &mut Vec<u8>) -> Option<bool> {
            match type_name {
                $(stringify!($ours) => Some(round_trip::<mcp_types::v2026_07_28::$ours>(bytes, out)),)*
                _ => None,
            }
        }

        /// The same with rust-mcp-schema's 2026-07-28 types.
        pub fn theirs(type_name: &str, bytes: &[u8], out: &mut Vec<u8>) -> Option<bool> {
            match type_name {
                $(stringify!($ours) => Some(round_trip::<rust_mcp_schema::$theirs>(bytes, out)),)*
                _ => None,
            }
        }
    };
}

corpus_types! {
        AudioContent => AudioContent,
        BlobResourceContents => BlobResourceContents,
        BooleanSchema => BooleanSchema,
        CallToolRequest => CallToolRequest,
        CallToolRequestParams => CallToolRequestParams,
        CallToolResult => CallToolResult,
        CallToolResultResponse => CallToolResultResponse,
        CancelledNotification => CancelledNotification,
        CancelledNotificationParams => CancelledNotificationParams,
        ClientCapabilities => ClientCapabilities,
        CompleteRequest => CompleteRequest,
        CompleteRequestParams => CompleteRequestParams,
        CompleteResult => CompleteResult,
        CompleteResultResponse => CompleteResultResponse,
        CreateMessageRequest => CreateMessageRequest,
        CreateMessageRequestParams => CreateMessageRequestParams,
        CreateMessageResult => CreateMessageResult,
        DiscoverRequest => DiscoverRequest,
        DiscoverResult => DiscoverResult,
        DiscoverResultResponse => DiscoverResultResponse,
        ElicitRequest => ElicitRequest,
        ElicitRequestFormParams => ElicitRequestFormParams,
        ElicitRequestURLParams => ElicitRequestUrlParams,
        ElicitResult => ElicitResult,
        EmbeddedResource => EmbeddedResource,
        GetPromptRequest => GetPromptRequest,
        GetPromptRequestParams => GetPromptRequestParams,
        GetPromptResult => GetPromptResult,
        GetPromptResultResponse => GetPromptResultResponse,
        HeaderMismatchError => HeaderMismatchError,
        ImageContent => ImageContent,
        InputRequests => InputRequests,
        InputRequiredResult => InputRequiredResult,
        InputResponses => InputResponses,
        InternalError => InternalError,
        InvalidParamsError => InvalidParamsError,
        ListPromptsRequest => ListPromptsRequest,
        ListPromptsResult => ListPromptsResult,
        ListPromptsResultResponse => ListPromptsResultResponse,
        ListResourceTemplatesRequest => ListResourceTemplatesRequest,
        ListResourceTemplatesResult => ListResourceTemplatesResult,
        ListResourceTemplatesResultResponse => ListResourceTemplatesResultResponse,
        ListResourcesRequest => ListResourcesRequest,
        ListResourcesResult => ListResourcesResult,
        ListResourcesResultResponse => ListResourcesResultResponse,
        ListRootsRequest => ListRootsRequest,
        ListRootsResult => ListRootsResult,
        ListToolsRequest => ListToolsRequest,
        ListToolsResult => ListToolsResult,
        ListToolsResultResponse => ListToolsResultResponse,
        LoggingMessageNotification => LoggingMessageNotification,
        LoggingMessageNotificationParams => LoggingMessageNotificationParams,
        MethodNotFoundError => MethodNotFoundError,
        MissingRequiredClientCapabilityError => MissingRequiredClientCapabilityError,
        ModelPreferences => ModelPreferences,
        NumberSchema => NumberSchema,
        PaginatedRequestParams => PaginatedRequestParams,
        ParseError => ParseError,
        ProgressNotification => ProgressNotification,
        ProgressNotificationParams => ProgressNotificationParams,
        PromptListChangedNotification => PromptListChangedNotification,
        ReadResourceRequest => ReadResourceRequest,
        ReadResourceResult => ReadResourceResult,
        ReadResourceResultResponse => ReadResourceResultResponse,
        Resource => Resource,
        ResourceLink => ResourceLink,
        ResourceListChangedNotification => ResourceListChangedNotification,
        ResourceUpdatedNotification => ResourceUpdatedNotification,
        ResourceUpdatedNotificationParams => ResourceUpdatedNotificationParams,
        Root => Root,
        SamplingMessage => SamplingMessage,
        ServerCapabilities => ServerCapabilities,
        StringSchema => StringSchema,
        SubscriptionsAcknowledgedNotification => SubscriptionsAcknowledgedNotification,
        SubscriptionsListenRequest => SubscriptionsListenRequest,
        SubscriptionsListenResult => SubscriptionsListenResult,
        SubscriptionsListenResultResponse => SubscriptionsListenResultResponse,
        TextContent => TextContent,
        TextResourceContents => TextResourceContents,
        TitledMultiSelectEnumSchema => TitledMultiSelectEnumSchema,
        TitledSingleSelectEnumSchema => TitledSingleSelectEnumSchema,
        Tool => Tool,
        ToolListChangedNotification => ToolListChangedNotification,
        ToolResultContent => ToolResultContent,
        ToolUseContent => ToolUseContent,
        UnsupportedProtocolVersionError => UnsupportedProtocolVersionError,
        UntitledMultiSelectEnumSchema => UntitledMultiSelectEnumSchema,
        UntitledSingleSelectEnumSchema => UntitledSingleSelectEnumSchema,
}
