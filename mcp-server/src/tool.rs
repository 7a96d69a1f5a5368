#![doc = include_str!("../docs/tool.md")]

use std::borrow::Cow;
use std::fmt;

use mcp_types::jsonrpc::ErrorObject;
use mcp_types::v2026_07_28::{
    CallToolResult, ContentBlock, InputRequiredResult, TextContent, Tool, ToolOutputSchema,
};
use schemars::generate::{SchemaGenerator, SchemaSettings};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::{BoxFuture, Context};

/// The `resultType` of a finished result.
const COMPLETE: &str = "complete";
/// The `resultType` of a result that asks the client for input.
const INPUT_REQUIRED: &str = "input_required";

/// What a tool call produces: the tool's result, or a request for input
/// that the client answers by retrying the call (a multi-round-trip
/// request).
#[derive(Clone, Debug, PartialEq)]
pub enum ToolOutput {
    /// The call finished; `isError` inside tells success from an
    /// execution error.
    Complete(CallToolResult),
    /// The call needs input first, such as an answer to an elicitation
    /// form; the body of the tool has not run.
    InputRequired(InputRequiredResult),
}

impl ToolOutput {
    /// A successful result holding one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Complete(call_result(vec![text_block(text.into())], None, false))
    }

    /// An execution error: `isError: true` with `message` as its only text
    /// block, which the client shows the model so it can correct itself.
    pub fn error(message: impl Into<String>) -> Self {
        Self::Complete(call_result(vec![text_block(message.into())], None, true))
    }

    /// A request for input, marked `resultType: "input_required"`.
    pub fn input_required(mut result: InputRequiredResult) -> Self {
        result.result_type = Some(INPUT_REQUIRED.to_owned());
        Self::InputRequired(result)
    }

    /// The finished result, or `None` for a request for input.
    pub fn complete(self) -> Option<CallToolResult> {
        match self {
            Self::Complete(result) => Some(result),
            Self::InputRequired(_) => None,
        }
    }

    /// Whether this is a finished result with `isError: true`.
    pub fn is_error(&self) -> bool {
        matches!(self, Self::Complete(result) if result.is_error == Some(true))
    }
}

/// One tool that can serve a server of type `S`.
///
/// `#[tool]` on a free function implements it for every `S`, on a braced
/// struct named after the function; the function itself does not see the
/// server. Hand-written handlers may use `server`.
pub trait ToolHandler<S: ?Sized>: Send + Sync {
    /// The tool as `tools/list` shows it.
    fn definition(&self) -> Tool;

    /// The OAuth scopes a call of the tool needs, as
    /// `#[tool(scopes = [...])]` declares them; none by default.
    ///
    /// They are enforced only over HTTP, on a server protected by an
    /// `auth::ResourceServer` (the `auth` feature); they are not part of
    /// the definition clients see.
    fn scopes(&self) -> &'static [&'static str] {
        &[]
    }

    /// Runs the tool on the `arguments` of a `tools/call`.
    ///
    /// # Errors
    ///
    /// A JSON-RPC error object when the request cannot be processed at
    /// all: the client lacks a capability the tool needs, an answer of a
    /// retry is malformed, or the tool reported a protocol error. Failures
    /// the model can act on, including bad arguments, come back as
    /// `Ok` results with `isError: true`.
    fn call<'a>(
        &'a self,
        server: &'a S,
        cx: &'a Context,
        arguments: Map<String, Value>,
    ) -> BoxFuture<'a, Result<ToolOutput, ErrorObject>>;
}

/// A fixed group of tools, listed in a deterministic order.
///
/// `#[tools]` implements it for the type of an `impl` block from its
/// `#[tool]` methods in source order; [`tool_set!`](crate::tool_set)
/// implements it for a group of free-function tools.
pub trait ToolSet: Send + Sync {
    /// The tools of the set, in a stable order.
    fn tools() -> Vec<Tool>
    where
        Self: Sized;

