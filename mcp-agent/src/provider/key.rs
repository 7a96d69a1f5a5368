//! API keys: where they come from, and a type that keeps them out of
//! logs, errors and memory left behind.
//!
//! [`ApiKey`] prints as `ApiKey(redacted)`, is wiped on drop, and gives
//! its text only to this crate's HTTP client, which sends it to the
//! configured base URL alone (redirects are not followed).
//!
//! ```
//! use mcp_agent::provider::key::ApiKey;
//! use mcp_agent::provider::Provider;
//!
//! let key = ApiKey::from_lookup(Provider::Gemini, |name| {
//!     (name == "GEMINI_API_KEY").then(|| "k-123".to_owned())
//! })
//! .expect("found");
//! assert_eq!(format!("{key:?} {key}"), "ApiKey(redacted) ApiKey(redacted)");
//! ```

use std::fmt;

use zeroize::Zeroize;

use super::Provider;

/// A provider's API key.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

/// A key that cannot be had or used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// None of the provider's environment variables is set.
    #[error("no API key: set {}", .0.join(" or "))]
    Missing(&'static [&'static str]),
    /// The key is empty or has characters a header cannot carry (its
    /// text is not repeated here).
    #[error("the API key is empty or has characters other than visible ASCII")]
    Invalid,
}

impl ApiKey {
    /// A key given by configuration.
    ///
    /// # Errors
    ///
    /// [`KeyError::Invalid`] for an empty key or one with characters
    /// other than visible ASCII (surrounding whitespace is trimmed).
    pub fn new(key: impl Into<String>) -> Result<Self, KeyError> {
        let mut key = key.into();
        let trimmed = key.trim();
        let valid = !trimmed.is_empty() && trimmed.bytes().all(|b| b.is_ascii_graphic());
        let out = valid.then(|| Self(trimmed.to_owned()));
        key.zeroize();
        out.ok_or(KeyError::Invalid)
    }

    /// The key of `provider` from the process environment (see
    /// [`env_names`]).
    ///
    /// # Errors
    ///
    /// [`KeyError::Missing`] when no variable is set, [`KeyError::Invalid`]
    /// when the first one set is not a valid key.
    pub fn from_env(provider: Provider) -> Result<Self, KeyError> {
        Self::from_lookup(provider, |name| std::env::var(name).ok())
    }

    /// The key of `provider` from `lookup`, asked for each of
    /// [`env_names`] in order.
    ///
    /// # Errors
    ///
    /// As [`from_env`](Self::from_env).
    pub fn from_lookup(
        provider: Provider,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, KeyError> {
        let names = env_names(provider);
        let value = names
            .iter()
            .find_map(|name| lookup(name))
            .ok_or(KeyError::Missing(names))?;
        Self::new(value)
    }

    /// The key's text, for the request header alone.
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

/// The environment variables a provider's key is read from, in order of
/// preference: `OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, and for Gemini
/// `GOOGLE_API_KEY` then `GEMINI_API_KEY` (the order in which the
/// `google-genai` SDK prefers them).
pub fn env_names(provider: Provider) -> &'static [&'static str] {
    match provider {
        Provider::OpenAi => &["OPENAI_API_KEY"],
        Provider::Anthropic => &["ANTHROPIC_API_KEY"],
        Provider::Gemini => &["GOOGLE_API_KEY", "GEMINI_API_KEY"],
    }
}

impl Drop for ApiKey {
    fn drop(&mut self) {
        self.0.zeroize();
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(redacted)")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(redacted)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_order_and_validation() {
        type Row = (
            Provider,
            &'static [(&'static str, &'static str)],
            Result<&'static str, KeyError>,
        );
        let table: &[Row] = &[
            (Provider::OpenAi, &[("OPENAI_API_KEY", "sk-1")], Ok("sk-1")),
            (
                Provider::OpenAi,
                &[("ANTHROPIC_API_KEY", "x")],
                Err(KeyError::Missing(&["OPENAI_API_KEY"])),
            ),
            (
                Provider::Anthropic,
                &[("ANTHROPIC_API_KEY", " a-2\n")],
                Ok("a-2"),
            ),
            (
                Provider::Gemini,
                &[("GEMINI_API_KEY", "g"), ("GOOGLE_API_KEY", "o")],
                Ok("o"),
            ),
            (Provider::Gemini, &[("GEMINI_API_KEY", "g")], Ok("g")),
            (
                Provider::Gemini,
                &[("GOOGLE_API_KEY", "")],
                Err(KeyError::Invalid),
            ),
            (
                Provider::OpenAi,
                &[("OPENAI_API_KEY", "sk bad")],
                Err(KeyError::Invalid),
            ),
        ];
        for (provider, vars, expected) in table {
            let got = ApiKey::from_lookup(*provider, |name| {
                vars.iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| (*v).to_owned())
            });
            let got = got.as_ref().map(ApiKey::expose).map_err(Clone::clone);
            assert_eq!(got, expected.clone(), "{provider:?} {vars:?}");
        }
    }

    #[test]
    fn never_printed() {
        let key = ApiKey::new("sk-secret-value").expect("valid");
        for shown in [
            format!("{key}"),
            format!("{key:?}"),
            format!("{:?}", Some(&key)),
        ] {
            assert!(!shown.contains("secret"), "{shown}");
        }
        let error = ApiKey::new("sk secret").expect_err("invalid");
        assert!(!error.to_string().contains("secret"));
    }
}
