#![doc = include_str!("../docs/prompt.md")]

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use mcp_types::v2026_07_28::{
    ContentBlock, GetPromptResult, InputRequiredResult, Prompt, PromptMessage, Role, TextContent,
    TypeText,
};
use mcp_types::ResultType;

use crate::{BoxFuture, Context, ErrorObject};

/// What `prompts/get` answers: the prompt's messages, or a request for
/// more input from the client (a multi-round-trip request).
#[derive(Clone, Debug, PartialEq)]
pub enum PromptOutput {
    /// The finished prompt.
    Complete(GetPromptResult),
    /// The client must supply input and retry.
    InputRequired(InputRequiredResult),
}

impl From<GetPromptResult> for PromptOutput {
    fn from(result: GetPromptResult) -> Self {
        PromptOutput::Complete(result)
    }
}

impl From<InputRequiredResult> for PromptOutput {
    fn from(result: InputRequiredResult) -> Self {
        PromptOutput::InputRequired(result)
    }
}

/// A value a prompt function may return.
///
/// Implemented for `String` and `&str` (one user message holding the text),
/// [`PromptMessage`], `Vec<PromptMessage>`, [`GetPromptResult`],
/// [`InputRequiredResult`], [`PromptOutput`], and `Result<T, E>` of any of
/// these with `E: Into<ErrorObject>`. A missing `resultType` is filled in.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a prompt",
    label = "this type does not implement `IntoPromptResult`",
    note = "return a `String`, a `PromptMessage`, a `Vec<PromptMessage>`, a `GetPromptResult`, \
            an `InputRequiredResult`, or a `Result` of one of them"
)]
pub trait IntoPromptResult {
    /// Converts the value into the answer to `prompts/get`.
    ///
    /// # Errors
    ///
    /// The error of a `Result`, converted into an [`ErrorObject`].
    fn into_prompt_result(self) -> Result<PromptOutput, ErrorObject>;
}

impl IntoPromptResult for PromptOutput {
    fn into_prompt_result(self) -> Result<PromptOutput, ErrorObject> {
        Ok(match self {
            PromptOutput::Complete(result) => complete(result),
            PromptOutput::InputRequired(result) => input_required(result),
        })
    }
}

impl IntoPromptResult for GetPromptResult {
    fn into_prompt_result(self) -> Result<PromptOutput, ErrorObject> {
        Ok(complete(self))
    }
}

impl IntoPromptResult for InputRequiredResult {
    fn into_prompt_result(self) -> Result<PromptOutput, ErrorObject> {
        Ok(input_required(self))
    }
}

impl IntoPromptResult for Vec<PromptMessage> {
    fn into_prompt_result(self) -> Result<PromptOutput, ErrorObject> {
        Ok(complete(GetPromptResult {
            meta: None,
            description: None,
            messages: self,
            result_type: None,
            extra: serde_json::Map::new(),
        }))
    }
}

impl IntoPromptResult for PromptMessage {
    fn into_prompt_result(self) -> Result<PromptOutput, ErrorObject> {
        vec![self].into_prompt_result()
    }
}

impl IntoPromptResult for String {
    fn into_prompt_result(self) -> Result<PromptOutput, ErrorObject> {
        user_message(self).into_prompt_result()
    }
}

impl IntoPromptResult for &str {
    fn into_prompt_result(self) -> Result<PromptOutput, ErrorObject> {
        user_message(self).into_prompt_result()
    }
}

impl<T: IntoPromptResult, E: Into<ErrorObject>> IntoPromptResult for Result<T, E> {
    fn into_prompt_result(self) -> Result<PromptOutput, ErrorObject> {
        self.map_err(Into::into)?.into_prompt_result()
    }
}

fn complete(mut result: GetPromptResult) -> PromptOutput {
    if result.result_type.is_none() {
        result.result_type = Some(ResultType::Complete.as_str().to_owned());
    }
    PromptOutput::Complete(result)
}

fn input_required(mut result: InputRequiredResult) -> PromptOutput {
    if result.result_type.is_none() {
        result.result_type = Some(ResultType::InputRequired.as_str().to_owned());
    }
    PromptOutput::InputRequired(result)
}

