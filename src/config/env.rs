//! The environment overrides of docs/contract/agent-behaviour.md §5, read through a lookup so tests never set process
//! variables.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::PathBuf;

use super::endpoint::Endpoint;
use super::error::ConfigError;
use super::strict::check_name;
use super::withheld::{KEY_VARIABLES, WithheldEnv};
use super::{ApiKey, Provider, ProviderKind, Secret};

/// `AI_PROVIDER`: `responses`, `chat` or `offline`.
pub const AI_PROVIDER: &str = "AI_PROVIDER";
/// `AI_ENDPOINT`: the provider base URL.
pub const AI_ENDPOINT: &str = "AI_ENDPOINT";
/// `AI_MODEL`: the requested model.
pub const AI_MODEL: &str = "AI_MODEL";
/// `AI_API_KEY`: the API key.
pub const AI_API_KEY: &str = "AI_API_KEY";
/// `OPENAI_API_KEY`: the fallback API key of the `responses` provider.
pub const OPENAI_API_KEY: &str = "OPENAI_API_KEY";
/// `AI_CA_FILE`: extra PEM roots.
pub const AI_CA_FILE: &str = "AI_CA_FILE";

type Lookup = Box<dyn Fn(&str) -> Option<OsString> + Send + Sync>;

/// A source of environment variables.
pub struct Env {
    lookup: Lookup,
}

impl std::fmt::Debug for Env {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Env { .. }")
    }
}

impl Env {
    /// The process environment.
    pub fn process() -> Self {
        Env {
            lookup: Box::new(|name| std::env::var_os(name)),
        }
    }

    /// A fixed set of variables (tests, or a broker validating a client's environment).
    pub fn from_pairs<K: Into<String>, V: Into<OsString>>(
        pairs: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        let map: HashMap<String, OsString> = pairs
            .into_iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect();
        Env {
            lookup: Box::new(move |name| map.get(name).cloned()),
        }
    }

    /// A variable that holds a secret: registered in `withheld` before it is read, so whatever
    /// ansa reads a secret from, its exec children never inherit.
    pub(crate) fn secret(
        &self,
        name: &str,
        withheld: &mut WithheldEnv,
    ) -> Result<Option<String>, ConfigError> {
        withheld.add(name);
        self.get(name)
    }

    /// The variable as UTF-8; unset and empty both read as `None`.
    pub(crate) fn get(&self, name: &str) -> Result<Option<String>, ConfigError> {
        match (self.lookup)(name).filter(|v| !v.is_empty()) {
            None => Ok(None),
            Some(v) => v
                .into_string()
                .map(Some)
                .map_err(|_| ConfigError::env(name, "is not valid UTF-8")),
        }
    }
}

/// The validated overrides.
#[derive(Debug, Default)]
pub(crate) struct Overrides {
    pub(crate) kind: Option<ProviderKind>,
    pub(crate) endpoint: Option<Endpoint>,
    pub(crate) model: Option<String>,
    pub(crate) ca_file: Option<PathBuf>,
    pub(crate) broker: Option<ash_broker::client::Route>,
}

/// Reads and validates every override variable; the broker token is registered in `withheld`.
pub(crate) fn read_overrides(
    env: &Env,
    withheld: &mut WithheldEnv,
) -> Result<Overrides, ConfigError> {
    let kind = match env.get(AI_PROVIDER)? {
        None => None,
        Some(s) => Some(match s.as_str() {
            "responses" => ProviderKind::Responses,
            "chat" => ProviderKind::Chat,
            "offline" => ProviderKind::Offline,
            _ => {
                return Err(ConfigError::env(
                    AI_PROVIDER,
                    format!("{s:?} is not one of responses, chat, offline"),
                ));
            }
        }),
    };
    let endpoint = match env.get(AI_ENDPOINT)? {
        None => None,
        Some(s) => Some(Endpoint::parse(&s).map_err(|e| ConfigError::env(AI_ENDPOINT, e))?),
    };
    let model = match env.get(AI_MODEL)? {
        None => None,
        Some(s) => {
            check_name(&s).map_err(|e| ConfigError::env(AI_MODEL, e))?;
            Some(s)
        }
    };
    let ca_file = match env.get(AI_CA_FILE)? {
        None => None,
        Some(s) => Some(ca_file(&s)?),
    };
    // Broker variables that do not name a usable broker only mean the process goes direct.
    let socket = env.get(ash_broker::wire::env::SOCKET).ok().flatten();
    let token = env
        .secret(ash_broker::wire::env::TOKEN, withheld)
        .ok()
        .flatten();
    let broker = ash_broker::client::Route::from_values(socket.as_deref(), token.as_deref())
        .ok()
        .flatten();
    Ok(Overrides {
        kind,
        endpoint,
        model,
        ca_file,
        broker,
    })
}

