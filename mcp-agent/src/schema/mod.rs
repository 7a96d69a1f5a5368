//! The schema compiler: an MCP tool's `inputSchema` (JSON Schema 2020-12)
//! lowered into the form one provider accepts, with a [loss report](LossReport)
//! of every keyword dropped, rewritten, inlined or moved into a description,
//! and a plan to map the model's arguments back ([`Compiled::restore`]).
//!
//! ```
//! use mcp_agent::schema::{compile, Action, Target};
//! use serde_json::json;
//!
//! let input = json!({
//!     "type": "object",
//!     "properties": {
//!         "path": {"type": "string"},
//!         "depth": {"type": "integer", "minimum": 0}
//!     },
//!     "required": ["path"]
//! });
//! let compiled = compile(&input, Target::OpenAi).unwrap();
//! assert!(compiled.strict);
//! // Strict mode lists every property as required; `depth` became nullable...
//! assert_eq!(compiled.parameters["required"], json!(["depth", "path"]));
//! assert_eq!(compiled.parameters["properties"]["depth"]["type"], json!(["integer", "null"]));
//! assert_eq!(compiled.loss.count(Action::Rewritten), 2);
//! // ...and a null the model sends for it is removed again.
//! let restored = compiled.restore(json!({"path": "/tmp", "depth": null}));
//! assert_eq!(restored.arguments, json!({"path": "/tmp"}));
//! ```
//!
//! # Provider rules implemented
//!
//! - **OpenAI** Chat Completions `tools[].function.parameters`
//!   ([function calling](https://platform.openai.com/docs/guides/function-calling),
//!   [supported schemas of structured outputs](https://platform.openai.com/docs/guides/structured-outputs#supported-schemas)).
//!   Strict mode whenever it can express the schema: every object closed
//!   with every property required (optional ones made nullable and
//!   restored), `oneOf` as `anyOf`, `allOf` merged, `$ref` kept when it
//!   points at a definition or the root (definitions gathered under the
//!   root's `$defs`), inlined when it has sibling keywords (as the OpenAI
//!   Python SDK's `to_strict_json_schema` does), string formats from the
//!   documented list, number and array bounds kept, other constraints moved
//!   into the description, the documented limits (10 levels of objects,
//!   5000 properties, 1000 enum values, 15000 characters in a large enum,
//!   120000 characters of names and values).
//!   Anything strict mode cannot say (open maps, tuples, values of any
//!   type, recursive references with siblings, references outside the
//!   schema) makes the tool non-strict, with one [`Action::NotStrict`]
//!   entry saying where and why; non-strict takes the schema as
//!   Anthropic does.
//! - **Anthropic** Messages `tools[].input_schema`
//!   ([define tools](https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use)):
//!   JSON Schema, the top level `type: object`. Only the document keywords
//!   (`$schema`, `$id`, `$comment`, anchors) are dropped, and each `enum` is
//!   cut to [`MAX_ENUM`]. Strict tool use (`strict: true`) is not used: its
//!   documented subset is narrower than OpenAI's (no numeric or length
//!   bounds, no recursion), and the Anthropic SDK's `transform_schema`
//!   targets structured output.
//! - **Gemini** `functionDeclarations[].parameters`
//!   ([function calling](https://ai.google.dev/gemini-api/docs/function-calling),
//!   [`Schema`](https://ai.google.dev/api/caching#Schema)): the OpenAPI 3.0
//!   subset, as the `google-genai` SDK's `process_schema` shapes it. The
//!   newer `parametersJsonSchema` is not used, so one output works with the
//!   Gemini API and with older models; see [`gemini`] for the rules. As
//!   the Gemini API cannot be told that an object is closed, restore
//!   removes the members the model adds to an object the original closes.
//!
//! The output lists properties in the order `serde_json` keeps them (by
//! name: the workspace builds it without `preserve_order`); strict mode's
//! `required` and Gemini's `propertyOrdering` follow that order.
//!
//! Every target refuses a top level that is not an object, and every walk
//! is bounded: at most [`MAX_DEPTH`] levels and [`MAX_NODES`] schema nodes
//! produced, so a hostile reference fan-out fails fast with
//! [`CompileError::TooLarge`] where references must be inlined.