/// A message from the user holding `text`.
pub fn user_message(text: impl Into<String>) -> PromptMessage {
    text_message(Role::User, text.into())
}

/// A message from the assistant holding `text`.
pub fn assistant_message(text: impl Into<String>) -> PromptMessage {
    text_message(Role::Assistant, text.into())
}

fn text_message(role: Role, text: String) -> PromptMessage {
    PromptMessage {
        content: ContentBlock::TextContent(TextContent {
            meta: None,
            annotations: None,
            text,
            type_: TypeText,
            extra: serde_json::Map::new(),
        }),
        role,
        extra: serde_json::Map::new(),
    }
}

/// One prompt a server of type `S` offers: its definition for
/// `prompts/list`, and how to answer `prompts/get`.
///
/// `#[prompt]` on a free function generates a unit-like struct of the
/// function's name that implements this trait for every `S`.
pub trait PromptHandler<S: ?Sized>: Send + Sync {
    /// The prompt as `prompts/list` shows it.
    fn definition(&self) -> Prompt;

    /// Answers `prompts/get` for this prompt.
    ///
    /// # Errors
    ///
    /// The future resolves to an error when an argument is missing or does
    /// not parse (-32602 naming it), or when the prompt itself fails.
    fn get<'a>(
        &'a self,
        server: &'a S,
        cx: &'a Context,
        arguments: BTreeMap<String, String>,
    ) -> BoxFuture<'a, Result<PromptOutput, ErrorObject>>;
}

/// The prompts a server of type `S` offers, found by name.
///
/// `#[prompts]` on `impl Server { .. }` implements `PromptSet<Server>` for
/// `Server`: the server is its own set, so pass it as both. Free functions
/// are grouped with [`prompt_set!`](crate::prompt_set). Sets combine as
/// tuples, `(a, b)`, which list `a`'s prompts first and look names up in
/// `a` first.
pub trait PromptSet<S: ?Sized>: Send + Sync {
    /// Every prompt, in a fixed order (declaration order for the macros).
    fn prompts(&self) -> Vec<Prompt>;

    /// The sets of the implementing type, found by the macros' expansion;
    /// not a stable API.
    #[doc(hidden)]
    fn __own_sets() -> crate::server::OwnSets<Self>
    where
        Self: Sized,
    {
        crate::server::OwnSets::NONE
    }

    /// Whether the set has a prompt called `name`. The default looks
    /// through [`prompts`](PromptSet::prompts); the macros answer directly.
    fn has_prompt(&self, name: &str) -> bool {
        self.prompts().iter().any(|prompt| prompt.name == name)
    }

    /// Starts answering `prompts/get` for the prompt called `name`, or
    /// returns `None` when there is none; the router then answers -32602.
    ///
    /// # Errors
    ///
    /// As [`PromptHandler::get`].
    fn get_prompt<'a>(
        &'a self,
        name: &str,
        server: &'a S,
        cx: &'a Context,
        arguments: BTreeMap<String, String>,
    ) -> Option<BoxFuture<'a, Result<PromptOutput, ErrorObject>>>;
}

/// An ordered list of prompt handlers, usually built with
/// [`prompt_set!`](crate::prompt_set).
pub struct PromptList<S: ?Sized> {
    entries: Vec<(String, Box<dyn PromptHandler<S>>)>,
}

impl<S: ?Sized> PromptList<S> {
    /// An empty list.
    pub fn new() -> Self {
        PromptList {
            entries: Vec::new(),
        }
    }

    /// Appends `handler`.
    ///
    /// # Errors
    ///
    /// [`DuplicatePrompt`] when a handler with the same name is already in
    /// the list; the list is left unchanged.
    pub fn push(
        &mut self,
        handler: impl PromptHandler<S> + 'static,
    ) -> Result<&mut Self, DuplicatePrompt> {
        let name = handler.definition().name;
        if self.entries.iter().any(|(existing, _)| *existing == name) {
            return Err(DuplicatePrompt { name });
        }
        self.entries.push((name, Box::new(handler)));
        Ok(self)
    }

