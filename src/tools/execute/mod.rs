//! Executors: each admitted tool call becomes one typed ASH/1 request on the session's
//! in-process engine, and the canonical ASON answer is the tool output.
//!
//! Paths the file tools never expose are refused by name before anything runs and hidden from
//! walks by the engine's path filter; a nested AGENTS.md is prepended to the output of the
//! first call that touches its directory (see `deliver`).

mod approval;
mod current;
mod deliver;
mod denial;
mod edit;
mod error;
mod files;
mod hide;
mod ledger;
mod location;
mod policy;
mod protected;
mod requests;
mod shown;
mod touched;

pub use approval::{Approval, HarnessError};
pub use current::{CurrentFile, current_file};
pub use error::{ToolExecError, ToolOpenError};
pub use ledger::{PathNames, ReadLedger};
pub use policy::{MAX_EXEC_TIMEOUT_MS, READ_MS, READ_REC, READ_TOK, ToolPolicy};

use super::{ToolArgs, execute_get_test_value, view};
use crate::config::AccessMode;
use crate::instructions::{ExclusionReason, FileExclusion, NestedInstructions};
use ansa_sessions::protocol::{ReportTone, ToolReport};
use ash_engine::cancel::CancelToken;
use ash_engine::compute::ComputePlane;
use ash_engine::exec::sandbox::{self, SandboxPolicy};
use ash_engine::exec::supervisor::Supervision;
use ash_engine::exec::{ExecHardening, LiveOutput};
use ash_engine::protocol::{Budget, Caps, Op, Request, to_lower_hex};
use ash_engine::session::{Attachments, PathFilter, Reported, Session, SessionConfig};
use ash_engine::store::StoreQuota;
use ash_engine::txn::{Recovered, Tag};
use deliver::Deliveries;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

/// The engine session config of an agent session: unbounded total output (the agent bounds
/// its context by compaction instead), hardened children, and no write or process capability
/// in `read_only` mode so the engine refuses mutation even if the tool layer did not. The path
/// filter is left unset; [`ToolExecutor::open`] installs its own.
pub fn session_config(policy: &ToolPolicy) -> SessionConfig {
    // In ask mode the engine's approval policy, installed by `ToolExecutor::open`, narrows
    // writes and processes to permitted actions.
    let caps = match policy.access_mode {
        AccessMode::FullAccess | AccessMode::Ask => Caps::ALL,
        AccessMode::ReadOnly => Caps::READ.union(Caps::RETAINED),
    };
    SessionConfig {
        output_ceiling: u64::MAX,
        caps,
        store: StoreQuota::default(),
        hardening: ExecHardening::strict(),
        hidden: None,
        withheld_env: policy.withheld_env.clone(),
        spool_base: None,
    }
}

/// What the executor needs to know about the session's files besides the workspace.
#[derive(Debug, Clone)]
pub struct ToolFiles {
    /// Files the tools never expose, built for the same cwd as the executor's root.
    pub exclusion: FileExclusion,
    /// [`crate::instructions::InstructionSet::digest`] of the instructions loaded at session
    /// start: the seed of the instruction token.
    pub instructions_digest: String,
    /// The agent session's ID: ask-mode permits are bound to it.
    pub session: String,
    /// Where large captures are spooled (ansa's own `spool` directory), out of reach of
    /// commands in an OS sandbox, which may write the system temporary directory; `None`: the
    /// system temporary directory.
    pub spool_base: Option<PathBuf>,
}

/// One tool output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutput {
    /// What the model sees: delivered nested instructions, if any, then the canonical ASON
    /// answer (or JSON for `get_test_value`).
    pub text: String,
    /// Nested instruction scopes (absolute directories) newly delivered with this output, in
    /// delivery order, for the journal; give them back to [`ToolExecutor::restore_delivered`].
    pub delivered: Vec<PathBuf>,
    /// Whether the engine stopped the request at its deadline (an `exec` timeout: `s:6`).
    pub timed_out: bool,
    /// The canonical ASON answer exactly as the engine encoded it, for the journal (`None`
    /// for `get_test_value`, which is not an engine request). `text` is the model's view of it.
    pub answer: Option<String>,
    /// The nested instruction blocks at the start of `text` (empty when none were delivered).
    pub preamble: String,
    /// What the call did, for a frontend's tool row.
    pub report: ToolReport,
    /// What a person reads of it in an output viewer (not journaled; `None`: the model's
    /// view is all there is).
    pub readable: Option<String>,
}

