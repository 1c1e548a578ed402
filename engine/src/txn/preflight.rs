//! Preflight helpers for the mutating operations: target inspection without following any
//! symlink, bounded reads and hashes, and the error records of every failure.

use super::fsx::{self, HashError, Meta};
use super::{Halt, MAX_FILE_BYTES, Stop, TxnError};
use crate::answer::Shared;
use crate::files::workspace::{STATE_DIR, Workspace, check_logical_path, type_of};
use crate::protocol::Content;
use crate::protocol::Digest;
use crate::protocol::{Data, ErrorCode, ErrorRecord, Flags, Response, Stage};
use nix::sys::stat::SFlag;
use std::io;

/// Why a preflight step failed.
#[derive(Debug)]
pub(crate) enum Fault {
    /// The path or one of its parent directories does not exist (201).
    NotFound,
    /// `.`, a symlinked or non-directory component, or a target that is not a regular file (202).
    WrongType,
    /// Over a 128 MiB ceiling (601).
    TooLarge,
    /// Cancelled or timed out.
    Halt(Halt),
    /// Any other I/O failure (500).
    Io,
    /// Hidden by the embedder's filter (300): a regular file with several hard links.
    Hidden,
}

impl Fault {
    /// The error record of this failure.
    pub(crate) fn record(&self) -> ErrorRecord {
        match self {
            Fault::NotFound => ErrorRecord::typical(ErrorCode::PathNotFound),
            Fault::WrongType => ErrorRecord::wrong_type_resolve(),
            Fault::TooLarge => ErrorRecord::work_limit(),
            Fault::Halt(h) => halt_record(*h),
            Fault::Io => ErrorRecord::filesystem(),
            Fault::Hidden => ErrorRecord::typical(ErrorCode::CapabilityDenied),
        }
    }
}

impl From<HashError> for Fault {
    fn from(e: HashError) -> Self {
        match e {
            HashError::Halt(h) => Fault::Halt(h),
            HashError::TooLarge => Fault::TooLarge,
            HashError::Io(e) if fsx::is_missing(&e) => Fault::NotFound,
            HashError::Io(_) => Fault::Io,
        }
    }
}

/// 403 for cancellation, 402 for the deadline.
pub(crate) fn halt_record(h: Halt) -> ErrorRecord {
    match h {
        Halt::Cancelled => ErrorRecord::typical(ErrorCode::Cancelled),
        Halt::TimedOut => ErrorRecord::typical_at(ErrorCode::TimedOut, Stage::Execute),
    }
}

/// The error record of a transaction failure that carries no rows (501 and 502 rows are the
/// operation's to build).
pub(crate) fn txn_record(e: &TxnError) -> ErrorRecord {
    match e {
        TxnError::Halt(h) => halt_record(*h),
        TxnError::ForeignStateDir(_) => ErrorRecord::typical(ErrorCode::CapabilityDenied),
        TxnError::Io(_) => ErrorRecord::filesystem(),
        TxnError::Recovery(_) => ErrorRecord::typical(ErrorCode::RecoveryRequired),
        TxnError::Conflict { .. } => ErrorRecord::typical(ErrorCode::ContentConflict),
    }
}

/// Syntax (100), the reserved state directory (300, always for mutations: the transaction
/// itself makes `.ash` a valid state directory) and the embedder's path filter (300) of a
/// mutation target.
pub(crate) fn check_target(workspace: &Workspace, logical: &str) -> Result<(), ErrorRecord> {
    check_logical_path(logical).map_err(|_| ErrorRecord::invalid_argument())?;
    let reserved = logical
        .strip_prefix(STATE_DIR)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'));
    if reserved {
        return Err(ErrorRecord::typical(ErrorCode::CapabilityDenied));
    }
    workspace
        .refuse_hidden(logical)
        .map_err(|_| ErrorRecord::typical(ErrorCode::CapabilityDenied))
}

/// What a mutation path names now.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Target {
    /// Nothing (its parent directory exists).
    Missing,
    /// A regular file.
    File(Meta),
}

/// Inspects `logical` through real directories from the root's descriptor, following no
/// symlink: every parent must be a real directory, the last component absent or a regular file.
pub(crate) fn inspect(ws: &Workspace, logical: &str) -> Result<Target, Fault> {
    if logical == "." {
        return Err(Fault::WrongType);
    }
    let at = match ws.locate(logical) {
        Ok(at) => at,
        // A parent that is missing, or whose own parent is missing.
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(Fault::NotFound),
        // A parent that is a symlink, a file or anything else but a real directory.
        Err(e) if matches!(e.raw_os_error(), Some(libc::ELOOP | libc::ENOTDIR)) => {
            return Err(Fault::WrongType);
        }
        Err(_) => return Err(Fault::Io),
    };
    match at.stat() {
        Ok(stat) if type_of(&stat) == SFlag::S_IFREG && ws.hides_linked(stat.st_nlink) => {
            Err(Fault::Hidden)
        }
        Ok(stat) if type_of(&stat) == SFlag::S_IFREG => Ok(Target::File(Meta {
            file: true,
            dir: false,
            size: u64::try_from(stat.st_size).unwrap_or(0),
            mode: stat.st_mode & 0o7777,
            id: (stat.st_dev, stat.st_ino),
        })),
        Ok(_) => Err(Fault::WrongType),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Target::Missing),
        Err(_) => Err(Fault::Io),
    }
}

/// Reads a whole file (≤128 MiB), checking `stop` between chunks.
pub(crate) fn read(ws: &Workspace, path: &str, stop: &Stop) -> Result<(Vec<u8>, Digest), Fault> {
    Ok(fsx::read_hashed(ws, path, MAX_FILE_BYTES, Some(stop))?)
}

/// Hashes a whole file (≤128 MiB), checking `stop` between chunks.
pub(crate) fn hash(ws: &Workspace, path: &str, stop: &Stop) -> Result<(Digest, u64), Fault> {
    Ok(fsx::hash_file(ws, path, MAX_FILE_BYTES, Some(stop))?)
}

/// The digest of a regular file that stands in the way, for conflict rows.
pub(crate) fn observe(ws: &Workspace, path: &str) -> Option<Digest> {
    super::apply::observe(ws, path)
}

/// A failure answer that still carries rows: 501 conflicts and 502 recovery (which also sets
/// the partial-completion bit).
pub(crate) fn failed_with(id: u64, record: ErrorRecord, data: Data) -> Response {
    let mut response = Response::error(id, record);
    if record.code == ErrorCode::RecoveryRequired {
        response.flags = response.flags.with(Flags::PARTIAL);
    }
    response.data = Some(data);
    response
}

/// The bytes of inline text or of a retained value (700 unknown, 601 over 128 MiB).
pub(crate) fn content_bytes(session: &Shared, content: &Content) -> Result<Vec<u8>, ErrorRecord> {
    match content {
        Content::Text(t) => Ok(t.as_bytes().to_vec()),
        Content::Ref(alias) => {
            let body = session
                .body(*alias)
                .ok_or(ErrorRecord::typical(ErrorCode::UnknownReference))?;
            if body.len() > MAX_FILE_BYTES {
                return Err(ErrorRecord::work_limit());
            }
            body.read_all().map_err(|_| ErrorRecord::store_io())
        }
    }
}