    /// Appends a handler whose name `prompt_set!` already proved unique.
    #[doc(hidden)]
    pub fn __with(mut self, handler: impl PromptHandler<S> + 'static) -> Self {
        let name = handler.definition().name;
        self.entries.push((name, Box::new(handler)));
        self
    }

    /// The number of prompts.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl<S: ?Sized> Default for PromptList<S> {
    fn default() -> Self {
        PromptList::new()
    }
}

impl<S: ?Sized> fmt::Debug for PromptList<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.entries.iter().map(|(name, _)| name))
            .finish()
    }
}

impl<S: ?Sized> PromptSet<S> for PromptList<S> {
    fn prompts(&self) -> Vec<Prompt> {
        self.entries.iter().map(|(_, h)| h.definition()).collect()
    }

    fn has_prompt(&self, name: &str) -> bool {
        self.entries.iter().any(|(n, _)| n == name)
    }

    fn get_prompt<'a>(
        &'a self,
        name: &str,
        server: &'a S,
        cx: &'a Context,
        arguments: BTreeMap<String, String>,
    ) -> Option<BoxFuture<'a, Result<PromptOutput, ErrorObject>>> {
        let (_, handler) = self.entries.iter().find(|(n, _)| n == name)?;
        Some(handler.get(server, cx, arguments))
    }
}

/// [`PromptList::push`] refused a second prompt with the same name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DuplicatePrompt {
    name: String,
}

impl DuplicatePrompt {
    /// The name both prompts have.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl fmt::Display for DuplicatePrompt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a prompt named `{}` is already in the list", self.name)
    }
}

impl std::error::Error for DuplicatePrompt {}

impl<S: ?Sized> PromptSet<S> for () {
    fn prompts(&self) -> Vec<Prompt> {
        Vec::new()
    }

    fn has_prompt(&self, _name: &str) -> bool {
        false
    }

    fn get_prompt<'a>(
        &'a self,
        _name: &str,
        _server: &'a S,
        _cx: &'a Context,
        _arguments: BTreeMap<String, String>,
    ) -> Option<BoxFuture<'a, Result<PromptOutput, ErrorObject>>> {
        None
    }
}

macro_rules! forward_prompt_set {
    ($($pointer:ty),+) => {$(
        impl<S: ?Sized, T: PromptSet<S> + ?Sized> PromptSet<S> for $pointer {
            fn prompts(&self) -> Vec<Prompt> {
                (**self).prompts()
            }

            fn has_prompt(&self, name: &str) -> bool {
                (**self).has_prompt(name)
            }

            fn get_prompt<'a>(
                &'a self,
                name: &str,
                server: &'a S,
                cx: &'a Context,
                arguments: BTreeMap<String, String>,
            ) -> Option<BoxFuture<'a, Result<PromptOutput, ErrorObject>>> {
                (**self).get_prompt(name, server, cx, arguments)
            }
        }
    )+};
}

forward_prompt_set!(&T, Box<T>, Arc<T>);

macro_rules! tuple_prompt_set {
    ($($member:ident),+) => {
        #[allow(non_snake_case)]
        impl<S: ?Sized, $($member: PromptSet<S>),+> PromptSet<S> for ($($member,)+) {
            fn prompts(&self) -> Vec<Prompt> {
                let ($($member,)+) = self;
                let mut all = Vec::new();
                $(all.extend($member.prompts());)+
                all
            }

            fn has_prompt(&self, name: &str) -> bool {
                let ($($member,)+) = self;
                false $(|| $member.has_prompt(name))+
            }

            fn get_prompt<'a>(
                &'a self,
                name: &str,
                server: &'a S,
                cx: &'a Context,
                arguments: BTreeMap<String, String>,
            ) -> Option<BoxFuture<'a, Result<PromptOutput, ErrorObject>>> {
                let ($($member,)+) = self;
                $(
                    if $member.has_prompt(name) {
                        return $member.get_prompt(name, server, cx, arguments);
                    }
                )+
                None
            }
        }
    };
}

tuple_prompt_set!(A);
tuple_prompt_set!(A, B);
tuple_prompt_set!(A, B, C);
tuple_prompt_set!(A, B, C, D);

