//! The engine session: one workspace, its path dictionary, retained store, output budget and
//! capability grant. `ash run`, `ash rpc` and the agent's tools all answer requests through it.

pub mod approval;

use approval::{ApprovalPolicy, Decision};

pub use crate::answer::Executed;
use crate::answer::pathdict::PathDictionary;
use crate::answer::{Charge, Shared, resolve};
use crate::ason::Document;
use crate::cancel::CancelToken;
use crate::compute::ComputePlane;
use crate::deadline::Deadline;
use crate::exec::ExecHardening;
use crate::exec::gate::Gate;
use crate::exec::sandbox::{SandboxOutcome, SandboxPolicy};
use crate::exec::supervisor::Supervision;
use crate::files::workspace::Workspace;
pub use crate::files::workspace::{FilterOp, PathFilter};
use crate::ops;
use crate::protocol::{
    Caps, Challenge, Data, ErrorCode, ErrorRecord, Request, RequestError, Response, Status,
};
use crate::store::{RetainedStore, StoreQuota};
use crate::sync::lock;
use crate::txn::{Recovered, Tag};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use thiserror::Error;

/// Output ceiling of an `ash run` session (docs/contract/ash-protocol.md §5).
pub const RUN_OUTPUT_CEILING: u64 = 1024 * 1024;

/// How a session is set up.
#[derive(Debug, Clone)]
pub struct SessionConfig {
    /// Total response bytes this session may emit (`out`).
    pub output_ceiling: u64,
    /// Capabilities granted directly.
    pub caps: Caps,
    /// Retained-store quotas.
    pub store: StoreQuota,
    /// Restrictions applied to exec children (off for `ash`).
    pub hardening: ExecHardening,
    /// The embedder's path filter (see [`PathFilter`]); not part of the wire, `None` for `ash`.
    pub hidden: Option<Arc<dyn PathFilter>>,
    /// Environment variables removed from what exec children inherit (the embedder's own
    /// secrets); a request's explicit `NAME=value` still sets them. Empty for `ash`.
    pub withheld_env: Vec<String>,
    /// Where the session's spool root is made (`None`: the system temporary directory). An
    /// embedder whose commands run in an OS sandbox that may write the temporary directory
    /// names a directory of its own, so those commands cannot rewrite or redirect the spool.
    pub spool_base: Option<std::path::PathBuf>,
}

impl SessionConfig {
    /// The `ash run` profile: 1 MiB of output, all four capabilities.
    pub fn run() -> Self {
        SessionConfig {
            output_ceiling: RUN_OUTPUT_CEILING,
            caps: Caps::ALL,
            store: StoreQuota::default(),
            hardening: ExecHardening::default(),
            hidden: None,
            withheld_env: Vec::new(),
            spool_base: None,
        }
    }
}

/// What an embedder attaches to one request for its own crash recovery; not part of the wire.
#[derive(Debug, Clone, Default)]
pub struct Attachments {
    /// Runs an `x` request (not one inside a batch) under the exec supervisor, which ends the
    /// command's whole tree and writes the call's evidence file (see
    /// [`crate::exec::supervisor`]).
    pub supervision: Option<Supervision>,
    /// Names a `p`, `f` or `>` request's transaction journal, so that recovery after a crash
    /// reports which request it belonged to ([`Session::take_recovered`]). Never given to
    /// batch children: one request's tag must name at most one transaction.
    pub tag: Option<Tag>,
    /// Receives a copy of an `x` request's output while its command runs (not of batch
    /// children), for an embedder that shows it live; the answer is the same without it.
    pub live: Option<crate::exec::LiveOutput>,
}

