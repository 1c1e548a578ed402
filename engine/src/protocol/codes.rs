//! Status, error, retry and stage codes and result flags (docs/contract/ash-protocol.md §3.1, §4).

use std::ops::{BitAnd, BitOr, BitOrAssign};

wire_enum! {
    /// Response status `s`.
    pub enum Status: u8, "status", as_u8, from_u8 {
        /// 0: the operation succeeded.
        Success = 0,
        /// 1: the request is malformed or violates a schema rule.
        Invalid = 1,
        /// 2: the operation is not supported in this session.
        Unsupported = 2,
        /// 3: capabilities, approval or workspace confinement deny it.
        Denied = 3,
        /// 4: a path or reference does not exist.
        NotFound = 4,
        /// 5: the operation ran and failed.
        Failed = 5,
        /// 6: the deadline passed.
        TimedOut = 6,
        /// 7: the request was cancelled.
        Cancelled = 7,
        /// 8: content changed underneath or a target already exists.
        Conflict = 8,
        /// 9: an output, storage or concurrency budget is exhausted.
        BudgetExceeded = 9,
        /// 10: an engine invariant failed.
        Internal = 10,
    }
}

wire_enum! {
    /// Error code `e.c`.
    pub enum ErrorCode: u16, "error code", as_u16, from_u16 {
        /// 100: a schema rule or argument is violated.
        InvalidArgument = 100,
        /// 101: the operation is not available.
        UnsupportedOperation = 101,
        /// 102: the request id is still active in the session.
        DuplicateRequest = 102,
        /// 200: a path resolves outside the workspace.
        WorkspaceEscape = 200,
        /// 201: a path, executable or cwd does not exist.
        PathNotFound = 201,
        /// 202: a target or retained value has the wrong type.
        WrongFileType = 202,
        /// 300: the required capabilities are not granted.
        CapabilityDenied = 300,
        /// 301: an approval permit is required (challenge attached).
        PermitRequired = 301,
        /// 302: the permit is bad, expired or replayed (fresh challenge attached).
        PermitInvalid = 302,
        /// 400: the process could not be spawned (other than not-found).
        SpawnFailed = 400,
        /// 401: the process exited nonzero or was signaled.
        ProcessFailed = 401,
        /// 402: the deadline passed.
        TimedOut = 402,
        /// 403: the request was cancelled.
        Cancelled = 403,
        /// 500: another filesystem or store I/O error.
        Filesystem = 500,
        /// 501: stale digest or no-overwrite collision.
        ContentConflict = 501,
        /// 502: the journal or a rollback is ambiguous; recovery is required.
        RecoveryRequired = 502,
        /// 600: the response cannot fit the presentation limit or record budget.
        OutputBudget = 600,
        /// 601: a file, entry, match or store ceiling was hit.
        StorageBudget = 601,
        /// 602: the in-flight request window is full.
        ConcurrencyBudget = 602,
        /// 700: the reference is unknown or released.
        UnknownReference = 700,
        /// 701: the reference is leased and cannot be released.
        ReferenceBusy = 701,
        /// 800: a batch node failed, was cancelled or was skipped.
        BatchFailed = 800,
        /// 900: an engine invariant failed.
        Internal = 900,
    }
}

wire_enum! {
    /// Retry class `e.q`.
    pub enum Retry: u8, "retry class", as_u8, from_u8 {
        /// 0: retrying cannot help.
        Never = 0,
        /// 1: correct the request first.
        Correct = 1,
        /// 2: the same request may succeed later.
        Same = 2,
        /// 3: needs approval or inspection.
        Inspect = 3,
    }
}

wire_enum! {
    /// Processing stage `e.p` at which an error arose.
    pub enum Stage: u8, "stage", as_u8, from_u8 {
        /// 0: decoding.
        Decode = 0,
        /// 1: schema validation.
        Validate = 1,
        /// 2: path or reference resolution.
        Resolve = 2,
        /// 3: authorization.
        Authorize = 3,
        /// 4: execution.
        Execute = 4,
        /// 5: output reduction and projection.
        Reduce = 5,
        /// 6: retaining evidence in the store.
        Retain = 6,
        /// 7: encoding the response.
        Encode = 7,
    }
}