/// Groups `#[prompt]` functions into a [`PromptList`], checking at compile
/// time that no two share a name.
///
/// Each argument is the path of a function marked `#[prompt]` (the macro
/// refers to the struct of the same name that `#[prompt]` generates). The
/// list serves any server type; it is inferred from where the list is used.
///
/// ```
/// use mcp_server::prompt::{PromptList, PromptSet};
/// use mcp_server::{prompt, prompt_set};
///
/// /// Says hello.
/// #[prompt]
/// fn hello() -> String {
///     "Say hello.".to_owned()
/// }
///
/// /// Says goodbye.
/// #[prompt]
/// fn goodbye() -> String {
///     "Say goodbye.".to_owned()
/// }
///
/// struct Server;
/// let set: PromptList<Server> = prompt_set![hello, goodbye];
/// let names: Vec<String> = set.prompts().into_iter().map(|p| p.name).collect();
/// assert_eq!(names, ["hello", "goodbye"]);
/// ```
#[macro_export]
macro_rules! prompt_set {
    ($($handler:path),* $(,)?) => {{
        const _: () = $crate::__private::prompt::assert_unique_prompt_names(&[
            $(<$handler>::__MCP_PROMPT.name),*
        ]);
        $crate::prompt::PromptList::new()
            $(.__with(<$handler as ::core::default::Default>::default()))*
    }};
}

/// Support for the code `#[prompt]` and `#[prompts]` generate; not a
/// stable API.
#[doc(hidden)]
pub mod __macro_support {
    use std::collections::BTreeMap;
    use std::fmt::Display;
    use std::str::FromStr;

    use mcp_types::v2026_07_28::{Icon, Prompt, PromptArgument};
    use serde_json::json;

    use crate::ErrorObject;

