//! What the frontends show of each server.

use crate::config::ServerName;

/// Where a server is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ServerState {
    /// Spawned or connecting; `initialize` and `tools/list` not yet answered.
    Starting,
    /// Handshake done; its tools are offered.
    Ready,
    /// Could not start (spawn error, handshake error, startup timeout) or stopped answering.
    Failed,
    /// The process exited or the connection closed after it was ready.
    Exited,
    /// Being started again by a call after it failed or exited.
    Restarting,
    /// `enabled: false` in the config: never started.
    Disabled,
}

impl ServerState {
    /// The word frontends print (`/mcp`, JSONL).
    pub fn as_str(self) -> &'static str {
        match self {
            ServerState::Starting => "starting",
            ServerState::Ready => "ready",
            ServerState::Failed => "failed",
            ServerState::Exited => "exited",
            ServerState::Restarting => "restarting",
            ServerState::Disabled => "disabled",
        }
    }

    /// Ready, failed, exited or disabled: nothing more happens until a call.
    pub fn is_settled(self) -> bool {
        !matches!(self, ServerState::Starting | ServerState::Restarting)
    }
}

/// One server's row in `/mcp`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerStatus {
    pub name: ServerName,
    pub state: ServerState,
    /// Tools offered (after the enabled/disabled filters); 0 unless ready.
    pub tools: usize,
    /// The most recent failure, already sanitised to one line of printable text.
    pub last_error: Option<String>,
}