    /// The sets of the implementing type, found by the macros' expansion;
    /// not a stable API.
    #[doc(hidden)]
    fn __own_sets() -> crate::server::OwnSets<Self>
    where
        Self: Sized,
    {
        crate::server::OwnSets::NONE
    }

    /// The OAuth scopes a call of the tool `name` needs (see
    /// [`ToolHandler::scopes`]); none for a tool that declares none or
    /// that the set does not have.
    fn scopes(name: &str) -> &'static [&'static str]
    where
        Self: Sized,
    {
        let _ = name;
        &[]
    }

    /// Starts the tool called `name`; `None` when the set has no such
    /// tool, which the router answers with -32602.
    ///
    /// The future resolves as [`ToolHandler::call`] does.
    fn call_tool<'a>(
        &'a self,
        name: &str,
        cx: &'a Context,
        arguments: Map<String, Value>,
    ) -> Option<BoxFuture<'a, Result<ToolOutput, ErrorObject>>>;
}

/// An error a tool returns, sorted by channel.
///
/// Any error type that implements [`Display`](fmt::Display) converts into
/// [`ToolError::Execution`], so `?` works on I/O errors, parse errors and
/// the like. To answer with a JSON-RPC error instead, return
/// [`ToolError::Protocol`].
///
/// `ToolError` itself does not implement `Display`; that is what lets the
/// blanket conversion exist.
#[derive(Clone, Debug, PartialEq)]
pub enum ToolError {
    /// An execution error: the result carries `isError: true` and this
    /// message, so the model can read it and try again.
    Execution(String),
    /// A protocol error: the call is answered with this JSON-RPC error
    /// object. Keep it for failures that are not the model's to fix.
    Protocol(ErrorObject),
}

impl ToolError {
    /// An execution error with `message`.
    pub fn execution(message: impl Into<String>) -> Self {
        Self::Execution(message.into())
    }

    /// A protocol error answering with `error`.
    pub fn protocol(error: ErrorObject) -> Self {
        Self::Protocol(error)
    }

    /// The output of a call that failed with this error.
    ///
    /// # Errors
    ///
    /// The JSON-RPC error object of a [`ToolError::Protocol`].
    pub fn into_tool_output(self) -> Result<ToolOutput, ErrorObject> {
        match self {
            Self::Execution(message) => Ok(ToolOutput::error(message)),
            Self::Protocol(error) => Err(error),
        }
    }
}

impl<E: fmt::Display> From<E> for ToolError {
    fn from(error: E) -> Self {
        Self::Execution(error.to_string())
    }
}

/// Structured output: the value goes in `structuredContent`, its JSON in a
/// text block for clients that read only `content`, and its schema in the
/// tool's `outputSchema`.
///
/// A value whose schema is not an object is wrapped as `{"result": value}`
/// so that the `outputSchema` root is always an object.
///
/// `#[tool]` applies this wrapper by itself to a return type that is not
/// one of the content types of [`IntoToolResult`]; write it by hand to
/// force structured output for, say, a `String`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Json<T>(pub T);

/// A value a tool can return.
///
/// Implemented for the content types (`String`, `&str`, [`ContentBlock`],
/// `Vec<ContentBlock>`, [`TextContent`], [`CallToolResult`], `()`), for
/// [`Json<T>`], for [`ToolOutput`] and [`InputRequiredResult`], and for
/// `Result<T, E>` where `T` is one of those and `E` converts into
/// [`ToolError`]. `#[tool]` also accepts any `T: Serialize + JsonSchema`
/// and treats it as `Json<T>`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a tool",
    label = "not a tool result",
    note = "return a `String`, `ContentBlock`, `Vec<ContentBlock>`, `CallToolResult`, `Json<T>`, or a type that implements `Serialize` and `JsonSchema`"
)]
pub trait IntoToolResult {
    /// The `outputSchema` this type promises, if any.
    fn output_schema() -> Option<ToolOutputSchema> {
        None
    }

