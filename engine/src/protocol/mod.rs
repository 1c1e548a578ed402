//! The typed ASH/1 protocol model (docs/contract/ash-protocol.md §3, §4, §8): requests with validated
//! arguments for every operation, responses with typed data and invariants, the
//! handshake and the approval challenge. Everything here is pure: no filesystem,
//! no clocks, no I/O.

#[macro_use]
mod wire_enum;

mod args;
mod caps;
mod challenge;
mod codes;
mod data;
mod emit;
mod handshake;
mod hex;
mod op;
mod path;
mod request;
mod response;
mod schema;
mod search_answer;

pub(crate) use search_answer::encode_search_rest;

#[cfg(test)]
mod tests;

pub use args::{
    BatchArgs, BatchNode, CancelArgs, Content, Edit, EnvChange, ExecArgs, Formula, FsAction,
    FsArgs, FsKind, FsOp, ListArgs, ListFilter, MAX_ARGV, MAX_BATCH_EDGES, MAX_BATCH_NODES,
    MAX_DEPTH, MAX_EDITS, MAX_ENV, MAX_ENV_ENTRY, MAX_FS_ACTIONS, MAX_INLINE_TOTAL,
    MAX_PATCH_FILES, MAX_PATHS, MAX_PROJECT_COLUMNS, MAX_WINDOW_BYTES, MAX_WINDOW_ROWS, MIB,
    PatchArgs, PatchFile, Program, ReadArgs, ReadMode, SearchArgs, SnapshotArgs, SnapshotMode,
    Stdin,
};
pub use caps::{Caps, OpKind, OpMask};
pub use challenge::{CHALLENGE_VERSION, Challenge};
pub use codes::{ErrorCode, ErrorRecord, Flags, Retry, Stage, Status};
pub use data::{
    BatchRow, CancelResult, Change, Data, EntryKind, ExecResult, ExitKind, FindRow, FsRow, ListRow,
    MaterializeResult, MutationState, NodeState, PatchRow, Projection, ReadRow, ReleaseResult,
    SearchRow, SliceResult, SnapshotRow,
};
pub use handshake::{
    COMPAT_FRAME_MAX, HandshakeError, HandshakeRequest, HandshakeResponse, MAX_FRAME,
    MAX_SESSION_OUTPUT, MIN_FRAME, Version, VersionRange,
};
pub use hex::{Digest, array_from_lower_hex, bytes_from_lower_hex, to_lower_hex};
pub use op::Op;
pub use path::MAX_PATH_BYTES;
pub use request::{Budget, Request, RequestError};
pub use response::{Response, ResponseError, ResponseInvariant};
pub use schema::{Form, Problem, SchemaError};