mod ctx;
pub mod gemini;
mod json;
mod loss;
mod restore;
mod strict;

use serde_json::{json, Value};

pub use loss::{Action, Loss, LossReport};
pub use restore::Restored;

use ctx::{types, Ctx};
use restore::Plans;

/// The deepest schema nesting compiled; deeper is [`CompileError::TooDeep`].
pub const MAX_DEPTH: usize = 64;

/// The most schema nodes one compilation produces, `$ref` copies included;
/// more is [`CompileError::TooLarge`].
pub const MAX_NODES: usize = 20_000;

/// The most members an `enum` keeps; the rest are cut and reported.
pub const MAX_ENUM: usize = 1000;

/// The provider a schema is compiled for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Target {
    /// OpenAI Chat Completions function `parameters`.
    OpenAi,
    /// Anthropic Messages `input_schema`.
    Anthropic,
    /// Gemini `functionDeclarations[].parameters`.
    Gemini,
}

impl Target {
    /// Every target, in a fixed order.
    pub const ALL: [Target; 3] = [Target::OpenAi, Target::Anthropic, Target::Gemini];
}

/// A schema that cannot be compiled for any provider.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompileError {
    /// The tool's arguments are not an object.
    #[error("a tool's input schema must describe an object, this one is `{found}`")]
    NotAnObject {
        /// The type the schema declares.
        found: String,
    },
    /// The schema is `false`: no arguments are valid.
    #[error("the input schema is `false`: no arguments are valid")]
    NoArguments,
    /// A keyword whose value is not what JSON Schema allows.
    #[error("invalid `{keyword}` at `{pointer}`")]
    Invalid {
        /// Where, in the original schema.
        pointer: String,
        /// The keyword.
        keyword: String,
    },
    /// Nested deeper than [`MAX_DEPTH`].
    #[error("the schema nests deeper than {limit} levels at `{pointer}`")]
    TooDeep {
        /// Where the bound was crossed.
        pointer: String,
        /// The bound.
        limit: usize,
    },
    /// More than [`MAX_NODES`] nodes, counting `$ref` copies.
    #[error("the schema expands to more than {limit} nodes at `{pointer}`")]
    TooLarge {
        /// Where the budget ran out.
        pointer: String,
        /// The budget.
        limit: usize,
    },
}

impl CompileError {
    pub(crate) fn invalid(pointer: &str, keyword: &str) -> Self {
        CompileError::Invalid {
            pointer: pointer.to_owned(),
            keyword: keyword.to_owned(),
        }
    }
}

/// A schema in the form one provider accepts.
#[derive(Debug, Clone, PartialEq)]
pub struct Compiled {
    /// The provider the schema was compiled for.
    pub target: Target,
    /// The schema to send: OpenAI `parameters`, Anthropic `input_schema`,
    /// Gemini `parameters`.
    pub parameters: Value,
    /// OpenAI only: whether to send `strict: true`. Always `false` for the
    /// other targets.
    pub strict: bool,
    /// Every change made to the original.
    pub loss: LossReport,
    /// The constraints written into descriptions, each `pointer: keyword:
    /// value`, for a host that shows them or adds them to the tool's
    /// description.
    pub description_notes: Vec<String>,
    plans: Plans,
}

impl Compiled {
    /// The model's `arguments` mapped back to what the original schema
    /// expects, at every depth: in OpenAI strict mode, every `null` the
    /// model gave for a property the compiler made nullable is removed; for
    /// Gemini, which cannot be told that an object is closed, every member
    /// of such an object that the original does not declare is removed.
    /// Values that do not fit the compiled schema pass through unchanged;
    /// the server still validates them.
    pub fn restore(&self, arguments: Value) -> Restored {
        self.plans.restore(arguments)
    }
}

