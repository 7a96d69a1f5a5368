//! Asking the user for input through a form, across the rounds of a
//! multi-round-trip request.
//!
//! A server never sends requests of its own. When a tool needs the user to
//! confirm something or fill in a few fields, it answers the call with an
//! `InputRequiredResult` holding an `elicitation/create` request; the client
//! shows the form, then calls the tool again with the user's answer in
//! `inputResponses`, under the key the server chose.
//!
//! With `#[tool]` this takes one parameter: `confirm: Elicit<Confirm>`,
//! where `Confirm` derives [`ElicitForm`]. On the first call the tool's body
//! does not run; the runtime asks for the form under the key `"confirm"`.
//! On the retry the body runs with the user's [`Elicitation`]: the accepted
//! form, a refusal, or a dismissal.
//!
//! ```
//! use mcp_server::elicit::{Elicit, Elicitation};
//! use mcp_server::{tool, ElicitForm};
//!
//! /// Delete the project and everything in it?
//! #[derive(ElicitForm)]
//! struct Confirm {
//!     /// Type the project name again.
//!     name: String,
//!     /// Also delete the backups.
//!     backups: Option<bool>,
//! }
//!
//! /// Deletes a project after the user confirms.
//! #[tool(destructive)]
//! fn delete_project(project: String, confirm: Elicit<Confirm>) -> Result<String, String> {
//!     match confirm {
//!         Elicitation::Accept(form) if form.name == project => Ok(format!("deleted {project}")),
//!         Elicitation::Accept(_) => Err("the names differ; nothing was deleted".into()),
//!         Elicitation::Decline | Elicitation::Cancel => Ok("nothing was deleted".into()),
//!     }
//! }
//! ```
//!
//! # Forms
//!
//! The spec allows only flat forms: each field is a string, a number, a
//! boolean, a single choice or a multiple choice. `#[derive(ElicitForm)]`
//! on a struct accepts fields of these types (see [`FormField`]):
//!
//! | Rust type | form field |
//! |---|---|
//! | `String` | text; `#[form(format = "email" \| "uri" \| "date" \| "date-time")]`, `min_length`, `max_length`, or `choices("a", "b")` for a single choice |
//! | `bool` | checkbox |
//! | `i8` … `i64`, `u8` … `u64`, `isize`, `usize` | integer, bounded by the type; `min`, `max` |
//! | `f32`, `f64` | number; `min`, `max` |
//! | an enum of unit variants that derives `ElicitForm` | single choice |
//! | `Vec<E>` of such an enum, or `Vec<String>` with `choices(...)` | multiple choice |
//! | `Option<T>` of any of these | the same field, not required |
//!
//! A nested struct, a map, a tuple or a `Vec` of anything else does not
//! compile. Doc comments become the field descriptions and the form's
//! message; `#[form(title = "...")]`, `#[form(rename = "...")]` and
//! `#[form(default = ...)]` set the rest. On the struct,
//! `#[form(message = "...")]` overrides the doc comment and
//! `#[form(rename_all = "...")]` renames every field. On an enum, variants
//! take `#[form(rename = "...")]` and `#[form(title = "...")]` (a variant's
//! doc comment is its title), and the enum takes `rename_all`.
//!
//! Never ask for passwords, tokens or other secrets in a form: the spec
//! forbids it, and the answer passes through the client.
//!
//! An answer is whatever the retry carries under the key: the server does
//! not remember having asked (nothing is kept between rounds, and no
//! `requestState` is sent), so a client can answer before being asked.
//! Treat an accepted form as the client's word, like any argument. A server
//! that must tie an answer to its question seals state into the
//! `InputRequiredResult` before sending it.
//!
//! The answer is decoded and checked against the form (required fields,
//! choices, bounds and lengths); an answer that does not fit is a
//! malformed `inputResponses` and is refused with -32602.
//!
//! Numbers: the 2026-07-28 schema types the values of an answer as
//! strings, integers, booleans or string lists, so a float field receives
//! whole numbers only.

use std::collections::BTreeMap;
use std::fmt;