impl ErrorCode {
    /// The status every response carrying this code has (§4 table).
    pub const fn status(self) -> Status {
        use ErrorCode as C;
        match self {
            C::InvalidArgument | C::DuplicateRequest => Status::Invalid,
            C::UnsupportedOperation => Status::Unsupported,
            C::WorkspaceEscape | C::CapabilityDenied | C::PermitRequired | C::PermitInvalid => {
                Status::Denied
            }
            C::PathNotFound | C::UnknownReference => Status::NotFound,
            C::WrongFileType
            | C::SpawnFailed
            | C::ProcessFailed
            | C::Filesystem
            | C::RecoveryRequired
            | C::BatchFailed => Status::Failed,
            C::TimedOut => Status::TimedOut,
            C::Cancelled => Status::Cancelled,
            C::ContentConflict | C::ReferenceBusy => Status::Conflict,
            C::OutputBudget | C::StorageBudget | C::ConcurrencyBudget => Status::BudgetExceeded,
            C::Internal => Status::Internal,
        }
    }

    /// The retry class emitted with this code (§4 table).
    pub const fn typical_retry(self) -> Retry {
        use ErrorCode as C;
        match self {
            C::InvalidArgument
            | C::UnsupportedOperation
            | C::DuplicateRequest
            | C::PathNotFound
            | C::WrongFileType
            | C::ContentConflict
            | C::OutputBudget
            | C::StorageBudget
            | C::UnknownReference => Retry::Correct,
            C::WorkspaceEscape
            | C::CapabilityDenied
            | C::ProcessFailed
            | C::Cancelled
            | C::BatchFailed => Retry::Never,
            C::SpawnFailed
            | C::TimedOut
            | C::Filesystem
            | C::ConcurrencyBudget
            | C::ReferenceBusy
            | C::Internal => Retry::Same,
            C::PermitRequired | C::PermitInvalid | C::RecoveryRequired => Retry::Inspect,
        }
    }

    /// The stage of the primary form in the §4 table. Codes with a second form
    /// (202, 500, 601, 900) have named constructors on [`ErrorRecord`] for it.
    pub const fn typical_stage(self) -> Stage {
        use ErrorCode as C;
        match self {
            C::InvalidArgument | C::UnsupportedOperation | C::DuplicateRequest => Stage::Validate,
            C::PathNotFound | C::WrongFileType | C::UnknownReference => Stage::Resolve,
            C::WorkspaceEscape | C::CapabilityDenied | C::PermitRequired | C::PermitInvalid => {
                Stage::Authorize
            }
            C::SpawnFailed
            | C::ProcessFailed
            | C::TimedOut
            | C::Cancelled
            | C::Filesystem
            | C::ContentConflict
            | C::RecoveryRequired
            | C::StorageBudget
            | C::ConcurrencyBudget
            | C::BatchFailed => Stage::Execute,
            C::OutputBudget => Stage::Reduce,
            C::ReferenceBusy => Stage::Retain,
            C::Internal => Stage::Encode,
        }
    }
}

/// Result flags `z` (§3.1). Bits 6 and 7 are undefined and rejected.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Flags(u8);

impl Flags {
    /// No flag set.
    pub const NONE: Flags = Flags(0);
    /// Bit 0: output was truncated.
    pub const TRUNCATED: Flags = Flags(1);
    /// Bit 1: output was reduced (collapsed or sampled).
    pub const REDUCED: Flags = Flags(2);
    /// Bit 2: text was normalized (CRLF → LF).
    pub const NORMALIZED: Flags = Flags(4);
    /// Bit 3: evidence is retained behind some reference.
    pub const RETAINED: Flags = Flags(8);
    /// Bit 4: the operation completed only partially.
    pub const PARTIAL: Flags = Flags(16);
    /// Bit 5: content was redacted (never set today).
    pub const REDACTED: Flags = Flags(32);
    /// Every defined bit.
    pub const ALL: Flags = Flags(63);

    /// The flags for raw bits, or `None` if an undefined bit is set.
    pub const fn from_bits(bits: u8) -> Option<Flags> {
        if bits & !Flags::ALL.0 == 0 {
            Some(Flags(bits))
        } else {
            None
        }
    }

    /// The raw bits.
    pub const fn bits(self) -> u8 {
        self.0
    }

    /// Whether every bit of `other` is set.
    pub const fn contains(self, other: Flags) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether no bit is set.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// `self` with the bits of `other` set.
    pub const fn with(self, other: Flags) -> Flags {
        Flags(self.0 | other.0)
    }

    /// `self` with the bits of `other` cleared.
    pub const fn without(self, other: Flags) -> Flags {
        Flags(self.0 & !other.0)
    }
}

