//! `--model`, `--returned-model` and `--effort` on a session that is opened: a change of the
//! model in force is checked against the catalog and recorded (a `rebinding`, synced) before
//! the runtime starts, so before any request.

use ansa_sessions::protocol::ModelChoice;
use ansa_sessions::{
    Binding, Effort, ModelBinding, RebindSource, Rebinding, Session, SessionError,
};

use super::{ModelRefusal, ModelSwitch};

/// What this run's command line asks of the session's model (each `None` when not given).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OpenRebind {
    /// `--model`.
    pub model: Option<String>,
    /// `--returned-model`.
    pub returned_model: Option<String>,
    /// `--effort`.
    pub effort: Option<Effort>,
}

impl OpenRebind {
    fn asks(&self) -> bool {
        self.model.is_some() || self.returned_model.is_some() || self.effort.is_some()
    }
}

/// Why a session's model could not be settled at open.
#[derive(Debug, thiserror::Error)]
pub enum OpenRebindError {
    /// The asked model or effort was refused.
    #[error("session {session}: {refusal}")]
    Refused {
        /// The session ID.
        session: String,
        /// Why.
        refusal: ModelRefusal,
    },
    /// The config (not the command line) names another model than the session's.
    #[error(
        "session {session} runs the model `{in_force}`; this run's configuration (\"model\" in a config file, or AI_MODEL) asks for `{configured}`: pass --model {configured} to switch this session to it (a journaled rebinding), or start a new session (without --continue/--session; /new in the TUI)"
    )]
    ConfigModel {
        /// The session ID.
        session: String,
        /// The model in force.
        in_force: String,
        /// The configured one.
        configured: String,
    },
    /// The session is read-only: its model cannot change.
    #[error(
        "session {session} is read-only ({reason}); its model cannot change: open it without --model/--effort"
    )]
    ReadOnly {
        /// The session ID.
        session: String,
        /// Why it is read-only.
        reason: String,
    },
    /// Writing the rebinding failed.
    #[error(transparent)]
    Session(#[from] SessionError),
}

/// The session's initial model binding (from its `binding` record; `run` for a session that
/// has none), and the rebinding this open recorded, if `asked` changed the model in force.
/// `run` is what this run's config would bind a new session to.
pub fn at_open(
    session: &mut Session,
    switch_for: impl FnOnce(ModelBinding) -> ModelSwitch,
    run: &ModelBinding,
    asked: &OpenRebind,
) -> Result<(ModelSwitch, Option<Rebinding>), OpenRebindError> {
    let initial = match session.state().binding() {
        Some(bound) => initial_of(bound, run),
        None => ModelBinding {
            effort: None,
            ..run.clone()
        },
    };
    let switch = switch_for(initial.clone());
    let in_force = switch.in_force(session);
    let id = session.id().to_string();
    if asked.model.is_none() && run.model != initial.model && run.model != in_force.model {
        return Err(OpenRebindError::ConfigModel {
            session: id,
            in_force: in_force.model,
            configured: run.model.clone(),
        });
    }
    if !asked.asks() {
        return Ok((switch, None));
    }
    let model = asked
        .model
        .clone()
        .unwrap_or_else(|| in_force.model.clone());
    let same = model == in_force.model;
    let choice = ModelChoice {
        effort: asked.effort.or(if same { in_force.effort } else { None }),
        model,
    };
    let returned = asked
        .returned_model
        .clone()
        .or_else(|| same.then(|| in_force.returned_model.clone()));
    let unchanged = same
        && choice.effort == in_force.effort
        && returned
            .as_deref()
            .is_none_or(|r| r == in_force.returned_model);
    if unchanged {
        return Ok((switch, None));
    }
    if let Some(reason) = session.read_only() {
        return Err(OpenRebindError::ReadOnly {
            session: id,
            reason: reason.to_string(),
        });
    }
    let refused = |refusal| OpenRebindError::Refused {
        session: id.clone(),
        refusal,
    };
    let catalog = switch.catalog(&in_force).map_err(|reason| {
        refused(ModelRefusal::Catalog {
            model: choice.model.clone(),
            reason,
        })
    })?;
    let to =
        ModelSwitch::check(&catalog, &in_force, &choice, returned.as_deref()).map_err(refused)?;
    let rebinding = ModelSwitch::record(session, in_force, to, RebindSource::Open)?;
    Ok((switch, Some(rebinding)))
}

/// The model binding a session started with. Sessions record whether their requests carried
/// reasoning among the bound config fields; for one that did not, this run's setting counts
/// when it is for the same model.
fn initial_of(bound: &Binding, run: &ModelBinding) -> ModelBinding {
    let recorded = bound
        .config
        .as_ref()
        .and_then(|c| c.get("reasoning"))
        .and_then(serde_json::Value::as_bool);
    ModelBinding {
        model: bound.requested_model.clone(),
        returned_model: bound.returned_model.clone(),
        reasoning: recorded.unwrap_or(run.reasoning && run.model == bound.requested_model),
        effort: None,
    }
}