use mcp_types::jsonrpc::ErrorObject;
use mcp_types::v2026_07_28::{
    BooleanSchema, ClientCapabilities, ClientCapabilitiesElicitation, ElicitRequest,
    ElicitRequestFormParams, ElicitRequestFormParamsRequestedSchema, ElicitRequestParams,
    ElicitResult, ElicitResultAction, ElicitResultContentValue, InputRequest, InputRequests,
    InputRequiredResult, InputResponse, NumberSchema, NumberSchemaType, PrimitiveSchemaDefinition,
    StringSchema, StringSchemaFormat, TitledMultiSelectEnumSchema,
    TitledMultiSelectEnumSchemaItems, TitledMultiSelectEnumSchemaItemsAnyOfItem,
    TitledSingleSelectEnumSchema, TitledSingleSelectEnumSchemaOneOfItem,
    UntitledMultiSelectEnumSchema, UntitledMultiSelectEnumSchemaItems,
    UntitledSingleSelectEnumSchema,
};
use serde_json::{Map, Number};

use crate::Context;

/// What the user did with a form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Elicitation<T> {
    /// The user submitted the form.
    Accept(T),
    /// The user explicitly refused.
    Decline,
    /// The user dismissed the form without choosing.
    Cancel,
}

impl<T> Elicitation<T> {
    /// The submitted form, if the user accepted.
    pub fn accepted(self) -> Option<T> {
        match self {
            Self::Accept(form) => Some(form),
            Self::Decline | Self::Cancel => None,
        }
    }

    /// Whether the user accepted.
    pub fn is_accepted(&self) -> bool {
        matches!(self, Self::Accept(_))
    }
}

/// The type of a `#[tool]` parameter that asks the user to fill in the form
/// `T`; the body receives the user's [`Elicitation`].
///
/// The parameter is not part of the tool's `inputSchema`. Its name is the
/// key of the input request. The form's message comes from
/// `#[elicit(message = "...")]` on the parameter, else from the form.
pub type Elicit<T> = Elicitation<T>;

/// A flat form the server can ask the user to fill in; derive it with
/// `#[derive(ElicitForm)]` (see the [module docs](self)).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an elicitation form",
    label = "`Elicit<T>` needs a form here",
    note = "derive `ElicitForm` on a struct whose fields are strings, numbers, booleans or choices"
)]
pub trait ElicitForm: Sized {
    /// The message shown with the form, when the form has one.
    fn message() -> Option<&'static str> {
        None
    }

    /// The `requestedSchema` of the form.
    fn requested_schema() -> ElicitRequestFormParamsRequestedSchema;

    /// Decodes the `content` of an accepted answer.
    ///
    /// # Errors
    ///
    /// When a required field is missing or a value does not fit its field.
    fn from_content(
        content: &BTreeMap<String, ElicitResultContentValue>,
    ) -> Result<Self, FormError>;
}

/// A type that can be one field of a form.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a field of an elicitation form",
    label = "forms must be flat",
    note = "use a `String`, `bool`, integer, float, an enum of unit variants that derives `ElicitForm`, a `Vec` of such an enum, or an `Option` of one of these"
)]
pub trait FormField: Sized {
    /// Whether the field must be filled in.
    const REQUIRED: bool = true;

    /// The field's schema, shaped by the options in `spec`.
    fn schema(spec: &FieldSpec) -> PrimitiveSchemaDefinition;

    /// Decodes the field's value (`None` when the answer leaves it out).
    ///
    /// # Errors
    ///
    /// A description of what is wrong with the value.
    fn decode(value: Option<&ElicitResultContentValue>, spec: &FieldSpec) -> Result<Self, String>;
}

/// A type whose values are a fixed list of choices: an enum of unit
/// variants that derives `ElicitForm`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a choice of an elicitation form",
    label = "forms must be flat",
    note = "a list field holds an enum of unit variants that derives `ElicitForm`, or `String` with `#[form(choices(...))]`"
)]
pub trait FormChoice: Sized {
    /// The choices in order; empty for free text.
    fn choices() -> Vec<Choice>;

    /// The value for the wire string `value`.
    fn from_choice(value: &str) -> Option<Self>;
}

/// One choice: the value on the wire and an optional title to show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice {
    /// The value sent back when this choice is picked.
    pub value: &'static str,
    /// The label shown instead of the value.
    pub title: Option<&'static str>,
}

/// A default value of a form field.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FieldDefault {
    /// For text and choice fields.
    Str(&'static str),
    /// For integer and number fields.
    Int(i64),
    /// For number fields.
    Float(f64),
    /// For boolean fields.
    Bool(bool),
}