    /// Converts the value into the output of the call.
    ///
    /// # Errors
    ///
    /// A JSON-RPC error object for a protocol error (see [`ToolError`]) or
    /// for a structured value that cannot be encoded.
    fn into_tool_result(self) -> Result<ToolOutput, ErrorObject>;
}

impl IntoToolResult for String {
    fn into_tool_result(self) -> Result<ToolOutput, ErrorObject> {
        Ok(ToolOutput::text(self))
    }
}

impl IntoToolResult for &str {
    fn into_tool_result(self) -> Result<ToolOutput, ErrorObject> {
        Ok(ToolOutput::text(self))
    }
}

impl IntoToolResult for Cow<'_, str> {
    fn into_tool_result(self) -> Result<ToolOutput, ErrorObject> {
        Ok(ToolOutput::text(self))
    }
}

impl IntoToolResult for () {
    fn into_tool_result(self) -> Result<ToolOutput, ErrorObject> {
        Ok(ToolOutput::Complete(call_result(Vec::new(), None, false)))
    }
}

impl IntoToolResult for TextContent {
    fn into_tool_result(self) -> Result<ToolOutput, ErrorObject> {
        ContentBlock::TextContent(self).into_tool_result()
    }
}

impl IntoToolResult for ContentBlock {
    fn into_tool_result(self) -> Result<ToolOutput, ErrorObject> {
        Ok(ToolOutput::Complete(call_result(vec![self], None, false)))
    }
}

impl IntoToolResult for Vec<ContentBlock> {
    fn into_tool_result(self) -> Result<ToolOutput, ErrorObject> {
        Ok(ToolOutput::Complete(call_result(self, None, false)))
    }
}

/// Passed through unchanged, except that a missing `resultType` is set.
impl IntoToolResult for CallToolResult {
    fn into_tool_result(mut self) -> Result<ToolOutput, ErrorObject> {
        self.result_type.get_or_insert_with(|| COMPLETE.to_owned());
        Ok(ToolOutput::Complete(self))
    }
}

impl IntoToolResult for InputRequiredResult {
    fn into_tool_result(self) -> Result<ToolOutput, ErrorObject> {
        Ok(ToolOutput::input_required(self))
    }
}

impl IntoToolResult for ToolOutput {
    fn into_tool_result(self) -> Result<ToolOutput, ErrorObject> {
        match self {
            Self::Complete(result) => result.into_tool_result(),
            Self::InputRequired(result) => result.into_tool_result(),
        }
    }
}

impl<T: Serialize + JsonSchema> IntoToolResult for Json<T> {
    fn output_schema() -> Option<ToolOutputSchema> {
        let (schema, _) = structured_schema::<T>();
        Some(ToolOutputSchema {
            schema: None,
            extra: schema,
        })
    }

    fn into_tool_result(self) -> Result<ToolOutput, ErrorObject> {
        let value = structured(&self.0)?;
        let text = value.to_string();
        Ok(ToolOutput::Complete(call_result(
            vec![text_block(text)],
            Some(value),
            false,
        )))
    }
}

/// Structured output with text of its own: the string is the `content`
/// (what a client that reads only text shows, and what the model reads),
/// the value the `structuredContent`, as [`Json<T>`] puts it. For a tool
/// whose results a view renders (see `apps`), the text says in words what
/// the view shows.
impl<T: Serialize + JsonSchema> IntoToolResult for (String, Json<T>) {
    fn output_schema() -> Option<ToolOutputSchema> {
        Json::<T>::output_schema()
    }

    fn into_tool_result(self) -> Result<ToolOutput, ErrorObject> {
        let (text, Json(value)) = self;
        let value = structured(&value)?;
        Ok(ToolOutput::Complete(call_result(
            vec![text_block(text)],
            Some(value),
            false,
        )))
    }
}

/// `value` as `structuredContent`: wrapped as `{"result": value}` when its
/// schema is not an object.
fn structured<T: Serialize + JsonSchema>(value: &T) -> Result<Value, ErrorObject> {
    let value = serde_json::to_value(value).map_err(|e| {
        ErrorObject::internal_error(format!("the tool's result cannot be encoded: {e}"))
    })?;
    let (_, wrapped) = structured_schema::<T>();
    Ok(if wrapped {
        Value::Object(Map::from_iter([(RESULT_KEY.to_owned(), value)]))
    } else {
        value
    })
}

