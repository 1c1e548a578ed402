//! Process execution for `x` exec: spawning per the executable rule, lossless concurrent capture
//! of stdout and stderr (memory, then session-private spool files, all charged to the store
//! quota), and waiting with deadline and cancellation that kill and reap the whole process group.
//!
//! Unix only: the child runs in its own process group and the group is what gets killed. An
//! embedder may run a command under the [`supervisor`], which also ends descendants that left
//! the group and records how the command ended.

mod caps;
mod capture;
mod child;
mod drain;
mod error;
pub(crate) mod gate;
mod launch;
mod live;
mod monitor;
pub mod sandbox;
pub mod secrecy;
pub mod spool;
pub mod supervisor;
mod tail;
#[cfg(test)]
mod tests;

pub use capture::{Capture, CaptureLimits, Captured, Lost, RESIDENT_BYTES, Spooled};
pub use child::{ExecContext, ProcessOutcome, run};
pub use error::ExecError;
pub use launch::{ExecHardening, Launch};
pub use live::{LIVE_BYTES, LiveOutput, LiveSnapshot};
pub use spool::{ReclaimReport, SpoolRoot};
