//! Switching the session's model, never silently: the binding in force (the initial
//! `binding`'s model, replaced by each `rebinding` record), the catalog a new model must be
//! in, and the `rebinding` record synced before the next request.
//!
//! A rebinding is accepted at any time and applies from the next turn (or resumed segment)
//! that starts: the running turn keeps the binding it started with, so every request is built
//! from the binding in force when its turn started, and replay stays exact.

mod command;
mod open;

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use ansa_sessions::protocol::{CatalogModel, ModelChoice};
use ansa_sessions::{Effort, ModelBinding, RebindSource, Rebinding, Session};

use crate::provider::Provider;

pub use command::handles;
pub use open::{OpenRebind, OpenRebindError, at_open};

/// Most catalog IDs a refusal lists before `…`.
const MAX_LISTED: usize = 40;

/// What the control thread and the worker need to know the binding in force and to check a
/// new one: the provider (for its catalog) and the session's initial model binding.
#[derive(Clone)]
pub struct ModelSwitch {
    provider: Arc<dyn Provider>,
    initial: ModelBinding,
}

impl fmt::Debug for ModelSwitch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ModelSwitch")
            .field("initial", &self.initial)
            .finish_non_exhaustive()
    }
}

/// Why a model cannot be switched to.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelRefusal {
    /// The catalog does not list the model.
    #[error(
        "the model `{model}` is not in the provider's catalog; known models: {known}; nothing changed"
    )]
    Unknown {
        /// What was asked for.
        model: String,
        /// The catalog's IDs, comma-separated.
        known: String,
    },
    /// The model does not take the effort asked for.
    #[error("the model `{model}` {takes}; nothing changed")]
    Effort {
        /// The model.
        model: String,
        /// What it takes, in words.
        takes: String,
    },
    /// The catalog could not be read.
    #[error(
        "cannot read the provider's model catalog to check `{model}`: {reason}; nothing changed"
    )]
    Catalog {
        /// What was asked for.
        model: String,
        /// Why.
        reason: String,
    },
    /// Nothing would change.
    #[error("the session already uses {0}; nothing changed")]
    Unchanged(ModelBinding),
}

impl ModelSwitch {
    /// A switch for a session whose initial model binding is `initial`.
    pub fn new(provider: Arc<dyn Provider>, initial: ModelBinding) -> Self {
        ModelSwitch { provider, initial }
    }

    /// The binding in force: the latest `rebinding`'s, else the initial one.
    pub fn in_force(&self, session: &Session) -> ModelBinding {
        session
            .state()
            .rebinding()
            .map_or_else(|| self.initial.clone(), |r| r.to.clone())
    }

    /// The catalog a new model must be in: the provider's, or for a provider without one
    /// (offline) the model in force alone.
    pub fn catalog(&self, current: &ModelBinding) -> Result<Vec<CatalogModel>, String> {
        match self.provider.catalog(&AtomicBool::new(false)) {
            Ok(Some(models)) => Ok(models),
            Ok(None) => Ok(vec![CatalogModel {
                id: current.model.clone(),
                efforts: Vec::new(),
            }]),
            Err(e) => Err(e.to_string()),
        }
    }

    /// The binding `choice` asks for, checked against `catalog`; `returned_model` is the exact
    /// name responses must report (the model itself unless `--returned-model` said otherwise).
    pub fn check(
        catalog: &[CatalogModel],
        current: &ModelBinding,
        choice: &ModelChoice,
        returned_model: Option<&str>,
    ) -> Result<ModelBinding, ModelRefusal> {
        let Some(entry) = catalog.iter().find(|m| m.id == choice.model) else {
            return Err(ModelRefusal::Unknown {
                model: choice.model.clone(),
                known: known(catalog),
            });
        };
        if let Some(effort) = choice.effort
            && !entry.efforts.contains(&effort)
        {
            return Err(ModelRefusal::Effort {
                model: entry.id.clone(),
                takes: takes(&entry.efforts, effort),
            });
        }
        let to = ModelBinding {
            model: entry.id.clone(),
            returned_model: returned_model.unwrap_or(&entry.id).to_owned(),
            reasoning: if entry.id == current.model && entry.efforts.is_empty() {
                // A provider without a catalog (offline) keeps what the model had.
                current.reasoning
            } else {
                !entry.efforts.is_empty()
            },
            effort: choice.effort,
        };
        if to == *current {
            return Err(ModelRefusal::Unchanged(to));
        }
        Ok(to)
    }

