//! The `diff` and `compact` commands in the core: each is one job the worker runs between
//! turns (a diff captures the workspace, a compaction may ask the provider: neither happens
//! under the lock). `compact` is refused while a turn is queued, running or waiting for
//! approval; `diff` waits for the running turn to end.

use ansa_sessions::CommandId;
use ansa_sessions::protocol::{ErrorCode, EventBody};

use super::Core;
use super::rewind::RewindSlot;

/// An on-demand job for the worker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Maintenance {
    /// Answer `diff` with `workspace_diff`.
    Diff(CommandId),
    /// Compact now and answer with `compacted`.
    Compact(CommandId),
}

impl Core {
    /// Accepts `diff` for the worker (one at a time).
    pub fn ask_diff(&mut self, id: CommandId) {
        if self.maintenance.is_some() {
            let message = "a diff or compaction is already waiting; ask again when it is answered";
            self.error(Some(id), ErrorCode::Busy, message.to_owned());
            return;
        }
        self.maintenance = Some(Maintenance::Diff(id));
    }

    /// Accepts `compact` for the worker, or says why not (nothing changes on a refusal).
    pub fn ask_compact(&mut self, id: CommandId) {
        let busy = if let Some(a) = &self.active {
            Some(format!("turn {} is running", a.request_id))
        } else if let Some(q) = self.queue.front() {
            Some(format!("turn {q} is queued"))
        } else if !matches!(self.rewind, RewindSlot::Idle) {
            Some("a rewind is in progress".to_owned())
        } else if self.maintenance.is_some() {
            Some("a diff or compaction is already waiting".to_owned())
        } else {
            None
        };
        if let Some(busy) = busy {
            self.error(
                Some(id),
                ErrorCode::Busy,
                format!("{busy}; compact when it has ended (or cancel it)"),
            );
            return;
        }
        let refusal = if let Some(reason) = self.session.read_only() {
            Some(format!("the session is read-only ({reason})"))
        } else {
            self.session
                .storage_failure()
                .map(|cause| format!("the journal cannot be written ({cause})"))
        };
        if let Some(reason) = refusal {
            self.error(
                Some(id),
                ErrorCode::CompactRefused,
                format!("compaction refused: {reason}; nothing changed"),
            );
            return;
        }
        self.maintenance = Some(Maintenance::Compact(id));
    }

    /// The accepted on-demand job, now the worker's, if there is one.
    pub(super) fn take_maintenance(&mut self) -> Option<Maintenance> {
        self.maintenance.take()
    }

    /// Publishes the answer of an on-demand job the worker built.
    pub fn answer(&mut self, body: EventBody) {
        self.events.publish(body);
    }
}
