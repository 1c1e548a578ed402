//! Switching the session's model: the `models` and `model` commands, the `model_catalog` and
//! `rebound` events (docs/protocol.md, "Switching models").

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::command::CommandError;
use super::strict::StrictObject;
use crate::ids::CommandId;
use crate::rebinding::{Effort, ModelBinding, RebindSource};

/// Longest model name accepted, in bytes (catalog IDs are far shorter).
pub const MAX_MODEL_BYTES: usize = 256;

/// What a `model` command asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelChoice {
    /// A model ID the provider's catalog lists.
    pub model: String,
    /// `reasoning.effort` (`None`: the provider's default).
    pub effort: Option<Effort>,
}

/// One model of the provider's catalog.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CatalogModel {
    /// Its ID, as the provider lists it.
    pub id: String,
    /// The reasoning efforts it takes, least first (empty: not a reasoning model here, no
    /// reasoning parameter is ever sent for it).
    pub efforts: Vec<Effort>,
}

/// The `model_catalog` event: the models a `model` command may name (answers `models`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelCatalog {
    /// The command it answers.
    pub command_id: CommandId,
    /// The models, in the provider's order.
    pub models: Vec<CatalogModel>,
    /// The binding in force.
    pub current: ModelBinding,
}

/// The `rebound` event: a `rebinding` record is durable; the next turn uses `to`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rebound {
    /// The `model` command it answers (`null` for `--model` at open).
    pub command_id: Option<CommandId>,
    /// The binding before.
    pub from: ModelBinding,
    /// The binding from the next turn on.
    pub to: ModelBinding,
    /// Who asked.
    pub source: RebindSource,
}

/// The fields of a `model` command: `model` (a non-empty string) and an optional `effort`.
pub(super) fn take_model_choice(o: &mut StrictObject) -> Result<ModelChoice, CommandError> {
    let model = match o.take("model") {
        Some(Value::String(m)) => m,
        Some(_) => {
            return Err(CommandError::WrongType {
                field: "model",
                expected: "a string",
            });
        }
        None => return Err(CommandError::Missing("model")),
    };
    if model.trim().is_empty()
        || model.len() > MAX_MODEL_BYTES
        || model.chars().any(char::is_control)
    {
        return Err(CommandError::Invalid {
            field: "model",
            reason: format!(
                "must be a model ID of 1..={MAX_MODEL_BYTES} bytes without control characters; send `models` for the catalog"
            ),
        });
    }
    let effort = match o.take("effort") {
        None | Some(Value::Null) => None,
        Some(Value::String(e)) => {
            Some(
                e.parse::<Effort>()
                    .map_err(|reason| CommandError::Invalid {
                        field: "effort",
                        reason,
                    })?,
            )
        }
        Some(_) => {
            return Err(CommandError::WrongType {
                field: "effort",
                expected: "a string",
            });
        }
    };
    Ok(ModelChoice { model, effort })
}
