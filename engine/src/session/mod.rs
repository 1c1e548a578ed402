//! The engine session: one workspace, its path dictionary, retained store, output budget and
//! capability grant. `ash run`, `ash rpc` and the agent's tools all answer requests through it.

pub mod pathdict;
pub mod store;
pub mod truncate;

use crate::ason::Document;
use crate::cancel::CancelToken;
use crate::compute::ComputePlane;
use crate::deadline::Deadline;
use crate::exec::SpoolRoot;
use crate::ops;
use crate::protocol::{Caps, ErrorCode, ErrorRecord, Request, RequestError, Response, Status};
use crate::workspace::Workspace;
use pathdict::{PathDelta, PathDictionary};
use std::path::Path;
use std::sync::Arc;
use store::{RetainedStore, StoreQuota};
use thiserror::Error;

/// Output ceiling of an `ash run` session (ASH1.md §5).
pub const RUN_OUTPUT_CEILING: u64 = 1024 * 1024;

/// How a session is set up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionConfig {
    /// Total response bytes this session may emit (`out`).
    pub output_ceiling: u64,
    /// Capabilities granted directly.
    pub caps: Caps,
    /// Retained-store quotas.
    pub store: StoreQuota,
}

impl SessionConfig {
    /// The `ash run` profile: 1 MiB of output, all four capabilities.
    pub fn run() -> Self {
        SessionConfig {
            output_ceiling: RUN_OUTPUT_CEILING,
            caps: Caps::ALL,
            store: StoreQuota::default(),
        }
    }
}

/// Why a session could not be opened.
#[derive(Debug, Error)]
pub enum SessionError {
    /// The workspace root could not be resolved.
    #[error("workspace root {root}: {source}; pass an existing directory")]
    Root {
        /// The root as given.
        root: String,
        /// The underlying I/O error.
        source: std::io::Error,
    },
    /// The workspace root is not a directory.
    #[error("workspace root {0} is not a directory")]
    NotADirectory(String),
}

/// An engine session over one workspace.
pub struct Session {
    pub(crate) workspace: Workspace,
    pub(crate) plane: Arc<ComputePlane>,
    pub(crate) store: RetainedStore,
    pub(crate) paths: PathDictionary,
    caps: Caps,
    remaining_output: u64,
    // Created on the first exec, so sessions that never spawn touch no temp directory.
    spool: Option<SpoolRoot>,
}

/// Everything an operation needs to build its answer, plus the dictionary delta it assigns.
pub(crate) struct Answer<'s> {
    /// The session.
    pub session: &'s mut Session,
    /// The request being answered.
    pub request: &'s Request,
    /// Path ids assigned by this answer, committed only when it is emitted.
    pub delta: PathDelta,
    /// When the request must be answered by.
    pub deadline: Deadline,
    /// Set to stop the request (exec kills its process tree).
    pub cancel: CancelToken,
}

impl Answer<'_> {
    /// The presentation limit L = min(remaining output, 4 × tok).
    pub fn limit(&self) -> usize {
        let l = self
            .request
            .budget
            .presentation_limit(self.session.remaining_output);
        usize::try_from(l).unwrap_or(usize::MAX)
    }

    /// The row cap `rec`.
    pub fn rec(&self) -> usize {
        usize::try_from(self.request.budget.rec).unwrap_or(usize::MAX)
    }

    /// The id of `path`, new ids going into this answer's delta.
    pub fn path_id(&mut self, path: &str) -> Result<u64, ErrorRecord> {
        self.session
            .paths
            .id(path, &mut self.delta)
            .map_err(|_| ErrorRecord::internal_execute())
    }

    /// Retains bytes, mapping quota failures to 601 (store quota).
    pub fn retain(&mut self, bytes: Vec<u8>) -> Result<u64, ErrorRecord> {
        self.session
            .store
            .retain(bytes)
            .map_err(|e| store_error(&e))
    }
}