/// A sealed answer together with what the embedder learns beside it.
#[derive(Debug)]
pub struct Reported {
    /// The response.
    pub response: Response,
    /// Its canonical encoding.
    pub encoded: String,
    /// What the OS sandbox did (refused the command, or saw a denial in its output).
    pub sandbox: SandboxOutcome,
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

/// An engine session over one workspace. Clones are handles on the same session, so
/// concurrent requests (`ash rpc`) share its store, dictionary and output budget.
#[derive(Clone)]
pub struct Session {
    shared: Arc<Shared>,
}

impl Session {
    /// Opens a session on `root` (canonicalised) with its own compute plane handle. Before it
    /// returns, an interrupted transaction in the workspace is recovered (see
    /// [`Session::take_recovered`]) and the private directories of killed `.ash` creators are
    /// reclaimed, so no request of this session sees a half-applied tree.
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
        let workspace = Workspace::new(root)
            .map_err(|source| SessionError::Root {
                root: shown,
                source,
            })?
            .with_filter(config.hidden);
        let opened = crate::txn::at_open::open(&workspace);
        Ok(Session {
            shared: Arc::new(Shared {
                workspace,
                plane,
                store: Mutex::new(RetainedStore::new(config.store)),
                paths: Mutex::new(PathDictionary::new()),
                caps: config.caps,
                approval: Mutex::new(None),
                remaining_output: AtomicU64::new(config.output_ceiling),
                spool: Mutex::new(None),
                spool_base: config.spool_base,
                processes: Gate::host(),
                hardening: config.hardening,
                withheld_env: config.withheld_env.into(),
                recovered: Mutex::new(opened.recovered),
                restores: Mutex::new(opened.restores),
                reclaimed: opened.reclaimed,
            }),
        })
    }

    /// What opening this session recovered of interrupted transactions (each once: the list
    /// is empty afterwards). An embedder reconciles its own requests by their tags and tells
    /// its user about the rest.
    pub fn take_recovered(&self) -> Vec<Recovered> {
        std::mem::take(&mut *lock(&self.shared.recovered))
    }

    /// What opening this session did with an interrupted checkpoint restore (each once): the
    /// tree is exactly as before it ([`crate::txn::Outcome::RolledBack`]) or exactly as the
    /// checkpoint ([`crate::txn::Outcome::Committed`]), and the embedder says which.
    pub fn take_recovered_restores(&self) -> Vec<crate::checkpoint::restore::RecoveredRestore> {
        std::mem::take(&mut *lock(&self.shared.restores))
    }

    /// The `.ash.new-*` directories of killed state-directory creators that opening this
    /// session removed.
    pub fn reclaimed(&self) -> &[String] {
        &self.shared.reclaimed
    }