impl<T: IntoToolResult, E: Into<ToolError>> IntoToolResult for Result<T, E> {
    fn output_schema() -> Option<ToolOutputSchema> {
        T::output_schema()
    }

    fn into_tool_result(self) -> Result<ToolOutput, ErrorObject> {
        match self {
            Ok(value) => value.into_tool_result(),
            Err(error) => error.into().into_tool_output(),
        }
    }
}

/// The member that holds a structured value whose schema is not an object.
const RESULT_KEY: &str = "result";

/// The output schema of `T` and whether its values are wrapped under
/// [`RESULT_KEY`].
fn structured_schema<T: JsonSchema>() -> (Map<String, Value>, bool) {
    let mut generator = settings().for_serialize().into_generator();
    let schema = generator.subschema_for::<T>().to_value();
    let defs = generator.take_definitions(true);
    let is_object = schema.get("type").and_then(Value::as_str) == Some("object");
    let mut root = if is_object {
        match schema {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    } else {
        let mut root = Map::new();
        root.insert("type".into(), "object".into());
        root.insert(
            "properties".into(),
            Value::Object(Map::from_iter([(RESULT_KEY.to_owned(), schema)])),
        );
        root.insert("required".into(), Value::from(vec![RESULT_KEY]));
        root
    };
    if !defs.is_empty() {
        root.insert("$defs".into(), Value::Object(defs));
    }
    (root, !is_object)
}

/// JSON Schema 2020-12 with every subschema inline (recursive types still
/// use `$defs`) and no `$schema` member, since 2020-12 is the default
/// dialect of tool schemas.
fn settings() -> SchemaSettings {
    SchemaSettings::draft2020_12().with(|s| {
        s.inline_subschemas = true;
        s.meta_schema = None;
    })
}

fn text_block(text: String) -> ContentBlock {
    ContentBlock::TextContent(TextContent {
        meta: None,
        annotations: None,
        text,
        type_: Default::default(),
        extra: Map::new(),
    })
}

fn call_result(
    content: Vec<ContentBlock>,
    structured: Option<Value>,
    is_error: bool,
) -> CallToolResult {
    CallToolResult {
        meta: None,
        content,
        is_error: is_error.then_some(true),
        result_type: Some(COMPLETE.to_owned()),
        structured_content: structured,
        extra: Map::new(),
    }
}

/// Groups free-function tools into a [`ToolSet`].
///
/// Declares a unit struct and implements [`ToolSet`] for it; the tools are
/// listed in the order written. Each entry is the name or path of a
/// function that carries `#[tool]` (strictly, of the struct `#[tool]`
/// generates beside it). Two entries with the
/// same tool name fail to compile.
///
/// ```
/// use mcp_server::tool::ToolSet;
/// use mcp_server::tool;
///
/// /// Adds two numbers.
/// #[tool]
/// fn add(a: i64, b: i64) -> i64 {
///     a + b
/// }
///
/// /// Says hello.
/// #[tool]
/// fn greet(name: String) -> String {
///     format!("Hello, {name}!")
/// }
///
/// mcp_server::tool_set! {
///     /// The arithmetic and greeting tools.
///     pub struct Basics { add, greet }
/// }
///
/// let names: Vec<String> = Basics::tools().into_iter().map(|t| t.name).collect();
/// assert_eq!(names, ["add", "greet"]);
/// ```
#[macro_export]
macro_rules! tool_set {
    (
        $(#[$attr:meta])*
        $vis:vis struct $name:ident { $($($tool:ident)::+),* $(,)? }
    ) => {
        $(#[$attr])*
        #[derive(::core::clone::Clone, ::core::marker::Copy, ::core::fmt::Debug, ::core::default::Default)]
        $vis struct $name;

        const _: () = {
            const __NAMES: &[&str] = &[$(<$($tool)::+>::NAME),*];
            ::core::assert!(
                $crate::tool::__private::names_are_unique(__NAMES),
                "two tools of this `tool_set!` have the same name; rename one with `#[tool(name = \"...\")]`"
            );

            impl $crate::tool::ToolSet for $name {
                fn tools() -> ::std::vec::Vec<$crate::__private::mcp_types::v2026_07_28::Tool> {
                    ::std::vec![$(
                        <$($tool)::+ as $crate::tool::ToolHandler<$name>>::definition(&$($tool)::+ {})
                    ),*]
                }

                fn scopes(name: &str) -> &'static [&'static str] {
                    $(
                        if name == <$($tool)::+>::NAME {
                            return <$($tool)::+ as $crate::tool::ToolHandler<$name>>::scopes(&$($tool)::+ {});
                        }
                    )*
                    &[]
                }

                fn call_tool<'a>(
                    &'a self,
                    name: &str,
                    cx: &'a $crate::Context,
                    arguments: $crate::__private::serde_json::Map<::std::string::String, $crate::__private::serde_json::Value>,
                ) -> ::core::option::Option<$crate::BoxFuture<'a, ::core::result::Result<$crate::tool::ToolOutput, $crate::ErrorObject>>> {
                    $(
                        if name == <$($tool)::+>::NAME {
                            return ::core::option::Option::Some(
                                <$($tool)::+ as $crate::tool::ToolHandler<$name>>::call(&$($tool)::+ {}, self, cx, arguments),
                            );
                        }
                    )*
                    let _ = (cx, arguments);
                    ::core::option::Option::None
                }
            }
        };
    };
}

