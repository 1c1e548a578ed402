//! Model-facing errors of tool execution: the `Display` text is the tool output.

use super::super::EditError;
use crate::instructions::{ExclusionReason, InstructionError};
use ash_engine::exec::sandbox::{SandboxError, SandboxMode};
use ash_engine::session::SessionError;

/// Why a tool call was not executed (or, for `edit`, not compiled); nothing was changed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolExecError {
    /// The session's access mode forbids the tool.
    #[error(
        "Tool `{tool}` is refused: access_mode is read_only, so commands and file changes are not allowed. Nothing was executed. Use read, list, search, snapshot or evidence."
    )]
    ReadOnly {
        /// The refused tool.
        tool: &'static str,
    },
    /// A direct `sudo` without `allow_sudo`.
    #[error(
        "exec refused: program `{program}` is sudo, and allow_sudo is false in the user config. Nothing was executed. Run the command without sudo, or ask the user to run it."
    )]
    Sudo {
        /// The program as the model gave it.
        program: String,
    },
    /// The call maps to an ASH/1 request the engine would reject.
    #[error("Invalid arguments for tool `{tool}`: {detail}. Nothing was executed.")]
    Invalid {
        /// The tool.
        tool: &'static str,
        /// What is wrong.
        detail: String,
    },
    /// The file to edit or move could not be read through the engine.
    #[error("{tool} refused: `{path}` could not be read ({answer}). Nothing was changed.")]
    Unreadable {
        /// The tool.
        tool: &'static str,
        /// The file.
        path: String,
        /// The engine's answer, trimmed to one line.
        answer: String,
    },
    /// A path the file tools never expose (docs/contract/agent-behaviour.md §3) was named directly.
    #[error(
        "{tool} refused: `{path}` is never available to tools ({reason}). Nothing was executed. Leave this path alone; if the task needs it, ask the user."
    )]
    Excluded {
        /// The tool.
        tool: &'static str,
        /// The path as the model gave it.
        path: String,
        /// Why it is hidden.
        reason: ExclusionReason,
    },
    /// A write inside a repository's `.git` in full access without `allow_git_writes`.
    #[error(
        "{tool} refused: `{path}` is inside a repository's `.git` directory, and writing there can run commands on the user's next git command (hooks, core.fsmonitor, aliases). Nothing was executed. Change files outside `.git`, or use git itself through exec. The user can allow such writes with \"allow_git_writes\": true in ~/.ansa/config.json, or run with --ask to approve each one."
    )]
    GitInternals {
        /// The tool.
        tool: &'static str,
        /// The path as the model gave it.
        path: String,
    },
    /// The nested AGENTS.md of a directory the call touches could not be loaded, so the call
    /// was not run (the model must see a directory's instructions before its contents).
    #[error(
        "{tool} refused: the instructions (AGENTS.md) on the way to `{dir}` could not be loaded: {detail}. Nothing was executed."
    )]
    Instructions {
        /// The tool.
        tool: &'static str,
        /// The touched directory as the call named it.
        dir: String,
        /// What went wrong.
        detail: String,
    },
    /// Ask mode: the call needs the user's approval and this caller cannot ask.
    #[error(
        "Tool `{tool}` needs the user's approval (access_mode is ask) and none could be asked for. Nothing was executed."
    )]
    NeedsApproval {
        /// The tool.
        tool: &'static str,
    },
    /// The user approved, but the permit for the action could not be signed.
    #[error(
        "{tool} was approved, but its permit could not be signed ({source}). Nothing was executed."
    )]
    Permit {
        /// The tool.
        tool: &'static str,
        /// Why.
        source: ash_engine::session::approval::PermitError,
    },
    /// The configured OS sandbox cannot be enforced on this kernel: the command is never run
    /// unsandboxed behind the user's back.
    #[error(
        "exec refused: the OS sandbox (mode {mode}) cannot be enforced here: {reason}. Nothing was executed. Tell the user; only they can choose to run commands unsandboxed, knowingly, with --sandbox off or \"sandbox\": \"off\" in ~/.ansa/config.json."
    )]
    SandboxUnavailable {
        /// The configured mode.
        mode: SandboxMode,
        /// What the kernel lacks, and how to choose `off`.
        reason: SandboxError,
    },
    /// `outside_sandbox: true` where no user can approve it (full access).
    #[error(
        "exec refused: outside_sandbox is true, but running a command outside the OS sandbox (mode {mode}) needs the user's approval, and access_mode is full_access, where nothing is put to the user. Nothing was executed. Run it inside the sandbox (outside_sandbox null), or tell the user what needs to run outside it and why; they can run it themselves or restart with --ask."
    )]
    OutsideSandboxRefused {
        /// The configured mode.
        mode: SandboxMode,
    },
    /// The `{old,new}` edits do not compile against the file as last read.
    #[error("edit refused: in `{path}`, {source}. Nothing was changed in any file.")]
    Edit {
        /// The file whose edits do not compile.
        path: String,
        /// The compile error.
        source: EditError,
    },
}

/// Why a [`super::ToolExecutor`] could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum ToolOpenError {
    /// The engine session could not be opened on the workspace.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// The cwd could not be resolved for nested instructions.
    #[error(transparent)]
    Instructions(#[from] InstructionError),
    /// Ask mode could not be set up.
    #[error("ask mode could not be set up: {0}")]
    Ask(#[from] super::approval::HarnessError),
}
