//! Errors of the session store and the diagnostics that make a session read-only.

use std::io;
use std::path::PathBuf;

use thiserror::Error;

use crate::ids::{CommandId, PartNo, RequestId, Seq};

/// Damage found while verifying the journal; the session opens read-only with this diagnostic.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum JournalDamage {
    /// A complete record whose checksum does not match its bytes.
    #[error(
        "journal part {part} line {line} (byte {offset}): checksum mismatch on a complete record \
         (expected seq {expected_seq}); the record was changed after it was written. The session is \
         read-only; restore the part from a backup or start a new session"
    )]
    BadChecksum {
        part: PartNo,
        line: u64,
        offset: u64,
        expected_seq: Seq,
    },
    /// A complete, checksummed line that does not decode as a record.
    #[error(
        "journal part {part} line {line} (byte {offset}): malformed record: {reason}; the session is read-only"
    )]
    Malformed {
        part: PartNo,
        line: u64,
        offset: u64,
        reason: String,
    },
    /// Records are not numbered contiguously.
    #[error(
        "journal part {part} line {line}: sequence gap: expected seq {expected}, found {found}; \
         records are missing, the session is read-only"
    )]
    SequenceGap {
        part: PartNo,
        line: u64,
        expected: Seq,
        found: Seq,
    },
    /// A part between the first and the last one does not exist.
    #[error(
        "journal part {part} is missing (parts {first}..{last} exist around it); the session is read-only"
    )]
    MissingPart {
        part: PartNo,
        first: PartNo,
        last: PartNo,
    },
    /// A part does not start with its header record.
    #[error(
        "journal part {part}: first record is not the part header for part {part}; the session is read-only"
    )]
    MissingHeader { part: PartNo },
    /// A part's link does not match the end of the previous part.
    #[error("journal part {part}: broken link to part {prev}: {reason}; the session is read-only")]
    BrokenLink {
        part: PartNo,
        prev: PartNo,
        reason: String,
    },
    /// A part is shorter than the link from the next part says it was.
    #[error(
        "journal part {part} is truncated: part {next} links to {expected} bytes but only {found} \
         exist; the session is read-only"
    )]
    TruncatedPart {
        part: PartNo,
        next: PartNo,
        expected: u64,
        found: u64,
    },
}

/// Everything that can go wrong opening, writing or reading a session.
#[derive(Debug, Error)]
pub enum SessionError {
    /// Another process (or handle) holds the session lock.
    #[error(
        "session_busy: session {dir} is open in another process; close it there or start a new session"
    )]
    SessionBusy { dir: PathBuf },
    /// The session directory or a journal part is readable or writable by others.
    #[error(
        "insecure permissions on {path}: mode {mode:04o}, expected {expected:04o}; the journal may \
         hold private data, fix with `chmod {expected:o} {path}`"
    )]
    InsecurePermissions {
        path: PathBuf,
        mode: u32,
        expected: u32,
    },
    /// No session exists at the given place.
    #[error("no session at {dir}: the directory has no journal; check the ID or directory")]
    NotFound { dir: PathBuf },
    /// An I/O operation failed outside the durable write path.
    #[error("{action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// A write or fsync failed earlier; nothing more can be made durable in this process.
    #[error(
        "storage_failed: {cause}; no further work is dispatched, results held in memory are reported \
         with durable:false. Free space or fix the disk, then reopen the session"
    )]
    StorageFailed { cause: String },
    /// The session was opened read-only because of journal damage.
    #[error("session is read-only: {0}")]
    ReadOnly(JournalDamage),
    /// The same command ID was used for a different command.
    #[error(
        "command_id {command_id} was already used for a different command (request {request_id}); \
         use a new command_id"
    )]
    CommandConflict {
        command_id: CommandId,
        request_id: RequestId,
    },
    /// A record refers to a turn the journal does not know.
    #[error("request {0} does not exist in this session")]
    UnknownRequest(RequestId),
    /// Encoding a record failed (a bug or a non-serialisable value).
    #[error("cannot encode journal record seq {seq}: {reason}")]
    Encode { seq: Seq, reason: String },
}

impl SessionError {
    /// Builds an [`SessionError::Io`] for `path`.
    pub(crate) fn io(action: &'static str, path: impl Into<PathBuf>, source: io::Error) -> Self {
        SessionError::Io {
            action,
            path: path.into(),
            source,
        }
    }
}

/// Result alias for this crate.
pub type Result<T, E = SessionError> = std::result::Result<T, E>;