/// Support for the code `#[tool]`, `#[tools]` and [`tool_set!`](crate::tool_set)
/// generate; not a stable API.
///
/// Each user type is checked against its traits in one generic function
/// (`argument`, the `converter` of `Kind`), which hands out plain function
/// pointers. The generated code calls that function at the same span
/// wherever it needs the type, so a missing trait is reported once.
#[doc(hidden)]
pub mod __private {
    use std::marker::PhantomData;

    use mcp_types::jsonrpc::ErrorObject;
    use mcp_types::v2026_07_28::{ToolInputSchema, ToolOutputSchema};
    use schemars::{JsonSchema, Schema};
    use serde::de::DeserializeOwned;
    use serde::Serialize;
    use serde_json::{Map, Value};

    use super::{settings, IntoToolResult, Json, SchemaGenerator, ToolOutput};

    /// The `_meta` of a tool declared with `#[tool(task = "...")]`:
    /// `{"io.modelcontextprotocol/tasks": {"taskSupport": support}}`. Without
    /// the `tasks` feature a tool runs no task and says nothing.
    pub fn task_support_meta(support: &str) -> Option<Map<String, Value>> {
        #[cfg(feature = "tasks")]
        {
            let declared = serde_json::json!({ "taskSupport": support });
            Some(Map::from_iter([(
                mcp_types::meta::TASKS_EXTENSION.to_owned(),
                declared,
            )]))
        }
        #[cfg(not(feature = "tasks"))]
        {
            let _ = support;
            None
        }
    }

    /// `meta` with MCP Apps' `ui` added: `{"ui": {"resourceUri": ...,
    /// "visibility": [...]}}`, each key when given. Without the `apps`
    /// feature the tool declares no view, and `meta` is returned as it is.
    pub fn ui_meta(
        meta: Option<Map<String, Value>>,
        resource_uri: Option<&str>,
        visibility: Option<&[&str]>,
    ) -> Option<Map<String, Value>> {
        #[cfg(feature = "apps")]
        {
            crate::apps::tool_meta(meta, resource_uri, visibility)
        }
        #[cfg(not(feature = "apps"))]
        {
            let _ = (resource_uri, visibility);
            meta
        }
    }