/// Compiles an MCP tool's `inputSchema` for `target`.
///
/// # Errors
///
/// [`CompileError`] when the schema is not an object schema, is invalid
/// where the compiler reads it, nests deeper than [`MAX_DEPTH`] or expands
/// past [`MAX_NODES`].
pub fn compile(schema: &Value, target: Target) -> Result<Compiled, CompileError> {
    check_depth(schema)?;
    let mut top = LossReport::default();
    let root = top_level(schema, &mut top)?;
    let mut ctx = Ctx::new(&root);
    ctx.loss = top.clone();
    let (parameters, strict, plans) = match target {
        Target::Anthropic => (
            json::lower(&mut ctx, &root, "", 0)?,
            false,
            Plans::default(),
        ),
        Target::Gemini => {
            let (parameters, root_plan) = gemini::lower(&mut ctx, &root, "", 0)?;
            let plans = Plans {
                root: root_plan,
                ..Plans::default()
            };
            (parameters, false, plans)
        }
        Target::OpenAi => match strict::lower(&mut ctx, &root) {
            Ok((parameters, plans)) => (parameters, true, plans),
            Err(strict::Fail::Error(e)) => return Err(e),
            Err(strict::Fail::Blocked {
                pointer,
                keyword,
                reason,
            }) => {
                ctx = Ctx::new(&root);
                ctx.loss = top;
                ctx.lose(&pointer, &keyword, Action::NotStrict, reason);
                (
                    json::lower(&mut ctx, &root, "", 0)?,
                    false,
                    Plans::default(),
                )
            }
        },
    };
    Ok(Compiled {
        target,
        parameters,
        strict,
        loss: ctx.loss,
        description_notes: ctx.notes,
        plans,
    })
}

/// Fails when the JSON of `schema` nests deeper than twice [`MAX_DEPTH`]
/// (a schema level is at most two JSON levels, `properties` and the name),
/// walking with a stack of its own, so that nothing after it, cloning and
/// dropping included, recurses unboundedly on external data.
fn check_depth(schema: &Value) -> Result<(), CompileError> {
    let limit = 2 * MAX_DEPTH + 2;
    let mut stack: Vec<(&Value, usize, String)> = vec![(schema, 0, String::new())];
    while let Some((value, depth, pointer)) = stack.pop() {
        if depth > limit {
            return Err(CompileError::TooDeep {
                pointer,
                limit: MAX_DEPTH,
            });
        }
        match value {
            Value::Object(map) => stack.extend(
                map.iter()
                    .filter(|(_, v)| v.is_object() || v.is_array())
                    .map(|(k, v)| (v, depth + 1, ctx::child(&pointer, k))),
            ),
            Value::Array(items) => stack.extend(
                items
                    .iter()
                    .enumerate()
                    .filter(|(_, v)| v.is_object() || v.is_array())
                    .map(|(i, v)| (v, depth + 1, ctx::child(&pointer, &i.to_string()))),
            ),
            _ => {}
        }
    }
    Ok(())
}

/// The top level as an object schema with `type: object`.
fn top_level(schema: &Value, loss: &mut LossReport) -> Result<Value, CompileError> {
    match schema {
        Value::Bool(true) => {
            loss.push(
                "",
                "true",
                Action::Rewritten,
                "any arguments: an object of any properties",
            );
            Ok(json!({"type": "object"}))
        }
        Value::Bool(false) => Err(CompileError::NoArguments),
        Value::Object(node) => {
            let mut node = node.clone();
            match types(&node, "")? {
                None => {
                    loss.push(
                        "",
                        "type",
                        Action::Rewritten,
                        "a tool's arguments are an object",
                    );
                }
                Some(kinds) if kinds == ["object"] => return Ok(Value::Object(node)),
                Some(kinds) if kinds.iter().any(|k| k == "object") => {
                    loss.push(
                        "",
                        "type",
                        Action::Rewritten,
                        "a tool's arguments are an object, never another type",
                    );
                }
                Some(kinds) => {
                    return Err(CompileError::NotAnObject {
                        found: kinds.join(", "),
                    });
                }
            }
            node.insert("type".to_owned(), Value::from("object"));
            Ok(Value::Object(node))
        }
        other => Err(CompileError::NotAnObject {
            found: match other {
                Value::Null => "null",
                Value::Number(_) => "number",
                Value::String(_) => "string",
                _ => "array",
            }
            .to_owned(),
        }),
    }
}
