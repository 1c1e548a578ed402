//! The exec supervisor: a small process between the engine and a command that outlives neither.
//!
//! An embedder (the agent) that wants a command's end to be certain and recorded runs `x`
//! requests through the session's `execute_supervised` with a [`Supervision`]. The engine then spawns `PROGRAM __ash-supervise ... -- COMMAND` instead
//! of the command. The supervisor becomes a child subreaper, asks for `SIGHUP` when its parent
//! dies, applies the session's [`ExecHardening`](super::ExecHardening), and starts the command in
//! a process group of its own with the supervisor's stdio (the engine's pipes, so capture is
//! unchanged). When the command exits, when the engine asks (`SIGTERM`, on cancel or deadline) or
//! when the engine dies (`SIGHUP`), it kills the command's group and every descendant that was
//! reparented to it, reaps them all, writes an [`Evidence`] file atomically, and exits the way
//! the command did (same code, or the same signal re-raised), so the engine's answer is
//! byte-for-byte what it would be without a supervisor.
//!
//! If the supervisor itself is killed, no evidence is written: the effect of the command is
//! unknown and must not be retried automatically.
//!
//! This is an engine embedding feature; it is not part of the ASH/1 wire protocol and `ash run` /
//! `ash rpc` never use it.

mod args;
mod evidence;
mod process;
mod reap;
mod report;
mod signals;
mod start;
mod stop;

pub use evidence::{EVIDENCE_VERSION, Evidence, EvidenceError, Termination, read_evidence};
pub use process::supervise_main;
pub(crate) use start::{Prepared, direct_spawn_error, prepare};
pub(crate) use stop::Target;

use std::path::PathBuf;

/// The `argv[1]` that makes a binary act as the exec supervisor: a binary that embeds the
/// engine and passes [`Supervision`] must call [`supervise_main`] with the arguments after it,
/// before it starts any thread, and exit with its result.
pub const SUPERVISE_ARG: &str = "__ash-supervise";

/// How one `x` request is supervised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Supervision {
    /// The binary re-executed as supervisor (normally `std::env::current_exe()`); it must
    /// dispatch [`SUPERVISE_ARG`] to [`supervise_main`].
    pub program: PathBuf,
    /// Where the supervisor writes this call's [`Evidence`]; its directory must exist. A
    /// relative path is taken relative to the engine's working directory.
    pub evidence: PathBuf,
}