/// The options of one form field, as `#[form(...)]` gives them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FieldSpec {
    name: &'static str,
    title: Option<&'static str>,
    description: Option<&'static str>,
    default: Option<FieldDefault>,
    format: Option<&'static str>,
    min: Option<f64>,
    max: Option<f64>,
    min_length: Option<u32>,
    max_length: Option<u32>,
    choices: &'static [&'static str],
}

impl FieldSpec {
    /// A field named `name` on the wire, without options.
    pub const fn new(name: &'static str) -> Self {
        Self {
            name,
            title: None,
            description: None,
            default: None,
            format: None,
            min: None,
            max: None,
            min_length: None,
            max_length: None,
            choices: &[],
        }
    }

    /// Sets the label shown for the field.
    pub const fn title(mut self, title: &'static str) -> Self {
        self.title = Some(title);
        self
    }

    /// Sets the help text of the field.
    pub const fn description(mut self, description: &'static str) -> Self {
        self.description = Some(description);
        self
    }

    /// Sets the value the form starts with.
    pub const fn default(mut self, default: FieldDefault) -> Self {
        self.default = Some(default);
        self
    }

    /// Sets the format of a text field: `email`, `uri`, `date` or
    /// `date-time`.
    pub const fn format(mut self, format: &'static str) -> Self {
        self.format = Some(format);
        self
    }

    /// Sets the smallest value of a number field.
    pub const fn min(mut self, min: f64) -> Self {
        self.min = Some(min);
        self
    }

    /// Sets the largest value of a number field.
    pub const fn max(mut self, max: f64) -> Self {
        self.max = Some(max);
        self
    }

    /// Sets the shortest length of a text field.
    pub const fn min_length(mut self, min_length: u32) -> Self {
        self.min_length = Some(min_length);
        self
    }

    /// Sets the longest length of a text field.
    pub const fn max_length(mut self, max_length: u32) -> Self {
        self.max_length = Some(max_length);
        self
    }

    /// Restricts a text or list field to these values.
    pub const fn choices(mut self, choices: &'static [&'static str]) -> Self {
        self.choices = choices;
        self
    }

    /// The field's name on the wire.
    pub const fn name(&self) -> &'static str {
        self.name
    }
}

/// Why an answer does not fit its form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormError {
    problems: Vec<String>,
}

impl FormError {
    /// An error listing `problems`, one sentence fragment each.
    pub fn new(problems: Vec<String>) -> Self {
        Self { problems }
    }

    /// What is wrong, one entry per field.
    pub fn problems(&self) -> &[String] {
        &self.problems
    }
}

impl fmt::Display for FormError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.problems.join("; "))
    }
}

impl std::error::Error for FormError {}

/// Decodes the fields of an answer one by one and collects every problem.
#[derive(Debug)]
pub struct FormDecoder<'c> {
    content: &'c BTreeMap<String, ElicitResultContentValue>,
    problems: Vec<String>,
}

impl<'c> FormDecoder<'c> {
    /// A decoder for `content`.
    pub fn new(content: &'c BTreeMap<String, ElicitResultContentValue>) -> Self {
        Self {
            content,
            problems: Vec::new(),
        }
    }

    /// Decodes the field `spec` names; `None` after recording a problem.
    pub fn field<T: FormField>(&mut self, spec: &FieldSpec) -> Option<T> {
        self.field_with(spec, __private::form_field::<T>())
    }

    #[doc(hidden)]
    pub fn field_with<T>(&mut self, spec: &FieldSpec, field: __private::Field<T>) -> Option<T> {
        match (field.decode)(self.content.get(spec.name), spec) {
            Ok(value) => Some(value),
            Err(problem) => {
                self.problems
                    .push(format!("field `{}`: {problem}", spec.name));
                None
            }
        }
    }

    /// The collected problems as an error.
    pub fn into_error(self) -> FormError {
        let mut problems = self.problems;
        if problems.is_empty() {
            problems.push("a field could not be decoded".to_owned());
        }
        FormError::new(problems)
    }
}

/// Builds a `requestedSchema` from fields.
#[derive(Debug, Default)]
pub struct FormSchema {
    properties: BTreeMap<String, PrimitiveSchemaDefinition>,
    required: Vec<String>,
}

