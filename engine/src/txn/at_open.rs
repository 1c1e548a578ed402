//! What opening a session does to its workspace before any request runs: reclaims the
//! state-directory litter of killed creators and recovers an interrupted transaction and an
//! interrupted checkpoint restore, so
//! reads never see a tree a crash left half-applied (issue 40: before this, only the next
//! mutation recovered).

use super::recovered::Recovered;
use super::{Stop, litter, lock, recover};
use crate::cancel::CancelToken;
use crate::deadline::Deadline;
use crate::files::workspace::Workspace;

/// Longest wait for the workspace locks when a session opens.
const LOCK_WAIT_MS: u64 = 200;

/// What the opening found and did.
#[derive(Debug, Default)]
pub(crate) struct Opened {
    /// Interrupted transactions and what recovery did with each.
    pub recovered: Vec<Recovered>,
    /// Names of the reclaimed `.ash.new-*` directories.
    pub reclaimed: Vec<String>,
    /// Interrupted checkpoint restores and what recovery did with each.
    pub restores: Vec<crate::checkpoint::restore::RecoveredRestore>,
}

/// Runs both steps. Recovery needs our own `.ash` and both locks, waited for at most
/// [`LOCK_WAIT_MS`]: a lock can look held for a moment when another thread of this process
/// forks a child while the lock file is open (the child holds a copy of the descriptor until
/// it execs), and skipping recovery then would leave the journal unreported. A live holder
/// recovered before its own transaction began, so the journal there is its own and a longer
/// wait would only delay the open. A lock that cannot be opened (a read-only workspace)
/// leaves recovery to the next mutation, which reports the failure.
pub(crate) fn open(ws: &Workspace) -> Opened {
    let reclaimed = litter::reclaim(ws);
    let mut recovered = Vec::new();
    let mut restores = Vec::new();
    if ws.has_state_dir()
        && let Ok(_held) = lock::acquire(
            ws,
            &Stop::new(Deadline::after_ms(LOCK_WAIT_MS), CancelToken::new()),
        )
    {
        // A failure is reported as the last entry, unresolved; the journal stays for the
        // next mutation to refuse with 502.
        let _ = recover::recover_reporting(ws, &mut recovered);
        // Under the same lock: a restore never interleaves with an edit transaction. A
        // failure is likewise the last entry, and the next restore refuses until it is fixed.
        let _ = crate::checkpoint::restore::recover_reporting(ws, &mut restores);
    }
    Opened {
        recovered,
        reclaimed,
        restores,
    }
}
