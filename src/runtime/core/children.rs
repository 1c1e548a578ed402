//! What the parent's core knows of orchestrate mode's running children: their events go out
//! on the parent's stream tagged with the child, and an `approve` for a call the parent is
//! not waiting on is handed to the child that is (ask mode).

use std::sync::{Arc, Mutex, PoisonError};

use ansa_sessions::CommandId;
use ansa_sessions::child::ChildId;
use ansa_sessions::protocol::{ChildEvent, ChildStatus, CommandBody, ErrorCode, EventBody};

use super::{Core, Decision, Shared};

/// The cores of the children running now, shared by the parent's core and the orchestrator.
#[derive(Debug, Clone, Default)]
pub struct LiveChildren {
    cores: Arc<Mutex<Vec<LiveChild>>>,
}

/// A running child's ID and core.
type LiveChild = (ChildId, Arc<Shared>);

impl LiveChildren {
    /// Registers a child's core while it runs.
    pub fn add(&self, id: ChildId, shared: Arc<Shared>) {
        self.lock().push((id, shared));
    }

    /// Forgets a child that ended.
    pub fn remove(&self, id: &ChildId) {
        self.lock().retain(|(c, _)| c != id);
    }

    /// The core of a running child.
    pub fn get(&self, id: &ChildId) -> Option<Arc<Shared>> {
        self.lock()
            .iter()
            .find(|(c, _)| c == id)
            .map(|(_, s)| Arc::clone(s))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<LiveChild>> {
        self.cores.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Core {
    /// Publishes one event of a child's stream, tagged with the child.
    pub fn child_event(&mut self, child: ChildId, event: EventBody) {
        self.events.publish(EventBody::Child(ChildEvent {
            child,
            event: Box::new(event),
        }));
    }

    /// Publishes where a child stands.
    pub fn child_status(&mut self, status: ChildStatus) {
        self.events.publish(EventBody::ChildStatus(status));
    }

    /// The children running now.
    pub fn live_children(&self) -> &LiveChildren {
        &self.children
    }
}

/// Runs a `child` command: on the child's own core while it runs (an approval wakes its
/// worker), else from its journal on disk (a finished or not yet resumed child). Answers go
/// out as `child` events; the parent's lock is not held while the child's is taken.
pub fn child_command(shared: &Shared, id: CommandId, child: ChildId, command: CommandBody) {
    let (live, dir) = {
        let core = shared.lock();
        let dir = core
            .session
            .dir()
            .join(ansa_sessions::child::CHILDREN_DIR)
            .join(child.as_str());
        (core.children.get(&child), dir)
    };
    if let Some(live) = live {
        let mut core = live.lock();
        match command {
            CommandBody::Approve {
                target,
                call,
                decision,
                reason,
            } => core.approve(id, target, call, Decision { decision, reason }),
            CommandBody::Transcript(query) => core.publish_transcript(query),
            CommandBody::ToolOutput(query) => core.publish_tool_output(id, query),
            other => {
                let message = format!("`{}` cannot be sent to a child", other.type_name());
                core.error(Some(id), ErrorCode::ParseError, message);
            }
        }
        drop(core);
        live.notify();
        return;
    }
    let mut core = shared.lock();
    if !dir.join(ansa_sessions::meta::META_FILE).exists() {
        let message =
            format!("this session has no child {child}; take its id from a child_status event");
        core.error(Some(id), ErrorCode::UnknownTarget, message);
        return;
    }
    let answer = match command {
        CommandBody::Transcript(query) => ansa_sessions::child::read_transcript(&dir, query)
            .map(EventBody::Transcript)
            .map_err(|e| {
                (
                    ErrorCode::StorageFailed,
                    format!("child {child}'s journal: {e}"),
                )
            }),
        CommandBody::ToolOutput(query) => ansa_sessions::read_records(&dir)
            .map_err(|e| {
                (
                    ErrorCode::StorageFailed,
                    format!("child {child}'s journal: {e}"),
                )
            })
            .and_then(|records| {
                ansa_sessions::find_tool_output(records.iter().map(|(_, r)| r), &query)
                    .map(|found| {
                        EventBody::ToolOutput(ansa_sessions::tool_output_page(&found, query))
                    })
                    .ok_or((
                        ErrorCode::UnknownTarget,
                        format!("child {child} has no recorded output for that call"),
                    ))
            }),
        CommandBody::Approve { .. } => Err((
            ErrorCode::UnknownTarget,
            format!("child {child} is not running: nothing of it waits for approval"),
        )),
        other => Err((
            ErrorCode::ParseError,
            format!("`{}` cannot be sent to a child", other.type_name()),
        )),
    };
    match answer {
        Ok(body) => core.child_event(child, body),
        Err((code, message)) => core.error(Some(id), code, message),
    }
}