impl FormSchema {
    /// A form without fields.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the field `spec` describes, of type `T`.
    pub fn field<T: FormField>(&mut self, spec: &FieldSpec) {
        self.field_with(spec, __private::form_field::<T>());
    }

    #[doc(hidden)]
    pub fn field_with<T>(&mut self, spec: &FieldSpec, field: __private::Field<T>) {
        self.properties
            .insert(spec.name.to_owned(), (field.schema)(spec));
        if field.required {
            self.required.push(spec.name.to_owned());
        }
    }

    /// The finished schema.
    pub fn finish(self) -> ElicitRequestFormParamsRequestedSchema {
        ElicitRequestFormParamsRequestedSchema {
            schema: None,
            properties: self.properties,
            required: (!self.required.is_empty()).then_some(self.required),
            type_: Default::default(),
            extra: Map::new(),
        }
    }
}

/// The `elicitation/create` request, in form mode, for the form `T`.
pub fn form_request<T: ElicitForm>(message: &str) -> ElicitRequest {
    ElicitRequest {
        method: Default::default(),
        params: ElicitRequestParams::Form(ElicitRequestFormParams {
            message: message.to_owned(),
            mode: None,
            requested_schema: T::requested_schema(),
            extra: Map::new(),
        }),
        extra: Map::new(),
    }
}

/// Whether the client declared form-mode elicitation. An `elicitation`
/// object that names no mode at all means form mode.
pub fn supports_form(capabilities: &ClientCapabilities) -> bool {
    capabilities
        .elicitation
        .as_ref()
        .is_some_and(|e| e.form.is_some() || e.url.is_none())
}

/// The -32021 error for a request whose client did not declare form-mode
/// elicitation.
pub fn missing_form_capability() -> ErrorObject {
    let required = ClientCapabilities {
        elicitation: Some(ClientCapabilitiesElicitation {
            form: Some(Map::new()),
            ..Default::default()
        }),
        ..Default::default()
    };
    let mut error = ErrorObject::missing_required_client_capability(required);
    error.message =
        "This request needs the client capability `elicitation` (form mode), which it did not declare"
            .to_owned();
    error
}

/// The user's answer under `key` on this request, if the retry carries
/// one.
///
/// # Errors
///
/// -32602 when the answer is not an elicitation result or its content
/// does not fit the form.
pub fn answer<T: ElicitForm>(
    cx: &Context,
    key: &str,
) -> Result<Option<Elicitation<T>>, ErrorObject> {
    let Some(response) = cx.input_responses().and_then(|r| r.get(key)) else {
        return Ok(None);
    };
    let result = match response {
        InputResponse::Elicit(result) => result.clone(),
        other => serde_json::to_value(other)
            .and_then(serde_json::from_value::<ElicitResult>)
            .map_err(|_| {
                ErrorObject::invalid_params(format!(
                    "the input response `{key}` is not an elicitation result"
                ))
            })?,
    };
    Ok(Some(match result.action {
        ElicitResultAction::Decline => Elicitation::Decline,
        ElicitResultAction::Cancel => Elicitation::Cancel,
        ElicitResultAction::Accept => {
            let content = result.content.unwrap_or_default();
            let form = T::from_content(&content).map_err(|e| {
                ErrorObject::invalid_params(format!(
                    "the input response `{key}` does not fit the form: {e}"
                ))
            })?;
            Elicitation::Accept(form)
        }
    }))
}

/// One round of a multi-round-trip request: collects the answers a retry
/// brings and the questions still open.
///
/// ```
/// use mcp_server::elicit::{Elicitation, InputRound};
/// use mcp_server::{Context, ElicitForm};
/// use mcp_server::types::v2026_07_28::ClientCapabilities;
///
/// /// Proceed?
/// #[derive(ElicitForm)]
/// struct Proceed {
///     ok: bool,
/// }
///
/// let cx = Context::new("tools/call", ClientCapabilities::default());
/// let mut round = InputRound::new(&cx);
/// let answer = round.elicit::<Proceed>("proceed", None).expect("well-formed");
/// assert!(answer.is_none());
/// // This client cannot show forms: -32021.
/// let error = round.finish().expect_err("no elicitation capability");
/// assert_eq!(error.code, -32021);
/// ```
#[derive(Debug)]
pub struct InputRound<'a> {
    cx: &'a Context,
    requests: InputRequests,
}

