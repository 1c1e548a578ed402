//! What the executors may do and the ASH/1 budgets they ask for, derived from the config.

use crate::config::{AccessMode, Config};
use ash_engine::exec::sandbox::SandboxPolicy;
use ash_engine::protocol::Budget;

/// Output tokens of read-side answers (`r l g s / # ?`, and `p`/`f` results): 8192 tokens is a
/// 32 KiB presentation limit, enough for a screenful of source while larger texts are retained
/// (`@N`) and sliced with `evidence` instead of flooding the context.
pub const READ_TOK: u64 = 8192;
/// Result rows of read-side answers: a listing or search beyond 1000 rows is truncated and
/// retained, which keeps one answer reviewable.
pub const READ_REC: u64 = 1000;
/// Deadline of non-exec requests: walks and hashing of a normal repository finish well inside.
pub const READ_MS: u64 = 30_000;
/// Longest `exec` timeout a model may ask for (the config bound of `process_timeout_ms`).
pub const MAX_EXEC_TIMEOUT_MS: u64 = 600_000;

/// The config fields the executors obey.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolPolicy {
    /// Whether mutating tools (`exec`, `edit`, `files`) are allowed.
    pub access_mode: AccessMode,
    /// Whether a direct `sudo` may run.
    pub allow_sudo: bool,
    /// Whether `edit` and `files` may write inside `.git` in full access (`allow_git_writes`).
    pub allow_git_writes: bool,
    /// Default `exec` timeout.
    pub process_timeout_ms: u64,
    /// Retained stdout+stderr of one command kept for the model.
    pub process_output_bytes: u64,
    /// Variables exec children never inherit: the config's [`crate::config::WithheldEnv`].
    pub withheld_env: Vec<String>,
    /// The OS sandbox every command runs under (mode `off`: none).
    pub sandbox: SandboxPolicy,
}

impl ToolPolicy {
    /// The policy of an effective config.
    pub fn from_config(config: &Config) -> Self {
        ToolPolicy {
            access_mode: config.access_mode,
            allow_sudo: config.allow_sudo,
            allow_git_writes: config.allow_git_writes,
            process_timeout_ms: config.process_timeout_ms,
            process_output_bytes: config.process_output_bytes,
            withheld_env: config.withheld_env.names().to_vec(),
            sandbox: config.sandbox.policy(),
        }
    }

    /// The budget of read-side and mutation requests.
    pub fn read_budget(&self) -> Budget {
        Budget {
            tok: READ_TOK,
            rec: READ_REC,
            ms: READ_MS,
        }
    }

    /// The presentation limit of an `exec` in bytes (4 × the `tok` of [`Self::exec_budget`]).
    pub fn exec_limit(&self) -> usize {
        usize::try_from(self.exec_budget(None).tok * 4).unwrap_or(usize::MAX)
    }

    /// The budget of an `exec`: 4 bytes per token of `process_output_bytes`, and the model's
    /// timeout or the configured one as `ms`.
    pub fn exec_budget(&self, timeout_ms: Option<u64>) -> Budget {
        Budget {
            tok: (self.process_output_bytes / 4).clamp(1, Budget::MAX_TOK),
            rec: READ_REC,
            ms: timeout_ms.unwrap_or(self.process_timeout_ms),
        }
    }
}
