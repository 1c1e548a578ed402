//! The variables exec children never inherit, built while the config is read: every variable
//! ansa reads a secret from registers here as it is read, and the user's `exec_env_deny` adds
//! to it. There is no second list to keep in step.

use super::Provider;
use super::env::{AI_API_KEY, OPENAI_API_KEY};

/// The variables an API key may come from whatever the provider: ansa reads them (or would,
/// with another `AI_PROVIDER`) for the key.
pub(crate) const KEY_VARIABLES: [&str; 2] = [AI_API_KEY, OPENAI_API_KEY];

/// The names withheld from exec children, in the order they were registered, without repeats.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WithheldEnv(Vec<String>);

impl WithheldEnv {
    /// The built-in secret variables: the API key variables and the shell broker's token.
    pub(crate) fn built_in() -> Self {
        let mut w = WithheldEnv::default();
        for name in KEY_VARIABLES {
            w.add(name);
        }
        w.add(ash_broker::wire::env::TOKEN);
        w
    }

    /// Registers `name` (once).
    pub(crate) fn add(&mut self, name: &str) {
        if !self.0.iter().any(|n| n == name) {
            self.0.push(name.to_owned());
        }
    }

    /// Registers the variable a provider reads its key from, if it names one.
    pub(crate) fn add_provider(&mut self, provider: &Provider) {
        if let Provider::Chat {
            api_key_env: Some(name),
            ..
        } = provider
        {
            self.add(name);
        }
    }

    /// The names, in registration order.
    pub fn names(&self) -> &[String] {
        &self.0
    }
}
