//! The words the model reads instead of numbers to decode: the status, the error and the
//! result flags. The canonical answer keeps the numbers (the journal has it byte for byte).

use ash_engine::ason::{Atom, Cell, Value};
use ash_engine::protocol::{
    Change, Data, EntryKind, ErrorCode, ExitKind, Flags, FsKind, MutationState, Status,
};

/// The word of status `s`.
pub fn status(status: Status) -> &'static str {
    match status {
        Status::Success => "ok",
        Status::Invalid => "invalid",
        Status::Unsupported => "unsupported",
        Status::Denied => "denied",
        Status::NotFound => "not_found",
        Status::Failed => "failed",
        Status::TimedOut => "timed_out",
        Status::Cancelled => "cancelled",
        Status::Conflict => "conflict",
        Status::BudgetExceeded => "over_budget",
        Status::Internal => "internal",
    }
}

/// The word of an error code (`error:`).
pub fn error(code: ErrorCode) -> &'static str {
    match code {
        ErrorCode::InvalidArgument => "invalid_argument",
        ErrorCode::UnsupportedOperation => "unsupported_operation",
        ErrorCode::DuplicateRequest => "duplicate_request",
        ErrorCode::WorkspaceEscape => "outside_workspace",
        ErrorCode::PathNotFound => "path_not_found",
        ErrorCode::WrongFileType => "wrong_file_type",
        ErrorCode::CapabilityDenied => "not_allowed",
        ErrorCode::PermitRequired => "needs_approval",
        ErrorCode::PermitInvalid => "approval_invalid",
        ErrorCode::SpawnFailed => "spawn_failed",
        ErrorCode::ProcessFailed => "exit_nonzero",
        ErrorCode::TimedOut => "deadline",
        ErrorCode::Cancelled => "cancelled",
        ErrorCode::Filesystem => "filesystem",
        ErrorCode::ContentConflict => "changed_since_read",
        ErrorCode::RecoveryRequired => "recovery_required",
        ErrorCode::OutputBudget => "answer_too_large",
        ErrorCode::StorageBudget => "size_limit",
        ErrorCode::ConcurrencyBudget => "busy",
        ErrorCode::UnknownReference => "unknown_ref",
        ErrorCode::ReferenceBusy => "ref_busy",
        ErrorCode::BatchFailed => "batch_failed",
        ErrorCode::Internal => "internal",
    }
}

/// Codes the engine answers only on paths ansa's tools never take, so the legend spends no
/// tokens on them (the view still writes their word, should one ever come).
pub const UNREACHABLE: [(ErrorCode, &str); 5] = [
    (
        ErrorCode::UnsupportedOperation,
        "the operation mask of `ash rpc`; the in-process session offers every operation",
    ),
    (
        ErrorCode::DuplicateRequest,
        "an `ash rpc` request id still active; the executor numbers every request afresh",
    ),
    (
        ErrorCode::ConcurrencyBudget,
        "the in-flight window of `ash rpc`",
    ),
    (
        ErrorCode::ReferenceBusy,
        "releasing a leased value; no tool releases values",
    ),
    (ErrorCode::BatchFailed, "a batch; no tool sends one"),
];

/// Statuses that come only with an unreachable code: `unsupported` (with 101).
pub const UNREACHABLE_STATUS: [Status; 1] = [Status::Unsupported];

/// Every flag bit and its word, in bit order.
pub const FLAGS: [(Flags, &str); 6] = [
    (Flags::TRUNCATED, "cut"),
    (Flags::REDUCED, "reduced"),
    (Flags::NORMALIZED, "crlf_as_lf"),
    (Flags::RETAINED, "retained"),
    (Flags::PARTIAL, "partial"),
    (Flags::REDACTED, "redacted"),
];

/// The words of the set bits of `flags`, in bit order.
pub fn flags(flags: Flags) -> Vec<&'static str> {
    FLAGS
        .iter()
        .filter(|(bit, _)| flags.contains(*bit))
        .map(|(_, word)| *word)
        .collect()
}

/// How a command ended (exec `k`).
pub fn exit_kind(kind: ExitKind) -> &'static str {
    match kind {
        ExitKind::Exited => "exited",
        ExitKind::Signaled => "signal",
        ExitKind::TimedOut => "timed_out",
        ExitKind::Cancelled => "cancelled",
        ExitKind::Killed => "killed",
    }
}

