//! The config's per-model settings (`"models": {"<model>": {"reasoning": bool}}`), kept after
//! loading so a model chosen later (`/model`, `--model` on a resumed session) is judged by the
//! same rule as the configured one.

use super::Provider;

/// Whether each model named in the config takes the reasoning parameters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModelTable(Vec<(String, bool)>);

impl ModelTable {
    /// The entries that say something about reasoning, in config order.
    pub(crate) fn new(entries: impl IntoIterator<Item = (String, bool)>) -> Self {
        ModelTable(entries.into_iter().collect())
    }

    /// Whether Responses requests for `model` ask for reasoning: the config's entry, else
    /// OpenAI's catalog for api.openai.com, else no (Chat and offline never).
    pub fn reasoning_for(&self, provider: &Provider, model: &str) -> bool {
        let host = match provider {
            Provider::Responses { base_url } => crate::provider::live::host_of(base_url.as_str()),
            Provider::Chat { .. } | Provider::Offline => {
                return self.configured(model).unwrap_or(false);
            }
        };
        self.reasoning_on(&host, model)
    }

    /// [`Self::reasoning_for`] for a Responses host.
    pub fn reasoning_on(&self, host: &str, model: &str) -> bool {
        self.configured(model)
            .unwrap_or_else(|| crate::provider::live::catalog_reasoning(host, model))
    }

    /// What the config says about `model`'s reasoning, if it names it.
    fn configured(&self, model: &str) -> Option<bool> {
        self.0
            .iter()
            .find(|(name, _)| name == model)
            .map(|(_, r)| *r)
    }
}