/// An admitted call made ready to run: the engine request it becomes (nothing ran yet), or
/// the output of a call that is not an engine request.
#[derive(Debug)]
pub struct Prepared {
    kind: PreparedKind,
    tag: Option<Tag>,
}

impl Prepared {
    /// Names the transaction this call's request makes (an `edit` or `files` call), so that
    /// recovery after a crash says it belonged to this call ([`ToolExecutor::take_recovered`]).
    pub fn tag_transaction(&mut self, tag: Tag) {
        self.tag = Some(tag);
    }
}

#[derive(Debug)]
enum PreparedKind {
    Local(ToolOutput),
    Engine {
        tool: &'static str,
        request: Request,
        /// The files an edit's patch applies to, as read now: what its approval shows the
        /// diff against.
        preimages: Vec<CurrentFile>,
        /// Where an `exec` runs: inside the OS sandbox, or outside it on the model's request.
        place: Place,
        /// Ask mode: the permit for a sandboxed command is already signed (by policy, not by
        /// the user), so it runs without asking.
        signed: bool,
    },
}

/// Where a prepared call's command runs.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Place {
    /// No OS sandbox is configured (or the call runs no command).
    Unsandboxed,
    /// Under this sandbox.
    Sandboxed(SandboxPolicy),
    /// Outside the configured sandbox, because the model asked (`outside_sandbox`); ask mode
    /// only, and always an approval that says so.
    Escalated,
}

impl Place {
    fn policy(&self) -> Option<&SandboxPolicy> {
        match self {
            Place::Sandboxed(policy) => Some(policy),
            Place::Unsandboxed | Place::Escalated => None,
        }
    }
}

/// Runs tool calls of one agent session against its workspace.
pub struct ToolExecutor {
    session: Session,
    harness: Option<approval::Harness>,
    policy: ToolPolicy,
    exclusion: FileExclusion,
    deliveries: Deliveries,
    names: PathNames,
    ledger: ReadLedger,
    plane: Arc<ComputePlane>,
    next_id: u64,
    /// Where the next `exec`'s output goes while it runs ([`ToolExecutor::watch`]).
    live: Option<LiveOutput>,
}

impl ToolExecutor {
    /// Opens an engine session on `root`, the session's cwd, configured by [`session_config`]
    /// with a path filter that hides `files.exclusion` from every operation and undelivered
    /// nested instruction scopes from search.
    pub fn open(
        root: &Path,
        policy: ToolPolicy,
        plane: Arc<ComputePlane>,
        files: ToolFiles,
    ) -> Result<Self, ToolOpenError> {
        let ToolFiles {
            exclusion,
            instructions_digest,
            session: session_id,
            spool_base,
        } = files;
        let nested = Arc::new(RwLock::new(NestedInstructions::new(root)?));
        let filter: Arc<dyn PathFilter> = Arc::new(hide::HiddenPaths::new(
            exclusion.clone(),
            Arc::clone(&nested),
        ));
        let config = SessionConfig {
            hidden: Some(filter),
            spool_base,
            ..session_config(&policy)
        };
        let session = Session::open(root, config, Arc::clone(&plane))?;
        let harness = match policy.access_mode {
            AccessMode::Ask => {
                let (harness, rules) = approval::Harness::new(&session_id)?;
                session.set_approval_policy(Some(rules));
                Some(harness)
            }
            AccessMode::FullAccess | AccessMode::ReadOnly => None,
        };
        Ok(ToolExecutor {
            session,
            harness,
            policy,
            exclusion,
            deliveries: Deliveries::new(nested, &instructions_digest),
            names: PathNames::default(),
            ledger: ReadLedger::default(),
            plane,
            next_id: 1,
            live: None,
        })
    }