fn ca_file(s: &str) -> Result<PathBuf, ConfigError> {
    let bad = |reason: String| ConfigError::env(AI_CA_FILE, reason);
    // The user named this file explicitly, so following a symlink is their choice; we only make
    // sure it is a readable regular file now rather than failing at the first TLS handshake.
    let path = std::fs::canonicalize(s).map_err(|e| bad(format!("{s}: {e}")))?;
    let meta = std::fs::metadata(&path).map_err(|e| bad(format!("{s}: {e}")))?;
    if !meta.is_file() {
        return Err(bad(format!("{s} is not a regular file")));
    }
    std::fs::File::open(&path).map_err(|e| bad(format!("{s}: {e}")))?;
    Ok(path)
}

/// Applies the provider kind and endpoint overrides to the file-configured provider.
pub(crate) fn override_provider(
    provider: Provider,
    o: &Overrides,
) -> Result<Provider, ConfigError> {
    let provider = match o.kind {
        Some(kind) if kind != provider.kind() => match kind {
            ProviderKind::Responses => Provider::Responses {
                base_url: Provider::default_responses_url(),
            },
            ProviderKind::Offline => Provider::Offline,
            ProviderKind::Chat => match &o.endpoint {
                Some(url) => Provider::Chat {
                    base_url: url.clone(),
                    api_key_env: None,
                },
                None => {
                    return Err(ConfigError::env(
                        AI_PROVIDER,
                        "chat needs a base URL: set AI_ENDPOINT or provider.base_url in ~/.ansa/config.json",
                    ));
                }
            },
        },
        _ => provider,
    };
    // The offline provider has no endpoint; a globally exported AI_ENDPOINT is not an error there.
    Ok(match (provider, &o.endpoint) {
        (Provider::Responses { .. }, Some(url)) => Provider::Responses {
            base_url: url.clone(),
        },
        (Provider::Chat { api_key_env, .. }, Some(url)) => Provider::Chat {
            base_url: url.clone(),
            api_key_env,
        },
        (p, _) => p,
    })
}

/// Finds the API key: `AI_API_KEY`, then the chat provider's `api_key_env`, then (responses only)
/// `OPENAI_API_KEY`. The OpenAI key is never sent to a `chat` server unless named explicitly.
/// Every variable a key could come from is registered in `withheld`, the ones not used too.
pub(crate) fn api_key(
    env: &Env,
    provider: &Provider,
    withheld: &mut WithheldEnv,
) -> Result<Option<ApiKey>, ConfigError> {
    let [ai, openai] = KEY_VARIABLES;
    let mut names: Vec<&str> = vec![ai];
    match provider {
        Provider::Responses { .. } => names.push(openai),
        Provider::Chat {
            api_key_env: Some(name),
            ..
        } => names.push(name),
        Provider::Chat {
            api_key_env: None, ..
        }
        | Provider::Offline => {}
    }
    for name in KEY_VARIABLES.iter().chain(&names) {
        withheld.add(name);
    }
    if matches!(provider, Provider::Offline) {
        return Ok(None);
    }
    for name in names {
        if let Some(value) = env.secret(name, withheld)? {
            if value.chars().any(|c| c.is_whitespace() || c.is_control()) {
                return Err(ConfigError::env(
                    name,
                    "the API key contains whitespace or control characters",
                ));
            }
            return Ok(Some(ApiKey {
                source: name.to_string(),
                value: Secret::new(value),
            }));
        }
    }
    Ok(None)
}
