//! The one error type of the filesystem plane; each variant is one ASH/1 outcome.

use std::io;

use thiserror::Error;

use crate::deadline::DeadlinePassed;
use crate::protocol::ErrorCode;

use super::path::PathError;

/// A work ceiling that an operation hit (all map to error 601).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum Ceiling {
    /// A file is larger than the per-file limit of the operation.
    #[error("file is {size} bytes, over the {limit}-byte limit")]
    FileSize {
        /// Observed size in bytes (at least `limit + 1`).
        size: u64,
        /// The limit in bytes.
        limit: u64,
    },
    /// A walk produced more entries than allowed.
    #[error("walk produced more than {limit} entries")]
    Entries {
        /// The entry limit.
        limit: usize,
    },
    /// One file produced more search matches than allowed.
    #[error("file has more than {limit} matching lines")]
    FileMatches {
        /// The per-file match limit.
        limit: usize,
    },
    /// A search produced more matches in total than allowed.
    #[error("search produced more than {limit} matching lines")]
    TotalMatches {
        /// The total match limit.
        limit: usize,
    },
    /// The files of one operation hold more bytes in total than allowed.
    #[error("files hold {size} bytes in total, over the {limit}-byte limit")]
    TotalBytes {
        /// Observed total in bytes (at least `limit + 1`).
        size: u64,
        /// The limit in bytes.
        limit: u64,
    },
}

/// Why a filesystem-plane operation failed. `path` is always the logical path as the caller wrote it
/// (or, inside a walk, the logical path of the entry concerned).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FsError {
    /// The path breaks the logical path syntax (100).
    #[error("invalid path {path:?}: {reason}")]
    InvalidPath {
        /// The offending path.
        path: String,
        /// The syntax rule it breaks.
        reason: PathError,
    },
    /// The path resolves outside the workspace root (200).
    #[error("path {path:?} resolves outside the workspace")]
    Escape {
        /// The requested path.
        path: String,
    },
    /// The path does not exist (201).
    #[error("path {path:?} does not exist")]
    NotFound {
        /// The requested path.
        path: String,
    },
    /// The path is inside the engine's reserved `.ash` state directory (300).
    #[error("path {path:?} is inside the reserved .ash state directory")]
    Reserved {
        /// The requested path.
        path: String,
    },
    /// The embedder's path filter hides the path or one of its ancestors (300, like `.ash`).
    #[error("path {path:?} is hidden from this session")]
    Hidden {
        /// The requested path.
        path: String,
    },
    /// A file operation was given a directory (500).
    #[error("path {path:?} is a directory")]
    IsDirectory {
        /// The requested path.
        path: String,
    },
    /// A file operation was given something that is neither a file nor a directory (500).
    #[error("path {path:?} is not a regular file")]
    NotRegularFile {
        /// The requested path.
        path: String,
    },
    /// The canonical target of a path has a component that is not UTF-8 (500).
    #[error("path {path:?} resolves to a name that is not UTF-8")]
    NonUtf8Name {
        /// The requested path.
        path: String,
    },
    /// Any other I/O failure (500).
    #[error("I/O error on {path:?}: {message}")]
    Io {
        /// The path being accessed.
        path: String,
        /// The OS error class.
        kind: io::ErrorKind,
        /// The OS error text.
        message: String,
    },
    /// A size, entry or match ceiling was exceeded (601).
    #[error("{path:?}: {ceiling}")]
    Ceiling {
        /// The file or walk root concerned.
        path: String,
        /// Which ceiling.
        ceiling: Ceiling,
    },
    /// A search query did not compile (100). Carries no path: the query is the culprit.
    /// The request deadline passed.
    #[error(transparent)]
    TimedOut(#[from] DeadlinePassed),
    #[error("invalid regex: {message}")]
    InvalidRegex {
        /// The `regex` crate's error text.
        message: String,
    },
}

impl FsError {
    /// The ASH/1 error code (`e.c`) of this outcome.
    pub fn code(&self) -> ErrorCode {
        match self {
            FsError::InvalidPath { .. } | FsError::InvalidRegex { .. } => {
                ErrorCode::InvalidArgument
            }
            FsError::Escape { .. } => ErrorCode::WorkspaceEscape,
            FsError::NotFound { .. } => ErrorCode::PathNotFound,
            FsError::Reserved { .. } | FsError::Hidden { .. } => ErrorCode::CapabilityDenied,
            FsError::IsDirectory { .. }
            | FsError::NotRegularFile { .. }
            | FsError::NonUtf8Name { .. }
            | FsError::Io { .. } => ErrorCode::Filesystem,
            FsError::Ceiling { .. } => ErrorCode::StorageBudget,
            FsError::TimedOut(_) => ErrorCode::TimedOut,
        }
    }

    /// The logical path the error is about, if it concerns one.
    pub fn path(&self) -> Option<&str> {
        match self {
            FsError::InvalidPath { path, .. }
            | FsError::Escape { path }
            | FsError::NotFound { path }
            | FsError::Reserved { path }
            | FsError::Hidden { path }
            | FsError::IsDirectory { path }
            | FsError::NotRegularFile { path }
            | FsError::NonUtf8Name { path }
            | FsError::Io { path, .. }
            | FsError::Ceiling { path, .. } => Some(path),
            FsError::InvalidRegex { .. } | FsError::TimedOut(_) => None,
        }
    }

    /// Classifies an I/O error from looking up `path`: missing entries are `NotFound`.
    pub(crate) fn from_lookup(path: &str, err: &io::Error) -> FsError {
        match err.kind() {
            io::ErrorKind::NotFound | io::ErrorKind::NotADirectory => FsError::NotFound {
                path: path.to_owned(),
            },
            _ => FsError::io(path, err),
        }
    }

    /// Wraps an I/O error on `path` as a 500 outcome.
    pub(crate) fn io(path: &str, err: &io::Error) -> FsError {
        FsError::Io {
            path: path.to_owned(),
            kind: err.kind(),
            message: err.to_string(),
        }
    }
}
