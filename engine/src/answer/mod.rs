//! What every operation answers from and with: the request context (`Answer`: the request,
//! the session's shared state behind accessors, the answer's provisional path ids, its
//! deadline and cancellation token), the path dictionary, truncation arithmetic, and the
//! executed-but-unsealed result. Below both the operations and the session that dispatches them.

mod executed;
pub mod pathdict;
mod shared;
pub mod truncate;

pub use executed::Executed;
pub(crate) use executed::resolve;
pub(crate) use shared::Shared;

use crate::cancel::CancelToken;
use crate::deadline::Deadline;
use crate::exec::sandbox::{SandboxOutcome, SandboxPolicy};
use crate::exec::supervisor::Supervision;
use crate::protocol::{ErrorRecord, Request};
use crate::store::RetainedStore;
use pathdict::PathDelta;
use std::sync::MutexGuard;

/// Whose output ceiling an answer is charged to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Charge {
    /// The session's, when the answer is sealed (top-level requests).
    Session,
    /// Nobody's directly: a batch child's answer is retained and only the batch answer is
    /// charged, under its share of the budget.
    Share,
}

/// Everything an operation needs to build its answer, plus the path ids it hands out.
pub(crate) struct Answer<'s> {
    /// The session's shared state.
    pub session: &'s Shared,
    /// The request being answered.
    pub request: &'s Request,
    /// Provisional path ids of this answer, mapped to session ids when it is sealed.
    pub delta: PathDelta,
    /// When the request must be answered by.
    pub deadline: Deadline,
    /// Set to stop the request (exec kills its process tree).
    pub cancel: CancelToken,
    /// Output bytes the session could still emit when the request started.
    pub output: u64,
    /// The embedder's exec supervisor for this request (`x` only; never for batch children).
    pub supervision: Option<&'s Supervision>,
    /// The embedder's tag for this request's transaction (never for batch children).
    pub tag: Option<&'s crate::txn::Tag>,
    /// Where the embedder watches an `x` command's output while it runs (never for batch
    /// children).
    pub live: Option<&'s crate::exec::LiveOutput>,
    /// The OS sandbox `x` commands run under (batch children inherit it).
    pub sandbox: Option<&'s SandboxPolicy>,
    /// What the sandbox did, set by `x`.
    pub sandbox_outcome: SandboxOutcome,
    /// Whose output ceiling the answer is charged to.
    pub charge: Charge,
    /// Output bytes reserved so far (see [`Answer::reserve`]).
    pub reserved: u64,
    /// A mutation is about to be (or was) applied: a success answer is sealed as a success
    /// whatever its final size, because the workspace already changed.
    pub applies: bool,
}

impl Answer<'_> {
    /// The presentation limit L = min(remaining output, 4 × tok).
    pub fn limit(&self) -> usize {
        let l = self.request.budget.presentation_limit(self.output);
        usize::try_from(l).unwrap_or(usize::MAX)
    }

    /// Makes sure an answer of `bytes` can be sent: it must fit the presentation limit and,
    /// for a top-level request, is taken from the session's output ceiling now (settled when
    /// the answer is sealed). A mutation calls this before it changes anything.
    pub fn reserve(&mut self, bytes: usize) -> Result<(), ErrorRecord> {
        let over = ErrorRecord::typical(crate::protocol::ErrorCode::OutputBudget);
        if bytes > self.limit() {
            return Err(over);
        }
        if self.charge == Charge::Session {
            let bytes = bytes as u64;
            if !self.session.reserve_output(bytes) {
                return Err(over);
            }
            self.reserved += bytes;
        }
        Ok(())
    }

    /// The row cap `rec`.
    pub fn rec(&self) -> usize {
        usize::try_from(self.request.budget.rec).unwrap_or(usize::MAX)
    }

    /// The provisional id of `path` in this answer.
    pub fn path_id(&mut self, path: &str) -> Result<u64, ErrorRecord> {
        self.delta
            .id(path)
            .map_err(|_| ErrorRecord::internal_execute())
    }

    /// The session's retained store, locked for one short step.
    pub fn store(&self) -> MutexGuard<'_, RetainedStore> {
        self.session.store()
    }

    /// Retains bytes, mapping quota failures to 601 (store quota); hashes outside the lock.
    pub fn retain(&mut self, bytes: Vec<u8>) -> Result<u64, ErrorRecord> {
        let digest = blake3::hash(&bytes);
        self.store()
            .retain_hashed(bytes, digest)
            .map_err(|e| e.record())
    }
}