    /// Appends and syncs the `rebinding` from `from` to `to`.
    pub fn record(
        session: &mut Session,
        from: ModelBinding,
        to: ModelBinding,
        source: RebindSource,
    ) -> Result<Rebinding, ansa_sessions::SessionError> {
        let rebinding = Rebinding { from, to, source };
        session.append(ansa_sessions::Record::Rebinding(rebinding.clone()))?;
        session.sync()?;
        Ok(rebinding)
    }
}

/// The catalog's IDs for a refusal.
fn known(catalog: &[CatalogModel]) -> String {
    if catalog.is_empty() {
        return "none (the catalog is empty)".to_owned();
    }
    let mut ids: Vec<&str> = catalog
        .iter()
        .take(MAX_LISTED)
        .map(|m| m.id.as_str())
        .collect();
    if catalog.len() > MAX_LISTED {
        ids.push("…");
    }
    ids.join(", ")
}

/// What a model takes, for a refused effort.
fn takes(efforts: &[Effort], asked: Effort) -> String {
    if efforts.is_empty() {
        return format!(
            "takes no reasoning effort (it is not a reasoning model here); choose it without `{asked}`"
        );
    }
    let list: Vec<&str> = efforts.iter().map(|e| e.as_str()).collect();
    format!(
        "takes the reasoning efforts {}, not `{asked}`",
        list.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binding(model: &str, effort: Option<Effort>) -> ModelBinding {
        ModelBinding {
            model: model.into(),
            returned_model: model.into(),
            reasoning: true,
            effort,
        }
    }

    fn catalog() -> Vec<CatalogModel> {
        vec![
            CatalogModel {
                id: "gpt-5.5".into(),
                efforts: vec![Effort::Low, Effort::Medium, Effort::High],
            },
            CatalogModel {
                id: "plain".into(),
                efforts: Vec::new(),
            },
        ]
    }

    fn choice(model: &str, effort: Option<Effort>) -> ModelChoice {
        ModelChoice {
            model: model.into(),
            effort,
        }
    }

    #[test]
    fn an_unknown_model_is_refused_with_the_list() {
        let e = ModelSwitch::check(
            &catalog(),
            &binding("gpt-5.5", None),
            &choice("nope", None),
            None,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "the model `nope` is not in the provider's catalog; known models: gpt-5.5, plain; nothing changed"
        );
    }

    #[test]
    fn an_effort_must_be_one_the_model_takes() {
        let current = binding("gpt-5.5", None);
        let e = ModelSwitch::check(
            &catalog(),
            &current,
            &choice("plain", Some(Effort::High)),
            None,
        )
        .unwrap_err();
        assert!(e.to_string().contains("takes no reasoning effort"), "{e}");
        let e = ModelSwitch::check(
            &catalog(),
            &current,
            &choice("gpt-5.5", Some(Effort::Minimal)),
            None,
        )
        .unwrap_err();
        assert!(
            e.to_string().contains("low, medium, high, not `minimal`"),
            "{e}"
        );
        let to = ModelSwitch::check(&catalog(), &current, &choice("plain", None), None).unwrap();
        assert!(!to.reasoning && to.effort.is_none());
        let to = ModelSwitch::check(
            &catalog(),
            &current,
            &choice("gpt-5.5", Some(Effort::High)),
            None,
        )
        .unwrap();
        assert_eq!(to, binding("gpt-5.5", Some(Effort::High)));
    }

    #[test]
    fn the_same_binding_again_changes_nothing() {
        let current = binding("gpt-5.5", Some(Effort::Low));
        let e = ModelSwitch::check(
            &catalog(),
            &current,
            &choice("gpt-5.5", Some(Effort::Low)),
            None,
        )
        .unwrap_err();
        assert!(matches!(e, ModelRefusal::Unchanged(_)));
    }
}
