//! What the model has seen: session path names and the digest of the last read of each file.

use ash_engine::protocol::{Data, Digest, MutationState, Response};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

/// Names of the session's path ids, learned from every answer's `p` table.
#[derive(Debug, Clone, Default)]
pub struct PathNames {
    names: HashMap<u64, String>,
    /// What every executor on the same engine session learned: the engine introduces a path
    /// once per session, so an orchestrate-mode child must learn the names another child's
    /// answers introduced (`ToolExecutor::for_child`).
    common: Arc<Mutex<HashMap<u64, String>>>,
}

impl PathNames {
    /// Records the paths an answer introduced, and catches up with what executors linked to
    /// this one learned.
    pub fn learn(&mut self, response: &Response) {
        let mut common = self.common.lock().unwrap_or_else(PoisonError::into_inner);
        for (id, path) in &response.paths {
            self.names.insert(*id, path.clone());
            common.insert(*id, path.clone());
        }
        if common.len() != self.names.len() {
            for (id, path) in common.iter() {
                self.names.entry(*id).or_insert_with(|| path.clone());
            }
        }
    }

    /// Names shared with this one from now on (an executor on the same engine session).
    pub fn linked(&self) -> PathNames {
        let common = self.common.lock().unwrap_or_else(PoisonError::into_inner);
        PathNames {
            names: common.clone(),
            common: Arc::clone(&self.common),
        }
    }

    /// The logical path of a session id.
    pub fn get(&self, id: u64) -> Option<&str> {
        self.names.get(&id).map(String::as_str)
    }
}

/// Per-session map of logical path → digest of the file as the model last saw it.
#[derive(Debug, Clone, Default)]
pub struct ReadLedger {
    digests: HashMap<String, Digest>,
}

impl ReadLedger {
    /// The digest of the last read of `path` (a logical path as the engine names it).
    pub fn digest(&self, path: &str) -> Option<Digest> {
        self.digests.get(path).copied()
    }

    /// Number of files the model has read.
    pub fn len(&self) -> usize {
        self.digests.len()
    }

    /// Whether the model has read nothing yet.
    pub fn is_empty(&self) -> bool {
        self.digests.is_empty()
    }

    /// Records a file as seen with `digest`.
    pub fn record(&mut self, path: &str, digest: Digest) {
        self.digests.insert(path.to_owned(), digest);
    }

    /// Feeds a `read` answer: every row, full or partial, carries the whole-file digest.
    /// A committed `edit` also counts: the model knows the file as it made it.
    pub fn observe(&mut self, names: &PathNames, response: &Response) {
        match &response.data {
            Some(Data::Read(rows)) => {
                for row in rows {
                    if let Some(path) = names.get(row.path) {
                        self.record(path, row.digest);
                    }
                }
            }
            Some(Data::Patch(rows)) => {
                for row in rows {
                    if let (MutationState::Committed, Some(digest), Some(path)) =
                        (row.state, row.digest, names.get(row.path))
                    {
                        self.record(path, digest);
                    }
                }
            }
            _ => {}
        }
    }
}