    /// An executor for a child agent (orchestrate mode) on the same engine session: the same
    /// workspace, retained store, policy and approval signer, with its own read ledger (so a
    /// child's edit of a file another child changed since its read is refused as stale); path
    /// names are shared, since the engine introduces each path once per session. Nested AGENTS.md scopes are tracked per engine session, so a scope the
    /// parent already received is not delivered to the child again. `ordinal` (from 1) keeps
    /// its request IDs apart from the parent's and the other children's on the shared session.
    pub fn for_child(&self, ordinal: u32) -> ToolExecutor {
        ToolExecutor {
            session: self.session.clone(),
            harness: self.harness.clone(),
            policy: self.policy.clone(),
            exclusion: self.exclusion.clone(),
            deliveries: self.deliveries.clone(),
            names: self.names.linked(),
            ledger: ReadLedger::default(),
            plane: Arc::clone(&self.plane),
            next_id: (u64::from(ordinal) << 40) + 1,
            live: None,
        }
    }

    /// The instruction token the model must acknowledge now: it changes whenever nested
    /// instructions are delivered.
    pub fn instruction_token(&self) -> &str {
        self.deliveries.token()
    }

    /// For a reopened session: marks the scopes of earlier [`ToolOutput::delivered`] (in
    /// journal order) delivered again, and rebuilds the token from their AGENTS.md as they
    /// are now (a file changed since changes the token).
    pub fn restore_delivered(&mut self, dirs: impl IntoIterator<Item = PathBuf>) {
        self.deliveries.restore(dirs);
    }

    /// What opening the workspace recovered of interrupted transactions (each once), for
    /// reconciling the calls they belonged to by their tags.
    pub fn take_recovered(&self) -> Vec<Recovered> {
        self.session.take_recovered()
    }

    /// The engine session.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The files the tools never expose (an `@` mention is checked against them too).
    pub fn exclusion(&self) -> &FileExclusion {
        &self.exclusion
    }

    /// The policy in force.
    pub fn policy(&self) -> &ToolPolicy {
        &self.policy
    }

    /// What the model has read.
    pub fn ledger(&self) -> &ReadLedger {
        &self.ledger
    }

    /// Executes one admitted call, returning the tool output: nested instructions delivered
    /// now, then the canonical ASON answer (an engine error is an answer too), or JSON for
    /// `get_test_value`. `cancel` stops a running request (exec kills its process group). An
    /// `Err` means nothing ran and nothing was delivered.
    pub fn execute(
        &mut self,
        args: &ToolArgs,
        cancel: &CancelToken,
    ) -> Result<ToolOutput, ToolExecError> {
        self.execute_supervised(args, cancel, None)
    }

    /// [`Self::execute`], running an `exec` under the engine's supervisor/subreaper, which
    /// ends the command's tree on cancel, timeout or when this process dies, and leaves
    /// evidence of how it ended at `supervision.evidence` for crash reconciliation. A call
    /// that needs the user's approval (ask mode) is refused here: the runtime asks through
    /// [`Self::prepare`], [`Self::approval`] and [`Self::grant`].
    pub fn execute_supervised(
        &mut self,
        args: &ToolArgs,
        cancel: &CancelToken,
        supervision: Option<Supervision>,
    ) -> Result<ToolOutput, ToolExecError> {
        let prepared = self.prepare(args)?;
        if self.approval(&prepared).is_some() {
            return Err(ToolExecError::NeedsApproval {
                tool: touched::tool_name(args),
            });
        }
        self.run(args, prepared, cancel, supervision)
    }

