//! A tool's input schema, compiled once, checks the arguments of a call
//! before anyone is asked to approve it: nobody should approve a call the
//! server will refuse, and the person typing the arguments learns which
//! field is wrong.
//!
//! The schema is written by the server, so it is bounded before it is
//! used. A schema longer than [`MAX_SCHEMA_BYTES`] encoded, or nested
//! deeper than [`MAX_SCHEMA_DEPTH`], is refused without being compiled;
//! references are never fetched (a `$ref` outside the schema fails it);
//! and `pattern`s run with a backtracking limit, so a hostile pattern
//! costs bounded time. A call of a tool whose schema is refused is
//! refused too, with [`SchemaError`] saying why.

use std::fmt;

use jsonschema::error::ValidationErrorKind;
use jsonschema::{PatternOptions, ValidationError, Validator};
use serde_json::{Map, Value};

use crate::untrusted::Untrusted;

/// The longest input schema the host compiles, in bytes of compact JSON.
pub const MAX_SCHEMA_BYTES: usize = 256 * 1024;

/// The deepest nesting of arrays and objects the host compiles.
pub const MAX_SCHEMA_DEPTH: usize = 64;

/// Most backtracking steps of one `pattern` against one value.
const BACKTRACK_LIMIT: usize = 100_000;

/// Largest compiled form of one `pattern`, and of its lazy DFA, in bytes.
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// Most problems reported for one call.
const MAX_PROBLEMS: usize = 8;

/// Why the host will not check arguments against a schema.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SchemaError {
    /// The schema is longer than [`MAX_SCHEMA_BYTES`].
    #[error("its input schema is longer than the {limit} bytes the host checks")]
    TooLarge {
        /// The limit, in bytes.
        limit: usize,
    },
    /// The schema nests deeper than [`MAX_SCHEMA_DEPTH`].
    #[error("its input schema nests deeper than the {limit} levels the host checks")]
    TooDeep {
        /// The limit, in levels.
        limit: usize,
    },
    /// The schema does not compile: it is not a valid schema, or it refers
    /// to one the host does not fetch. The reason is the validator's, with
    /// parts of the schema in it, so it stays untrusted.
    #[error("its input schema cannot be used: {}", .0.render())]
    Invalid(Untrusted<String>),
}

/// One way a call's arguments do not fit the schema.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Problem {
    /// Where: the path of the failing field (`title`, `tags/2`), or
    /// `None` for the arguments as a whole.
    pub field: Option<String>,
    /// What is wrong, as the validator says it.
    pub message: String,
}

/// A tool's input schema, compiled.
pub struct InputSchema {
    validator: Validator,
    origin: crate::ServerId,
}

impl fmt::Debug for InputSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InputSchema")
            .field("origin", &self.origin)
            .finish_non_exhaustive()
    }
}

/// Counts the bytes written to it and fails past a limit.
struct Counter {
    written: usize,
    limit: usize,
}

