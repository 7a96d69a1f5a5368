//! VS Code's `inputs`: values a configuration leaves for the person to
//! type, named in `${input:ID}`.
//!
//! ```json
//! "inputs": [
//!   { "type": "promptString", "id": "apiKey", "description": "API key", "password": true },
//!   { "type": "pickString", "id": "region", "description": "Region", "options": ["eu", "us"], "default": "eu" }
//! ]
//! ```
//!
//! Sans-IO: [`Inputs`] holds the declarations and the answers given so
//! far, and hands each question to a [`Prompter`], at most once per input
//! however many values use it. [`Unattended`] asks nobody, so every input
//! used is an error that says it needs a terminal. An input of type
//! `command` runs a VS Code command, which this host cannot: using one is
//! an error saying so.
//!
//! Answers may be secrets: they never appear in `Debug` output or in an
//! error.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use super::expand::ExpandError;

/// One input: what the person is asked.
#[derive(Clone, PartialEq, Eq)]
pub struct Input {
    /// The id `${input:ID}` names.
    pub id: String,
    /// What the value is for, as the configuration says it.
    pub description: Option<String>,
    /// What kind of answer it takes.
    pub kind: InputKind,
    /// The answer an empty line gives.
    pub default: Option<String>,
}

/// What kind of answer an input takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputKind {
    /// `promptString`: any text. A password is not shown as it is typed.
    Text {
        /// Whether the answer is a secret.
        password: bool,
    },
    /// `pickString`: one of the options.
    Pick {
        /// The options, in order; never empty.
        options: Vec<PickOption>,
    },
}

/// An option of a `pickString`: a string, or `{"label", "value"}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PickOption {
    /// What the person sees.
    pub label: String,
    /// What the option stands for.
    pub value: String,
}

/// A typed answer that picks none of the options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("that is not one of the options; type its number or its text")]
pub struct NotAnOption;

impl Input {
    /// Whether the answer is a secret.
    pub fn is_password(&self) -> bool {
        matches!(self.kind, InputKind::Text { password: true })
    }

    /// The answer that the typed `line` gives: the default for an empty
    /// line when there is one; for a `pickString`, the value of the option
    /// whose number (from 1), label or value was typed.
    ///
    /// # Errors
    ///
    /// [`NotAnOption`] when a `pickString`'s line picks no option.
    pub fn answer(&self, line: &str) -> Result<String, NotAnOption> {
        if let (true, Some(default)) = (line.is_empty(), &self.default) {
            return Ok(default.clone());
        }
        let InputKind::Pick { options } = &self.kind else {
            return Ok(line.to_owned());
        };
        let line = line.trim();
        let by_number = line
            .parse::<usize>()
            .ok()
            .and_then(|n| options.get(n.checked_sub(1)?));
        by_number
            .or_else(|| options.iter().find(|o| o.label == line || o.value == line))
            .map(|o| o.value.clone())
            .ok_or(NotAnOption)
    }
}

impl std::fmt::Debug for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let default = match (&self.default, self.is_password()) {
            (Some(_), true) => Some("<redacted>"),
            (default, _) => default.as_deref(),
        };
        f.debug_struct("Input")
            .field("id", &self.id)
            .field("description", &self.description)
            .field("kind", &self.kind)
            .field("default", &default)
            .finish()
    }
}

/// Why an input has no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unanswered {
    /// Nobody could be asked.
    #[error(
        "it needs an answer typed at a terminal, and there is none to ask at; run at a \
         terminal, or write `${{env:NAME}}` instead and set NAME"
    )]
    NoTerminal,
    /// The input ended (Ctrl-D) before an answer.
    #[error("the terminal's input ended before an answer")]
    Ended,
    /// The terminal could not be used; the reason, never the answer.
    #[error("the terminal could not ask: {0}")]
    Failed(String),
}