impl Session {
    /// Opens a session on `root` (canonicalised) with its own compute plane handle.
    pub fn open(
        root: &Path,
        config: SessionConfig,
        plane: Arc<ComputePlane>,
    ) -> Result<Session, SessionError> {
        let shown = root.display().to_string();
        let meta = std::fs::metadata(root).map_err(|source| SessionError::Root {
            root: shown.clone(),
            source,
        })?;
        if !meta.is_dir() {
            return Err(SessionError::NotADirectory(shown));
        }
        let workspace = Workspace::new(root).map_err(|source| SessionError::Root {
            root: shown,
            source,
        })?;
        Ok(Session {
            workspace,
            plane,
            store: RetainedStore::new(config.store),
            paths: PathDictionary::new(),
            caps: config.caps,
            remaining_output: config.output_ceiling,
            spool: None,
        })
    }

    /// The retained-result store (read access for embedders and tests).
    pub fn store(&self) -> &RetainedStore {
        &self.store
    }

    /// The retained-result store, for embedders that retain values or hold leases themselves.
    pub fn store_mut(&mut self) -> &mut RetainedStore {
        &mut self.store
    }

    /// The session's spool root, created on first use.
    pub(crate) fn spool_root(&mut self) -> std::io::Result<&SpoolRoot> {
        if self.spool.is_none() {
            self.spool = Some(SpoolRoot::in_temp_dir()?);
        }
        self.spool
            .as_ref()
            .ok_or_else(|| std::io::Error::other("spool root missing after creation"))
    }

    /// Output bytes this session may still emit.
    pub fn remaining_output(&self) -> u64 {
        self.remaining_output
    }

    /// Types a decoded request document and answers it, returning the response and its
    /// canonical encoding. Only a document without a usable id is an error (the caller ends
    /// the session with bootstrap error 6).
    pub fn answer_document(&mut self, doc: &Document) -> Result<(Response, String), RequestError> {
        match Request::from_document(doc) {
            Ok(request) => Ok(self.execute(&request)),
            Err(e) => {
                let response = e.response().ok_or(e)?;
                let encoded = response.encode();
                Ok((response, encoded))
            }
        }
    }

    /// Answers one validated request: capability check, execution, invariant check, path
    /// dictionary commit and the output charge of a successful answer. Returns the response
    /// and its canonical encoding.
    pub fn execute(&mut self, request: &Request) -> (Response, String) {
        self.execute_cancellable(request, CancelToken::new())
    }

    /// [`Session::execute`] with a token another thread may use to cancel the request.
    pub fn execute_cancellable(
        &mut self,
        request: &Request,
        cancel: CancelToken,
    ) -> (Response, String) {
        let id = request.id;
        if !request.required_caps().missing_from(self.caps).is_empty() {
            let response = Response::error(id, ErrorRecord::typical(ErrorCode::CapabilityDenied));
            let encoded = response.encode();
            return (response, encoded);
        }
        let mut answer = Answer {
            session: self,
            request,
            delta: PathDelta::default(),
            deadline: Deadline::after_ms(request.budget.ms),
            cancel,
        };
        let mut response = ops::dispatch(&mut answer).unwrap_or_else(|e| Response::error(id, e));
        let delta = std::mem::take(&mut answer.delta);
        // Only rows that are emitted introduce path ids.
        let delta = if response.data.is_some() {
            delta
        } else {
            PathDelta::default()
        };
        response.paths = delta.new.clone();
        if response.validate().is_err() {
            let response = Response::error(id, ErrorRecord::internal_encode());
            let encoded = response.encode();
            return (response, encoded);
        }
        self.paths.commit(delta);
        let encoded = response.encode();
        if response.status == Status::Success {
            self.remaining_output = self.remaining_output.saturating_sub(encoded.len() as u64);
        }
        (response, encoded)
    }
}

/// The error record for a retained-store failure.
pub(crate) fn store_error(e: &store::StoreError) -> ErrorRecord {
    use store::StoreError as E;
    match e {
        E::BytesQuota { .. } | E::EntryQuota(_) | E::AliasesExhausted => ErrorRecord::store_quota(),
        E::Unknown(_) => ErrorRecord::typical(ErrorCode::UnknownReference),
        E::Leased(_) => ErrorRecord::typical(ErrorCode::ReferenceBusy),
        E::Io(_) => ErrorRecord::store_io(),
    }
}