    /// The retained-result store (read access for embedders and tests). The guard holds the
    /// store lock: drop it before answering another request or calling `store()` again.
    pub fn store(&self) -> MutexGuard<'_, RetainedStore> {
        self.shared.store()
    }

    /// The retained-result store, for embedders that retain values or hold leases themselves.
    pub fn store_mut(&mut self) -> MutexGuard<'_, RetainedStore> {
        self.shared.store()
    }

    /// Output bytes this session may still emit.
    pub fn remaining_output(&self) -> u64 {
        self.shared.remaining_output.load(Ordering::SeqCst)
    }

    /// The workspace this session acts on (its root descriptor and filter).
    pub fn workspace(&self) -> &crate::files::workspace::Workspace {
        &self.shared.workspace
    }

    /// The capabilities granted directly.
    pub fn caps(&self) -> Caps {
        self.shared.caps
    }

    /// Installs (or with `None` removes) an approval policy (§8). With a policy, a request
    /// runs only if its capabilities are within the session's caps and the policy's granted
    /// and approval masks, and carries a valid one-time permit for any approval capability.
    pub fn set_approval_policy(&self, policy: Option<ApprovalPolicy>) {
        *lock(&self.shared.approval) = policy;
    }

    /// The installed policy's answer to `request` without running it: `None` when it may run
    /// now, else its denial (`300`, or `301`/`302` with the challenge retained as evidence
    /// `@n`). A harness asks this before it asks its user; checking a request that carries a
    /// permit spends the permit.
    pub fn authorize(&self, request: &Request) -> Option<Response> {
        self.authorize_under(request, None)
    }

    /// [`Session::authorize`] for a run under `sandbox`: the challenge's action (and so the
    /// permit) covers the sandbox policy too ([`SandboxPolicy::bind`]).
    pub fn authorize_under(
        &self,
        request: &Request,
        sandbox: Option<&SandboxPolicy>,
    ) -> Option<Response> {
        let policy = lock(&self.shared.approval).clone()?;
        let id = request.id;
        let (code, challenge) = match policy.decide(request, sandbox) {
            Decision::Allow => return None,
            Decision::Deny => {
                return Some(Response::error(
                    id,
                    ErrorRecord::typical(ErrorCode::CapabilityDenied),
                ));
            }
            Decision::Required(c) => (ErrorCode::PermitRequired, c),
            Decision::Invalid(c, _) => (ErrorCode::PermitInvalid, c),
        };
        let bytes = challenge.encode().into_bytes();
        let digest = blake3::hash(&bytes);
        let retained = self.shared.store().retain_hashed(bytes, digest);
        Some(match retained {
            Ok(alias) => Response::error(
                id,
                ErrorRecord {
                    evidence: Some(alias),
                    ..ErrorRecord::typical(code)
                },
            ),
            Err(e) => Response::error(id, e.record()),
        })
    }

    /// The approval challenge of a `301`/`302` answer, read back from its retained evidence
    /// (which is then released), or `None` for any other answer.
    pub fn take_challenge(&self, response: &Response) -> Option<Challenge> {
        let error = response.error.as_ref()?;
        if !matches!(
            error.code,
            ErrorCode::PermitRequired | ErrorCode::PermitInvalid
        ) {
            return None;
        }
        let alias = error.evidence?;
        let mut store = self.shared.store();
        let bytes = store.get(alias)?.read_all().ok()?;
        let _ = store.release(alias);
        drop(store);
        let doc = crate::ason::decode(&bytes, &crate::ason::Limits::default()).ok()?;
        Challenge::from_document(&doc).ok()
    }

    /// Types a decoded request document and answers it, returning the response and its
    /// canonical encoding. Only a document without a usable id is an error (the caller ends
    /// the session with bootstrap error 6).
    pub fn answer_document(&mut self, doc: &Document) -> Result<(Response, String), RequestError> {
        match Request::from_document(doc) {
            Ok(request) => Ok(self.execute(&request)),
            Err(e) => {
                let response = e.response().ok_or(e)?;
                Ok(self.seal(Executed::ready(response)))
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
        self.execute_supervised(request, cancel, None)
    }

    /// [`Session::execute_cancellable`] where an `x` request (not one inside a batch) runs
    /// under the exec supervisor described by `supervision`, which ends the command's whole
    /// tree and writes this call's evidence file (see [`crate::exec::supervisor`]). With
    /// `None` this is exactly `execute_cancellable`; the answer is the same either way.
    pub fn execute_supervised(
        &mut self,
        request: &Request,
        cancel: CancelToken,
        supervision: Option<Supervision>,
    ) -> (Response, String) {
        let attached = Attachments {
            supervision,
            tag: None,
            live: None,
        };
        self.execute_attached(request, cancel, &attached)
    }

    /// [`Session::execute_cancellable`] with the embedder's [`Attachments`]; the answer is the
    /// same with or without them.
    pub fn execute_attached(
        &mut self,
        request: &Request,
        cancel: CancelToken,
        attached: &Attachments,
    ) -> (Response, String) {
        let reported = self.execute_sandboxed(request, cancel, attached, None);
        (reported.response, reported.encoded)
    }

    /// [`Session::execute_attached`] where every `x` command of the request (batch children
    /// too) runs under the OS sandbox `sandbox` (`None` or mode `off`: unsandboxed), also
    /// telling what the sandbox did. The answer is encoded exactly as without a sandbox.
    pub fn execute_sandboxed(
        &mut self,
        request: &Request,
        cancel: CancelToken,
        attached: &Attachments,
        sandbox: Option<&SandboxPolicy>,
    ) -> Reported {
        let deadline = Deadline::after_ms(request.budget.ms);
        let output = self.remaining_output();
        let mut executed = self.run_with(request, cancel, deadline, output, attached, sandbox);
        let sandbox = std::mem::take(&mut executed.sandbox);
        let (response, encoded) = self.seal(executed);
        Reported {
            response,
            encoded,
            sandbox,
        }
    }

    /// Runs a request without sealing it: capability check and execution, with the output
    /// budget as it stands now. Safe to call from several threads at once; seal the results
    /// in request order with [`Session::seal`].
    pub fn run(&self, request: &Request, cancel: CancelToken, deadline: Deadline) -> Executed {
        let output = self.remaining_output();
        self.run_with(
            request,
            cancel,
            deadline,
            output,
            &Attachments::default(),
            None,
        )
    }

    /// [`Session::run`] under an explicit remaining-output budget (batch children get a share).
    pub(crate) fn run_with(
        &self,
        request: &Request,
        cancel: CancelToken,
        deadline: Deadline,
        output: u64,
        attached: &Attachments,
        sandbox: Option<&SandboxPolicy>,
    ) -> Executed {
        let id = request.id;
        if !request
            .required_caps()
            .missing_from(self.shared.caps)
            .is_empty()
        {
            return Executed::ready(Response::error(
                id,
                ErrorRecord::typical(ErrorCode::CapabilityDenied),
            ));
        }
        if let Some(denied) = self.authorize_under(request, sandbox) {
            return Executed::ready(denied);
        }
        ops::perform(
            &self.shared,
            request,
            cancel,
            deadline,
            output,
            (attached, sandbox),
            Charge::Session,
        )
    }

    /// Seals an executed request: maps its provisional path ids to session ids (new paths get
    /// the next ids, so call this in response order), sets `p`, validates, charges the output
    /// ceiling and encodes. A success that no longer fits the remaining ceiling (possible only
    /// when concurrent answers used it up first) becomes `600`.
    pub fn seal(&self, executed: Executed) -> (Response, String) {
        let (reserved, applied) = (executed.reserved, executed.applied);
        let mut paths = lock(&self.shared.paths);
        let (response, encoded, resolved) = match resolve(&paths, executed) {
            Ok(sealed) => sealed,
            Err(response) => {
                self.release_output(reserved);
                let encoded = response.encode();
                return (*response, encoded);
            }
        };
        // Cancel answers cost no output, as on the rpc transport.
        if response.status == Status::Success && !matches!(response.data, Some(Data::Cancel(_))) {
            let len = encoded.len() as u64;
            // A mutation reserved its answer before it changed anything; the reservation
            // settles the charge (and one a few id digits longer still goes out, charged as
            // far as the ceiling reaches, since the change already happened).
            let charged = self.shared.remaining_output.fetch_update(
                Ordering::SeqCst,
                Ordering::SeqCst,
                |r| {
                    let available = r.saturating_add(reserved);
                    match available.checked_sub(len) {
                        Some(left) => Some(left),
                        None if applied => Some(0),
                        None => None,
                    }
                },
            );
            if charged.is_err() {
                self.release_output(reserved);
                let response =
                    Response::error(response.id, ErrorRecord::typical(ErrorCode::OutputBudget));
                let encoded = response.encode();
                return (response, encoded);
            }
        } else {
            self.release_output(reserved);
        }
        paths.commit(resolved);
        (response, encoded)
    }

    fn release_output(&self, bytes: u64) {
        if bytes > 0 {
            self.shared
                .remaining_output
                .fetch_add(bytes, Ordering::SeqCst);
        }
    }
}