/// Asks the person for an input's answer.
pub trait Prompter {
    /// The answer to `input`. Called at most once per input and load, and
    /// only for an input some value uses.
    ///
    /// # Errors
    ///
    /// [`Unanswered`] when there is no answer.
    fn ask(&self, input: &Input) -> Result<String, Unanswered>;
}

/// Asks nobody: every input used is [`Unanswered::NoTerminal`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Unattended;

impl Prompter for Unattended {
    fn ask(&self, _input: &Input) -> Result<String, Unanswered> {
        Err(Unanswered::NoTerminal)
    }
}

/// An input as declared.
#[derive(Debug)]
enum Declared {
    /// Asked of the person.
    Ask(Input),
    /// `type: command`: the VS Code command it would run.
    Command(String),
}

/// The inputs of one load: the declarations, the prompter, and the
/// answers given so far.
pub struct Inputs<'a> {
    declared: BTreeMap<String, Declared>,
    prompter: &'a dyn Prompter,
    answers: BTreeMap<String, String>,
}

impl std::fmt::Debug for Inputs<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inputs")
            .field("declared", &self.declared)
            .field("answered", &self.answers.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

/// An entry of `inputs` as written.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawInput {
    #[serde(rename = "type")]
    kind: Option<String>,
    description: Option<String>,
    #[serde(default)]
    password: bool,
    default: Option<String>,
    options: Option<Vec<RawOption>>,
    command: Option<String>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RawOption {
    Text(String),
    Labelled {
        label: Option<String>,
        value: String,
    },
}

impl<'a> Inputs<'a> {
    /// No inputs: every `${input:ID}` is undeclared.
    pub fn none(prompter: &'a dyn Prompter) -> Self {
        Self {
            declared: BTreeMap::new(),
            prompter,
            answers: BTreeMap::new(),
        }
    }

    /// The inputs of a configuration's `inputs` value, asked of
    /// `prompter` when used.
    ///
    /// # Errors
    ///
    /// What is wrong, naming the input (by id, else by position): not an
    /// array, an entry without `id` or with an id used before, a `type`
    /// other than `promptString`, `pickString` or `command`, or a
    /// `pickString` without options or with a default that is not one.
    pub fn parse(value: Option<Value>, prompter: &'a dyn Prompter) -> Result<Self, String> {
        let mut inputs = Self::none(prompter);
        let entries = match value {
            None => return Ok(inputs),
            Some(Value::Array(entries)) => entries,
            Some(_) => return Err("`inputs` is not an array".into()),
        };
        for (n, entry) in entries.into_iter().enumerate() {
            let id = entry.get("id").and_then(Value::as_str).map(str::to_owned);
            let name = match &id {
                Some(id) => format!("input `{id}`"),
                None => format!("`inputs[{n}]`"),
            };
            let raw: RawInput =
                serde_json::from_value(entry).map_err(|e| format!("{name}: {e}"))?;
            let id = id
                .filter(|id| !id.is_empty())
                .ok_or(format!("{name}: no `id`"))?;
            if inputs.declared.contains_key(&id) {
                return Err(format!("{name}: the id is declared twice"));
            }
            let declared = declared(id.clone(), raw).map_err(|e| format!("{name}: {e}"))?;
            inputs.declared.insert(id, declared);
        }
        Ok(inputs)
    }

    /// The answer for `${input:ID}`: asked the first time, remembered
    /// after.
    ///
    /// # Errors
    ///
    /// [`ExpandError`] when no input `id` is declared, when it is of type
    /// `command`, or when it has no answer.
    pub fn answer(&mut self, id: &str) -> Result<&str, ExpandError> {
        if !self.answers.contains_key(id) {
            let answer = match self.declared.get(id) {
                None => return Err(ExpandError::Undeclared(id.to_owned())),
                Some(Declared::Command(command)) => {
                    return Err(ExpandError::Command {
                        id: id.to_owned(),
                        command: command.clone(),
                    })
                }
                Some(Declared::Ask(input)) => {
                    self.prompter
                        .ask(input)
                        .map_err(|why| ExpandError::Unanswered {
                            id: id.to_owned(),
                            why,
                        })?
                }
            };
            self.answers.insert(id.to_owned(), answer);
        }
        Ok(&self.answers[id])
    }
}

/// The input `raw` declares as `id`.
fn declared(id: String, raw: RawInput) -> Result<Declared, String> {
    let kind = match raw.kind.as_deref() {
        Some("promptString") => InputKind::Text {
            password: raw.password,
        },
        Some("pickString") => {
            let options: Vec<PickOption> = raw
                .options
                .unwrap_or_default()
                .into_iter()
                .map(|option| match option {
                    RawOption::Text(text) => PickOption {
                        label: text.clone(),
                        value: text,
                    },
                    RawOption::Labelled { label, value } => PickOption {
                        label: label.unwrap_or_else(|| value.clone()),
                        value,
                    },
                })
                .collect();
            if options.is_empty() {
                return Err("a `pickString` needs `options`".into());
            }
            if let Some(default) = &raw.default {
                if !options.iter().any(|o| &o.value == default) {
                    return Err("the `default` is not one of the `options`".into());
                }
            }
            InputKind::Pick { options }
        }
        Some("command") => return Ok(Declared::Command(raw.command.unwrap_or_default())),
        Some(other) => {
            return Err(format!(
                "`type`: `{other}` is not `promptString` or `pickString`"
            ))
        }
        None => return Err("no `type` (`promptString` or `pickString`)".into()),
    };
    Ok(Declared::Ask(Input {
        id,
        description: raw.description,
        kind,
        default: raw.default,
    }))
}

#[cfg(test)]
pub(crate) mod tests {
    use std::cell::RefCell;

    use serde_json::json;

    use super::*;

    /// Answers from a table, and notes who was asked.
    pub(crate) struct Fixed {
        answers: &'static [(&'static str, &'static str)],
        pub(crate) asked: RefCell<Vec<String>>,
    }

    impl Fixed {
        pub(crate) fn new(answers: &'static [(&'static str, &'static str)]) -> Self {
            Self {
                answers,
                asked: RefCell::new(Vec::new()),
            }
        }
    }

    impl Prompter for Fixed {
        fn ask(&self, input: &Input) -> Result<String, Unanswered> {
            self.asked.borrow_mut().push(input.id.clone());
            let typed = self
                .answers
                .iter()
                .find(|(id, _)| *id == input.id)
                .map(|(_, typed)| *typed)
                .ok_or(Unanswered::Ended)?;
            input
                .answer(typed)
                .map_err(|e| Unanswered::Failed(e.to_string()))
        }
    }

    #[test]
    fn each_input_is_asked_once_and_answered_from_its_kind() {
        let fixed = Fixed::new(&[("key", "s3cret"), ("region", "2"), ("mode", "")]);
        let mut inputs = Inputs::parse(
            Some(json!([
                {"type": "promptString", "id": "key", "description": "API key", "password": true},
                {"type": "pickString", "id": "region", "options": ["eu", {"label": "US", "value": "us"}]},
                {"type": "promptString", "id": "mode", "default": "fast"},
                {"type": "promptString", "id": "unused"},
                {"type": "command", "id": "picked", "command": "extension.pick"}
            ])),
            &fixed,
        )
        .expect("valid");
        for _ in 0..2 {
            assert_eq!(inputs.answer("key"), Ok("s3cret"));
            assert_eq!(inputs.answer("region"), Ok("us"));
            assert_eq!(inputs.answer("mode"), Ok("fast"));
        }
        assert_eq!(*fixed.asked.borrow(), ["key", "region", "mode"]);
        assert_eq!(
            inputs.answer("nope"),
            Err(ExpandError::Undeclared("nope".into()))
        );
        assert_eq!(
            inputs.answer("picked"),
            Err(ExpandError::Command {
                id: "picked".into(),
                command: "extension.pick".into()
            })
        );
        assert!(!format!("{inputs:?}").contains("s3cret"), "{inputs:?}");
        let mut unattended = Inputs::parse(
            Some(json!([{"type": "promptString", "id": "key"}])),
            &Unattended,
        )
        .expect("valid");
        assert_eq!(
            unattended.answer("key"),
            Err(ExpandError::Unanswered {
                id: "key".into(),
                why: Unanswered::NoTerminal
            })
        );
    }

    #[test]
    fn a_typed_line_gives_the_answer_its_kind_allows() {
        let input = |kind, default: Option<&str>| Input {
            id: "i".into(),
            description: None,
            kind,
            default: default.map(str::to_owned),
        };
        let option = |label: &str, value: &str| PickOption {
            label: label.into(),
            value: value.into(),
        };
        let text = InputKind::Text { password: false };
        let pick = InputKind::Pick {
            options: vec![option("a", "a"), option("Bee", "b"), option("10", "10")],
        };
        let table: &[(&Input, &str, Result<&str, NotAnOption>)] = &[
            (&input(text.clone(), None), "", Ok("")),
            (&input(text.clone(), None), " as typed ", Ok(" as typed ")),
            (&input(text.clone(), Some("d")), "", Ok("d")),
            (&input(text, Some("d")), "x", Ok("x")),
            (&input(pick.clone(), None), "1", Ok("a")),
            (&input(pick.clone(), None), " 2 ", Ok("b")),
            (&input(pick.clone(), None), "Bee", Ok("b")),
            (&input(pick.clone(), None), "b", Ok("b")),
            (&input(pick.clone(), None), "10", Ok("10")),
            (&input(pick.clone(), None), "0", Err(NotAnOption)),
            (&input(pick.clone(), None), "c", Err(NotAnOption)),
            (&input(pick.clone(), None), "", Err(NotAnOption)),
            (&input(pick, Some("b")), "", Ok("b")),
        ];
        for (input, line, expected) in table {
            assert_eq!(
                input.answer(line),
                expected.map(str::to_owned),
                "{line:?} for {input:?}"
            );
        }
    }

    #[test]
    fn a_password_default_is_not_shown() {
        let input = Input {
            id: "key".into(),
            description: None,
            kind: InputKind::Text { password: true },
            default: Some("s3cret".into()),
        };
        assert!(!format!("{input:?}").contains("s3cret"));
    }

    #[test]
    fn a_malformed_input_is_named() {
        for (inputs, needle) in [
            (json!({}), "`inputs` is not an array"),
            (json!([{"type": "promptString"}]), "`inputs[0]`: no `id`"),
            (
                json!([{"type": "promptString", "id": ""}]),
                "input ``: no `id`",
            ),
            (
                json!([{"type": "promptString", "id": "a"}, {"type": "pickString", "id": "a", "options": ["x"]}]),
                "input `a`: the id is declared twice",
            ),
            (
                json!([{"type": "promptText", "id": "a"}]),
                "input `a`: `type`: `promptText` is not `promptString` or `pickString`",
            ),
            (json!([{"id": "a"}]), "input `a`: no `type`"),
            (
                json!([{"type": "pickString", "id": "a"}]),
                "input `a`: a `pickString` needs `options`",
            ),
            (
                json!([{"type": "pickString", "id": "a", "options": ["x"], "default": "y"}]),
                "input `a`: the `default` is not one of the `options`",
            ),
            (
                json!([{"type": "promptString", "id": "a", "password": "yes"}]),
                "input `a`: invalid type",
            ),
            (json!(["a"]), "`inputs[0]`: invalid type"),
        ] {
            let error = Inputs::parse(Some(inputs.clone()), &Unattended).expect_err(needle);
            assert!(error.contains(needle), "{inputs}: {error}");
        }
    }
}