impl BitOr for Flags {
    type Output = Flags;
    fn bitor(self, rhs: Flags) -> Flags {
        self.with(rhs)
    }
}

impl BitOrAssign for Flags {
    fn bitor_assign(&mut self, rhs: Flags) {
        *self = self.with(rhs);
    }
}

impl BitAnd for Flags {
    type Output = Flags;
    fn bitand(self, rhs: Flags) -> Flags {
        Flags(self.0 & rhs.0)
    }
}

impl std::fmt::Display for Flags {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The error record `e{c,q,p,x,a}` of a response.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ErrorRecord {
    /// `c`: the error code.
    pub code: ErrorCode,
    /// `q`: the retry class.
    pub retry: Retry,
    /// `p`: the stage.
    pub stage: Stage,
    /// `x`: reference to retained evidence (e.g. an approval challenge).
    pub evidence: Option<u64>,
    /// `a`: reference to a retained argument.
    pub argument: Option<u64>,
}

impl ErrorRecord {
    /// A record with explicit retry class and stage and no references.
    pub const fn new(code: ErrorCode, retry: Retry, stage: Stage) -> Self {
        ErrorRecord {
            code,
            retry,
            stage,
            evidence: None,
            argument: None,
        }
    }

    /// The primary form of `code` as emitted in the §4 table.
    pub const fn typical(code: ErrorCode) -> Self {
        ErrorRecord::new(code, code.typical_retry(), code.typical_stage())
    }

    /// `code` with its typical retry class at an explicit stage (for the second forms of
    /// 202, 500, 601 and 900).
    pub const fn typical_at(code: ErrorCode, stage: Stage) -> Self {
        ErrorRecord::new(code, code.typical_retry(), stage)
    }

    /// 100,1,1: any schema violation of a request with a usable id.
    pub const fn invalid_argument() -> Self {
        ErrorRecord::typical(ErrorCode::InvalidArgument)
    }

    /// 101,1,3: the operation is outside the negotiated `ops` mask (§9 decision 2).
    pub const fn operation_not_negotiated() -> Self {
        ErrorRecord::new(
            ErrorCode::UnsupportedOperation,
            Retry::Correct,
            Stage::Authorize,
        )
    }

    /// 202,1,2: a mutation target is not a regular file or has a symlinked component.
    pub const fn wrong_type_resolve() -> Self {
        ErrorRecord::typical_at(ErrorCode::WrongFileType, Stage::Resolve)
    }

    /// 202,1,4: a retained value is not UTF-8 or not a table.
    pub const fn wrong_type_execute() -> Self {
        ErrorRecord::typical_at(ErrorCode::WrongFileType, Stage::Execute)
    }

    /// 500,2,4: a filesystem I/O error during execution.
    pub const fn filesystem() -> Self {
        ErrorRecord::typical_at(ErrorCode::Filesystem, Stage::Execute)
    }

    /// 500,2,6: an I/O error of the retained store.
    pub const fn store_io() -> Self {
        ErrorRecord::typical_at(ErrorCode::Filesystem, Stage::Retain)
    }

    /// 601,1,4: a file, entry or match ceiling of the work itself.
    pub const fn work_limit() -> Self {
        ErrorRecord::typical_at(ErrorCode::StorageBudget, Stage::Execute)
    }

    /// 601,1,6: the retained-store quota.
    pub const fn store_quota() -> Self {
        ErrorRecord::typical_at(ErrorCode::StorageBudget, Stage::Retain)
    }

    /// 900,2,7: an invariant failure while encoding.
    pub const fn internal_encode() -> Self {
        ErrorRecord::typical_at(ErrorCode::Internal, Stage::Encode)
    }

    /// 900,2,4: an invariant failure during execution.
    pub const fn internal_execute() -> Self {
        ErrorRecord::typical_at(ErrorCode::Internal, Stage::Execute)
    }

    /// The same record with evidence reference `x`.
    pub const fn with_evidence(mut self, reference: u64) -> Self {
        self.evidence = Some(reference);
        self
    }

    /// The same record with argument reference `a`.
    pub const fn with_argument(mut self, reference: u64) -> Self {
        self.argument = Some(reference);
        self
    }

    /// The response status this record implies.
    pub const fn status(&self) -> Status {
        self.code.status()
    }

    /// Whether the record points at retained evidence or arguments.
    pub const fn has_reference(&self) -> bool {
        self.evidence.is_some() || self.argument.is_some()
    }
}
