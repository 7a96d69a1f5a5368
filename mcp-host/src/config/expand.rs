//! Variable expansion in configuration values, sans-IO: `${VAR}`,
//! `${VAR:-default}` (the default when `VAR` is unset or empty),
//! `${env:VAR}` (VS Code's spelling), and `${userHome}` and
//! `${workspaceFolder}` (the home and the current directory). A variable
//! that is unset with no default is an error, never left as text, and so
//! is `${input:ID}`, which this host does not prompt for.

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
    /// A VS Code input variable, which needs a prompt this host lacks.
    #[error(
        "`${{input:{0}}}`: VS Code inputs are not supported; set the value, or use `${{env:NAME}}`"
    )]
    Input(String),
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
}

/// `text` with every `${...}` replaced.
///
/// # Errors
///
/// [`ExpandError`] for an unset variable without a default, an unclosed
/// `${`, or an input variable.
pub fn expand(text: &str, lookup: &dyn Lookup) -> Result<String, ExpandError> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let inner = &rest[at + 2..];
        let end = inner.find('}').ok_or(ExpandError::Unclosed)?;
        out.push_str(&variable(&inner[..end], lookup)?);
        rest = &inner[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

fn variable(body: &str, lookup: &dyn Lookup) -> Result<String, ExpandError> {
    if let Some(id) = body.strip_prefix("input:") {
        return Err(ExpandError::Input(id.to_owned()));
    }
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
            ("${input:apiKey}", Err(ExpandError::Input("apiKey".into()))),
            ("$TOKEN and $", Ok("$TOKEN and $")),
        ];
        for (text, expected) in table {
            let got = expand(text, &Fixed);
            assert_eq!(
                got.as_deref().map_err(Clone::clone),
                expected.clone(),
                "{text}"
            );
        }
    }
}