    /// Whether no two names are equal; usable in constants.
    pub const fn names_are_unique(names: &[&str]) -> bool {
        let mut i = 0;
        while i < names.len() {
            let mut j = i + 1;
            while j < names.len() {
                if str_eq(names[i], names[j]) {
                    return false;
                }
                j += 1;
            }
            i += 1;
        }
        true
    }

    const fn str_eq(a: &str, b: &str) -> bool {
        let (a, b) = (a.as_bytes(), b.as_bytes());
        if a.len() != b.len() {
            return false;
        }
        let mut i = 0;
        while i < a.len() {
            if a[i] != b[i] {
                return false;
            }
            i += 1;
        }
        true
    }

    /// The largest integer a header value may carry: 2^53 - 1.
    const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

    /// How to describe and decode one argument type.
    pub struct Argument<T> {
        schema: fn(&mut SchemaGenerator) -> Schema,
        decode: fn(Value) -> Result<T, serde_json::Error>,
    }

    impl<T> Clone for Argument<T> {
        fn clone(&self) -> Self {
            *self
        }
    }

    impl<T> Copy for Argument<T> {}

    impl<T> std::fmt::Debug for Argument<T> {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("Argument")
        }
    }

    /// The handle of an argument type; the one place that requires its
    /// traits.
    pub fn argument<T: DeserializeOwned + JsonSchema>() -> Argument<T> {
        Argument {
            schema: |generator| generator.subschema_for::<T>(),
            decode: T::deserialize,
        }
    }

    /// Builds a tool's `inputSchema` one parameter at a time.
    #[derive(Debug)]
    pub struct InputSchema {
        generator: SchemaGenerator,
        properties: Map<String, Value>,
        required: Vec<Value>,
    }

    impl Default for InputSchema {
        fn default() -> Self {
            Self::new()
        }
    }

    impl InputSchema {
        /// An object schema without properties.
        pub fn new() -> Self {
            Self {
                generator: settings().for_deserialize().into_generator(),
                properties: Map::new(),
                required: Vec::new(),
            }
        }

        /// Adds the property `name`.
        pub fn param<T>(
            &mut self,
            name: &str,
            argument: Argument<T>,
            required: bool,
            description: Option<&str>,
            header: Option<&str>,
        ) {
            let mut schema = (argument.schema)(&mut self.generator);
            let object = schema.ensure_object();
            if let Some(description) = description {
                object.insert("description".into(), description.into());
            }
            if let Some(header) = header {
                object.insert("x-mcp-header".into(), header.into());
                clamp_integer(object);
            }
            self.properties.insert(name.to_owned(), schema.to_value());
            if required {
                self.required.push(name.into());
            }
        }

        /// The finished schema; `additionalProperties` is `false`.
        pub fn finish(mut self) -> ToolInputSchema {
            let mut extra = Map::new();
            if !self.properties.is_empty() {
                extra.insert("properties".into(), Value::Object(self.properties));
            }
            if !self.required.is_empty() {
                extra.insert("required".into(), Value::Array(self.required));
            }
            extra.insert("additionalProperties".into(), Value::Bool(false));
            let defs = self.generator.take_definitions(true);
            if !defs.is_empty() {
                extra.insert("$defs".into(), Value::Object(defs));
            }
            ToolInputSchema {
                schema: None,
                type_: Default::default(),
                extra,
            }
        }
    }

    /// Keeps an integer that travels in a header within ±(2^53 - 1).
    fn clamp_integer(object: &mut Map<String, Value>) {
        let is_integer = match object.get("type") {
            Some(Value::String(t)) => t == "integer",
            Some(Value::Array(types)) => types.iter().any(|t| t == "integer"),
            _ => false,
        };
        if !is_integer {
            return;
        }
        let low = object.get("minimum").and_then(Value::as_f64);
        if low.is_none_or(|low| low < -(MAX_SAFE_INTEGER as f64)) {
            object.insert("minimum".into(), (-MAX_SAFE_INTEGER).into());
        }
        let high = object.get("maximum").and_then(Value::as_f64);
        if high.is_none_or(|high| high > MAX_SAFE_INTEGER as f64) {
            object.insert("maximum".into(), MAX_SAFE_INTEGER.into());
        }
    }

    /// Decodes a call's arguments one parameter at a time and collects
    /// every problem, so that one `isError` result names them all.
    #[derive(Debug)]
    pub struct Arguments {
        map: Map<String, Value>,
        problems: Vec<String>,
    }

    impl Arguments {
        /// The `arguments` of a `tools/call`.
        pub fn new(map: Map<String, Value>) -> Self {
            Self {
                map,
                problems: Vec::new(),
            }
        }

        /// Takes and decodes the argument `name`. A missing optional
        /// argument decodes from `null`, which gives `None` for an
        /// `Option`.
        pub fn take<T>(&mut self, name: &str, required: bool, argument: Argument<T>) -> Option<T> {
            let value = match self.map.remove(name) {
                Some(value) => value,
                None if required => {
                    self.problems
                        .push(format!("missing required argument `{name}`"));
                    return None;
                }
                None => Value::Null,
            };
            match (argument.decode)(value) {
                Ok(value) => Some(value),
                Err(e) => {
                    self.problems
                        .push(format!("invalid argument `{name}`: {e}"));
                    None
                }
            }
        }

        /// The `isError` result listing every problem, unknown arguments
        /// included; `None` when the arguments are good.
        pub fn finish(self) -> Option<Result<ToolOutput, ErrorObject>> {
            let mut problems = self.problems;
            problems.extend(self.map.keys().map(|k| format!("unknown argument `{k}`")));
            if problems.is_empty() {
                None
            } else {
                Some(Ok(ToolOutput::error(problems.join("; "))))
            }
        }
    }

    /// The answer when decoding succeeded but a value went missing, which
    /// the generated code never lets happen.
    pub fn lost_argument() -> Result<ToolOutput, ErrorObject> {
        Err(ErrorObject::internal_error(
            "a decoded tool argument was lost",
        ))
    }

    /// Selects how a tool's return type becomes a result, by autoref:
    /// types that implement [`IntoToolResult`] convert themselves, any
    /// other type is treated as [`Json`] structured output.
    pub struct Kind<T: ?Sized>(PhantomData<T>);

    impl<T: ?Sized> std::fmt::Debug for Kind<T> {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("Kind")
        }
    }

    impl<T: ?Sized> Kind<T> {
        /// The selector for `T`.
        pub const fn new() -> Self {
            Self(PhantomData)
        }
    }

    impl<T: ?Sized> Default for Kind<T> {
        fn default() -> Self {
            Self::new()
        }
    }

    /// Preferred: the type converts itself.
    pub trait ViaIntoToolResult<T> {
        /// The conversion.
        fn __tool_kind(self) -> ContentKind<T>;
    }

    impl<T: IntoToolResult> ViaIntoToolResult<T> for &&Kind<T> {
        fn __tool_kind(self) -> ContentKind<T> {
            ContentKind(PhantomData)
        }
    }

    /// Fallback: structured output.
    pub trait ViaJson<T> {
        /// The conversion.
        fn __tool_kind(self) -> JsonKind<T>;
    }

    impl<T> ViaJson<T> for &Kind<T> {
        fn __tool_kind(self) -> JsonKind<T> {
            JsonKind(PhantomData)
        }
    }

    /// Conversion through [`IntoToolResult`].
    pub struct ContentKind<T>(PhantomData<T>);

    impl<T> std::fmt::Debug for ContentKind<T> {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("ContentKind")
        }
    }

    impl<T: IntoToolResult> ContentKind<T> {
        /// The converter of `T`.
        pub fn converter(self) -> Converter<T> {
            Converter {
                schema: T::output_schema,
                convert: T::into_tool_result,
            }
        }
    }

    /// Conversion through [`Json`].
    pub struct JsonKind<T>(PhantomData<T>);

    impl<T> std::fmt::Debug for JsonKind<T> {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("JsonKind")
        }
    }

    impl<T> JsonKind<T> {
        /// The converter of `T`; the one place that requires its traits.
        pub fn converter(self) -> Converter<T>
        where
            T: StructuredOutput,
        {
            Converter {
                schema: Json::<T>::output_schema,
                convert: |value| Json(value).into_tool_result(),
            }
        }
    }

    /// How a return type becomes a result.
    pub struct Converter<T> {
        schema: fn() -> Option<ToolOutputSchema>,
        convert: fn(T) -> Result<ToolOutput, ErrorObject>,
    }

    impl<T> std::fmt::Debug for Converter<T> {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("Converter")
        }
    }

    impl<T> Converter<T> {
        /// The `outputSchema` of the type.
        pub fn output_schema(&self) -> Option<ToolOutputSchema> {
            (self.schema)()
        }

        /// The output of `value`.
        pub fn convert(&self, value: T) -> Result<ToolOutput, ErrorObject> {
            (self.convert)(value)
        }
    }

    /// A type a tool may return as structured output.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot be returned from a tool",
        label = "neither tool content nor structured output",
        note = "return a `String`, `ContentBlock`, `Vec<ContentBlock>`, `CallToolResult`, or a type that implements `Serialize` and `JsonSchema`"
    )]
    pub trait StructuredOutput: Serialize + JsonSchema {}

    impl<T: Serialize + JsonSchema> StructuredOutput for T {}

    /// Converts the error of a `Result` return type.
    pub fn tool_error<E: Into<super::ToolError>>(error: E) -> Result<ToolOutput, ErrorObject> {
        error.into().into_tool_output()
    }
}

