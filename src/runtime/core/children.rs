//! What the parent's core knows of orchestrate mode's running children: their events go out
//! on the parent's stream tagged with the child, and an `approve` for a call the parent is
//! not waiting on is handed to the child that is (ask mode).

use std::sync::{Arc, Mutex, PoisonError};

use ansa_sessions::child::ChildId;
use ansa_sessions::protocol::{ChildEvent, ChildStatus, EventBody};

use super::{Core, Shared};

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