    /// Checks a call and builds its engine request without running anything (an edit reads
    /// the files it changes). An `Err` means nothing ran and nothing was delivered.
    pub fn prepare(&mut self, args: &ToolArgs) -> Result<Prepared, ToolExecError> {
        self.check_excluded(args)?;
        self.check_git_write(args)?;
        let read = self.policy.read_budget();
        let mut preimages = Vec::new();
        let mut place = Place::Unsandboxed;
        let (tool, op, budget) = match args {
            ToolArgs::Delegate(_) => {
                return Err(ToolExecError::Invalid {
                    tool: "delegate",
                    detail: "delegate is run by the runtime's orchestrator, not the executor"
                        .into(),
                });
            }
            ToolArgs::GetTestValue(a) => {
                let output = ToolOutput {
                    text: execute_get_test_value(&a.key),
                    delivered: Vec::new(),
                    timed_out: false,
                    answer: None,
                    preamble: String::new(),
                    report: ToolReport::new(ReportTone::Ok, "returned a value"),
                    readable: None,
                };
                return Ok(Prepared {
                    kind: PreparedKind::Local(output),
                    tag: None,
                });
            }
            // The runtime calls the session's MCP hub itself; an MCP call is no engine request.
            ToolArgs::Mcp(_) => {
                return Err(ToolExecError::Invalid {
                    tool: "mcp",
                    detail: "an MCP tool runs on its server, not in the workspace engine".into(),
                });
            }
            ToolArgs::Read(a) => ("read", requests::read(a), read),
            ToolArgs::List(a) => ("list", requests::list(a)?, read),
            ToolArgs::Search(a) => ("search", requests::search(a), read),
            ToolArgs::Snapshot(a) => ("snapshot", requests::snapshot(a)?, read),
            ToolArgs::Evidence(a) => {
                let len = requests::reference("evidence", "ref", &a.reference)
                    .ok()
                    .and_then(|r| self.session.store().get(r))
                    .map(|body| body.len());
                ("evidence", requests::evidence(a, len)?, read)
            }
            ToolArgs::Exec(a) => {
                self.writable("exec")?;
                self.check_sudo(&a.program)?;
                let budget = self.exec_budget(a.timeout_ms)?;
                place = self.place(a.outside_sandbox)?;
                ("exec", requests::exec(a), budget)
            }
            ToolArgs::Edit(a) => {
                self.writable("edit")?;
                let mut current = Vec::with_capacity(a.files.len());
                for file in &a.files {
                    let id = self.fresh_id();
                    current.push(current_file(&self.session, id, "edit", &file.path)?);
                }
                let op = edit::patch(a, &current, &self.ledger)?;
                preimages = current;
                ("edit", op, read)
            }
            ToolArgs::Files(a) => {
                self.writable("files")?;
                let op = files::fs(a, |path| self.source_digest(path))?;
                ("files", op, read)
            }
        };
        let mut request = self.request(tool, op, budget)?;
        let signed = match (&self.harness, place.policy()) {
            (Some(harness), Some(sandbox)) => {
                approval::sign_sandboxed(harness, &self.session, &mut request, sandbox)
                    .map_err(|source| ToolExecError::Permit { tool, source })?;
                true
            }
            _ => false,
        };
        Ok(Prepared {
            kind: PreparedKind::Engine {
                tool,
                request,
                preimages,
                place,
                signed,
            },
            tag: None,
        })
    }

    /// Where an `exec` runs: in the configured sandbox, which must be enforceable here (a
    /// command never runs unsandboxed behind the user's back), or outside it on the model's
    /// request, which only ask mode can grant.
    fn place(&self, outside_sandbox: bool) -> Result<Place, ToolExecError> {
        let sandbox = &self.policy.sandbox;
        if !sandbox.is_enforced() {
            return Ok(Place::Unsandboxed);
        }
        if outside_sandbox {
            return match self.policy.access_mode {
                AccessMode::Ask => Ok(Place::Escalated),
                AccessMode::FullAccess | AccessMode::ReadOnly => {
                    Err(ToolExecError::OutsideSandboxRefused { mode: sandbox.mode })
                }
            };
        }
        sandbox
            .check(&sandbox::probe())
            .map_err(|reason| ToolExecError::SandboxUnavailable {
                mode: sandbox.mode,
                reason,
            })?;
        Ok(Place::Sandboxed(sandbox.clone()))
    }

    /// The sandbox of the session's commands as the environment message tells the model (mode,
    /// writable roots, network, whether it may ask to leave it); `None` without a sandbox.
    pub fn sandbox_description(&self) -> Option<String> {
        let sandbox = &self.policy.sandbox;
        if !sandbox.is_enforced() {
            return None;
        }
        let outside = match self.policy.access_mode {
            AccessMode::Ask => {
                "a command the sandbox denies something it truly needs may be run outside it only with the user's approval: exec with outside_sandbox: true"
            }
            AccessMode::FullAccess | AccessMode::ReadOnly => {
                "no command can run outside it in this session (outside_sandbox: true is refused)"
            }
        };
        Some(format!(
            "{}; {outside}",
            sandbox.describe(self.session.workspace().root())
        ))
    }

    /// The digest a prepared call's decision and permit are bound to: the engine's action
    /// digest, folded with the whole sandbox policy when the command runs sandboxed.
    pub fn bound_digest(&self, prepared: &Prepared) -> Option<String> {
        match &prepared.kind {
            PreparedKind::Engine { request, place, .. } => Some(to_lower_hex(
                &SandboxPolicy::bind(request.action_digest().0, place.policy()),
            )),
            PreparedKind::Local(_) => None,
        }
    }

