//! The Carbon TUI: an inline chat in the main terminal buffer (never the alternate screen)
//! that speaks only the session protocol.
//!
//! [`run_tui`] draws a live region (streaming preview, tool lines, input, footer) at the
//! bottom of the terminal's output and prints finished dialog above it, once, into the
//! terminal's own scrollback, so copying and scrolling work as in any command. It never
//! calls providers, tools or the engine: it sends [`ToRuntime`](crate::ToRuntime) commands
//! over the [`SessionLink`] and follows the events.
//!
//! Keys: Enter sends (one task at a time; typed text is kept while a task runs),
//! Shift+Enter / Alt+Enter / Ctrl+J insert a line break, Up/Down move between rows and
//! through earlier inputs, Tab / Shift+Tab switch basic/plan, Ctrl+C cancels the task and a
//! second Ctrl+C exits (code 130), Ctrl+D lets the task finish and exits, Ctrl+F expands or
//! collapses the history, PgUp/PgDn page through the journal, Esc closes panes, Esc Esc on an
//! empty input opens the rewind screens (`rewind/`), Ctrl+L repaints. Commands: `/basic`,
//! `/plan`, `/status`, `/cancel`, `/resume`, `/rewind`, `/exit`, `/help`.

mod app;
mod approval;
mod approval_body;
#[doc(hidden)]
pub mod bench;
pub(crate) mod blocks;
mod children;
mod compact;
mod diff;
mod events;
mod footer;
mod history;
mod input;
mod keys;
pub mod markdown;
mod mcp;
pub mod mention;
mod model;
mod model_picker;
pub mod prompts;
mod renew;
mod replay;
mod rewind;
mod run;
mod sessions;
mod status_fit;
mod streamed;
pub mod tail;
pub(crate) mod terminal;
pub mod theme;
mod usage;
mod view;
mod viewer;
pub mod wrap;

#[cfg(test)]
mod tests;

pub use mention::{MentionSource, PathFilter};
pub use prompts::PromptDirs;
pub use renew::{Renew, RenewError, Renewed};
pub use theme::Theme;

use crate::SessionLink;
use crate::error::UiError;

/// What the TUI shows in its header and how it tells the user to come back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TuiInfo {
    /// The working directory, as shown in the header.
    pub cwd: String,
    /// The model, as shown in the header.
    pub model: String,
    /// The session ID for `ansa --session <hint>` on exit (empty: `ansa --continue`).
    pub session_hint: String,
    /// Which provider answers, for `/status`.
    pub provider: String,
    /// How requests are authorised (API key, sign-in), for `/status`.
    pub credentials: String,
    /// For a reopened session, the line that says so (shown under the header).
    pub resumed: Option<String>,
    /// The OS sandbox commands run under, for the footer and `/status`.
    pub sandbox: SandboxInfo,
    /// What tools may do without asking, for the footer and `/status`.
    pub access: AccessInfo,
    /// The model's context window in tokens (`models.<model>.context_window`), for the
    /// footer's and `/status`'s fill; `None` shows `?`.
    pub context_window: Option<u64>,
    /// Every model's context window the config gives (`models.<model>.context_window`): after
    /// a switch (`/model`) the fill is measured against the new model's.
    pub context_windows: Vec<(String, u64)>,
    /// Colours (see [`Theme::detect`]).
    pub theme: Theme,
    /// The workspace `@` completes paths of (none: no completion).
    pub mentions: Option<MentionSource>,
    /// Where `/name` prompt files are read from.
    pub prompts: PromptDirs,
    /// The ansa home whose sessions `/sessions` lists (`None`: the command says it cannot).
    pub sessions_home: Option<std::path::PathBuf>,
}

/// The OS sandbox as the footer and `/status` show it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SandboxInfo {
    /// The mode's name (`off`, `workspace-write`, `read-only`).
    pub mode: String,
    /// The Landlock ABI this kernel enforces, if it has Landlock.
    pub landlock_abi: Option<u8>,
    /// The mode in a sentence: writable roots and network (`/status`).
    pub description: String,
    /// Why the mode cannot be enforced here (commands are then not run), if it cannot.
    pub refused: Option<String>,
}

