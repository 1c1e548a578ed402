//! Orchestrate mode's child agents in the TUI: one nested row per child under the parent's
//! `delegate` call (place, state, tool count, running time, task; `draw.rs`), each child's
//! own events kept as a readable log that Ctrl+O opens in the viewer (`log.rs`, `view.rs`).
//! Task and log texts are model and tool text: they are shown only through the sanitiser.

mod draw;
mod events;
mod log;
mod view;

use std::time::{Duration, Instant};

use ansa_sessions::child::{ChildId, ChildState};
use ansa_sessions::protocol::{ChildStatus, EventBody};

/// Lines of a child's log kept: the viewer shows the latest; the whole transcript is the
/// `delegate` call's retained `@N`.
const LOG_LINES: usize = 2_000;

/// One child's row.
#[derive(Debug, Clone)]
pub(crate) struct ChildRow {
    /// The child.
    pub child: ChildId,
    /// Its place in the call, from 1.
    pub index: u32,
    /// Its instruction.
    pub task: String,
    /// Where it is.
    pub state: ChildState,
    /// Why it paused or failed.
    pub reason: Option<String>,
    /// Tool calls started.
    pub tools: u32,
    /// Running time at `seen`.
    pub elapsed: Duration,
    /// When the status arrived (a running child's time goes on from there).
    pub seen: Instant,
    /// What it did so far, one entry per line (`log.rs`).
    pub log: Vec<String>,
}

/// The rows of the `delegate` call running now.
#[derive(Debug, Default)]
pub(crate) struct Children {
    rows: Vec<ChildRow>,
}

impl Children {
    /// Takes a `child_status`: updates the child's row, or adds it in index order.
    pub fn update(&mut self, status: ChildStatus, now: Instant) {
        let elapsed = Duration::from_millis(status.elapsed_ms);
        if let Some(row) = self.rows.iter_mut().find(|r| r.child == status.child) {
            row.state = status.state;
            row.reason = status.reason;
            row.tools = status.tools;
            row.elapsed = elapsed;
            row.seen = now;
            return;
        }
        let row = ChildRow {
            log: log::opening(&status.task),
            child: status.child,
            index: status.index,
            task: status.task,
            state: status.state,
            reason: status.reason,
            tools: status.tools,
            elapsed,
            seen: now,
        };
        let at = self.rows.partition_point(|r| r.index < row.index);
        self.rows.insert(at, row);
    }

    /// Adds one of a child's own events to its log; false when no row is that child's (an
    /// event of a call this TUI does not follow).
    pub fn record(&mut self, child: &ChildId, event: &EventBody) -> bool {
        let Some(row) = self.rows.iter_mut().find(|r| r.child == *child) else {
            return false;
        };
        row.log.extend(log::lines(event));
        if row.log.len() > LOG_LINES {
            let excess = row.log.len() - LOG_LINES;
            row.log.drain(..excess);
        }
        true
    }

    /// Forgets the rows (the call ended, or a new task started).
    pub fn clear(&mut self) {
        self.rows.clear();
    }

    /// The rows, in index order.
    pub fn rows(&self) -> &[ChildRow] {
        &self.rows
    }

    /// The row of `child`.
    pub fn row(&self, child: &ChildId) -> Option<&ChildRow> {
        self.rows.iter().find(|r| r.child == *child)
    }

    /// Whether a `delegate` call's children are shown.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}