    /// In ask mode, the engine's challenge for a prepared call that changes something, and
    /// what it does in words; `None` when it may run without asking.
    pub fn approval(&self, prepared: &Prepared) -> Option<Approval> {
        self.harness.as_ref()?;
        match &prepared.kind {
            PreparedKind::Engine { signed: true, .. } | PreparedKind::Local(_) => None,
            PreparedKind::Engine {
                request,
                preimages,
                place,
                ..
            } => approval::ask(
                &self.session,
                request,
                preimages,
                place.policy(),
                *place == Place::Escalated,
            ),
        }
    }

    /// Signs the one-time permit for exactly the action the user approved into the prepared
    /// call, so [`Self::run`] runs it.
    pub fn grant(&self, prepared: &mut Prepared, approval: &Approval) -> Result<(), ToolExecError> {
        let (
            Some(harness),
            PreparedKind::Engine {
                tool,
                request,
                place,
                ..
            },
        ) = (&self.harness, &mut prepared.kind)
        else {
            return Ok(());
        };
        harness
            .grant(&self.session, request, place.policy(), approval)
            .map_err(|source| ToolExecError::Permit { tool, source })
    }

    /// The next call run, if it runs a command, copies the command's output to `live` while
    /// it runs (so a frontend can show it); the answer is the same without.
    pub fn watch(&mut self, live: LiveOutput) {
        self.live = Some(live);
    }

    /// Runs a prepared call: nested instructions delivered now, then the canonical ASON
    /// answer (an engine error is an answer too). An `Err` means nothing ran.
    pub fn run(
        &mut self,
        args: &ToolArgs,
        prepared: Prepared,
        cancel: &CancelToken,
        supervision: Option<Supervision>,
    ) -> Result<ToolOutput, ToolExecError> {
        let live = self.live.take();
        let (tool, request, place, preimages) = match prepared.kind {
            PreparedKind::Local(output) => return Ok(output),
            PreparedKind::Engine {
                tool,
                request,
                place,
                preimages,
                ..
            } => (tool, request, place, preimages),
        };
        let attached = Attachments {
            supervision: supervision.filter(|_| tool == "exec"),
            tag: prepared.tag,
            live: live.filter(|_| tool == "exec"),
        };
        // Last, so that a refusal above delivers nothing the model would never see.
        let delivery = self
            .deliveries
            .take(tool, touched::named(args).iter().map(|n| n.dir()))?;
        let Reported {
            response,
            encoded: answer,
            sandbox: outcome,
        } = self
            .session
            .execute_sandboxed(&request, cancel.clone(), &attached, place.policy());
        self.names.learn(&response);
        self.ledger.observe(&self.names, &response);
        let view = {
            let store = self.session.store();
            view::render(
                &response,
                &view::ViewContext {
                    tool,
                    names: &self.names,
                    store: &store,
                    plane: &self.plane,
                    exec_limit: self.policy.exec_limit(),
                    sandbox_refused: outcome.refused().is_some(),
                    op: Some(&request.op),
                    preimages: &preimages,
                },
            )
        };
        let mut report = super::report::report(args, &response);
        let readable = {
            // A stream the model got part of is read back whole for a person's view.
            let store = self.session.store();
            let retained = |alias| super::report::retained::read_back(&store, alias);
            super::report::retained::count_real_lines(&mut report, &response, &retained);
            super::report::readable(args, &response, &self.names, &retained)
        };
        let mut text = format!("{}{view}", delivery.prefix);
        if let Some(line) = denial::line(&outcome) {
            text.push_str(&line.for_model);
            report.summary = format!("{} · {}", report.summary, line.for_user);
            report.tone = ReportTone::Warn;
        }
        Ok(ToolOutput {
            text,
            delivered: delivery.dirs,
            timed_out: response.status == ash_engine::protocol::Status::TimedOut,
            answer: Some(answer),
            preamble: delivery.prefix,
            report,
            readable,
        })
    }

