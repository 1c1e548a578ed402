//! The state every request of one engine session shares: the workspace, the compute plane,
//! the retained store, the path dictionary, the output ceiling, the spool and the process gate.

use std::os::unix::fs::DirBuilderExt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use super::pathdict::PathDictionary;
use crate::compute::ComputePlane;
use crate::exec::gate::Gate;
use crate::exec::{ExecHardening, SpoolRoot};
use crate::files::workspace::Workspace;
use crate::protocol::Caps;
use crate::session::approval::ApprovalPolicy;
use crate::store::{Body, RetainedStore};
use crate::sync::lock;

/// The state every request of a session shares. Locks are only held for short bookkeeping,
/// never across process runs, walks or hashing.
pub(crate) struct Shared {
    pub(crate) workspace: Workspace,
    pub(crate) plane: Arc<ComputePlane>,
    pub(crate) store: Mutex<RetainedStore>,
    pub(crate) paths: Mutex<PathDictionary>,
    pub(crate) caps: Caps,
    // Installed by embedders only; `None` grants `caps` directly and ignores permits.
    pub(crate) approval: Mutex<Option<ApprovalPolicy>>,
    pub(crate) remaining_output: AtomicU64,
    // Created on the first exec, so sessions that never spawn touch no temp directory.
    pub(crate) spool: Mutex<Option<SpoolRoot>>,
    // Where that root is made; `None`: the system temporary directory.
    pub(crate) spool_base: Option<std::path::PathBuf>,
    // At most C child processes at once, across concurrent requests and batch nodes.
    pub(crate) processes: Gate,
    pub(crate) hardening: ExecHardening,
    pub(crate) withheld_env: Arc<[String]>,
    // What opening the session recovered, until the embedder takes it.
    pub(crate) recovered: Mutex<Vec<crate::txn::Recovered>>,
    // What opening the session recovered of interrupted restores, until the embedder takes it.
    pub(crate) restores: Mutex<Vec<crate::checkpoint::restore::RecoveredRestore>>,
    pub(crate) reclaimed: Vec<String>,
}

impl Shared {
    /// The retained-result store.
    pub(crate) fn store(&self) -> MutexGuard<'_, RetainedStore> {
        lock(&self.store)
    }

    /// The value behind a live alias (the lock is released before the caller reads it).
    pub(crate) fn body(&self, alias: u64) -> Option<Body> {
        self.store().get(alias)
    }

    /// Takes `bytes` from the remaining output ceiling; `false` (nothing taken) if it has fewer.
    pub(crate) fn reserve_output(&self, bytes: u64) -> bool {
        self.remaining_output
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |r| r.checked_sub(bytes))
            .is_ok()
    }

    /// The session's spool root, created on first use.
    pub(crate) fn spool_root(&self) -> std::io::Result<SpoolRoot> {
        let mut spool = lock(&self.spool);
        if let Some(root) = spool.as_ref() {
            return Ok(root.clone());
        }
        let root = match &self.spool_base {
            Some(base) => {
                std::fs::DirBuilder::new()
                    .recursive(true)
                    .mode(0o700)
                    .create(base)?;
                SpoolRoot::create(base, crate::exec::spool::DEFAULT_IDLE)?.0
            }
            None => SpoolRoot::in_temp_dir()?,
        };
        *spool = Some(root.clone());
        Ok(root)
    }
}
