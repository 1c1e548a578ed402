//! The `models` and `model` commands. Both may read the provider's catalog over the network,
//! so each is answered from a thread of its own, never under the lock or on the control
//! thread; the `rebinding` record is appended and synced under the lock, where the worker
//! reads the binding in force when a turn starts.

use std::sync::Arc;

use ansa_sessions::protocol::{
    Command, CommandBody, ErrorCode, EventBody, ModelCatalog, ModelChoice, Rebound,
};
use ansa_sessions::{CommandId, RebindSource, Rebinding, Record};

use super::super::core::Shared;
use super::{ModelRefusal, ModelSwitch};

/// Answers `command` if it is `models` or `model` (in the background); `false` for any other.
pub fn handles(shared: &Arc<Shared>, switch: &ModelSwitch, command: &Command) -> bool {
    let id = command.command_id.clone();
    let job: Box<dyn FnOnce() + Send> = match &command.body {
        CommandBody::Models => {
            let (shared, switch) = (Arc::clone(shared), switch.clone());
            Box::new(move || list(&shared, &switch, id))
        }
        CommandBody::Model(choice) => {
            let (shared, switch, choice) = (Arc::clone(shared), switch.clone(), choice.clone());
            Box::new(move || rebind(&shared, &switch, id, &choice))
        }
        _ => return false,
    };
    let spawned = std::thread::Builder::new()
        .name("ansa-model".into())
        .spawn(job);
    if let Err(e) = spawned {
        shared.lock().error(
            Some(command.command_id.clone()),
            ErrorCode::ModelRefused,
            format!("cannot start a thread to read the model catalog: {e}; nothing changed"),
        );
        shared.notify();
    }
    true
}

fn list(shared: &Shared, switch: &ModelSwitch, id: CommandId) {
    let current = switch.in_force(shared.lock().session());
    let body = match switch.catalog(&current) {
        Ok(models) => EventBody::ModelCatalog(ModelCatalog {
            command_id: id,
            models,
            current,
        }),
        Err(reason) => EventBody::Error {
            command_id: Some(id),
            code: ErrorCode::ModelRefused,
            message: format!("cannot read the provider's model catalog: {reason}"),
        },
    };
    shared.lock().answer(body);
    shared.notify();
}

fn rebind(shared: &Shared, switch: &ModelSwitch, id: CommandId, choice: &ModelChoice) {
    let before = switch.in_force(shared.lock().session());
    let checked = switch
        .catalog(&before)
        .map_err(|reason| ModelRefusal::Catalog {
            model: choice.model.clone(),
            reason,
        })
        .and_then(|catalog| ModelSwitch::check(&catalog, &before, choice, None));
    let mut core = shared.lock();
    let refuse = |core: &mut super::super::core::Core, message: String| {
        core.error(Some(id.clone()), ErrorCode::ModelRefused, message);
    };
    let to = match checked {
        Ok(to) => to,
        Err(refusal) => {
            refuse(&mut core, refusal.to_string());
            drop(core);
            shared.notify();
            return;
        }
    };
    // Another `model` command may have been recorded while the catalog was read.
    let from = switch.in_force(core.session());
    if let Some(reason) = core.session().read_only() {
        let message = format!("the session is read-only ({reason}); its model cannot change");
        refuse(&mut core, message);
    } else {
        let rebinding = Rebinding {
            from,
            to,
            source: RebindSource::Command,
        };
        match core.durable(Record::Rebinding(rebinding.clone())) {
            Ok(()) => core.answer(EventBody::Rebound(Rebound {
                command_id: Some(id),
                from: rebinding.from,
                to: rebinding.to,
                source: rebinding.source,
            })),
            Err(e) => {
                let message = format!("the rebinding could not be saved ({e}); nothing changed");
                core.error(Some(id), ErrorCode::StorageFailed, message);
            }
        }
    }
    drop(core);
    shared.notify();
}