impl std::io::Write for Counter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.written += bytes.len();
        if self.written > self.limit {
            return Err(std::io::Error::other("too large"));
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Whether `value` nests no deeper than `limit` arrays and objects.
fn within_depth(value: &Value, limit: usize) -> bool {
    let mut stack = vec![(value, 1)];
    while let Some((value, depth)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match value {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(members) => Box::new(members.values()),
            _ => continue,
        };
        if depth > limit {
            return false;
        }
        stack.extend(children.map(|child| (child, depth + 1)));
    }
    true
}

impl InputSchema {
    /// Compiles the schema a server gave for a tool.
    ///
    /// # Errors
    ///
    /// [`SchemaError`] when the schema is too large, too deep, or not one
    /// the host can use.
    pub fn compile(schema: &Untrusted<Value>) -> Result<Self, SchemaError> {
        let value = schema.accept_ref();
        let mut counter = Counter {
            written: 0,
            limit: MAX_SCHEMA_BYTES,
        };
        if serde_json::to_writer(&mut counter, value).is_err() {
            return Err(SchemaError::TooLarge {
                limit: MAX_SCHEMA_BYTES,
            });
        }
        if !within_depth(value, MAX_SCHEMA_DEPTH) {
            return Err(SchemaError::TooDeep {
                limit: MAX_SCHEMA_DEPTH,
            });
        }
        let patterns = PatternOptions::fancy_regex()
            .backtrack_limit(BACKTRACK_LIMIT)
            .size_limit(REGEX_SIZE_LIMIT)
            .dfa_size_limit(REGEX_SIZE_LIMIT);
        let validator = jsonschema::options()
            .offline()
            .with_pattern_options(patterns)
            .build(value)
            .map_err(|e| SchemaError::Invalid(schema.as_ref().map(|_| e.to_string())))?;
        Ok(Self {
            validator,
            origin: schema.origin().clone(),
        })
    }

    /// Checks `arguments`; the problems found, at most eight, ordered by
    /// field. They carry parts of the schema, so they stay untrusted.
    ///
    /// # Errors
    ///
    /// The problems, when there are any.
    pub fn check(&self, arguments: &Map<String, Value>) -> Result<(), Vec<Untrusted<Problem>>> {
        let instance = Value::Object(arguments.clone());
        if self.validator.is_valid(&instance) {
            return Ok(());
        }
        let mut problems: Vec<Problem> = self
            .validator
            .iter_errors(&instance)
            .take(MAX_PROBLEMS)
            .map(|error| Problem {
                field: field_of(&error),
                message: error.to_string(),
            })
            .collect();
        problems.sort_by(|a, b| a.field.cmp(&b.field));
        Err(problems
            .into_iter()
            .map(|p| Untrusted::new(self.origin.clone(), p))
            .collect())
    }
}

/// The field an error is about: the property a `required` or
/// `additionalProperties` error names, else where in the arguments it is.
fn field_of(error: &ValidationError<'_>) -> Option<String> {
    let at = error.instance_path().as_str().trim_start_matches('/');
    let named = match error.kind() {
        ValidationErrorKind::Required { property } => property.as_str().map(str::to_owned),
        ValidationErrorKind::AdditionalProperties { unexpected } if unexpected.len() == 1 => {
            unexpected.first().cloned()
        }
        _ => None,
    };
    let path = match named {
        Some(name) if at.is_empty() => name,
        Some(name) => format!("{at}/{name}"),
        None => at.to_owned(),
    };
    (!path.is_empty()).then_some(path)
}

/// Arguments that do not fit the input schema of the tool called.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("the arguments of `{tool}` do not fit its input schema{}", describe(.problems))]
pub struct InvalidArguments {
    /// The tool, by the name the host shows.
    pub tool: String,
    /// What is wrong, field by field.
    pub problems: Vec<Untrusted<Problem>>,
}

fn describe(problems: &[Untrusted<Problem>]) -> String {
    let Some(first) = problems.first() else {
        return String::new();
    };
    let lines: Vec<String> = problems
        .iter()
        .map(|problem| {
            let message = problem.as_ref().map(|p| &p.message).render();
            match &problem.accept_ref().field {
                Some(field) => {
                    let field = problem.as_ref().map(|_| field).render();
                    format!("`{}`: {}", field.text(), message.text())
                }
                None => message.text().to_owned(),
            }
        })
        .collect();
    format!(" {}: {}", first.render().label(), lines.join("; "))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn untrusted(value: Value) -> Untrusted<Value> {
        Untrusted::new(crate::ServerId::new("srv").expect("id"), value)
    }

    fn compile(value: Value) -> Result<InputSchema, SchemaError> {
        InputSchema::compile(&untrusted(value))
    }

    fn fields(schema: &InputSchema, arguments: Value) -> Vec<Option<String>> {
        let Value::Object(arguments) = arguments else {
            panic!("arguments are an object")
        };
        match schema.check(&arguments) {
            Ok(()) => Vec::new(),
            Err(problems) => problems
                .iter()
                .map(|p| p.accept_ref().field.clone())
                .collect(),
        }
    }

    #[test]
    fn the_failing_field_is_named() {
        let schema = compile(json!({
            "type": "object",
            "properties": {
                "region": {"type": "string"},
                "tags": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["region"],
            "additionalProperties": false,
        }))
        .expect("compiles");
        assert!(fields(&schema, json!({"region": "eu"})).is_empty());
        assert_eq!(fields(&schema, json!({})), [Some("region".to_owned())]);
        assert_eq!(
            fields(&schema, json!({"region": 3, "tags": ["a", 2]})),
            [Some("region".to_owned()), Some("tags/1".to_owned())]
        );
        assert_eq!(
            fields(&schema, json!({"region": "eu", "extra": 1})),
            [Some("extra".to_owned())]
        );
    }

    #[test]
    fn the_message_is_rendered_as_untrusted() {
        let schema = compile(json!({
            "type": "object",
            "properties": {"code": {"type": "string", "pattern": "^\u{1b}\\[31m\u{202e}x$"}},
        }))
        .expect("compiles");
        let Err(problems) = schema.check(json!({"code": "y"}).as_object().expect("object")) else {
            panic!("the pattern refuses `y`")
        };
        let error = InvalidArguments {
            tool: "srv__t".into(),
            problems,
        }
        .to_string();
        assert!(error.starts_with("the arguments of `srv__t` do not fit its input schema [untrusted, from server `srv`]: `code`: "), "{error}");
        assert!(
            !error.contains('\u{1b}') && !error.contains('\u{202e}'),
            "{error}"
        );
    }

    #[test]
    fn hostile_schemas_are_refused_before_compiling() {
        let long = json!({"type": "object", "description": "x".repeat(MAX_SCHEMA_BYTES)});
        assert_eq!(
            compile(long).expect_err("too large"),
            SchemaError::TooLarge {
                limit: MAX_SCHEMA_BYTES
            }
        );
        let mut deep = json!({"type": "object"});
        for _ in 0..MAX_SCHEMA_DEPTH {
            deep = json!({"items": deep});
        }
        assert_eq!(
            compile(deep).expect_err("too deep"),
            SchemaError::TooDeep {
                limit: MAX_SCHEMA_DEPTH
            }
        );
        let remote = json!({"$ref": "https://example.com/schema.json"});
        assert!(matches!(compile(remote), Err(SchemaError::Invalid(_))));
        assert!(matches!(
            compile(json!({"type": 12})),
            Err(SchemaError::Invalid(_))
        ));
    }

    #[test]
    fn a_catastrophic_pattern_costs_bounded_time() {
        // Backtracking makes this exponential in the length of the value;
        // the limit stops it, and the value counts as not matching.
        let schema = compile(json!({
            "type": "object",
            "properties": {"q": {"type": "string", "pattern": "^(a|aa)+(?=b)$"}},
        }))
        .expect("compiles");
        let value = json!({"q": format!("{}c", "a".repeat(64))});
        assert_eq!(fields(&schema, value), [Some("q".to_owned())]);
    }
}