    /// Refuses a call naming a path the tools never expose, before any engine call.
    fn check_excluded(&self, args: &ToolArgs) -> Result<(), ToolExecError> {
        for named in touched::named(args) {
            let reason = self.exclusion.check(Path::new(named.path)).or_else(|| {
                // For the message only: the engine itself refuses such a file on the handle
                // it opens (`300`), whatever happens to the name in between.
                (!named.is_dir && is_hard_linked(&self.session, named.path))
                    .then_some(ExclusionReason::HardLinked)
            });
            if let Some(reason) = reason {
                return Err(ToolExecError::Excluded {
                    tool: touched::tool_name(args),
                    path: named.path.to_owned(),
                    reason,
                });
            }
        }
        Ok(())
    }

    fn request(
        &mut self,
        tool: &'static str,
        op: Op,
        budget: Budget,
    ) -> Result<Request, ToolExecError> {
        let request = Request {
            id: self.fresh_id(),
            op,
            budget,
            permit: None,
        };
        // Hand-built requests are checked exactly as `ash run` types a document, so the model
        // learns what was wrong instead of a bare `100` answer.
        request.validate().map_err(|e| ToolExecError::Invalid {
            tool,
            detail: location::detail(tool, e.schema_error()),
        })?;
        Ok(request)
    }

    fn fresh_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    fn writable(&self, tool: &'static str) -> Result<(), ToolExecError> {
        match self.policy.access_mode {
            AccessMode::FullAccess | AccessMode::Ask => Ok(()),
            AccessMode::ReadOnly => Err(ToolExecError::ReadOnly { tool }),
        }
    }

    /// The path inside a `.git` that `args` writes and that the config does not allow
    /// (`allow_git_writes`): in ask mode such a call is always put to the user.
    pub fn protected_write<'a>(&self, args: &'a ToolArgs) -> Option<&'a str> {
        protected::git_write(args).filter(|_| !self.policy.allow_git_writes)
    }

    /// Full access refuses a write inside `.git` unless the config allows it; ask mode lets
    /// the user decide it (see [`Self::protected_write`]).
    fn check_git_write(&self, args: &ToolArgs) -> Result<(), ToolExecError> {
        if self.policy.access_mode != AccessMode::FullAccess {
            return Ok(());
        }
        match self.protected_write(args) {
            Some(path) => Err(ToolExecError::GitInternals {
                tool: touched::tool_name(args),
                path: path.to_owned(),
            }),
            None => Ok(()),
        }
    }

    fn check_sudo(&self, program: &str) -> Result<(), ToolExecError> {
        // A workspace path like `bin/sudo` is still sudo; `sh -c "sudo …"` is out of scope.
        let name = program.rsplit('/').next().unwrap_or(program);
        if name == "sudo" && !self.policy.allow_sudo {
            return Err(ToolExecError::Sudo {
                program: program.to_owned(),
            });
        }
        Ok(())
    }

    fn exec_budget(&self, timeout_ms: Option<u64>) -> Result<Budget, ToolExecError> {
        if let Some(ms) = timeout_ms
            && !(1..=MAX_EXEC_TIMEOUT_MS).contains(&ms)
        {
            return Err(ToolExecError::Invalid {
                tool: "exec",
                detail: format!(
                    "`timeout_ms` {ms} is out of range; use 1..={MAX_EXEC_TIMEOUT_MS} or null for the default"
                ),
            });
        }
        Ok(self.policy.exec_budget(timeout_ms))
    }

    /// The preimage of a copy/move/remove source: the digest the model last read, so a file
    /// changed since conflicts; a file it never read is taken as it is now.
    fn source_digest(&mut self, path: &str) -> Result<ash_engine::protocol::Digest, ToolExecError> {
        let id = self.fresh_id();
        let current = current_file(&self.session, id, "files", path)?;
        Ok(self.ledger.digest(&current.path).unwrap_or(current.digest))
    }
}

/// Whether `path` names a regular file with more than one hard link in the session's workspace
/// (looked up through its directory descriptors, without following links).
fn is_hard_linked(session: &Session, path: &str) -> bool {
    if ash_engine::files::workspace::check_logical_path(path).is_err() {
        return false;
    }
    session
        .workspace()
        .locate(path)
        .and_then(|at| at.stat())
        .is_ok_and(|s| {
            ash_engine::files::workspace::type_of(&s) == nix::sys::stat::SFlag::S_IFREG
                && s.st_nlink > 1
        })
}