impl<'a> InputRound<'a> {
    /// A round for the request `cx` serves.
    pub fn new(cx: &'a Context) -> Self {
        Self {
            cx,
            requests: InputRequests::new(),
        }
    }

    /// The answer under `key`, or `None` after queueing the form `T` under
    /// that key. The message is `message`, else the form's own, else a
    /// generic one.
    ///
    /// # Errors
    ///
    /// As [`answer`].
    pub fn elicit<T: ElicitForm>(
        &mut self,
        key: &str,
        message: Option<&str>,
    ) -> Result<Option<Elicitation<T>>, ErrorObject> {
        let found = answer::<T>(self.cx, key)?;
        if found.is_none() {
            let message = message
                .or_else(|| T::message())
                .unwrap_or("Please fill in the form.");
            self.requests.insert(
                key.to_owned(),
                InputRequest::Elicit(form_request::<T>(message)),
            );
        }
        Ok(found)
    }

    /// `None` when every answer is in; otherwise the `InputRequiredResult`
    /// asking for the rest.
    ///
    /// It carries no `requestState`: the retry repeats the arguments, and
    /// the answers arrive under their keys. A server that keeps state across
    /// rounds attaches its sealed state to the result before sending it.
    ///
    /// # Errors
    ///
    /// -32021 when a form is still open and the client did not declare
    /// form-mode elicitation on this request.
    pub fn finish(self) -> Result<Option<InputRequiredResult>, ErrorObject> {
        if self.requests.is_empty() {
            return Ok(None);
        }
        if !supports_form(self.cx.client_capabilities()) {
            return Err(missing_form_capability());
        }
        Ok(Some(InputRequiredResult {
            input_requests: Some(self.requests),
            result_type: Some("input_required".to_owned()),
            ..Default::default()
        }))
    }
}

fn content_kind(value: &ElicitResultContentValue) -> &'static str {
    match value {
        ElicitResultContentValue::Array(_) => "a list",
        ElicitResultContentValue::String(_) => "a string",
        ElicitResultContentValue::Integer(_) => "an integer",
        ElicitResultContentValue::Boolean(_) => "a boolean",
    }
}

fn present(value: Option<&ElicitResultContentValue>) -> Result<&ElicitResultContentValue, String> {
    value.ok_or_else(|| "missing".to_owned())
}

fn string_format(format: &str) -> Option<StringSchemaFormat> {
    Some(match format {
        "email" => StringSchemaFormat::Email,
        "uri" => StringSchemaFormat::Uri,
        "date" => StringSchemaFormat::Date,
        "date-time" => StringSchemaFormat::DateTime,
        _ => return None,
    })
}

fn default_str(spec: &FieldSpec) -> Option<String> {
    match spec.default {
        Some(FieldDefault::Str(s)) => Some(s.to_owned()),
        _ => None,
    }
}

fn number(value: f64) -> Option<Number> {
    if value.fract() == 0.0 && value.abs() < 9.007_199_254_740_992e15 {
        Some(Number::from(value as i64))
    } else {
        Number::from_f64(value)
    }
}

fn single_choice(spec: &FieldSpec, choices: &[Choice]) -> PrimitiveSchemaDefinition {
    if choices.iter().any(|c| c.title.is_some()) {
        PrimitiveSchemaDefinition::TitledSingleSelectEnum(TitledSingleSelectEnumSchema {
            default: default_str(spec),
            description: spec.description.map(str::to_owned),
            one_of: choices
                .iter()
                .map(|c| TitledSingleSelectEnumSchemaOneOfItem {
                    const_: c.value.to_owned(),
                    title: c.title.unwrap_or(c.value).to_owned(),
                    extra: Map::new(),
                })
                .collect(),
            title: spec.title.map(str::to_owned),
            type_: Default::default(),
            extra: Map::new(),
        })
    } else {
        PrimitiveSchemaDefinition::UntitledSingleSelectEnum(UntitledSingleSelectEnumSchema {
            default: default_str(spec),
            description: spec.description.map(str::to_owned),
            enum_: choices.iter().map(|c| c.value.to_owned()).collect(),
            title: spec.title.map(str::to_owned),
            type_: Default::default(),
            extra: Map::new(),
        })
    }
}

