//! The crash-safe workspace transaction journal behind `p`, `f` and `>` (docs/contract/ash-protocol.md §6).
//!
//! A transaction takes the workspace locks, recovers any interrupted journal, lets the caller
//! preflight its actions, stages them into `.ash/transaction.new`, publishes the journal by
//! renaming it to `.ash/transaction`, applies the actions in order and finally marks and deletes
//! the journal. Any failure after publication rolls applied actions back.
//!
//! Recovery also runs when a session opens the workspace ([`at_open`]), so no request reads a
//! tree an interrupted transaction left half-applied; what it did is reported as
//! [`Recovered`], attributed by the [`Tag`] the embedder gave the request.

mod apply;
pub(crate) mod at_open;
pub(crate) mod crash;
#[cfg(feature = "crash-points")]
pub use crash::on_published;
pub(crate) mod fsx;
mod journal;
mod litter;
pub(crate) mod lock;
mod manifest;
pub(crate) mod preflight;
pub(crate) mod recover;
mod recovered;
pub mod stats;
mod tag;

pub use recovered::{Outcome, Recovered};
pub use tag::{MAX_TAG_BYTES, Tag, TagError};

use crate::cancel::CancelToken;
use crate::deadline::Deadline;
use crate::files::workspace::Workspace;
use crate::protocol::Digest;

pub(crate) use lock::state_dir_absent;
pub(crate) use manifest::{Entry, Kind};

/// Largest file a transaction stages, hashes or writes (128 MiB).
pub const MAX_FILE_BYTES: u64 = 128 << 20;
/// Largest total of staged or hashed bytes in one transaction (128 MiB).
pub const MAX_TOTAL_BYTES: u64 = 128 << 20;

/// Why a transaction stopped early on request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Halt {
    /// The request was cancelled.
    Cancelled,
    /// The request deadline passed.
    TimedOut,
}

/// The cancellation token and deadline a transaction checks between units of work.
#[derive(Debug, Clone)]
pub(crate) struct Stop {
    deadline: Deadline,
    cancel: CancelToken,
}

impl Stop {
    /// Watches `deadline` and `cancel`.
    pub(crate) fn new(deadline: Deadline, cancel: CancelToken) -> Stop {
        Stop { deadline, cancel }
    }

    /// `Err` once the request is cancelled or its deadline has passed.
    pub(crate) fn check(&self) -> Result<(), Halt> {
        if self.cancel.is_cancelled() {
            return Err(Halt::Cancelled);
        }
        self.deadline.check().map_err(|_| Halt::TimedOut)
    }
}

/// Why a transaction failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TxnError {
    /// Cancelled or timed out; anything published was rolled back.
    Halt(Halt),
    /// `.ash` exists but is not ours (no marker, or not a directory); we never take it over.
    ForeignStateDir(String),
    /// An I/O failure; anything published was rolled back.
    Io(String),
    /// A journal or rollback that cannot be proven safe; journal and files are left untouched.
    Recovery(String),
    /// At apply time action `index` met a changed preimage or an existing name; rolled back.
    Conflict {
        /// The action that conflicted.
        index: usize,
        /// What the conflicting path holds now, when it is a readable regular file.
        observed: Option<Digest>,
    },
}

impl From<Halt> for TxnError {
    fn from(h: Halt) -> Self {
        TxnError::Halt(h)
    }
}

/// Formats an I/O failure with what was being done.
pub(crate) fn io_err(what: &str, path: &str, e: &std::io::Error) -> TxnError {
    TxnError::Io(format!("{what} {path}: {e}"))
}

/// A failed commit: the error and how many leading actions were applied and rolled back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CommitFailure {
    /// What went wrong.
    pub error: TxnError,
    /// Actions `0..rolled_back` had been applied and are rolled back.
    pub rolled_back: usize,
}

/// One action ready to journal: its manifest entry and the bytes to stage.
#[derive(Debug, Clone)]
pub(crate) struct Action {
    /// The manifest entry (kind, paths, result and preimage digests).
    pub entry: Entry,
    /// Content for `stage/` (create, copy, replace).
    pub stage: Option<Vec<u8>>,
    /// Original bytes for `removed/` (replace).
    pub preimage: Option<Vec<u8>>,
    /// Permission bits for the staged file (copy keeps its source's bits).
    pub mode: Option<u32>,
}

/// An open transaction: the workspace is locked and any earlier journal is recovered.
pub(crate) struct Txn {
    ws: Workspace,
    stop: Stop,
    tag: Option<Tag>,
    _lock: lock::Locked,
}

impl Txn {
    /// Creates or validates `.ash`, takes both locks (polling every 10 ms) and runs recovery.
    pub(crate) fn begin(ws: &Workspace, stop: Stop) -> Result<Txn, TxnError> {
        stop.check()?;
        lock::ensure_state_dir(ws)?;
        let locked = lock::acquire(ws, &stop)?;
        recover::recover(ws)?;
        Ok(Txn {
            ws: ws.clone(),
            stop,
            tag: None,
            _lock: locked,
        })
    }

    /// Names the journal after the request's tag, so recovery can attribute it.
    pub(crate) fn with_tag(mut self, tag: Option<Tag>) -> Txn {
        self.tag = tag;
        self
    }

    /// The workspace, whose root descriptor every path of the transaction is reached through.
    pub(crate) fn workspace(&self) -> &Workspace {
        &self.ws
    }

    /// The request's stop conditions.
    pub(crate) fn stop(&self) -> &Stop {
        &self.stop
    }

    /// Stages, publishes, applies and commits `actions`; the locks are released on return.
    pub(crate) fn commit(self, actions: Vec<Action>) -> Result<(), CommitFailure> {
        let unapplied = |error| CommitFailure {
            error,
            rolled_back: 0,
        };
        let journal = journal::prepare(&self.ws, &actions, &self.stop, self.tag.as_ref())
            .map_err(unapplied)?;
        drop(actions);
        apply::apply_all(&journal, &self.stop)?;
        journal.commit().map_err(unapplied)
    }
}
