//! Model-facing errors of tool execution: the `Display` text is the tool output.

use super::super::EditError;

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
    /// `edit` of a file the model has not read in this session.
    #[error(
        "edit refused: `{path}` has not been read in this session. Nothing was changed. Call read on it first, then quote its text in edits[].old."
    )]
    NotRead {
        /// The file.
        path: String,
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
    /// The `{old,new}` edits do not compile against the file as last read.
    #[error("edit refused: {source}. Nothing was changed.")]
    Edit {
        /// The compile error.
        #[from]
        source: EditError,
    },
}