fn multi_choice(spec: &FieldSpec, choices: &[Choice]) -> PrimitiveSchemaDefinition {
    let default = default_str(spec).map(|d| vec![d]);
    let min_items = spec.min_length.map(i64::from);
    let max_items = spec.max_length.map(i64::from);
    if choices.iter().any(|c| c.title.is_some()) {
        PrimitiveSchemaDefinition::TitledMultiSelectEnum(TitledMultiSelectEnumSchema {
            default,
            description: spec.description.map(str::to_owned),
            items: TitledMultiSelectEnumSchemaItems {
                any_of: choices
                    .iter()
                    .map(|c| TitledMultiSelectEnumSchemaItemsAnyOfItem {
                        const_: c.value.to_owned(),
                        title: c.title.unwrap_or(c.value).to_owned(),
                        extra: Map::new(),
                    })
                    .collect(),
                extra: Map::new(),
            },
            max_items,
            min_items,
            title: spec.title.map(str::to_owned),
            type_: Default::default(),
            extra: Map::new(),
        })
    } else {
        PrimitiveSchemaDefinition::UntitledMultiSelectEnum(UntitledMultiSelectEnumSchema {
            default,
            description: spec.description.map(str::to_owned),
            items: UntitledMultiSelectEnumSchemaItems {
                enum_: choices.iter().map(|c| c.value.to_owned()).collect(),
                type_: Default::default(),
                extra: Map::new(),
            },
            max_items,
            min_items,
            title: spec.title.map(str::to_owned),
            type_: Default::default(),
            extra: Map::new(),
        })
    }
}

fn spec_choices(spec: &FieldSpec) -> Vec<Choice> {
    spec.choices
        .iter()
        .map(|value| Choice { value, title: None })
        .collect()
}

fn check_choice<'s>(choices: &[Choice], value: &'s str) -> Result<&'s str, String> {
    if choices.is_empty() || choices.iter().any(|c| c.value == value) {
        Ok(value)
    } else {
        let list: Vec<&str> = choices.iter().map(|c| c.value).collect();
        Err(format!("`{value}` is not one of {}", list.join(", ")))
    }
}

impl FormField for String {
    fn schema(spec: &FieldSpec) -> PrimitiveSchemaDefinition {
        if !spec.choices.is_empty() {
            return single_choice(spec, &spec_choices(spec));
        }
        PrimitiveSchemaDefinition::String(StringSchema {
            default: default_str(spec),
            description: spec.description.map(str::to_owned),
            format: spec.format.and_then(string_format),
            max_length: spec.max_length.map(i64::from),
            min_length: spec.min_length.map(i64::from),
            title: spec.title.map(str::to_owned),
            type_: Default::default(),
            extra: Map::new(),
        })
    }

    fn decode(value: Option<&ElicitResultContentValue>, spec: &FieldSpec) -> Result<Self, String> {
        let ElicitResultContentValue::String(s) = present(value)? else {
            return Err(format!(
                "expected a string, got {}",
                content_kind(present(value)?)
            ));
        };
        check_choice(&spec_choices(spec), s)?;
        let length = s.chars().count();
        if spec.min_length.is_some_and(|min| length < min as usize) {
            return Err(format!(
                "shorter than {} characters",
                spec.min_length.unwrap_or(0)
            ));
        }
        if spec.max_length.is_some_and(|max| length > max as usize) {
            return Err(format!(
                "longer than {} characters",
                spec.max_length.unwrap_or(0)
            ));
        }
        Ok(s.clone())
    }
}

impl FormChoice for String {
    fn choices() -> Vec<Choice> {
        Vec::new()
    }

    fn from_choice(value: &str) -> Option<Self> {
        Some(value.to_owned())
    }
}

impl FormField for bool {
    fn schema(spec: &FieldSpec) -> PrimitiveSchemaDefinition {
        PrimitiveSchemaDefinition::Boolean(BooleanSchema {
            default: match spec.default {
                Some(FieldDefault::Bool(b)) => Some(b),
                _ => None,
            },
            description: spec.description.map(str::to_owned),
            title: spec.title.map(str::to_owned),
            type_: Default::default(),
            extra: Map::new(),
        })
    }

    fn decode(value: Option<&ElicitResultContentValue>, _: &FieldSpec) -> Result<Self, String> {
        match present(value)? {
            ElicitResultContentValue::Boolean(b) => Ok(*b),
            other => Err(format!("expected a boolean, got {}", content_kind(other))),
        }
    }
}

