//! Variable expansion in configuration values, sans-IO: `${VAR}`,
//! `${VAR:-default}` (the default when `VAR` is unset or empty),
//! `${env:VAR}` (VS Code's spelling), `${userHome}` and
//! `${workspaceFolder}` (the home and the current directory), and
//! `${input:ID}`, the answer to one of VS Code's [`inputs`](super::inputs).
//! A variable that is unset with no default is an error, never left as
//! text, and so is an input that is not declared or gets no answer.
//!
//! What comes from outside goes through two seams: a [`Lookup`] for
//! variables (and the `envFile` the configuration names), and the
//! [`Prompter`](super::inputs::Prompter) behind [`Inputs`] for answers.

use std::path::Path;

use super::inputs::{Inputs, Unanswered};

/// Why a value cannot be expanded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExpandError {
    /// The variable is not set, and there is no default.
    #[error(
        "the variable `{0}` is not set and has no default (write `${{{0}:-default}}` for one)"
    )]
    Unset(String),
    /// A `${` without its `}`.
    #[error("`${{` without a closing `}}`")]
    Unclosed,
    /// `${input:ID}` with no such input in `inputs`.
    #[error("`${{input:{0}}}`: `inputs` declares no input `{0}`")]
    Undeclared(String),
    /// An input of type `command`.
    #[error(
        "`${{input:{id}}}` runs the VS Code command `{command}`, which this host cannot run; \
         write the value, or `${{env:NAME}}` and set NAME"
    )]
    Command {
        /// The input.
        id: String,
        /// The command it names.
        command: String,
    },
    /// Nobody answered the input.
    #[error("`${{input:{id}}}`: {why}")]
    Unanswered {
        /// The input.
        id: String,
        /// Why there is no answer.
        why: Unanswered,
    },
}

/// What the expansion looks up: environment variables, and the two
/// directories VS Code names.
pub trait Lookup {
    /// The value of the environment variable `name`.
    fn var(&self, name: &str) -> Option<String>;
    /// The user's home directory.
    fn home(&self) -> Option<String> {
        self.var("HOME")
    }
    /// The folder the configuration is for.
    fn workspace(&self) -> Option<String>;
    /// The text of the file at `path`: an `envFile`.
    ///
    /// # Errors
    ///
    /// When it cannot be read.
    fn read_file(&self, path: &Path) -> std::io::Result<String>;
}

/// The process's environment and current directory.
#[derive(Debug, Clone, Copy, Default)]
pub struct Environment;

impl Lookup for Environment {
    fn var(&self, name: &str) -> Option<String> {
        std::env::var(name).ok()
    }

    fn workspace(&self) -> Option<String> {
        std::env::current_dir()
            .ok()
            .map(|d| d.display().to_string())
    }

    fn read_file(&self, path: &Path) -> std::io::Result<String> {
        std::fs::read_to_string(path)
    }
}