    /// A prompt definition the macros can write as a constant.
    #[derive(Debug)]
    pub struct PromptSpec {
        /// The wire name.
        pub name: &'static str,
        /// `title`.
        pub title: Option<&'static str>,
        /// `description`, from the doc comment.
        pub description: Option<&'static str>,
        /// `icons[].src`.
        pub icons: &'static [&'static str],
        /// The arguments, in parameter order.
        pub arguments: &'static [ArgumentSpec],
    }

    /// One argument of a [`PromptSpec`].
    #[derive(Debug)]
    pub struct ArgumentSpec {
        /// The wire name.
        pub name: &'static str,
        /// `title`.
        pub title: Option<&'static str>,
        /// `description`, from the parameter's doc comment.
        pub description: Option<&'static str>,
        /// Whether the parameter is not an `Option`.
        pub required: bool,
    }

    impl PromptSpec {
        /// The definition `prompts/list` shows.
        pub fn definition(&self) -> Prompt {
            let arguments: Vec<PromptArgument> = self
                .arguments
                .iter()
                .map(|arg| PromptArgument {
                    description: arg.description.map(str::to_owned),
                    name: arg.name.to_owned(),
                    required: Some(arg.required),
                    title: arg.title.map(str::to_owned),
                    extra: serde_json::Map::new(),
                })
                .collect();
            Prompt {
                meta: None,
                arguments: (!arguments.is_empty()).then_some(arguments),
                description: self.description.map(str::to_owned),
                icons: icons(self.icons),
                name: self.name.to_owned(),
                title: self.title.map(str::to_owned),
                extra: serde_json::Map::new(),
            }
        }
    }

    /// `icons` from a list of `src` values.
    pub fn icons(sources: &[&str]) -> Option<Vec<Icon>> {
        let icons: Vec<Icon> = sources
            .iter()
            .map(|src| Icon {
                mime_type: None,
                sizes: None,
                src: (*src).to_owned(),
                theme: None,
                extra: serde_json::Map::new(),
            })
            .collect();
        (!icons.is_empty()).then_some(icons)
    }

    /// Whether two strings are equal, in a `const` context.
    pub const fn const_str_eq(a: &str, b: &str) -> bool {
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

    /// Whether any two of `names` are equal, in a `const` context.
    pub const fn has_duplicates(names: &[&str]) -> bool {
        let mut i = 0;
        while i < names.len() {
            let mut j = i + 1;
            while j < names.len() {
                if const_str_eq(names[i], names[j]) {
                    return true;
                }
                j += 1;
            }
            i += 1;
        }
        false
    }

    /// Fails compilation (as a `const` item) when two names are equal.
    pub const fn assert_unique_prompt_names(names: &[&str]) {
        if has_duplicates(names) {
            panic!("two prompts in `prompt_set!` have the same name; give one of them `#[prompt(name = \"...\")]`");
        }
    }

    /// Parses a prompt argument or a URI variable from its string.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot be parsed from a prompt argument or URI variable",
        label = "arguments arrive as strings, and this type does not implement `FromStr`",
        note = "use `String`, `Option<String>`, or another type that implements `FromStr` \
                with an error that implements `Display`"
    )]
    pub trait FromArgument: Sized {
        /// Parses `value`; the error is shown to the client.
        ///
        /// # Errors
        ///
        /// The parse error, as text.
        fn from_argument(value: String) -> Result<Self, String>;
    }

    // Not recommended in diagnostics: rustc then reports the message of
    // `FromArgument` instead of listing every `FromStr` type it knows.
    #[diagnostic::do_not_recommend]
    impl<T: FromStr> FromArgument for T
    where
        T::Err: Display,
    {
        fn from_argument(value: String) -> Result<Self, String> {
            value.parse().map_err(|e: T::Err| e.to_string())
        }
    }

    /// The string arguments of one call, taken out one by one as the
    /// generated code binds parameters.
    #[derive(Debug)]
    pub struct Arguments {
        values: BTreeMap<String, String>,
        noun: &'static str,
    }

    impl Arguments {
        /// The arguments of a `prompts/get`; -32602 naming every required
        /// argument that is missing.
        ///
        /// # Errors
        ///
        /// -32602 when a required argument of `spec` is missing.
        pub fn for_prompt(
            spec: &PromptSpec,
            values: BTreeMap<String, String>,
        ) -> Result<Self, ErrorObject> {
            let missing: Vec<&str> = spec
                .arguments
                .iter()
                .filter(|arg| arg.required && !values.contains_key(arg.name))
                .map(|arg| arg.name)
                .collect();
            if !missing.is_empty() {
                let list = missing
                    .iter()
                    .map(|name| format!("`{name}`"))
                    .collect::<Vec<_>>()
                    .join(", ");
                let plural = if missing.len() == 1 { "" } else { "s" };
                return Err(ErrorObject::invalid_params(format!(
                    "missing required argument{plural} {list} for prompt `{}`",
                    spec.name
                ))
                .with_data(json!({ "missing": missing })));
            }
            Ok(Arguments {
                values,
                noun: "argument",
            })
        }

        /// The variables a URI template matched.
        pub fn for_uri(values: BTreeMap<String, String>) -> Self {
            Arguments {
                values,
                noun: "URI variable",
            }
        }

        /// Takes and parses a required value.
        ///
        /// # Errors
        ///
        /// -32602 naming `name` when it is missing or does not parse.
        pub fn required<T: FromArgument>(&mut self, name: &str) -> Result<T, ErrorObject> {
            match self.optional(name)? {
                Some(value) => Ok(value),
                None => Err(ErrorObject::invalid_params(format!(
                    "missing required {} `{name}`",
                    self.noun
                ))
                .with_data(json!({ "missing": [name] }))),
            }
        }

        /// Takes and parses an optional value.
        ///
        /// # Errors
        ///
        /// -32602 naming `name` when it is present but does not parse.
        pub fn optional<T: FromArgument>(&mut self, name: &str) -> Result<Option<T>, ErrorObject> {
            let Some(raw) = self.values.remove(name) else {
                return Ok(None);
            };
            T::from_argument(raw).map(Some).map_err(|reason| {
                ErrorObject::invalid_params(format!(
                    "invalid value for {} `{name}`: {reason}",
                    self.noun
                ))
                .with_data(json!({ "invalid": name }))
            })
        }
    }
}
