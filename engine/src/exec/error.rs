//! Why an exec could not produce a process outcome.

use super::sandbox::SandboxError;
use crate::files::workspace::FsError;
use crate::protocol::ErrorCode;
use std::io;
use thiserror::Error;

/// An exec failure before or around the process (a process that ran is an outcome, not an error).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ExecError {
    /// The executable does not exist (201).
    #[error(
        "executable {program:?} was not found (a bare name is searched in PATH, a name with '/' is a workspace path)"
    )]
    ProgramNotFound {
        /// `x` as requested.
        program: String,
    },
    /// The working directory does not exist (201).
    #[error("working directory {cwd:?} does not exist")]
    CwdNotFound {
        /// `c` as requested.
        cwd: String,
    },
    /// The working directory names something that is not a directory (500, as the reference
    /// answers it).
    #[error("working directory {cwd:?} is not a directory")]
    CwdNotADirectory {
        /// `c` as requested.
        cwd: String,
    },
    /// The executable or working directory path was refused (invalid 100, escape 200, `.ash` 300, I/O 500).
    #[error(transparent)]
    Path(FsError),
    /// The OS refused to start the process: permission denied, bad format, limits (400).
    #[error("cannot start {program:?}: {message}")]
    Spawn {
        /// `x` as requested.
        program: String,
        /// The OS error class.
        kind: io::ErrorKind,
        /// The OS error text.
        message: String,
    },
    /// The OS sandbox cannot be enforced, or could not be applied: the command did not run (400).
    #[error(transparent)]
    Sandbox(SandboxError),
    /// The engine could not set up or supervise the process (pipes, threads, waiting) (900).
    #[error("exec supervision failed: {0}")]
    Internal(String),
}

impl ExecError {
    /// The ASH/1 error code of this failure.
    pub fn code(&self) -> ErrorCode {
        match self {
            ExecError::ProgramNotFound { .. } | ExecError::CwdNotFound { .. } => {
                ErrorCode::PathNotFound
            }
            ExecError::Path(e) => e.code(),
            ExecError::CwdNotADirectory { .. } => ErrorCode::Filesystem,
            ExecError::Spawn { .. } | ExecError::Sandbox(_) => ErrorCode::SpawnFailed,
            ExecError::Internal(_) => ErrorCode::Internal,
        }
    }

    /// Classifies an error from starting `program`: a missing file (the executable, its
    /// interpreter, or a cwd removed meanwhile) is not found; anything else is a spawn failure.
    pub(crate) fn from_spawn(program: &str, err: &io::Error) -> ExecError {
        match err.kind() {
            io::ErrorKind::NotFound => ExecError::ProgramNotFound {
                program: program.to_owned(),
            },
            kind => ExecError::Spawn {
                program: program.to_owned(),
                kind,
                message: err.to_string(),
            },
        }
    }

    pub(crate) fn internal(what: &str, err: impl std::fmt::Display) -> ExecError {
        ExecError::Internal(format!("{what}: {err}"))
    }
}
