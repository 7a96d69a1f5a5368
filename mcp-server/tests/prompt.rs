//! `#[prompt]`, `#[prompts]` and `prompt_set!` at run time: definitions,
//! `prompts/get` answers and errors, and schema validity.

mod prompt_resource_support;

use std::collections::BTreeMap;

use mcp_server::prompt::{
    assistant_message, user_message, IntoPromptResult, PromptHandler, PromptList, PromptOutput,
    PromptSet,
};
use mcp_server::types::v2026_07_28::{
    ContentBlock, GetPromptResult, InputRequiredResult, Prompt, PromptMessage, Role,
};
use mcp_server::{prompt, prompt_set, prompts, Context, ErrorObject};
use prompt_resource_support::{assert_valid, block_on, cx};
use serde_json::json;

/// Asks for a code review.
///
/// Focuses on correctness first.
#[prompt(title = "Code review", icon = "https://example.com/review.png")]
fn code_review(
    /// The code to review.
    code: String,
    /// How strict to be, from 1 to 5.
    strictness: Option<u8>,
) -> String {
    format!("Review at strictness {}:\n{code}", strictness.unwrap_or(3))
}

/// Summarizes a text for the caller.
#[prompt(name = "summarize.v2")]
async fn summarize(
    cx: &Context,
    #[arg(name = "text-body", title = "Text")] text: String,
) -> Result<Vec<PromptMessage>, ErrorObject> {
    if text.is_empty() {
        return Err(ErrorObject::invalid_params("nothing to summarize"));
    }
    let who = cx.principal().unwrap_or("someone");
    Ok(vec![
        user_message(format!("{who} asks for a summary of: {text}")),
        assistant_message("Here is the summary:"),
    ])
}

/// Needs the user to confirm first.
#[prompt]
fn confirm(cx: &Context) -> PromptOutput {
    match cx.request_state() {
        Some(_) => PromptOutput::Complete(GetPromptResult {
            meta: None,
            description: None,
            messages: vec![user_message("confirmed")],
            result_type: None,
            extra: Default::default(),
        }),
        None => PromptOutput::InputRequired(InputRequiredResult {
            request_state: Some("step-1".into()),
            ..Default::default()
        }),
    }
}

