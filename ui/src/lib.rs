//! ansa-ui: frontends that speak the session protocol (commands in, events out) and nothing
//! else. They never call providers, tools or the engine; the runtime sits behind a
//! [`SessionLink`].
//!
//! - [`run_jsonl`]: the JSONL driver (docs/contract/agent-behaviour.md §7): commands on input, events on output.
//! - [`run_lines`]: line mode without a TTY: one task per input line.
//! - [`run_one_shot`]: `ansa 'TASK'`: one task, only the verified answer on stdout.
//! - [`run_tui`]: the Carbon TUI, an inline chat on a terminal.
//! - [`run_rewind`]: `ansa --rewind [N]`: a session's checkpoints, or a rewind to one.

#![forbid(unsafe_code)]

mod approval_text;
mod ask;
mod error;
mod follow;
mod jsonl;
mod line_reader;
mod lines;
mod oneshot;
mod outcome;
mod retry_text;

pub mod picker;
mod rewind;
pub mod sanitize;
mod status;
pub mod tui;

pub use error::UiError;
pub use jsonl::run_jsonl;
pub use lines::run_lines;
// The link types belong to the session protocol; frontends use them from here too.
pub use ansa_sessions::link::{CommandSender, RuntimeGone, SessionLink, ToRuntime};
pub use oneshot::run_one_shot;
pub use outcome::{
    EXIT_AUTH, EXIT_OK, EXIT_SESSION_UNUSABLE, EXIT_TASK_FAILED, LinesOutcome, OneShotOutcome,
    TurnOutcome,
};
pub use rewind::{EXIT_USAGE, RewindPick, RewindRequest, parse_rewind_pick, run_rewind};
pub use tui::{TuiExit, TuiInfo, run_tui};