/// `text` with every `${...}` replaced, variables from `lookup` and
/// input answers from `inputs`.
///
/// # Errors
///
/// [`ExpandError`] for an unset variable without a default, an unclosed
/// `${`, or an input that is not declared or not answered.
pub fn expand(text: &str, lookup: &dyn Lookup, inputs: &mut Inputs) -> Result<String, ExpandError> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let inner = &rest[at + 2..];
        let end = inner.find('}').ok_or(ExpandError::Unclosed)?;
        let body = &inner[..end];
        match body.strip_prefix("input:") {
            Some(id) => out.push_str(inputs.answer(id)?),
            None => out.push_str(&variable(body, lookup)?),
        }
        rest = &inner[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

fn variable(body: &str, lookup: &dyn Lookup) -> Result<String, ExpandError> {
    let (name, default) = match body.split_once(":-") {
        Some((name, default)) => (name, Some(default)),
        None => (body, None),
    };
    let name = name.strip_prefix("env:").unwrap_or(name);
    let value = match name {
        "userHome" => lookup.home(),
        "workspaceFolder" => lookup.workspace(),
        _ => lookup.var(name),
    };
    match (value.filter(|v| !v.is_empty()), default) {
        (Some(value), _) => Ok(value),
        (None, Some(default)) => Ok(default.to_owned()),
        (None, None) => Err(ExpandError::Unset(name.to_owned())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::inputs;

    struct Fixed;

    impl Lookup for Fixed {
        fn var(&self, name: &str) -> Option<String> {
            match name {
                "TOKEN" => Some("t0k".into()),
                "EMPTY" => Some(String::new()),
                "HOME" => Some("/srv/home".into()),
                _ => None,
            }
        }

        fn workspace(&self) -> Option<String> {
            Some("/srv/project".into())
        }

        fn read_file(&self, path: &Path) -> std::io::Result<String> {
            Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                path.display().to_string(),
            ))
        }
    }

    #[test]
    fn each_form_expands_or_says_why_not() {
        let table: &[(&str, Result<&str, ExpandError>)] = &[
            ("plain", Ok("plain")),
            ("Bearer ${TOKEN}", Ok("Bearer t0k")),
            ("${env:TOKEN}-${TOKEN}", Ok("t0k-t0k")),
            ("${UNSET:-fallback}", Ok("fallback")),
            ("${EMPTY:-fallback}", Ok("fallback")),
            ("${TOKEN:-fallback}", Ok("t0k")),
            ("${env:UNSET:-x}", Ok("x")),
            ("${userHome}/.cache", Ok("/srv/home/.cache")),
            ("${workspaceFolder}/src", Ok("/srv/project/src")),
            ("${UNSET}", Err(ExpandError::Unset("UNSET".into()))),
            ("${env:UNSET}", Err(ExpandError::Unset("UNSET".into()))),
            ("${EMPTY}", Err(ExpandError::Unset("EMPTY".into()))),
            ("${TOKEN", Err(ExpandError::Unclosed)),
            ("$TOKEN and $", Ok("$TOKEN and $")),
            ("key=${input:key}", Ok("key=s3cret")),
            ("${input:region}-${input:key}", Ok("us-s3cret")),
            (
                "${input:mode:-x}",
                Err(ExpandError::Undeclared("mode:-x".into())),
            ),
            ("${input:nope}", Err(ExpandError::Undeclared("nope".into()))),
            (
                "${input:gone}",
                Err(ExpandError::Unanswered {
                    id: "gone".into(),
                    why: Unanswered::Ended,
                }),
            ),
        ];
        let prompter = inputs::tests::Fixed::new(&[("key", "s3cret"), ("region", "us")]);
        let declared = serde_json::json!([
            {"type": "promptString", "id": "key", "password": true},
            {"type": "pickString", "id": "region", "options": ["eu", "us"]},
            {"type": "promptString", "id": "gone"}
        ]);
        let mut inputs = Inputs::parse(Some(declared), &prompter).expect("valid");
        for (text, expected) in table {
            let got = expand(text, &Fixed, &mut inputs);
            assert_eq!(
                got.as_deref().map_err(Clone::clone),
                expected.clone(),
                "{text}"
            );
        }
        assert_eq!(*prompter.asked.borrow(), ["key", "region", "gone"]);
    }

    #[test]
    fn an_input_error_names_the_input_and_never_the_answer() {
        for (error, expected) in [
            (
                ExpandError::Undeclared("key".into()),
                "`${input:key}`: `inputs` declares no input `key`",
            ),
            (
                ExpandError::Unanswered {
                    id: "key".into(),
                    why: Unanswered::NoTerminal,
                },
                "`${input:key}`: it needs an answer typed at a terminal, and there is none to \
                 ask at; run at a terminal, or write `${env:NAME}` instead and set NAME",
            ),
            (
                ExpandError::Command {
                    id: "k".into(),
                    command: "ext.pick".into(),
                },
                "`${input:k}` runs the VS Code command `ext.pick`, which this host cannot run; \
                 write the value, or `${env:NAME}` and set NAME",
            ),
        ] {
            assert_eq!(error.to_string(), expected);
        }
    }
}
