//! `/new`: a new session in the same TUI. The TUI only decides whether it may happen now (not
//! while a task runs, waits for approval or a rewind is open) and, once the driver has a new
//! runtime link, starts over on it; opening and closing sessions is the binary's start-up path
//! behind [`Renew`], so the TUI never opens a journal itself.

use super::TuiInfo;
use super::app::App;
use super::model::{Action, Tone};
use crate::SessionLink;

/// The binary's side of the TUI's sessions: `/new` closes the current session and opens a new
/// one with the same configuration, workspace and provider; work that would compete with the
/// first frame waits for it.
pub trait Renew {
    /// The first frame is on screen: what was held back so as not to delay it (the session's
    /// MCP servers) may start now. Called once.
    fn first_frame_drawn(&mut self);

    /// Waits until the current runtime has stopped (the TUI has closed its input: its journal
    /// is synced and its lock released), then starts a new session. On failure the error says
    /// why; `restored` is the previous session opened again, when that worked.
    fn renew(&mut self) -> Result<Renewed, RenewError>;
}

/// A started session for the TUI.
pub struct Renewed {
    /// The frontend's end of its runtime.
    pub link: SessionLink,
    /// Its header, hint and provider for the TUI.
    pub info: TuiInfo,
}

/// Why `/new` could not start a session.
pub struct RenewError {
    /// What failed and what to do.
    pub reason: String,
    /// The previous session, reopened, when that worked.
    pub restored: Option<Box<Renewed>>,
}

impl App {
    /// `/new`: refused with the reason while something runs; otherwise the driver is asked to
    /// switch sessions.
    pub(crate) fn new_session(&mut self, out: &mut Vec<Action>) {
        let busy = if self.approval.is_some() {
            Some("a tool call waits for your approval")
        } else if self.task.is_some() || !self.queued.is_empty() {
            Some("a task is running")
        } else if self.rewind.is_some() {
            Some("the rewind screens are open")
        } else if self.cursor.is_none() {
            Some("the session is still opening")
        } else {
            None
        };
        match busy {
            Some(why) => self.say(
                Tone::Warn,
                format!(
                    "/new is refused: {why}; wait until it has ended or cancel it (Ctrl+C), \
                     then /new again"
                ),
            ),
            None => out.push(Action::NewSession),
        }
    }
}
