//! `completion/complete`: suggestions for a prompt argument or a resource
//! template variable while the user types it.

use std::collections::BTreeMap;

use mcp_types::v2026_07_28::{CompleteRequestParams, CompleteRequestParamsRef};
use serde_json::{json, Value};

/// Most suggestions one answer carries; the rest are counted in `total`.
pub const MAX_VALUES: usize = 100;

/// What is being completed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reference {
    /// An argument of the prompt with this name.
    Prompt(String),
    /// A variable of the resource template (or resource) with this URI.
    Resource(String),
}

/// One `completion/complete` request, in the terms a completer needs.
#[derive(Clone, Debug)]
pub struct CompletionRequest {
    /// The prompt or resource the argument belongs to.
    pub reference: Reference,
    /// The argument (or template variable) being typed.
    pub argument: String,
    /// What the user has typed so far.
    pub value: String,
    /// Arguments already filled in, for completions that depend on them.
    pub context: BTreeMap<String, String>,
}

impl CompletionRequest {
    pub(crate) fn from_params(params: CompleteRequestParams) -> Self {
        let reference = match params.ref_ {
            CompleteRequestParamsRef::Prompt(p) => Reference::Prompt(p.name),
            CompleteRequestParamsRef::ResourceTemplate(r) => Reference::Resource(r.uri),
        };
        let context = params
            .context
            .and_then(|c| c.arguments)
            .map(|a| a.into_iter().collect())
            .unwrap_or_default();
        CompletionRequest {
            reference,
            argument: params.argument.name,
            value: params.argument.value,
            context,
        }
    }
}

/// Produces suggestions; any `Fn(&CompletionRequest) -> Vec<String>` is one.
pub trait Completer: Send + Sync {
    /// Every suggestion for `request`, best first; the server sends the
    /// first [`MAX_VALUES`] and says how many there were.
    fn complete(&self, request: &CompletionRequest) -> Vec<String>;
}

impl<F: Fn(&CompletionRequest) -> Vec<String> + Send + Sync> Completer for F {
    fn complete(&self, request: &CompletionRequest) -> Vec<String> {
        self(request)
    }
}

/// The `CompleteResult` body for a list of suggestions.
pub(crate) fn result(mut values: Vec<String>) -> Value {
    let total = values.len();
    values.truncate(MAX_VALUES);
    json!({ "completion": { "values": values, "total": total, "hasMore": total > MAX_VALUES } })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lists_are_cut_and_counted() {
        let values: Vec<String> = (0..150).map(|i| i.to_string()).collect();
        let result = result(values);
        assert_eq!(
            result["completion"]["values"].as_array().map(Vec::len),
            Some(MAX_VALUES)
        );
        assert_eq!(result["completion"]["total"], 150);
        assert_eq!(result["completion"]["hasMore"], true);
    }
}