#[cfg(test)]
mod tests {
    use super::__private::{argument, names_are_unique, Arguments, InputSchema};
    use super::*;

    #[test]
    fn duplicate_names_are_found() {
        assert!(names_are_unique(&["a", "b", "ab"]));
        assert!(!names_are_unique(&["a", "b", "a"]));
        assert!(names_are_unique(&[]));
    }

    #[test]
    fn header_integers_stay_within_the_safe_range() {
        let mut schema = InputSchema::new();
        schema.param("n", argument::<u64>(), true, None, Some("N"));
        schema.param("small", argument::<u8>(), true, None, Some("Small"));
        let schema = serde_json::to_value(schema.finish()).unwrap_or_default();
        assert_eq!(schema["properties"]["n"]["maximum"], 9007199254740991_i64);
        assert_eq!(schema["properties"]["n"]["minimum"], 0);
        assert_eq!(schema["properties"]["small"]["maximum"], 255);
    }

    #[test]
    fn every_argument_problem_is_reported() {
        let args = serde_json::json!({"a": "x", "c": 1});
        let Value::Object(map) = args else { return };
        let mut decoder = Arguments::new(map);
        assert_eq!(decoder.take("a", true, argument::<i32>()), None);
        assert_eq!(decoder.take("b", true, argument::<i32>()), None);
        assert_eq!(
            decoder.take("d", false, argument::<Option<i32>>()),
            Some(None)
        );
        let Some(Ok(ToolOutput::Complete(result))) = decoder.finish() else {
            panic!("expected an isError result");
        };
        let text = serde_json::to_value(&result.content).unwrap_or_default();
        let text = text[0]["text"].as_str().unwrap_or_default().to_owned();
        assert!(text.contains("invalid argument `a`"), "{text}");
        assert!(text.contains("missing required argument `b`"), "{text}");
        assert!(text.contains("unknown argument `c`"), "{text}");
    }

    #[test]
    fn scalars_are_wrapped() {
        let out = Json(3)
            .into_tool_result()
            .ok()
            .and_then(ToolOutput::complete);
        let structured = out.and_then(|r| r.structured_content);
        assert_eq!(structured, Some(serde_json::json!({"result": 3})));
        let schema = Json::<i32>::output_schema().map(|s| Value::Object(s.extra));
        assert_eq!(
            schema.as_ref().map(|s| &s["required"]),
            Some(&serde_json::json!(["result"]))
        );
    }
}