impl SandboxInfo {
    /// Whether a sandbox is configured (any mode but `off`).
    pub fn configured(&self) -> bool {
        !self.mode.is_empty() && self.mode != "off"
    }

    /// `workspace-write · Landlock ABI 7`, or the mode alone without Landlock.
    pub fn short(&self) -> String {
        match self.landlock_abi {
            Some(abi) => format!("{} · Landlock ABI {abi}", self.mode),
            None => format!("{} · no Landlock", self.mode),
        }
    }

    /// [`SandboxInfo::short`] for a narrow footer: `workspace-write · ABI 7`.
    pub fn abbreviated(&self) -> String {
        match self.landlock_abi {
            Some(abi) => format!("{} · ABI {abi}", self.mode),
            None => format!("{} · no Landlock", self.mode),
        }
    }
}

/// The access mode as the footer and `/status` show it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum AccessInfo {
    /// Every tool runs without asking (the default).
    #[default]
    FullAccess,
    /// Only tools that read.
    ReadOnly,
    /// Reads run freely; every command, edit and file change waits for approval.
    Ask,
}

impl AccessInfo {
    /// The footer's word for it, or `None` for the default (full access), which the footer
    /// leaves out.
    pub fn footer(self) -> Option<&'static str> {
        match self {
            AccessInfo::FullAccess => None,
            AccessInfo::ReadOnly => Some("read-only"),
            AccessInfo::Ask => Some("ask"),
        }
    }

    /// What `/status` says after the turn mode (fits one row at 60 columns).
    pub fn status(self) -> &'static str {
        match self {
            AccessInfo::FullAccess => "full access",
            AccessInfo::ReadOnly => "read-only: only reads run",
            AccessInfo::Ask => "ask: every change waits for approval",
        }
    }
}

/// How the TUI ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TuiExit {
    /// Process exit code: 0 after `/exit` or Ctrl+D, 130 after a second Ctrl+C or a
    /// termination signal (SIGTERM, SIGHUP, SIGINT).
    pub code: u8,
}

/// Runs the interactive chat on the process's terminal (stdin and stdout must be a TTY)
/// until the user leaves.
///
/// The first frame is drawn before any event arrives (no network I/O happens here). After
/// the runtime's first snapshot it asks for the last transcript entries and prints the last
/// three exchanges plus an unfinished request. On the way out — `/exit`, Ctrl+D, a second
/// Ctrl+C, SIGTERM/SIGHUP/SIGINT (which also cancel a running task), a panic — the live
/// region is erased and the terminal restored (raw mode off, cursor shown, bracketed paste
/// and keyboard flags popped); then [`ToRuntime::InputClosed`](crate::ToRuntime) is sent and
/// `ansa: continue with: ansa --session <hint>` is printed to stderr. It does not wait for
/// the runtime to stop: after a second Ctrl+C the caller should exit at once.
///
/// While it runs, SIGTERM, SIGHUP and SIGINT are caught (the caller must not install its
/// own interrupt handling for the TUI); afterwards they take their default action again.
///
/// # Errors
///
/// [`UiError::RuntimeStopped`] when the event stream ends while the TUI is open, and
/// [`UiError::Io`] when the terminal cannot be read or written. The terminal is restored
/// in every case.
pub fn run_tui(link: SessionLink, info: TuiInfo) -> Result<TuiExit, UiError> {
    run::run(link, info, None)
}

/// Like [`run_tui`], with `/new`: `renew` closes the session and opens a new one in the same
/// TUI (the old one's runtime has stopped when it is called). After this returns, the runtime
/// that is still running is `renew`'s latest one.
///
/// # Errors
///
/// As [`run_tui`]; also [`UiError::RuntimeStopped`] when neither a new session nor the previous
/// one could be opened after `/new`.
pub fn run_tui_renewing(
    link: SessionLink,
    info: TuiInfo,
    renew: &mut dyn Renew,
) -> Result<TuiExit, UiError> {
    run::run(link, info, Some(renew))
}
