//! State shared by the control thread and the worker: the journal, the FIFO, the active turn
//! and the event stream, behind one lock.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use ansa_sessions::protocol::{ErrorCode, EventBody, Preview, ToolPhase};
use ansa_sessions::{
    CallId, CommandId, Incarnation, Record, RequestId, Session, SessionError, TurnState,
    TurnStateChange,
};
use ash_engine::cancel::CancelToken;

use super::events::EventSink;

/// How often an idle runtime retries delivering a pending `resync_required`.
const RESYNC_RETRY: std::time::Duration = std::time::Duration::from_millis(50);

/// The turn the worker is running and how to stop it.
#[derive(Debug)]
pub struct Active {
    /// The turn.
    pub request_id: RequestId,
    /// Cancels a running engine request (exec kills its process group).
    pub engine: CancelToken,
    /// Cancels a generation.
    pub flag: Arc<AtomicBool>,
}

impl Active {
    /// Raises both cancel signals.
    pub fn cancel(&self) {
        self.flag.store(true, Ordering::SeqCst);
        self.engine.cancel();
    }

    /// Whether a cancel was requested.
    pub fn cancelled(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }
}

/// Everything behind the lock.
#[derive(Debug)]
pub struct Core {
    /// The journal (the only writer of the session directory).
    pub session: Session,
    /// Events to the frontend.
    pub events: EventSink,
    /// Accepted turns waiting to run, in order.
    pub queue: VecDeque<RequestId>,
    /// Most turns that may wait.
    pub queue_max: usize,
    /// The running turn.
    pub active: Option<Active>,
    /// The frontend's input ended.
    pub input_closed: bool,
    /// The live preview of the active (or last interrupted) generation.
    pub preview: Option<(RequestId, Preview)>,
    /// This process's incarnation, echoed by every command.
    pub incarnation: Incarnation,
    /// The worker has stopped (input closed, FIFO empty).
    pub stopped: bool,
}

impl Core {
    /// A core for an open session.
    pub fn new(session: Session, events: EventSink, queue_max: usize) -> Self {
        Core {
            session,
            events,
            queue: VecDeque::new(),
            queue_max: queue_max.max(1),
            active: None,
            input_closed: false,
            preview: None,
            incarnation: Incarnation::generate(),
            stopped: false,
        }
    }

    /// Appends and syncs one record.
    pub fn durable(&mut self, record: Record) -> Result<(), SessionError> {
        self.session.append(record)?;
        self.session.sync()?;
        Ok(())
    }

    /// Records and publishes a turn state change; the event goes out even when the record
    /// could not be saved (a snapshot then says `storage_failed`).
    pub fn set_state(&mut self, request_id: RequestId, state: TurnState, reason: Option<String>) {
        let change = TurnStateChange {
            request_id,
            state,
            reason: reason.clone(),
        };
        let _ = self.durable(Record::TurnState(change));
        self.events.publish(EventBody::TurnState {
            request_id,
            state,
            reason,
        });
    }

    /// Publishes a tool status change.
    pub fn tool_status(
        &mut self,
        request_id: RequestId,
        call_id: &CallId,
        tool: &str,
        target: Option<String>,
        status: ToolPhase,
    ) {
        self.events.publish(EventBody::ToolStatus {
            request_id,
            call_id: call_id.clone(),
            tool: tool.to_owned(),
            target,
            status,
        });
    }

    /// Publishes an error answering `command_id`.
    pub fn error(&mut self, command_id: Option<CommandId>, code: ErrorCode, message: String) {
        self.events.publish(EventBody::Error {
            command_id,
            code,
            message,
        });
    }
}

/// The lock plus the worker's wake-up.
#[derive(Debug)]
pub struct Shared {
    core: Mutex<Core>,
    wake: Condvar,
}

impl Shared {
    /// Wraps a core.
    pub fn new(core: Core) -> Self {
        Shared {
            core: Mutex::new(core),
            wake: Condvar::new(),
        }
    }

    /// Locks the core. A panic while holding the lock cannot leave the journal inconsistent
    /// (every record is appended whole), so a poisoned lock is taken over.
    pub fn lock(&self) -> MutexGuard<'_, Core> {
        self.core.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Wakes the worker.
    pub fn notify(&self) {
        self.wake.notify_all();
    }

    /// Waits for the worker's next turn: `None` when input is closed and nothing is queued.
    pub fn next_turn(&self) -> Option<RequestId> {
        let mut core = self.lock();
        loop {
            if let Some(id) = core.queue.pop_front() {
                core.active = Some(Active {
                    request_id: id,
                    engine: CancelToken::new(),
                    flag: Arc::new(AtomicBool::new(false)),
                });
                core.preview = None;
                return Some(id);
            }
            if core.input_closed {
                core.events.close();
                core.stopped = true;
                return None;
            }
            core.events.flush();
            if core.events.resync_pending() {
                core = self
                    .wake
                    .wait_timeout(core, RESYNC_RETRY)
                    .map(|(g, _)| g)
                    .unwrap_or_else(|p| p.into_inner().0);
            } else {
                core = self.wake.wait(core).unwrap_or_else(|p| p.into_inner());
            }
        }
    }
}