fn number_schema(
    spec: &FieldSpec,
    type_: NumberSchemaType,
    low: f64,
    high: f64,
) -> PrimitiveSchemaDefinition {
    let min = spec.min.map_or(low, |m| m.max(low));
    let max = spec.max.map_or(high, |m| m.min(high));
    let default = match spec.default {
        Some(FieldDefault::Int(i)) => Some(Number::from(i)),
        Some(FieldDefault::Float(f)) => number(f),
        _ => None,
    };
    PrimitiveSchemaDefinition::Number(NumberSchema {
        default,
        description: spec.description.map(str::to_owned),
        maximum: max.is_finite().then(|| number(max)).flatten(),
        minimum: min.is_finite().then(|| number(min)).flatten(),
        title: spec.title.map(str::to_owned),
        type_,
        extra: Map::new(),
    })
}

fn check_range(spec: &FieldSpec, value: f64) -> Result<(), String> {
    if let Some(min) = spec.min.filter(|&min| value < min) {
        return Err(format!("less than {min}"));
    }
    if let Some(max) = spec.max.filter(|&max| value > max) {
        return Err(format!("greater than {max}"));
    }
    Ok(())
}

fn integer(value: Option<&ElicitResultContentValue>) -> Result<i64, String> {
    match present(value)? {
        ElicitResultContentValue::Integer(i) => Ok(*i),
        other => Err(format!("expected an integer, got {}", content_kind(other))),
    }
}

macro_rules! integer_fields {
    ($($t:ty),*) => {$(
        impl FormField for $t {
            fn schema(spec: &FieldSpec) -> PrimitiveSchemaDefinition {
                // Bounds past 2^53 are left out: JSON numbers lose precision there.
                let bound = |b: $t| {
                    let b = b as f64;
                    if b.abs() <= 9.007_199_254_740_991e15 { b } else { f64::NAN }
                };
                number_schema(spec, NumberSchemaType::Integer, bound(<$t>::MIN), bound(<$t>::MAX))
            }

            fn decode(value: Option<&ElicitResultContentValue>, spec: &FieldSpec) -> Result<Self, String> {
                let i = integer(value)?;
                let value = <$t>::try_from(i)
                    .map_err(|_| format!("{i} is out of range for this field"))?;
                check_range(spec, i as f64)?;
                Ok(value)
            }
        }
    )*};
}

integer_fields!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

macro_rules! float_fields {
    ($($t:ty),*) => {$(
        impl FormField for $t {
            fn schema(spec: &FieldSpec) -> PrimitiveSchemaDefinition {
                number_schema(spec, NumberSchemaType::Number, f64::NAN, f64::NAN)
            }

            fn decode(value: Option<&ElicitResultContentValue>, spec: &FieldSpec) -> Result<Self, String> {
                let i = integer(value)?;
                check_range(spec, i as f64)?;
                Ok(i as $t)
            }
        }
    )*};
}

float_fields!(f32, f64);

impl<T: FormField> FormField for Option<T> {
    const REQUIRED: bool = false;

    fn schema(spec: &FieldSpec) -> PrimitiveSchemaDefinition {
        T::schema(spec)
    }

    fn decode(value: Option<&ElicitResultContentValue>, spec: &FieldSpec) -> Result<Self, String> {
        value.map(|v| T::decode(Some(v), spec)).transpose()
    }
}

impl<T: FormChoice> FormField for Vec<T> {
    fn schema(spec: &FieldSpec) -> PrimitiveSchemaDefinition {
        let choices = T::choices();
        let choices = if choices.is_empty() {
            spec_choices(spec)
        } else {
            choices
        };
        multi_choice(spec, &choices)
    }

    fn decode(value: Option<&ElicitResultContentValue>, spec: &FieldSpec) -> Result<Self, String> {
        let ElicitResultContentValue::Array(items) = present(value)? else {
            return Err(format!(
                "expected a list, got {}",
                content_kind(present(value)?)
            ));
        };
        let choices = T::choices();
        let choices = if choices.is_empty() {
            spec_choices(spec)
        } else {
            choices
        };
        if spec
            .min_length
            .is_some_and(|min| items.len() < min as usize)
        {
            return Err(format!(
                "fewer than {} choices",
                spec.min_length.unwrap_or(0)
            ));
        }
        if spec
            .max_length
            .is_some_and(|max| items.len() > max as usize)
        {
            return Err(format!(
                "more than {} choices",
                spec.max_length.unwrap_or(0)
            ));
        }
        items
            .iter()
            .map(|item| {
                check_choice(&choices, item)?;
                T::from_choice(item).ok_or_else(|| format!("`{item}` is not a valid choice"))
            })
            .collect()
    }
}

