//! Executors: each admitted tool call becomes one typed ASH/1 request on the session's
//! in-process engine, and the canonical ASON answer is the tool output.

mod current;
mod edit;
mod error;
mod files;
mod ledger;
mod policy;
mod requests;

pub use current::{CurrentFile, current_file};
pub use error::ToolExecError;
pub use ledger::{PathNames, ReadLedger};
pub use policy::{MAX_EXEC_TIMEOUT_MS, READ_MS, READ_REC, READ_TOK, ToolPolicy};

use super::{ToolArgs, execute_get_test_value};
use crate::config::AccessMode;
use ash_engine::compute::ComputePlane;
use ash_engine::exec::ExecHardening;
use ash_engine::protocol::{Budget, Caps, Op, Request};
use ash_engine::session::store::StoreQuota;
use ash_engine::session::{Session, SessionConfig, SessionError};
use std::path::Path;
use std::sync::Arc;

/// The engine session config of an agent session: unbounded total output (the agent bounds
/// its context by compaction instead), hardened children, and no write or process capability
/// in `read_only` mode so the engine refuses mutation even if the tool layer did not.
pub fn session_config(policy: &ToolPolicy) -> SessionConfig {
    let caps = match policy.access_mode {
        AccessMode::FullAccess => Caps::ALL,
        AccessMode::ReadOnly => Caps::READ.union(Caps::RETAINED),
    };
    SessionConfig {
        output_ceiling: u64::MAX,
        caps,
        store: StoreQuota::default(),
        hardening: ExecHardening::strict(),
    }
}

/// Runs tool calls of one agent session against its workspace.
pub struct ToolExecutor {
    session: Session,
    policy: ToolPolicy,
    names: PathNames,
    ledger: ReadLedger,
    next_id: u64,
}

impl ToolExecutor {
    /// Opens an engine session on `root` configured by [`session_config`].
    pub fn open(
        root: &Path,
        policy: ToolPolicy,
        plane: Arc<ComputePlane>,
    ) -> Result<Self, SessionError> {
        let session = Session::open(root, session_config(&policy), plane)?;
        Ok(ToolExecutor::new(session, policy))
    }

    /// Wraps an open session (which must be fresh: path names are learned from its answers).
    pub fn new(session: Session, policy: ToolPolicy) -> Self {
        ToolExecutor {
            session,
            policy,
            names: PathNames::default(),
            ledger: ReadLedger::default(),
            next_id: 1,
        }
    }

    /// The engine session.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The policy in force.
    pub fn policy(&self) -> &ToolPolicy {
        &self.policy
    }

    /// What the model has read.
    pub fn ledger(&self) -> &ReadLedger {
        &self.ledger
    }

    /// Executes one admitted call, returning the tool output: the canonical ASON answer (an
    /// engine error is an answer too), or JSON for `get_test_value`.
    pub fn execute(&mut self, args: &ToolArgs) -> Result<String, ToolExecError> {
        let read = self.policy.read_budget();
        let (tool, op, budget) = match args {
            ToolArgs::GetTestValue(a) => return Ok(execute_get_test_value(&a.key)),
            ToolArgs::Read(a) => ("read", requests::read(a), read),
            ToolArgs::List(a) => ("list", requests::list(a)?, read),
            ToolArgs::Search(a) => ("search", requests::search(a), read),
            ToolArgs::Snapshot(a) => ("snapshot", requests::snapshot(a)?, read),
            ToolArgs::Evidence(a) => ("evidence", requests::evidence(a)?, read),
            ToolArgs::Exec(a) => {
                self.writable("exec")?;
                self.check_sudo(&a.program)?;
                let budget = self.exec_budget(a.timeout_ms)?;
                ("exec", requests::exec(a), budget)
            }
            ToolArgs::Edit(a) => {
                self.writable("edit")?;
                let id = self.fresh_id();
                let current = current_file(&self.session, id, "edit", &a.path)?;
                ("edit", edit::patch(a, &current, &self.ledger)?, read)
            }
            ToolArgs::Files(a) => {
                self.writable("files")?;
                let op = files::fs(a, |path| self.source_digest(path))?;
                ("files", op, read)
            }
        };
        self.answer(tool, op, budget)
    }

    fn answer(
        &mut self,
        tool: &'static str,
        op: Op,
        budget: Budget,
    ) -> Result<String, ToolExecError> {
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
            detail: e.schema_error().to_string(),
        })?;
        let (response, text) = self.session.execute(&request);
        self.names.learn(&response);
        self.ledger.observe(&self.names, &response);
        Ok(text)
    }

    fn fresh_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    fn writable(&self, tool: &'static str) -> Result<(), ToolExecError> {
        match self.policy.access_mode {
            AccessMode::FullAccess => Ok(()),
            AccessMode::ReadOnly => Err(ToolExecError::ReadOnly { tool }),
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
