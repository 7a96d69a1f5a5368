//! A tool result into the tool's output type: the tool's own error first,
//! then the output schema, then the Rust type.

use mcp_types::v2026_07_28::{CallToolResult, ContentBlock};
use serde::Deserialize;
use serde_json::Value;

use super::{Tool, TypedError};
use crate::untrusted::Untrusted;

/// How many schema violations an error lists.
const MAX_PROBLEMS: usize = 8;

pub(super) fn decode<T: Tool>(
    result: Untrusted<CallToolResult>,
    validator: Option<&jsonschema::Validator>,
) -> Result<Untrusted<T::Output>, TypedError> {
    let tool = T::DEFINITION.name.to_owned();
    let origin = result.origin().clone();
    let wrap = |value: Value| Box::new(Untrusted::new(origin.clone(), value));
    if result.accept_ref().is_error == Some(true) {
        let text = text_of(&result.accept_ref().content);
        return Err(TypedError::Tool {
            tool,
            text: Untrusted::new(origin.clone(), text),
            result: Box::new(result),
        });
    }
    let result = result.accept();
    let value = match validator {
        Some(validator) => {
            let Some(value) = result.structured_content else {
                return Err(TypedError::Output {
                    tool,
                    reason: "the result has no `structuredContent`".to_owned(),
                    value: wrap(Value::Null),
                });
            };
            if !validator.is_valid(&value) {
                let problems: Vec<String> = validator
                    .iter_errors(&value)
                    .take(MAX_PROBLEMS)
                    .map(|e| match e.instance_path().to_string() {
                        path if path.is_empty() => e.to_string(),
                        path => format!("at `{path}`: {e}"),
                    })
                    .collect();
                return Err(TypedError::Output {
                    tool,
                    reason: problems.join("; "),
                    value: wrap(value),
                });
            }
            value
        }
        None => serde_json::to_value(&result.content).unwrap_or(Value::Null),
    };
    match T::Output::deserialize(&value) {
        Ok(output) => Ok(Untrusted::new(origin, output)),
        Err(e) => Err(TypedError::Output {
            tool,
            reason: e.to_string(),
            value: wrap(value),
        }),
    }
}

/// The text blocks of a result, one per line.
fn text_of(content: &[ContentBlock]) -> String {
    content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::TextContent(text) => Some(text.text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}