fn args(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

fn texts(output: &PromptOutput) -> Vec<(Role, String)> {
    let PromptOutput::Complete(result) = output else {
        panic!("expected a complete result, got {output:?}");
    };
    result
        .messages
        .iter()
        .map(|m| match &m.content {
            ContentBlock::TextContent(text) => (m.role, text.text.clone()),
            other => panic!("expected text, got {other:?}"),
        })
        .collect()
}

struct Server;

#[test]
fn a_free_function_defines_its_prompt() {
    let definition = PromptHandler::<Server>::definition(&code_review {});
    assert_eq!(
        serde_json::to_value(&definition).unwrap(),
        json!({
            "name": "code_review",
            "title": "Code review",
            "description": "Asks for a code review.\n\nFocuses on correctness first.",
            "icons": [{ "src": "https://example.com/review.png" }],
            "arguments": [
                { "name": "code", "description": "The code to review.", "required": true },
                { "name": "strictness", "description": "How strict to be, from 1 to 5.", "required": false }
            ]
        })
    );
    let summarize_def = PromptHandler::<Server>::definition(&summarize {});
    assert_eq!(summarize_def.name, "summarize.v2");
    let arg = &summarize_def.arguments.as_ref().unwrap()[0];
    assert_eq!(
        (arg.name.as_str(), arg.title.as_deref()),
        ("text-body", Some("Text"))
    );
    assert_eq!(
        PromptHandler::<Server>::definition(&confirm {}).arguments,
        None
    );
}

#[test]
fn every_definition_validates_against_the_schema() {
    let set: PromptList<Server> = prompt_set![code_review, summarize, confirm];
    let mut all: Vec<Prompt> = set.prompts();
    all.extend(Library::default().prompts());
    assert_eq!(all.len(), 6);
    for prompt in &all {
        assert_valid("Prompt", prompt);
    }
}

#[test]
fn get_parses_arguments_and_calls_the_function() {
    let cx = cx("prompts/get");
    let output = block_on(PromptHandler::<Server>::get(
        &code_review {},
        &Server,
        &cx,
        args(&[("code", "fn main() {}"), ("strictness", "5")]),
    ))
    .unwrap();
    assert_eq!(
        texts(&output),
        [(
            Role::User,
            "Review at strictness 5:\nfn main() {}".to_owned()
        )]
    );
    let PromptOutput::Complete(result) = &output else {
        unreachable!()
    };
    assert_eq!(result.result_type.as_deref(), Some("complete"));
    assert_valid("GetPromptResult", result);

    // The optional argument may be left out; extra arguments are ignored.
    let output = block_on(PromptHandler::<Server>::get(
        &code_review {},
        &Server,
        &cx,
        args(&[("code", "x"), ("unrelated", "y")]),
    ))
    .unwrap();
    assert_eq!(texts(&output)[0].1, "Review at strictness 3:\nx");
}

#[test]
fn missing_and_malformed_arguments_are_invalid_params_naming_them() {
    let cx = cx("prompts/get");
    let error = block_on(PromptHandler::<Server>::get(
        &code_review {},
        &Server,
        &cx,
        args(&[]),
    ))
    .unwrap_err();
    assert_eq!(error.code, -32602);
    assert!(error.message.contains("`code`"), "{}", error.message);
    assert_eq!(error.data, Some(json!({ "missing": ["code"] })));

    let error = block_on(PromptHandler::<Server>::get(
        &code_review {},
        &Server,
        &cx,
        args(&[("code", "x"), ("strictness", "very")]),
    ))
    .unwrap_err();
    assert_eq!(error.code, -32602);
    assert!(error.message.contains("`strictness`"), "{}", error.message);
    assert!(error.message.contains("invalid digit"), "{}", error.message);

    let error = block_on(PromptHandler::<Server>::get(
        &summarize {},
        &Server,
        &cx,
        args(&[("text", "x")]),
    ))
    .unwrap_err();
    assert!(error.message.contains("`text-body`"), "{}", error.message);
}

#[test]
fn async_prompts_see_the_context_and_return_errors() {
    let cx = cx("prompts/get").with_principal("ada");
    let output = block_on(PromptHandler::<Server>::get(
        &summarize {},
        &Server,
        &cx,
        args(&[("text-body", "a long story")]),
    ))
    .unwrap();
    assert_eq!(
        texts(&output),
        [
            (
                Role::User,
                "ada asks for a summary of: a long story".to_owned()
            ),
            (Role::Assistant, "Here is the summary:".to_owned()),
        ]
    );
    let error = block_on(PromptHandler::<Server>::get(
        &summarize {},
        &Server,
        &cx,
        args(&[("text-body", "")]),
    ))
    .unwrap_err();
    assert_eq!(error, ErrorObject::invalid_params("nothing to summarize"));
}

#[test]
fn a_prompt_can_ask_for_input_and_finish_on_retry() {
    let first = block_on(PromptHandler::<Server>::get(
        &confirm {},
        &Server,
        &cx("prompts/get"),
        args(&[]),
    ))
    .unwrap();
    let PromptOutput::InputRequired(result) = &first else {
        panic!("expected input_required, got {first:?}");
    };
    assert_eq!(result.result_type.as_deref(), Some("input_required"));
    assert_eq!(result.request_state.as_deref(), Some("step-1"));
    assert_valid("InputRequiredResult", result);

    let retry = cx("prompts/get").with_retry(None, Some("step-1".into()));
    let second = block_on(PromptHandler::<Server>::get(
        &confirm {},
        &Server,
        &retry,
        args(&[]),
    ))
    .unwrap();
    assert_eq!(texts(&second), [(Role::User, "confirmed".to_owned())]);
}

#[test]
fn prompt_set_lists_in_order_and_finds_by_name() {
    let set: PromptList<Server> = prompt_set![code_review, summarize, confirm,];
    let names: Vec<String> = set.prompts().into_iter().map(|p| p.name).collect();
    assert_eq!(names, ["code_review", "summarize.v2", "confirm"]);
    assert!(set.has_prompt("summarize.v2"));
    assert!(!set.has_prompt("summarize"));
    let cx = cx("prompts/get");
    assert!(set.get_prompt("nope", &Server, &cx, args(&[])).is_none());
    let future = set.get_prompt("code_review", &Server, &cx, args(&[("code", "x")]));
    assert!(block_on(future.expect("known prompt")).is_ok());
    assert_eq!(
        format!("{set:?}"),
        r#"["code_review", "summarize.v2", "confirm"]"#
    );
}

#[test]
fn prompt_list_refuses_a_second_prompt_with_the_same_name() {
    let mut list = PromptList::<Server>::new();
    list.push(code_review {})
        .unwrap()
        .push(summarize {})
        .unwrap();
    let error = list.push(code_review {}).unwrap_err();
    assert_eq!(error.name(), "code_review");
    assert_eq!(list.len(), 2);
}

/// Prompts that use the server's own data.
#[derive(Default)]
struct Library {
    books: Vec<String>,
}

#[prompts]
impl Library {
    /// Recommends a book.
    #[prompt(title = "Recommend")]
    fn recommend(&self, genre: String) -> String {
        format!("Pick a {genre} book from: {}", self.books.join(", "))
    }

    /// Writes a review, asynchronously.
    #[prompt]
    async fn review(
        &self,
        cx: &Context,
        title: String,
        stars: Option<u8>,
    ) -> Result<String, ErrorObject> {
        let _ = cx;
        if !self.books.contains(&title) {
            return Err(ErrorObject::invalid_params(format!(
                "no book called {title}"
            )));
        }
        Ok(format!("Review {title}, {} stars.", stars.unwrap_or(3)))
    }

    /// Needs nothing from the server.
    #[prompt(name = "hello")]
    fn greeting() -> &'static str {
        "Say hello."
    }

    /// Not a prompt.
    #[allow(dead_code)]
    fn helper(&self) -> usize {
        self.books.len()
    }
}