/// Support for the code `#[derive(ElicitForm)]` generates on an enum: the
/// single-choice field of a [`FormChoice`].
pub fn choice_schema<T: FormChoice>(spec: &FieldSpec) -> PrimitiveSchemaDefinition {
    single_choice(spec, &T::choices())
}

/// Decodes a single-choice field of a [`FormChoice`].
///
/// # Errors
///
/// When the value is missing, not a string or not one of the choices.
pub fn choice_decode<T: FormChoice>(value: Option<&ElicitResultContentValue>) -> Result<T, String> {
    match present(value)? {
        ElicitResultContentValue::String(s) => T::from_choice(s).ok_or_else(|| {
            let list: Vec<&str> = T::choices().iter().map(|c| c.value).collect();
            format!("`{s}` is not one of {}", list.join(", "))
        }),
        other => Err(format!("expected a string, got {}", content_kind(other))),
    }
}

/// Support for the code `#[tool]` and `#[derive(ElicitForm)]` generate;
/// not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use super::InputRound;

    use mcp_types::jsonrpc::ErrorObject;
    use mcp_types::v2026_07_28::{ElicitResultContentValue, PrimitiveSchemaDefinition};

    use super::{FieldSpec, FormField};
    use crate::tool::ToolOutput;

    /// How to describe and decode one field type. Generated code gets it
    /// from [`form_field`], the one place that requires [`FormField`], so
    /// that a type that cannot be a field is reported once.
    pub struct Field<T> {
        pub(super) schema: fn(&FieldSpec) -> PrimitiveSchemaDefinition,
        pub(super) decode: fn(Option<&ElicitResultContentValue>, &FieldSpec) -> Result<T, String>,
        pub(super) required: bool,
    }

    impl<T> std::fmt::Debug for Field<T> {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("Field")
        }
    }

    /// The handle of a field type.
    pub fn form_field<T: FormField>() -> Field<T> {
        Field {
            schema: T::schema,
            decode: T::decode,
            required: T::REQUIRED,
        }
    }

    /// The output that stops a call to ask for input, or `None` to go on.
    pub fn pause(round: InputRound<'_>) -> Option<Result<ToolOutput, ErrorObject>> {
        match round.finish() {
            Ok(None) => None,
            Ok(Some(result)) => Some(Ok(ToolOutput::InputRequired(result))),
            Err(error) => Some(Err(error)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_elicitation_object_means_form_mode() {
        let mut caps = ClientCapabilities::default();
        assert!(!supports_form(&caps));
        caps.elicitation = Some(ClientCapabilitiesElicitation::default());
        assert!(supports_form(&caps));
        caps.elicitation = Some(ClientCapabilitiesElicitation {
            url: Some(Map::new()),
            ..Default::default()
        });
        assert!(!supports_form(&caps));
    }

    #[test]
    fn integer_bounds_follow_the_type() {
        let schema = <u8 as FormField>::schema(&FieldSpec::new("n").max(300.0));
        let value = serde_json::to_value(schema).unwrap_or_default();
        assert_eq!(value["minimum"], 0);
        assert_eq!(value["maximum"], 255);
        let big = serde_json::to_value(<u64 as FormField>::schema(&FieldSpec::new("n")))
            .unwrap_or_default();
        assert!(big.get("maximum").is_none(), "{big}");
    }

    #[test]
    fn choices_are_checked() {
        const SPEC: FieldSpec = FieldSpec::new("c").choices(&["a", "b"]);
        let good = ElicitResultContentValue::String("a".into());
        let bad = ElicitResultContentValue::String("z".into());
        assert_eq!(String::decode(Some(&good), &SPEC), Ok("a".to_owned()));
        assert!(String::decode(Some(&bad), &SPEC).is_err());
        let list = ElicitResultContentValue::Array(vec!["b".into(), "z".into()]);
        assert!(Vec::<String>::decode(Some(&list), &SPEC).is_err());
    }
}
