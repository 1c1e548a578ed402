//! Exit codes (docs/contract/agent-behaviour.md §1) and the one-line failure that goes to stderr.

use std::fmt::Display;
use std::process::ExitCode;

/// The documented exit codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Success.
    Success,
    /// The task failed, paused or was cancelled.
    TaskFailed,
    /// Bad usage.
    Usage,
    /// Configuration error.
    Config,
    /// Auth required or failed.
    Auth,
    /// The session is busy or unusable.
    Session,
    /// Interrupted.
    Interrupted,
}

impl Exit {
    /// The numeric code.
    pub fn code(self) -> u8 {
        match self {
            Exit::Success => 0,
            Exit::TaskFailed => 1,
            Exit::Usage => 2,
            Exit::Config => 3,
            Exit::Auth => 4,
            Exit::Session => 5,
            Exit::Interrupted => 130,
        }
    }

    /// The exit for a numeric code a frontend chose.
    pub fn from_code(code: u8) -> Self {
        match code {
            0 => Exit::Success,
            2 => Exit::Usage,
            3 => Exit::Config,
            4 => Exit::Auth,
            5 => Exit::Session,
            130 => Exit::Interrupted,
            _ => Exit::TaskFailed,
        }
    }
}

impl From<Exit> for ExitCode {
    fn from(e: Exit) -> Self {
        ExitCode::from(e.code())
    }
}

/// A failure: what went wrong and what to do, and the exit code.
#[derive(Debug)]
pub struct Failure {
    /// The exit code.
    pub exit: Exit,
    /// One line for stderr.
    pub message: String,
}

impl Failure {
    /// A usage error (2).
    pub fn usage(message: impl Display) -> Self {
        Failure {
            exit: Exit::Usage,
            message: message.to_string(),
        }
    }

    /// A configuration error (3).
    pub fn config(message: impl Display) -> Self {
        Failure {
            exit: Exit::Config,
            message: message.to_string(),
        }
    }

    /// A busy or unusable session (5).
    pub fn session(message: impl Display) -> Self {
        Failure {
            exit: Exit::Session,
            message: message.to_string(),
        }
    }

    /// A failed task or I/O with the terminal/pipes (1).
    pub fn io(message: impl Display) -> Self {
        Failure {
            exit: Exit::TaskFailed,
            message: message.to_string(),
        }
    }
}
