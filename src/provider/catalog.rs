//! What a model takes: the reasoning efforts of a model in a provider's catalog. Only a
//! model whose requests carry the reasoning parameters takes an effort; the rest get none,
//! so `reasoning.effort` never reaches a host or model that does not accept it.

use ansa_sessions::Effort;
use ansa_sessions::protocol::CatalogModel;

use crate::config::ModelTable;

/// The efforts `model` takes on `host` when its requests carry reasoning (`reasoning`).
/// OpenAI's GPT-5 generation (not its codex models) also takes `minimal`; other reasoning
/// models take `low`, `medium` and `high`.
pub fn efforts(host: &str, model: &str, reasoning: bool) -> Vec<Effort> {
    if !reasoning {
        return Vec::new();
    }
    let gpt5 = host.eq_ignore_ascii_case("api.openai.com")
        && model
            .strip_prefix("gpt-5")
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('-'))
        && !model.contains("codex");
    let least = if gpt5 { Effort::Minimal } else { Effort::Low };
    Effort::ALL.into_iter().filter(|e| *e >= least).collect()
}

/// The catalog entries of `ids` (a `GET /models` answer): on a Responses host (`host`), each
/// model's efforts by the config's table and the host's catalog rule; on Chat (`None`), none.
pub fn entries(host: Option<&str>, table: &ModelTable, ids: Vec<String>) -> Vec<CatalogModel> {
    ids.into_iter()
        .map(|id| {
            let efforts = match host {
                Some(host) => efforts(host, &id, table.reasoning_on(host, &id)),
                None => Vec::new(),
            };
            CatalogModel { efforts, id }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_reasoning_models_take_efforts_and_minimal_is_gpt5s() {
        let all = Effort::ALL.to_vec();
        assert_eq!(efforts("api.openai.com", "gpt-5", true), all);
        assert_eq!(efforts("api.openai.com", "gpt-5-mini", true), all);
        assert_eq!(
            efforts("api.openai.com", "gpt-5.5", true),
            [Effort::Low, Effort::Medium, Effort::High]
        );
        assert_eq!(
            efforts("api.openai.com", "gpt-5-codex", true),
            [Effort::Low, Effort::Medium, Effort::High]
        );
        assert_eq!(
            efforts("127.0.0.1", "gpt-5", true),
            [Effort::Low, Effort::Medium, Effort::High]
        );
        assert!(efforts("api.openai.com", "gpt-5", false).is_empty());
    }
}