#[test]
fn an_impl_block_is_its_own_prompt_set() {
    let library = Library {
        books: vec!["Dune".into(), "Emma".into()],
    };
    let names: Vec<String> = library.prompts().into_iter().map(|p| p.name).collect();
    assert_eq!(names, ["recommend", "review", "hello"]);
    let cx = cx("prompts/get");
    let get = |name: &str, a: &[(&str, &str)]| {
        block_on(
            library
                .get_prompt(name, &library, &cx, args(a))
                .expect("known"),
        )
    };
    assert_eq!(
        texts(&get("recommend", &[("genre", "classic")]).unwrap())[0].1,
        "Pick a classic book from: Dune, Emma"
    );
    assert_eq!(
        texts(&get("review", &[("title", "Emma"), ("stars", "5")]).unwrap())[0].1,
        "Review Emma, 5 stars."
    );
    assert_eq!(
        get("review", &[("title", "Ulysses")]).unwrap_err().code,
        -32602
    );
    assert_eq!(
        get("review", &[]).unwrap_err().data,
        Some(json!({ "missing": ["title"] }))
    );
    assert_eq!(texts(&get("hello", &[]).unwrap())[0].1, "Say hello.");
    assert!(library
        .get_prompt("helper", &library, &cx, args(&[]))
        .is_none());
}

/// A generic server still gets a prompt set.
struct Tagged<T> {
    tag: T,
}

#[prompts]
impl<T: std::fmt::Display + Send + Sync> Tagged<T> {
    /// Shows the tag.
    #[prompt]
    fn tag(&self) -> String {
        self.tag.to_string()
    }
}

#[test]
fn generic_impl_blocks_and_composed_sets() {
    let server = Tagged { tag: 7 };
    let cx = cx("prompts/get");
    let combined = (&server, prompt_set![code_review]);
    let names: Vec<String> = combined.prompts().into_iter().map(|p| p.name).collect();
    assert_eq!(names, ["tag", "code_review"]);
    let out = block_on(combined.get_prompt("tag", &server, &cx, args(&[])).unwrap()).unwrap();
    assert_eq!(texts(&out)[0].1, "7");
    let out = block_on(
        combined
            .get_prompt("code_review", &server, &cx, args(&[("code", "c")]))
            .unwrap(),
    );
    assert!(out.is_ok());
    assert!(combined
        .get_prompt("other", &server, &cx, args(&[]))
        .is_none());
    // The empty set and boxed sets.
    assert!(PromptSet::<Server>::prompts(&()).is_empty());
    let boxed: Box<dyn PromptSet<Server>> = Box::new(prompt_set![confirm]);
    assert!(boxed.has_prompt("confirm"));
}

#[test]
fn conversions_fill_in_the_result_type() {
    let message = user_message("hi");
    let from_string = "hi".to_owned().into_prompt_result().unwrap();
    let from_str = "hi".into_prompt_result().unwrap();
    let from_message = message.clone().into_prompt_result().unwrap();
    let from_vec = vec![message.clone()].into_prompt_result().unwrap();
    assert_eq!(from_string, from_str);
    assert_eq!(from_string, from_message);
    assert_eq!(from_string, from_vec);
    let PromptOutput::Complete(result) = from_string else {
        unreachable!()
    };
    assert_eq!(result.result_type.as_deref(), Some("complete"));
    assert_eq!(
        result.clone().into_prompt_result().unwrap(),
        PromptOutput::Complete(result)
    );
    let error: Result<String, ErrorObject> = Err(ErrorObject::internal_error("boom"));
    assert_eq!(error.into_prompt_result().unwrap_err().code, -32603);
    let input = InputRequiredResult::default().into_prompt_result().unwrap();
    let PromptOutput::InputRequired(input) = input else {
        unreachable!()
    };
    assert_eq!(input.result_type.as_deref(), Some("input_required"));
}