/// What an entry is (list and snapshot `k`).
pub fn entry_kind(kind: EntryKind) -> &'static str {
    match kind {
        EntryKind::File => "file",
        EntryKind::Dir => "dir",
        EntryKind::Symlink => "symlink",
        EntryKind::Other => "other",
    }
}

/// How an entry changed since a snapshot's baseline (snapshot `c`).
pub fn change(change: Change) -> &'static str {
    match change {
        Change::Captured => "captured",
        Change::Added => "added",
        Change::Modified => "modified",
        Change::Removed => "removed",
    }
}

/// What a `files` action does (files `k`).
pub fn fs_kind(kind: FsKind) -> &'static str {
    match kind {
        FsKind::Create => "create",
        FsKind::Copy => "copy",
        FsKind::Move => "move",
        FsKind::Remove => "remove",
    }
}

/// What became of a file of a change (edit `state`, files `s`).
pub fn state(state: MutationState) -> &'static str {
    match state {
        MutationState::Committed => "committed",
        MutationState::Conflict => "conflict",
        MutationState::RolledBack => "rolled_back",
        MutationState::RecoveryRequired => "recovery_required",
        MutationState::Skipped => "skipped",
    }
}

/// Writes the kinds, changes and states of `data`'s rows in `value` as words.
pub(super) fn name_codes(value: &mut Value, data: &Data) {
    let word = |w: &'static str| Cell::Atom(Atom::text(w));
    match (data, value) {
        (Data::Exec(exec), Value::Record(record)) => {
            set(
                &record.cols,
                &mut record.row,
                "k",
                word(exit_kind(exec.kind)),
            );
        }
        (Data::List(rows), Value::Table(table)) => {
            for (row, cells) in rows.iter().zip(table.rows.iter_mut()) {
                set(&table.cols, cells, "k", word(entry_kind(row.kind)));
            }
        }
        (Data::Snapshot(rows), Value::Table(table)) => {
            for (row, cells) in rows.iter().zip(table.rows.iter_mut()) {
                set(&table.cols, cells, "c", word(change(row.change)));
                set(&table.cols, cells, "k", word(entry_kind(row.kind)));
            }
        }
        (Data::Fs(rows), Value::Table(table)) => {
            for (row, cells) in rows.iter().zip(table.rows.iter_mut()) {
                set(&table.cols, cells, "k", word(fs_kind(row.kind)));
                set(&table.cols, cells, "s", word(state(row.state)));
            }
        }
        _ => {}
    }
}

/// Sets the cell of column `col` in `cells`.
fn set(cols: &[String], cells: &mut [Cell], col: &str, cell: Cell) {
    if let Some(at) = cols.iter().position(|c| c == col) {
        cells[at] = cell;
    }
}

/// Why a call was refused before anything ran: the `error` word of a refusal answer (the
/// engine's words where one fits, so the legend has few to explain).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// No tool has that name.
    UnknownTool,
    /// The arguments are not JSON, or break the schema or a rule of the tool (an `edit`'s
    /// `old` text that does not match included).
    InvalidArgument,
    /// The mode, the session's settings or the sandbox forbid it.
    NotAllowed,
    /// It needs the user's approval, which was not given.
    NotApproved,
    /// It did not run because another call of the same response was refused.
    NotRun,
    /// The turn was cancelled before it started.
    Cancelled,
    /// The file it works on could not be read.
    Filesystem,
}

impl Refusal {
    /// The `error` word and the `s` word of the refusal.
    pub fn words(self) -> (&'static str, &'static str) {
        match self {
            Refusal::UnknownTool => ("unknown_tool", "invalid"),
            Refusal::InvalidArgument => ("invalid_argument", "invalid"),
            Refusal::NotAllowed => ("not_allowed", "denied"),
            Refusal::NotApproved => ("not_approved", "denied"),
            Refusal::NotRun => ("not_run", "invalid"),
            Refusal::Cancelled => ("cancelled", "cancelled"),
            Refusal::Filesystem => ("filesystem", "failed"),
        }
    }

    /// Every refusal, for the legend's test.
    pub const ALL: [Refusal; 7] = [
        Refusal::UnknownTool,
        Refusal::InvalidArgument,
        Refusal::NotAllowed,
        Refusal::NotApproved,
        Refusal::NotRun,
        Refusal::Cancelled,
        Refusal::Filesystem,
    ];
}
