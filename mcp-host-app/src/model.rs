//! Which model the command talks to: the `--provider`, `--model` and
//! `--base-url` flags, else the `model` object of the configuration file,
//! and the key: for the provider's own service, from its usual environment
//! variable; for any other base URL, only from the variable `apiKeyEnv`
//! names, so that a key issued by one provider never goes to another
//! server.

use serde::Deserialize;
use serde_json::Value;

use mcp_agent::provider::http::Endpoint;
use mcp_agent::provider::key::ApiKey;
use mcp_agent::provider::Provider;

/// The `model` object of a configuration file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ModelSection {
    /// `openai`, `anthropic` or `gemini`.
    pub provider: Option<String>,
    /// The model's name at the provider.
    pub name: Option<String>,
    /// The base URL, as the provider's SDK takes it.
    pub base_url: Option<String>,
    /// The environment variable that holds the key, instead of the
    /// provider's usual one.
    pub api_key_env: Option<String>,
}

/// The model chosen, ready to connect.
#[derive(Debug)]
pub struct Chosen {
    /// Where and how.
    pub endpoint: Endpoint,
    /// The model's name.
    pub name: String,
}

/// The provider named `text`.
///
/// # Errors
///
/// A message naming the three that exist.
pub fn provider(text: &str) -> Result<Provider, String> {
    match text {
        "openai" => Ok(Provider::OpenAi),
        "anthropic" => Ok(Provider::Anthropic),
        "gemini" => Ok(Provider::Gemini),
        other => Err(format!(
            "`{other}` is not a provider: use openai (or any server that speaks its API), anthropic or gemini"
        )),
    }
}

/// The model of the flags, completed by the configuration's `model`
/// object (`document` is the configuration file's JSON).
///
/// # Errors
///
/// A message when no provider or model name is given anywhere, the
/// `model` object is malformed, or the provider's own service is used
/// without a key.
pub fn choose(
    flag_provider: Option<&str>,
    flag_model: Option<&str>,
    flag_base_url: Option<&str>,
    document: &Value,
    var: &dyn Fn(&str) -> Option<String>,
) -> Result<Chosen, String> {
    let section: ModelSection = match document.get("model") {
        Some(value) => {
            serde_json::from_value(value.clone()).map_err(|e| format!("`model`: {e}"))?
        }
        None => ModelSection::default(),
    };
    let provider =
        match flag_provider.or(section.provider.as_deref()) {
            Some(text) => provider(text)?,
            None => return Err(String::from(
                "no model: give --provider and --model, or a `model` object in the configuration",
            )),
        };
    let name = flag_model
        .map(str::to_owned)
        .or(section.name.clone())
        .ok_or_else(|| String::from("no model name: give --model NAME or `model.name`"))?;
    let base_url = flag_base_url
        .map(str::to_owned)
        .or(section.base_url.clone());
    // The provider's usual variable holds a key issued by the provider:
    // it goes to the provider's own service only. Another server's key is
    // named with `apiKeyEnv`.
    let official = base_url
        .as_deref()
        .is_none_or(|url| url.trim_end_matches('/') == provider.default_base_url());
    let key = match &section.api_key_env {
        Some(variable) => match var(variable) {
            Some(value) => Some(ApiKey::new(value).map_err(|e| format!("`{variable}`: {e}"))?),
            None => return Err(format!("`model.apiKeyEnv`: `{variable}` is not set")),
        },
        None if official => ApiKey::from_lookup(provider, var).ok(),
        None => None,
    };
    let endpoint = match base_url {
        Some(base_url) => Endpoint {
            provider,
            base_url,
            key,
        },
        None => match key {
            Some(key) => Endpoint::official(provider, key),
            None => {
                let names = mcp_agent::provider::key::env_names(provider).join(" or ");
                return Err(format!(
                    "{} needs a key: set {names}, or give --base-url for a local server",
                    provider.name()
                ));
            }
        },
    };
    Ok(Chosen { endpoint, name })
}
